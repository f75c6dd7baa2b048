"""Colours and line styles shared by every figure and every level badge: the Okabe–Ito palette.

Interpretation (a risk level's colour) and presentation (a figure's traces) both read it, so it sits in the
foundation, with no plotting import.
"""

from __future__ import annotations

#: Okabe & Ito (2008), "Color Universal Design": eight colours distinguishable by colour-blind readers.
OKABE_ITO: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky_blue": "#56B4E9",
    "bluish_green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "reddish_purple": "#CC79A7",
}

#: Colour cycle for categorical series (synthetic tables...): yellow last, it is faint on white.
PALETTE: tuple[str, ...] = tuple(
    OKABE_ITO[k] for k in ("orange", "blue", "bluish_green", "vermillion", "reddish_purple", "sky_blue",
                           "black", "yellow")
)

#: One colour per role, used consistently in every figure.
ROLE_COLOURS: dict[str, str] = {
    "real": OKABE_ITO["blue"],
    "synthetic": OKABE_ITO["orange"],
    "holdout": OKABE_ITO["bluish_green"],
    "real→real": OKABE_ITO["blue"],
    "link": OKABE_ITO["black"],
    "threshold": OKABE_ITO["black"],
    "chance": OKABE_ITO["black"],
}

#: Dash patterns, so lines are told apart without colour.
DASHES: tuple[str, ...] = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
SYMBOLS: tuple[str, ...] = ("circle", "x", "triangle-up", "diamond", "square", "star")
