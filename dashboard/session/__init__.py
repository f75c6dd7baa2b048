"""A visitor's session: its state, sign-in, store, restoration and per-user limits.

The session-state contract (``state``), sign-in and its owner token, the in-memory store that keeps a session between
visits, its restoration, and the per-user limits on jobs and tables.
"""
