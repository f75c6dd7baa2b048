"""The foundation: what every layer above may use and that imports nothing else of privcore.

``errors`` (the user-facing :class:`InputError` and the exceptions metrics raise), ``jsonvalues`` (numbers
made JSON-safe), ``stats`` (ROC, AUC, intervals, bootstrap: the statistics core) and ``cores`` (how many
CPU cores this process may use).
"""
