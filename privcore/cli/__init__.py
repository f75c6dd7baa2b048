"""``python -m privcore``: the command line, one module per sub-command (``main`` for evaluate and the
listings, ``audit``, ``lab``) over the shared argument helpers of ``args``."""
