"""The diffusion processes of TabDDPM (Kotelnikov et al., ICML 2023), apart from any table or generator.

Parts, each small: :mod:`.schedule` (β, α, ᾱ and the posterior's constants; numpy), :mod:`.gaussian` and
:mod:`.multinomial` (the two diffusions; torch) and :mod:`.denoiser` (the MLP with its timestep embedding;
torch). The generator that trains and samples them on a table is :mod:`privcore.generators.tabddpm` (with
:mod:`privcore.generators.tabddpm_encoding`); this package imports nothing of the generators, so the registry can
list TabDDPM without an import cycle. Importing it imports neither torch nor scikit-learn.
"""
