"""From a result object to its HTML page: one registry, one entry per result type.

:func:`html_report` looks the result's type up in :data:`PAGES` (filled by
:func:`page_for`) and renders the :class:`~noisefloor.report.html.page.Page` its builder returns. A
new result type (a frozen dataclass with ``to_dict()``) needs one builder::

    @page_for(MyResult)
    def _my_page(result, **options) -> Page: ...

Builders take their facts from the functions that render the terminal text and ``report.md``
(:mod:`noisefloor.report.text`) and their numbers from ``result.to_dict()`` (the ``--json``
document), so the three outputs never disagree.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from noisefloor.report.html.page import Markup, Page, esc, render_page

__all__ = ["PAGES", "html_report", "page_for", "resolve", "write_html"]

#: Page builders by result type.
PAGES: dict[type, Callable[..., Page]] = {}


def page_for(kind: type) -> Callable[[Callable[..., Page]], Callable[..., Page]]:
    """Register the page builder of result type ``kind``."""
    def register(builder: Callable[..., Page]) -> Callable[..., Page]:
        PAGES[kind] = builder
        return builder
    return register


def resolve(data: Any, key: str) -> Any:
    """The value at a dotted ``key`` of a JSON document (list items by index).

    Examples
    --------
    >>> resolve({"a": [{"b": 1.5}]}, "a.0.b")
    1.5

    Raises
    ------
    KeyError
        When the path does not exist (a page must show only what ``--json`` holds).
    """
    cur = data
    for part in key.split("."):
        if isinstance(cur, list):
            cur = cur[int(part)]
        elif isinstance(cur, dict) and part in cur:
            cur = cur[part]
        elif isinstance(cur, dict) and part.lstrip("-").isdigit() and int(part) in cur:
            cur = cur[int(part)]  # integer keys (k of pass^k) are strings in JSON
        else:
            raise KeyError(f"no {key!r} in the JSON document (stopped at {part!r})")
    return cur


#: How a number is formatted from its JSON value, by ``data-fmt``: percentage points,
#: signed percentage points, integer, p-value, ratio, proportion with three decimals.
FORMATS: dict[str, Callable[[Any], str]] = {
    "pp": lambda v: "n/a" if v is None else f"{v * 100:.1f}",
    "pp+": lambda v: "n/a" if v is None else f"{v * 100:+.1f}",
    "int": lambda v: "n/a" if v is None else f"{int(v)}",
    "p": lambda v: "n/a" if v is None else ("<1e-300" if v == 0 else f"{v:.3g}"),
    "ratio": lambda v: "n/a" if v is None else f"{v:.2f}",
    "prop": lambda v: "n/a" if v is None else f"{v:.3f}",
}


def shown(data: Any, key: str, fmt: str) -> Markup:
    """A JSON value as the page shows it: ``<span class="nf-num" data-key data-value
    data-fmt>`` around its text in format ``fmt`` (:data:`FORMATS`)."""
    import json

    value = resolve(data, key)
    if isinstance(value, float) and not math.isfinite(value):
        value = None
    text = FORMATS[fmt](value)
    return Markup(f'<span class="nf-num" data-key="{esc(key)}" data-fmt="{fmt}" '
                  f'data-value="{esc(json.dumps(value))}">{esc(text)}</span>')


def html_report(result: Any, **options: Any) -> str:
    """The HTML page of ``result`` (any type registered in :data:`PAGES`).

    Raises
    ------
    TypeError
        When no page is registered for the result's type.
    """
    from noisefloor.report.html import (  # noqa: F401 - importing them registers the builders
        compare,
        floor,
        pass_hat_k,
        report_doc,
        tax,
    )

    for kind in type(result).__mro__:
        if kind in PAGES:
            return render_page(PAGES[kind](result, **options))
    raise TypeError(f"no HTML page for {type(result).__name__}; registered: "
                    + ", ".join(sorted(k.__name__ for k in PAGES)))


def write_html(result: Any, path: str | Path, **options: Any) -> Path:
    """Write :func:`html_report` of ``result`` to ``path`` (parents created); return it."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(html_report(result, **options), encoding="utf-8")
    return p
