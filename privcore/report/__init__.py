"""Presentation: figures per family (Plotly), the HTML downloads and the JSON schema of the documents.

Everything here reads what the layers below computed and decided; nothing below imports it.
"""
