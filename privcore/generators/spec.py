"""What the registry says about one generator: :class:`GeneratorSpec`, and whether its optional extra is here.

A module of its own, below both the registry and the generators that declare their specs beside their code
(:mod:`privcore.generators.sdv`), so that neither imports the other.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from privcore.data import Param

__all__ = ["GeneratorSpec", "install_command", "module_installed"]


def install_command(extra: str) -> str:
    """The one command that installs an optional extra of privcore.

    >>> install_command("sdv")
    "pip install 'privcore[sdv]'"
    """
    return f"pip install 'privcore[{extra}]'"


def module_installed(name: str) -> bool:
    """Whether ``import name`` would find the module, without importing it (SDV and torch take seconds).

    A module set to ``None`` in ``sys.modules`` (how tests hide one) counts as missing.
    """
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):  # ValueError: sys.modules[name] is None or has no __spec__
        return False


@dataclass(frozen=True)
class GeneratorSpec:
    """A generator the registry knows by name.

    Attributes
    ----------
    name : str
        Registry name (``--generator NAME``).
    description : str
        One line for listings.
    params : tuple of Param
        Its settings.
    build : callable
        ``build(**settings, **context)`` → a new, unfitted generator.
    context : tuple of str
        The context keywords it uses (from :data:`privcore.generators.registry.CONTEXT`).
    ladder : bool
        A leak type of the lab's ladder (it has a ``level`` setting in [0, 1]).
    exclusive : tuple of tuple of str
        Pairs of settings that must not be given together.
    label : str
        Its name in words for the dashboard ("CTGAN (SDV)"); empty: the registry gives one.
    extra : str, optional
        The optional extra of privcore it needs (``pip install 'privcore[EXTRA]'``), if any.
    requires : tuple of str
        The modules that extra brings; the generator is installed when all of them are found.
    """

    name: str
    description: str
    params: tuple[Param, ...]
    build: Callable[..., Any]
    context: tuple[str, ...] = ()
    ladder: bool = False
    exclusive: tuple[tuple[str, str], ...] = ()
    label: str = ""
    extra: str | None = None
    requires: tuple[str, ...] = ()

    @property
    def installed(self) -> bool:
        """Whether every module it needs is found (checked each time: an install needs no restart)."""
        return all(module_installed(module) for module in self.requires)

    @property
    def install(self) -> str | None:
        """The command that installs what it needs, or None when it needs nothing beyond privcore."""
        return install_command(self.extra) if self.extra else None

    def describe(self) -> str:
        """The name, the description and one indented line per setting."""
        lines = [f"{self.name}: {self.description}"]
        lines += [f"    {p.name}: {p.help.rstrip('.')} ({p.describe_range()}; default {p.describe_default()})"
                  for p in self.params]
        if self.context:
            lines.append(f"    uses: {', '.join(self.context)}")
        if self.extra and not self.installed:
            lines.append(f"    not installed: {self.install}")
        return "\n".join(lines)
