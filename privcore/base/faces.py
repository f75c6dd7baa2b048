"""Lazy package faces: a package offers its public names and loads the module behind each on first use."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any


def lazy_face(package: str, names: Mapping[str, str], namespace: dict[str, Any]) -> list[str]:
    """Make a package's ``__init__`` the face of its modules, each loaded when one of its names is first used.

    Installs a module-level ``__getattr__`` and ``__dir__`` in ``namespace``. The first access to a name imports
    the module that defines it and caches the value in ``namespace``, so later accesses are plain attributes.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    names : Mapping[str, str]
        Each public name -> where it is defined: a module path relative to the package (``"neighbors"``,
        ``"membership._base"``) or absolute (``"privcore.evaluation.verdict"``), optionally followed by
        ``":attribute"`` when the name stands for an attribute of another name (``"...verdict:audit_verdict"``).
    namespace : dict
        The package's ``globals()``.

    Returns
    -------
    list of str
        The names, sorted (the package's ``__all__``).

    Notes
    -----
    An unknown name raises :class:`AttributeError`, so ``from package import submodule`` still imports the
    submodule through Python's fallback. A name equal to a submodule's name cannot be offered: importing the
    submodule anywhere sets the package attribute to the module.

    Examples
    --------
    >>> namespace = {"__name__": "privcore.base"}
    >>> lazy_face("privcore.base", {"usable_cores": "cores"}, namespace)
    ['usable_cores']
    >>> namespace["__getattr__"]("usable_cores") is namespace["usable_cores"]
    True
    """
    root = package.partition(".")[0] + "."

    def __getattr__(name: str) -> Any:
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        where, _, attribute = names[name].partition(":")
        module = importlib.import_module(where if where.startswith(root) else f"{package}.{where}")
        value = getattr(module, attribute or name)
        namespace[name] = value  # the next access is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    namespace["__getattr__"] = __getattr__
    namespace["__dir__"] = __dir__
    return sorted(names)

