"""``python -m privcore``: the command line.

``main`` builds the parser from the options of ``parsers`` (argparse only) and imports the module of the sub-command
that runs (``evaluate``, ``listings`` for ``metrics``, ``schema``, ``demo``, ``audit``, ``lab``) on demand; those run
over the shared helpers of ``args``.
"""
