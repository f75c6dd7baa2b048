"""The diffusion processes of TabDDPM (Kotelnikov et al., ICML 2023), apart from any table or generator.

Parts: :mod:`.schedule` (numpy), :mod:`.gaussian`, :mod:`.multinomial` and :mod:`.denoiser` (torch). The
generator is :mod:`privcore.generators.tabddpm`; this package imports nothing of the generators, and importing
it imports neither torch nor scikit-learn.
"""
