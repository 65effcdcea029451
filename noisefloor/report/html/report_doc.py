"""A page from a command's ``--json`` document and templates: :class:`ReportDoc`.

For commands whose result is a JSON document assembled on the command line (``leaderboard``,
``agreement``, ``plan``): the verdict and the table cells are templates in which
``{key:fmt}`` is the value at ``key`` of the document, shown in format ``fmt`` (see
:data:`noisefloor.report.html.render.FORMATS`), so the page can only show what ``--json`` holds.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from noisefloor.report.html.page import Block, Markup, Page, Table, cells, esc
from noisefloor.report.html.render import page_for, shown

__all__ = ["DocTable", "ReportDoc", "fill", "figure_svg"]

_FIELD = re.compile(r"\{([\w.\-]+):(pp\+?|int|p|ratio|prop)\}")


def fill(template: str, data: Any) -> Markup:
    """``template`` as markup: each ``{key:fmt}`` becomes the value at ``key`` of ``data``
    (:func:`~noisefloor.report.html.render.shown`), the rest is escaped.

    Examples
    --------
    >>> fill("floor {floor:pp} pp <", {"floor": 0.118})
    'floor <span class="nf-num" data-key="floor" data-fmt="pp" data-value="0.118">11.8</span> pp &lt;'
    """
    out, last = [], 0
    for m in _FIELD.finditer(template):
        out.append(esc(template[last:m.start()]))
        out.append(shown(data, m.group(1), m.group(2)))
        last = m.end()
    out.append(esc(template[last:]))
    return Markup("".join(out))


def figure_svg(fig: Any) -> str:
    """A matplotlib figure as inline SVG markup (text as paths: no font is fetched)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    return text[text.find("<svg"):]


@dataclass(frozen=True)
class DocTable:
    """A table of templates: each cell is text with ``{key:fmt}`` fields (see :func:`fill`)."""

    heading: str
    cells: pd.DataFrame
    tips: Sequence[str] | None = None
    table_id: str = ""


@dataclass(frozen=True)
class ReportDoc:
    """A command's page: title, verdict template, facts, tables, figures and its ``--json``.

    Attributes
    ----------
    kind : str
        The command (``leaderboard``, ``agreement``, ``plan``).
    title : str
    verdict : str
        Template of the verdict sentence.
    data : dict or list
        The command's ``--json`` document.
    facts : sequence of str
        Lines under the verdict.
    tables : sequence of DocTable
    figures : sequence of (str, str)
        ``(caption, svg markup)``.
    """

    kind: str
    title: str
    verdict: str
    data: Any = field(repr=False)
    facts: Sequence[str] = ()
    tables: Sequence[DocTable] = ()
    figures: Sequence[tuple[str, str]] = ()

    def to_dict(self) -> Any:
        """The ``--json`` document."""
        return self.data


@page_for(ReportDoc)
def doc_page(doc: ReportDoc, **_: Any) -> Page:
    """The page of a :class:`ReportDoc`."""
    blocks: list[Block] = []
    for caption, svg in doc.figures:
        blocks.append(Block("svg", svg, caption))
    for t in doc.tables:
        frame = cells({c: [fill(str(v), doc.data) if "{" in str(v) else str(v)
                           for v in t.cells[c]] for c in t.cells.columns})
        blocks += [Block("h2", t.heading),
                   Block("table", Table(frame, interactive=len(frame) > 5,
                                        table_id=t.table_id or re.sub(r"\W+", "-", t.heading),
                                        row_titles=t.tips))]
    return Page(doc.title, fill(doc.verdict, doc.data), doc.data, doc.kind, doc.facts, blocks)
