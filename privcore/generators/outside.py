"""Bring your own generator: ``MODULE:ATTR`` references and the server admin's ``PRIVCORE_GENERATORS``."""

from __future__ import annotations

import importlib
import inspect
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from privcore.generators.adapters import as_generator
from privcore.generators.base import GeneratorError
from privcore.generators.spec import GeneratorSpec

__all__ = ["is_reference", "load_reference", "reference_maker", "registered_specs", "ENV_VARIABLE"]

LOGGER = logging.getLogger(__name__)

#: The environment variable in which the server admin registers generators: ``name=module:attr,...``.
ENV_VARIABLE = "PRIVCORE_GENERATORS"

_METHODS = "fit(table, types) and sample(n, seed) methods"


def is_reference(name: str) -> bool:
    """Whether ``--generator`` names a ``MODULE:ATTR`` rather than a registered generator.

    >>> is_reference("my_models:Synth"), is_reference("sdv_ctgan")
    (True, False)
    """
    return isinstance(name, str) and ":" in name


def _split(reference: str) -> tuple[str, str]:
    module, _, attr = reference.partition(":")
    module, attr = module.strip(), attr.strip()
    if not module or not attr or ":" in attr:
        raise GeneratorError(f"Generator {reference!r} is not of the form MODULE:ATTR (for example "
                             "my_generators:MySynthesizer).")
    return module, attr


def load_reference(reference: str) -> Any:
    """The object ``MODULE:ATTR`` names (``ATTR`` may be dotted: ``module:Class.factory``).

    Raises
    ------
    GeneratorError
        One line saying what to do: the module cannot be imported (put its folder on ``PYTHONPATH`` or install
        it), it has no such attribute, or the reference is not ``MODULE:ATTR``.
    """
    module_name, attr = _split(reference)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        where = "" if error.name == module_name else f" (it imports {error.name!r}, which is not installed)"
        raise GeneratorError(f"Cannot import module {module_name!r} of generator {reference!r}{where}: put the "
                             "folder holding it on PYTHONPATH, or install it.") from None
    except Exception as error:  # noqa: BLE001 - the user's module failed on import: say which and how, in one line
        raise GeneratorError(f"Importing module {module_name!r} of generator {reference!r} failed: "
                             f"{type(error).__name__}: {_one_line(error)}") from None
    target: Any = module
    for part in attr.split("."):
        if not hasattr(target, part):
            raise GeneratorError(f"Module {module_name!r} has no attribute {attr!r}: name a generator class, a "
                                 f"factory or an object with {_METHODS} (--generator MODULE:ATTR).")
        target = getattr(target, part)
    return target


def _has_methods(obj: Any) -> bool:
    return callable(getattr(obj, "fit", None)) and callable(getattr(obj, "sample", None))


def reference_maker(reference: str, settings: Mapping[str, Any] | None = None, label: str | None = None, *,
                    check: bool = True) -> Callable[..., Any]:
    """``make(population=None)``: a generator from ``MODULE:ATTR``, made anew for every fit when ATTR makes one.

    The reference is imported and checked at once, so a wrong one fails before any work.

    Parameters
    ----------
    reference : str
        ``MODULE:ATTR``.
    settings : mapping, optional
        Keyword arguments of the class or factory (an object used as it is takes none).
    label : str, optional
        The generator's name in messages (default: the reference).
    check : bool
        Make one generator now, so that a factory that cannot make one fails here.

    Raises
    ------
    GeneratorError
        See :func:`load_reference`; also an object without ``fit``/``sample``, a class without them, settings
        given to an object, or a factory that fails or returns something without the methods.

    Notes
    -----
    A reference ``MODULE:ATTR`` names, in an importable module, one of

    - a class or a factory (any other callable): called once per fit, with the settings given
      (``--generator-param KEY=VALUE``) as keyword arguments, and returning a generator;
    - an object with ``fit`` and ``sample``: used as it is, refitted on every training table.

    A generator is anything :func:`privcore.generators.as_generator` accepts: ``fit(table[, types])`` and
    ``sample(n, seed)``, or an SDV-style ``fit(df)`` / ``sample(num_rows)``; its output is checked and conformed
    to the training table.
    """
    target, settings, label = load_reference(reference), dict(settings or {}), label or reference
    if inspect.isclass(target) and not _has_methods(target):
        raise GeneratorError(f"{reference} is a class without {_METHODS}: give it those methods, or name "
                             "another class.")
    if not inspect.isclass(target) and _has_methods(target):
        if settings:
            raise GeneratorError(f"{reference} is an object, not a class or factory, so it takes no settings: drop "
                                 "--generator-param or name a class.")
        generator = as_generator(target, name=label)
        return lambda population=None: generator
    if not callable(target):
        raise GeneratorError(f"{reference} is of type {type(target).__name__}, not a generator: name a class, a "
                             f"factory or an object with {_METHODS}.")

    def make(population: Any = None) -> Any:
        try:
            made = target(**settings)
        except TypeError as error:  # wrong settings for its signature
            raise GeneratorError(f"{reference}(**settings) failed: {_one_line(error)}") from None
        if not _has_methods(made):
            raise GeneratorError(f"{reference} returned an object of type {type(made).__name__}, not a generator: "
                                 f"it needs {_METHODS}.")
        return as_generator(made, name=label)

    if check:
        make()  # a factory that cannot make a generator fails here, before any work
    return make


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def registered_specs(taken: Mapping[str, Any] = (), environ: Mapping[str, str] | None = None) -> list[GeneratorSpec]:
    """The generators the server admin registered in ``PRIVCORE_GENERATORS="name=module:attr,..."``.

    Nothing is imported here: a spec's ``build()`` imports its module (on the first audit that uses it).
    Entries that are malformed or take the name of a built-in (in ``taken``) are skipped with a warning in
    the log, so a typo never stops the server.

    >>> [(s.name, s.description) for s in registered_specs(environ={ENV_VARIABLE: "mine=pkg.mod:Gen, bad"})]
    [('mine', 'Registered by the server admin: pkg.mod:Gen.')]

    Notes
    -----
    ``PRIVCORE_GENERATORS="name=module:attr,..."``, set by whoever runs the dashboard server, adds named
    generators to the registry (:func:`privcore.generators.list_generators`), so the Audit page lists them. Only
    code installed on the server is imported; a visitor never names a module.
    """
    text = (os.environ if environ is None else environ).get(ENV_VARIABLE, "")
    specs: dict[str, GeneratorSpec] = {}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        name, equals, reference = (s.strip() for s in entry.partition("="))
        if not equals or not name or not is_reference(reference) or name in taken or name in specs:
            LOGGER.warning("%s: skipped %r (want name=module:attr, a name not already taken)", ENV_VARIABLE, entry)
            continue
        specs[name] = GeneratorSpec(name, f"Registered by the server admin: {reference}.", (),
                                    _registered_build(reference, name), label=name)
    return list(specs.values())


def _registered_build(reference: str, name: str) -> Callable[[], Any]:
    return lambda: reference_maker(reference, label=name, check=False)()
