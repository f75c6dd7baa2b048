"""Streamlit-side helpers shared by app.py and the pages (state, page set-up, UI components)."""
