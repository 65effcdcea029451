"""Prompt variants: named additions to the agents' system prompts, read from a TOML file.

The file has an optional ``[clauses]`` table of named texts and a ``[variants]`` table whose
values are either a list of clause names (joined with blank lines, in the order given) or a
string. ``baseline`` is built in and adds nothing. The default file, shipped with the
package, holds the four stage-targeted clauses of the collaboration-tax paper's section 5 and
its ``all_four`` / ``no_L1`` ... ``no_L4`` ablation rows.
"""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Any

from harness.runner.keys import BASELINE

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def default_variants_path() -> Path:
    """Path of the variants file shipped with the package."""
    return Path(str(resources.files("harness.runner") / "data" / "variants.toml"))


def load_variants(path: str | Path | None = None) -> dict[str, str]:
    """Read a variants file into ``{name: addition}`` (``baseline`` maps to ``""``).

    Parameters
    ----------
    path : str or Path, optional
        A TOML file; default :func:`default_variants_path`.

    Returns
    -------
    dict of str to str
        Every variant's text, ``"baseline"`` first.

    Raises
    ------
    ValueError
        Naming the file and the variant or clause: invalid TOML, a variant that is neither a
        string nor a list of known clause names, an empty addition, or a variant named
        ``baseline``.

    Examples
    --------
    >>> variants = load_variants()
    >>> list(variants)
    ['baseline', 'all_four', 'no_L1', 'no_L2', 'no_L3', 'no_L4']
    >>> variants["baseline"], variants["all_four"].startswith("Ground every claim")
    ('', True)
    >>> variants["no_L1"] in variants["all_four"]
    True
    """
    path = Path(path) if path is not None else default_variants_path()
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the prompt-variants file ({exc.strerror})") \
            from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not valid TOML: {exc}") from None
    unknown = set(data) - {"clauses", "variants"}
    if unknown:
        raise ValueError(f"{path}: unknown table(s) {sorted(unknown)}; expected [clauses] "
                         "and [variants]")
    clauses: dict[str, Any] = data.get("clauses", {})
    for name, text in clauses.items():
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"{path}: clauses.{name} must be a non-empty string, got {text!r}")
    out = {BASELINE: ""}
    for name, value in data.get("variants", {}).items():
        where = f"{path}: variants.{name}"
        if name == BASELINE:
            raise ValueError(f"{where}: 'baseline' is built in (no addition) and cannot be "
                             "redefined")
        if isinstance(value, str):
            text = value.strip()
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            missing = [v for v in value if v not in clauses]
            if missing:
                raise ValueError(f"{where}: unknown clause(s) {missing}; [clauses] defines "
                                 f"{sorted(clauses)}")
            text = "\n\n".join(clauses[v].strip() for v in value)
        else:
            raise ValueError(f"{where}: expected a string or a list of clause names, got "
                             f"{value!r}")
        if not text:
            raise ValueError(f"{where}: the addition is empty")
        out[name] = text
    return out


def apply_variant(system_prompt: str, addition: str) -> str:
    """The system prompt with a variant's addition appended after a blank line.

    Examples
    --------
    >>> apply_variant("Solve it.", "")
    'Solve it.'
    >>> apply_variant("Solve it.", "Check twice.")
    'Solve it.\\n\\nCheck twice.'
    """
    return f"{system_prompt}\n\n{addition}" if addition else system_prompt
