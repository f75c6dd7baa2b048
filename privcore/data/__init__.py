"""The tables and what is said about them: reading files (``io``), column types and roles (``schema``),
cleaning and aligning tables for an evaluation (``prepare``), memory estimates (``memory``) and declared,
checked settings of metrics and generators (``params``). Imports only :mod:`privcore.base`."""
