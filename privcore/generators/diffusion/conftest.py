"""Doctest collection: the modules that import torch at the top are left out when the extra is missing."""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("torch") else ["gaussian.py", "multinomial.py", "denoiser.py"]
