"""SDV's single-table synthesizers as built-in generators: ``sdv_gaussian_copula``, ``sdv_ctgan``, ``sdv_tvae``.

The specs are in :data:`SDV_SPECS`; the registry lists them after the other built-ins.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pandas as pd

from privcore.data import BINARY, NUMERICAL, Param
from privcore.generators.adapters import SDVAdapter, fit_sdv, seed_global_state
from privcore.generators.base import GeneratorError, GeneratorSettingError, check_types
from privcore.generators.spec import GeneratorSpec, install_command, module_installed

__all__ = ["SDV_SPECS", "SDVSynthesizer", "sdv_metadata", "import_sdv"]

#: The extra that brings SDV and torch, and the command that installs it.
SDV_EXTRA = "sdv"
SDV_INSTALL = install_command(SDV_EXTRA)
#: The one table's name in SDV's metadata (SDV 2 names every table, even a single one).
TABLE = "privcore"


def missing_sdv(who: str) -> GeneratorError:
    """The error for a missing SDV: what needs it and the one command that installs it."""
    return GeneratorError(f"{who} needs SDV, which is not installed here. Install it with: {SDV_INSTALL}")


def import_sdv(who: str) -> SimpleNamespace:
    """SDV's ``Metadata`` class and ``single_table`` module, imported on first use (SDV loads torch, seconds).

    Raises
    ------
    GeneratorError
        SDV, or a package it needs (torch…), cannot be imported; the message names the install command.
    """
    try:
        import sdv  # noqa: F401 - optional extra (privcore[sdv]); heavy, so imported only to fit
        from sdv import single_table  # lazy: as the line above
        from sdv.metadata import Metadata  # lazy: as the line above
    except ImportError as error:
        raise missing_sdv(who) from error
    return SimpleNamespace(Metadata=Metadata, single_table=single_table, version=sdv.__version__)


def _sdtype(column: pd.Series, kind: str) -> str:
    if kind == NUMERICAL:
        return "numerical"
    # SDV's boolean sdtype accepts only True/False (and missing); a yes/no column stays categorical.
    if kind == BINARY and column.dropna().map(lambda v: isinstance(v, bool)).all() and column.notna().any():
        return "boolean"
    return "categorical"


def sdv_metadata(metadata_class: Any, table: pd.DataFrame, types: Mapping[str, str], name: str = TABLE) -> Any:
    """SDV metadata of ``table`` with one sdtype per column from privcore's ``types``.

    Detection (``Metadata.detect_from_dataframes``) gives the table's structure; every column's sdtype is
    then set from ``types``, and no key is inferred: a column of unique values is data here, not an id.

    Parameters
    ----------
    metadata_class : type
        ``sdv.metadata.Metadata``.
    table : DataFrame
        The training table.
    types : mapping
        Column → ``numerical``, ``categorical`` or ``binary`` (every column of ``table``).
    name : str
        The table's name in the metadata.
    """
    metadata = metadata_class.detect_from_dataframes({name: table}, infer_keys=None)
    metadata.update_columns_metadata({col: {"sdtype": _sdtype(table[col], types[col])} for col in table.columns},
                                     table_name=name)
    return metadata


class SDVSynthesizer(SDVAdapter):
    r"""One of SDV's single-table synthesizers, a new one trained from scratch on every ``fit``.

    Parameters
    ----------
    synthesizer : str
        The class's name in ``sdv.single_table`` (``"CTGANSynthesizer"``).
    name : str
        The registry name, in messages.
    **settings
        Passed to the synthesizer's constructor (checked by the registry's :class:`Param` declarations).

    Raises
    ------
    GeneratorError
        SDV is not installed (the message names ``pip install 'privcore[sdv]'``).

    Notes
    -----
    SDV (and torch, which CTGAN and TVAE train with) is an optional extra, ``pip install 'privcore[sdv]'``:
    nothing here imports it at module level, so listing the generators stays fast and works without it. Making
    one of these generators checks that SDV is found (without importing it); fitting imports it. Either raises
    a :class:`~privcore.generators.base.GeneratorError` naming the install command when it is missing.

    What privcore adds to calling SDV directly:

    - SDV's metadata is built from privcore's column types (``numerical`` → ``numerical``, ``categorical`` →
      ``categorical``, ``binary`` → ``boolean`` for a column of booleans, else ``categorical``), not left to
      SDV's detection, which would take a column of unique numbers for an id and drop it from the model.
    - Seeds: the fit draws from global state seeded by the table's content (one table, one model), the sample
      from the synthesizer's own random state and the global one seeded by ``seed`` (one seed, one table);
      see :func:`privcore.generators.adapters.sample_sdv`.
    - Settings are declared :class:`~privcore.data.params.Param`\ s with SDV's defaults, and CTGAN's batch
      size is checked against its ``pac`` before any training.
    """

    def __init__(self, synthesizer: str, *, name: str, **settings: Any):
        if not module_installed("sdv"):
            raise missing_sdv(name)
        # Not SDVAdapter.__init__: the synthesizer is made in _fit_inner, from the table's metadata.
        self.synthesizer_class, self.settings_given = synthesizer, dict(settings)
        self.synthesizer, self._factory, self.name, self.reseed = None, None, name, seed_global_state

    def _fit_inner(self, table: pd.DataFrame, types: Mapping[str, str] | None) -> None:
        types = check_types(table, types, self.name)
        sdv = import_sdv(self.name)
        # CTGAN and TVAE refuse pandas' category dtype; the output is cast back by check_sample.
        table = table.astype({c: object for c in table.columns if isinstance(table[c].dtype, pd.CategoricalDtype)})
        with warnings.catch_warnings():
            # SDV advises saving the metadata it was given; privcore rebuilds it on every fit.
            warnings.filterwarnings("ignore", message=".*metadata.*", category=UserWarning)
            metadata = sdv_metadata(sdv.Metadata, table, types)
            self.synthesizer = getattr(sdv.single_table, self.synthesizer_class)(metadata, **self.settings_given)
            fit_sdv(self.synthesizer, table)

    def settings(self) -> dict[str, Any]:
        """The settings given to SDV."""
        return dict(self.settings_given)

    def __repr__(self) -> str:
        settings = "".join(f", {k}={v!r}" for k, v in self.settings_given.items())
        return f"SDVSynthesizer({self.synthesizer_class!r}{settings})"


# ------------------------------------------------------------------------------------------ settings
def _epochs(default: int = 300) -> Param:
    return Param("epochs", "int", default, "Epochs", "Passes over the training table.", minimum=1, maximum=100_000)


def _batch(help_text: str) -> Param:
    return Param("batch_size", "int", 500, "Batch size", help_text, minimum=2, maximum=1_000_000, step=10)


def _dim(name: str, label: str, default: int, what: str) -> Param:
    return Param(name, "int", default, label, what, minimum=1, maximum=4096)


def _rate(name: str, label: str, default: float, what: str) -> Param:
    return Param(name, "float", default, label, what, minimum=0.0, maximum=1.0)


_CTGAN_PARAMS = (
    _epochs(),
    _batch("Rows per training step; even and a multiple of pac."),
    Param("pac", "int", 10, "Pac", "Rows the discriminator judges together (PacGAN), against mode collapse.",
          minimum=1, maximum=100),
    _dim("embedding_dim", "Noise size", 128, "Size of the random input of the generator network."),
    _rate("generator_lr", "Generator learning rate", 2e-4, "Adam learning rate of the generator."),
    _rate("discriminator_lr", "Discriminator learning rate", 2e-4, "Adam learning rate of the discriminator."),
    _rate("generator_decay", "Generator weight decay", 1e-6, "Adam weight decay of the generator."),
    _rate("discriminator_decay", "Discriminator weight decay", 1e-6, "Adam weight decay of the discriminator."),
    Param("discriminator_steps", "int", 1, "Discriminator steps", "Discriminator updates per generator update.",
          minimum=1, maximum=100),
)

_TVAE_PARAMS = (
    _epochs(),
    _batch("Rows per training step."),
    _dim("embedding_dim", "Latent size", 128, "Size of the autoencoder's latent space."),
    Param("l2scale", "float", 1e-5, "Weight decay", "L2 regularisation of the networks' weights.", minimum=0.0,
          maximum=1.0),
    Param("loss_factor", "float", 2.0, "Reconstruction weight", "Weight of the reconstruction error in the loss.",
          minimum=0.0, maximum=1000.0),
)


def _build_copula(**settings: Any) -> SDVSynthesizer:
    return SDVSynthesizer("GaussianCopulaSynthesizer", name="sdv_gaussian_copula", **settings)


def _build_ctgan(**settings: Any) -> SDVSynthesizer:
    # Checked here, not deep in training: CTGAN asserts an even batch and the discriminator one divisible by pac.
    batch, pac = settings["batch_size"], settings["pac"]
    if batch % 2 or batch % pac:
        raise GeneratorSettingError(f"sdv_ctgan: batch_size must be even and a multiple of pac ({pac}); got "
                                    f"{batch}. Try {_fitting_batch(batch, pac)}.")
    return SDVSynthesizer("CTGANSynthesizer", name="sdv_ctgan", **settings)


def _fitting_batch(batch: int, pac: int) -> int:
    """The nearest batch size at or above ``batch`` that is even and a multiple of ``pac``.

    >>> _fitting_batch(25, 10), _fitting_batch(7, 3)
    (30, 12)
    """
    step = pac if pac % 2 == 0 else 2 * pac
    return -(-batch // step) * step


def _build_tvae(**settings: Any) -> SDVSynthesizer:
    return SDVSynthesizer("TVAESynthesizer", name="sdv_tvae", **settings)


_SDV = {"extra": SDV_EXTRA, "requires": ("sdv", "torch")}

#: The SDV generators, in listing order (added to the registry after the other built-ins).
SDV_SPECS: tuple[GeneratorSpec, ...] = (
    GeneratorSpec("sdv_gaussian_copula", "SDV's Gaussian copula: marginals fitted per column, correlations by a "
                  "copula (needs privcore[sdv]).", (), _build_copula, label="Gaussian copula (SDV)", **_SDV),
    GeneratorSpec("sdv_ctgan", "SDV's CTGAN, a conditional GAN for tables; slow on CPU (needs privcore[sdv]).",
                  _CTGAN_PARAMS, _build_ctgan, label="CTGAN (SDV)", **_SDV),
    GeneratorSpec("sdv_tvae", "SDV's TVAE, a variational autoencoder for tables (needs privcore[sdv]).",
                  _TVAE_PARAMS, _build_tvae, label="TVAE (SDV)", **_SDV),
)
