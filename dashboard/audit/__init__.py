"""The Audit page's logic and panels.

They cover the targeted and shared designs, the white-box attack, the run-time estimate and the citations of audits on
the Results page.
"""
