"""Home page: what the dashboard does, and the two ways to start (demo data or your own upload).

Run with ``streamlit run app.py``, which first imports this file once (as the module ``app``) to find the server's
``st.App``: its start-up warms the server (dashboard/server_start.py). Every visit runs it as ``__main__``.
"""

import streamlit as st

from dashboard.server_start import lifespan

if __name__ == "__main__":  # a visit: Streamlit runs a page's script as the module "__main__"
    from dashboard.home import render

    render()
else:  # `streamlit run app.py` imports this file once, as the module "app", and serves this ASGI app
    app = st.App("app.py", lifespan=lifespan)
