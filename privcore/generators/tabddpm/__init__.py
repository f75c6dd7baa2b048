"""TabDDPM (Kotelnikov et al., ICML 2023) as the built-in generator ``tabddpm``; needs ``privcore[tabddpm]``.

Parts, each small: :mod:`.schedule` (β, α, ᾱ and the posterior's constants; numpy), :mod:`.gaussian` and
:mod:`.multinomial` (the two diffusions; torch), :mod:`.denoiser` (the MLP with its timestep embedding;
torch), :mod:`.encoding` (tables to normalised numbers and category codes and back; numpy and scikit-learn)
and :mod:`.model` (the generator: training, ancestral sampling, the per-record loss). Importing this package
imports neither torch nor scikit-learn; fitting a model does.
"""

from privcore.generators.tabddpm.model import DEVICES, TABDDPM_EXTRA, TABDDPM_INSTALL, TABDDPM_SPEC, TabDDPM

__all__ = ["TabDDPM", "TABDDPM_SPEC", "TABDDPM_EXTRA", "TABDDPM_INSTALL", "DEVICES"]
