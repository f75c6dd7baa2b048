"""The tables and what is said about them.

Reading files (``io``, with ``file_formats``, ``text_tables``, ``tidying``, ``table_checks`` and ``wording``), column
types and roles (``schema``), cleaning and aligning tables for an evaluation (``prepare``), memory estimates
(``memory``) and declared, checked settings of metrics and generators (``params``). Imports only :mod:`privcore.base`.
"""
