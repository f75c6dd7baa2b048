"""Synthetic-data generators under one protocol: for the metric lab, the shadow-model audit and the demo.

The protocol is :class:`Generator` (:mod:`privcore.generators.base`); the built-ins are made by name with
:func:`make_generator`; TabDDPM and SDV's synthesizers are optional extras. Errors are
:class:`privcore.base.errors.InputError` subclasses under :class:`GeneratorError`.
"""

from privcore.generators import adapters, base, cart, copies, models, outside, privbayes, registry, sdv, spec
from privcore.generators.adapters import *  # noqa: F403 - the public names of each part, listed there
from privcore.generators.base import *  # noqa: F403
from privcore.generators.cart import *  # noqa: F403
from privcore.generators.copies import *  # noqa: F403
from privcore.generators.models import *  # noqa: F403
from privcore.generators.outside import *  # noqa: F403
from privcore.generators.privbayes import *  # noqa: F403
from privcore.generators.registry import *  # noqa: F403
from privcore.generators.sdv import *  # noqa: F403
from privcore.generators.spec import *  # noqa: F403

__all__ = list(dict.fromkeys([*base.__all__, *registry.__all__, *adapters.__all__, *copies.__all__, *models.__all__,
                              *outside.__all__, *sdv.__all__, *spec.__all__, *privbayes.__all__, *cart.__all__]))
