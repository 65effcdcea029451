"""Lazy exports for packages: a name is imported from its defining module on first use.

A package that exports many names keeps ``import noisefloor`` and ``noisefloor --help`` fast by
importing each name only when it is first read (PEP 562: a module-level ``__getattr__`` and
``__dir__``). Each such package keeps a table ``_HOMES`` (exported name -> defining module) and
imports the same names under ``if TYPE_CHECKING:`` for type checkers; this module gives the two
module functions, so every package uses one mechanism.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, homes: Mapping[str, str], subpackages: Iterable[str] = ()
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of a package that exports ``homes`` lazily.

    Parameters
    ----------
    package : str
        The package's ``__name__``.
    homes : mapping of str to str
        Exported name -> the submodule (relative to ``package``, e.g. ``"stats.paired"`` in
        ``noisefloor``) that defines it.
    subpackages : iterable of str, default ()
        Subpackages (relative names) that are attributes of the package without an explicit
        import: ``noisefloor.stats`` after ``import noisefloor``.

    Returns
    -------
    tuple of two callables
        ``__getattr__(name)``: imports ``package.homes[name]`` (or the subpackage ``name``),
        caches the value in the package's namespace and returns it; raises
        :class:`AttributeError` for any other name. ``__dir__()``: the package's names, the
        exported ones and the subpackages, sorted.

    Examples
    --------
    >>> getattr_, dir_ = lazy_exports("noisefloor.floor", {"noise_floor": "estimate"})
    >>> getattr_("noise_floor").__name__
    'noise_floor'
    >>> getattr_("nothing")
    Traceback (most recent call last):
    ...
    AttributeError: module 'noisefloor.floor' has no attribute 'nothing'
    >>> getattr_, dir_ = lazy_exports("noisefloor", {}, subpackages=("floor",))
    >>> getattr_("floor").__name__
    'noisefloor.floor'
    """
    subs = frozenset(subpackages)

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is not None:
            value = getattr(importlib.import_module(f"{package}.{home}"), name)
        elif name in subs:
            value = importlib.import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(homes) | subs)

    return __getattr__, __dir__
