"""One self-contained HTML page: CSS, script and figures inline, no network.

A :class:`Page` is a title, a verdict sentence, facts and blocks (tables, inline SVG figures,
paragraphs); :func:`render_page` turns it into one HTML document. The page carries the
result's ``--json`` document in a ``<script type="application/json" id="nf-json">`` element,
and every number it shows from that document as ``<span class="nf-num" data-key="a.b.0.c"
data-value="...">``, so a reader (or a test) can check the page against ``--json``. Colours
are the Okabe-Ito palette (Okabe & Ito, 2008, *Color Universal Design*), safe for the common
colour-vision deficiencies.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["OKABE_ITO", "Block", "Markup", "Page", "Table", "esc", "num", "render_page"]

#: The Okabe-Ito palette (Okabe & Ito, 2008), by colour name.
OKABE_ITO = {"black": "#000000", "orange": "#E69F00", "sky": "#56B4E9", "green": "#009E73",
             "yellow": "#F0E442", "blue": "#0072B2", "vermillion": "#D55E00",
             "purple": "#CC79A7", "grey": "#6b6b6b"}

#: Verdict colours of the pages (below: grey, inside: orange, above: bluish green).
VERDICT_FILL = {"below": OKABE_ITO["grey"], "inside": OKABE_ITO["orange"],
                "above": OKABE_ITO["green"]}


class Markup(str):
    """Text that is already HTML (built by :func:`num`, ``shown`` or ``fill``): table cells
    keep it as it is instead of escaping it."""


def esc(text: Any) -> str:
    """``text`` escaped for HTML.

    Examples
    --------
    >>> esc("a<b & 'c'")
    'a&lt;b &amp; &#x27;c&#x27;'
    """
    return html.escape(str(text), quote=True)


def num(text: str, key: str, value: Any) -> str:
    """A number shown as ``text`` whose ``--json`` value sits at ``key`` (dotted path).

    Examples
    --------
    >>> num("11.8", "floor", 0.1181)
    '<span class="nf-num" data-key="floor" data-value="0.1181">11.8</span>'
    """
    if isinstance(value, float) and not math.isfinite(value):
        value = None
    return Markup(f'<span class="nf-num" data-key="{esc(key)}" '
                  f'data-value="{esc(json.dumps(value))}">{esc(text)}</span>')


@dataclass(frozen=True)
class Table:
    """A table block.

    Attributes
    ----------
    frame : pandas.DataFrame
        Cells as shown (text, escaped). A cell that is a ``(text, href)`` tuple is a link; a
        :class:`Markup` cell (from :func:`num` or ``shown``) is kept as markup.
    caption : str
        Shown above the table.
    interactive : bool
        Sortable headers and a filter box.
    row_titles : sequence of str, optional
        Tooltip of each row (the hover text).
    cell_colors : pandas.DataFrame, optional
        Background colour of each cell (same shape; empty string for none).
    table_id : str
        ``id`` of the table element.
    """

    frame: pd.DataFrame
    caption: str = ""
    interactive: bool = False
    row_titles: Sequence[str] | None = None
    cell_colors: pd.DataFrame | None = None
    table_id: str = ""


@dataclass(frozen=True)
class Block:
    """A block of the page: ``kind`` is ``"h2"``, ``"p"``, ``"facts"``, ``"svg"``, ``"table"``
    or ``"html"``; ``content`` is the text, the list of fact lines, the SVG markup, the
    :class:`Table` or trusted markup."""

    kind: str
    content: Any
    caption: str = ""


@dataclass(frozen=True)
class Page:
    """An HTML page of one result.

    Attributes
    ----------
    title : str
        Page title (``<h1>``).
    verdict : str
        The verdict in one sentence (``<p id="verdict">``), markup allowed (from :func:`num`).
    data : dict
        The result's ``--json`` document, embedded as ``#nf-json``.
    kind : str
        Report kind (``audit``, ``floor``, ...), the ``data-kind`` of ``<body>``.
    facts : sequence of str
        Lines under the verdict (escaped).
    blocks : sequence of Block
        The body.
    """

    title: str
    verdict: str
    data: dict
    kind: str
    facts: Sequence[str] = ()
    blocks: Sequence[Block] = field(default_factory=tuple)


def _cell(value: Any, color: str = "") -> str:
    style = f' style="background:{esc(color)}"' if color else ""
    if isinstance(value, tuple) and len(value) == 2:
        text, href = value
        inner = text if isinstance(text, Markup) else esc(text)
        return f'<td{style}><a href="{esc(href)}">{inner}</a></td>'
    if isinstance(value, Markup):
        return f"<td{style}>{value}</td>"
    return f"<td{style}>{esc(value)}</td>"


def render_table(t: Table) -> str:
    """One :class:`Table` as HTML."""
    attrs = f' id="{esc(t.table_id)}"' if t.table_id else ""
    cls = "nf-table" + (" nf-sortable" if t.interactive else "")
    out = []
    if t.interactive:
        out.append('<input class="nf-filter" type="search" placeholder="filter rows" '
                   f'aria-label="filter rows" data-table="{esc(t.table_id)}">')
    out.append(f'<div class="nf-scroll"><table class="{cls}"{attrs}>')
    if t.caption:
        out.append(f"<caption>{esc(t.caption)}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{esc(c)}</th>" for c in t.frame.columns)
               + "</tr></thead><tbody>")
    colors = t.cell_colors
    for i, row in enumerate(t.frame.itertuples(index=False)):
        title = (f' title="{esc(t.row_titles[i])}" data-tip="{esc(t.row_titles[i])}"'
                 if t.row_titles is not None else "")
        cells = "".join(_cell(v, "" if colors is None else str(colors.iat[i, j]))
                        for j, v in enumerate(row))
        out.append(f"<tr{title}>{cells}</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _block(b: Block) -> str:
    if b.kind == "h2":
        return f"<h2>{esc(b.content)}</h2>"
    if b.kind == "p":
        return f"<p>{esc(b.content)}</p>"
    if b.kind == "facts":
        return "<ul class=\"nf-facts\">" + "".join(f"<li>{esc(x)}</li>" for x in b.content) \
            + "</ul>"
    if b.kind == "svg":
        cap = f"<figcaption>{esc(b.caption)}</figcaption>" if b.caption else ""
        return f'<figure class="nf-figure">{b.content}{cap}</figure>'
    if b.kind == "table":
        return render_table(b.content)
    if b.kind == "html":
        return str(b.content)
    raise ValueError(f"unknown block kind {b.kind!r}")


CSS = """
:root{--ink:#1b1b1b;--muted:#555;--rule:#d0d0d0;--band:#f4f4f4;--blue:#0072B2;
--orange:#E69F00;--green:#009E73;--verm:#D55E00;--sky:#56B4E9;--purple:#CC79A7}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
color:var(--ink);margin:0 auto;max-width:1180px;padding:18px 28px 60px;background:#fff}
h1{font-size:22px;margin:6px 0 4px}h2{font-size:18px;margin:28px 0 8px;
border-bottom:1px solid var(--rule);padding-bottom:3px}
#verdict{font-size:17px;background:#eef5fb;border-left:5px solid var(--blue);
padding:10px 14px;margin:10px 0 12px}
.nf-facts{margin:6px 0 10px;padding-left:20px;color:#222}.nf-facts li{margin:2px 0}
.nf-scroll{overflow-x:auto;max-width:100%}
table.nf-table{border-collapse:collapse;margin:6px 0 14px;font-size:13.5px;
font-variant-numeric:tabular-nums}
.nf-table th,.nf-table td{border-bottom:1px solid var(--rule);padding:3px 9px;text-align:left;
vertical-align:top;max-width:420px}
.nf-num{white-space:nowrap}
.nf-table th{background:#f6f6f6;position:sticky;top:0}
.nf-table caption{text-align:left;font-weight:600;padding:4px 0}
.nf-sortable th{cursor:pointer}.nf-sortable th:after{content:" \\2195";color:#999}
.nf-table tbody tr:hover{background:#fff8e0}
.nf-filter{margin:4px 0;padding:4px 8px;width:280px;font:inherit}
figure.nf-figure{margin:8px 0 16px}figure.nf-figure svg{max-width:100%;height:auto}
figcaption{font-size:13px;color:var(--muted)}
a{color:var(--blue)}
#nf-tip{position:fixed;display:none;background:#222;color:#fff;padding:6px 9px;
border-radius:4px;font-size:13px;max-width:460px;white-space:pre-line;pointer-events:none;
z-index:10}
.nf-row:hover rect.nf-hit{fill:#fff3c4}
#heatmap td{min-width:92px;text-align:center;font-size:14.5px;padding:7px 10px}
#heatmap td:first-child{text-align:left;font-weight:600}
.foot{color:var(--muted);font-size:12.5px;margin-top:30px}
@media print{body{max-width:none;padding:0;font-size:11pt}.nf-filter,#nf-tip{display:none}
.nf-sortable th:after{content:""}a{color:inherit;text-decoration:none}
h2{break-after:avoid}figure,tr{break-inside:avoid}#verdict{background:none}
.nf-table th{position:static}}
"""

SCRIPT = """
(function(){
var tip=document.getElementById('nf-tip');
function show(e,text){tip.textContent=text;tip.style.display='block';
var x=Math.min(e.clientX+14,window.innerWidth-480);tip.style.left=x+'px';
tip.style.top=(e.clientY+14)+'px';}
document.querySelectorAll('[data-tip]').forEach(function(el){
el.addEventListener('mousemove',function(e){show(e,el.getAttribute('data-tip'));});
el.addEventListener('mouseleave',function(){tip.style.display='none';});
el.removeAttribute('title');});
function cellValue(td){var n=td.querySelector('.nf-num');var t=td.textContent.trim();
var v=n?n.getAttribute('data-value'):t.replace(/^[\\[(]/,'').replace(/[,\\]].*$/,'');
var f=parseFloat(v);return isNaN(f)?t.toLowerCase():f;}
document.querySelectorAll('table.nf-sortable').forEach(function(tb){
tb.querySelectorAll('th').forEach(function(th,i){var asc=true;
th.addEventListener('click',function(){var body=tb.tBodies[0];
var rows=Array.prototype.slice.call(body.rows);
rows.sort(function(a,b){var x=cellValue(a.cells[i]),y=cellValue(b.cells[i]);
if(typeof x!==typeof y){x=String(x);y=String(y);}
return (x<y?-1:x>y?1:0)*(asc?1:-1);});
rows.forEach(function(r){body.appendChild(r);});asc=!asc;});});});
document.querySelectorAll('.nf-filter').forEach(function(inp){
inp.addEventListener('input',function(){var tb=document.getElementById(inp.dataset.table);
var q=inp.value.toLowerCase().split(/\\s+/).filter(Boolean);
Array.prototype.forEach.call(tb.tBodies[0].rows,function(r){var t=r.textContent.toLowerCase();
r.style.display=q.every(function(w){return t.indexOf(w)>=0;})?'':'none';});});});
})();
"""


def plain(value: Any) -> Any:
    """``value`` as JSON-safe Python: NaN and infinities -> None, numpy scalars -> Python,
    DataFrames -> records (as the commands' ``--json`` prints them).

    Examples
    --------
    >>> import numpy as np
    >>> plain({"a": [np.float64("nan"), np.int64(2)], 3: (1.5,)})
    {'a': [None, 2], '3': [1.5]}
    """
    import numpy as np

    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, pd.DataFrame):
        return [plain(r) for r in value.to_dict(orient="records")]
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (np.floating, float)):
        v = float(value)
        return None if math.isnan(v) or math.isinf(v) else v
    if value is pd.NA or value is pd.NaT:
        return None
    return value


def _json_script(data: dict) -> str:
    text = json.dumps(plain(data), allow_nan=False, default=str)
    return text.replace("</", "<\\/")


def render_page(page: Page, *, generator: str = "noisefloor") -> str:
    """The page as one HTML document (UTF-8, no external resource).

    Examples
    --------
    >>> doc = render_page(Page("T", "The floor is " + num("11.8", "floor", 0.118) + " pp.",
    ...                        {"floor": 0.118}, "floor"))
    >>> doc.startswith("<!DOCTYPE html>"), 'id="verdict"' in doc, "://" in doc.split("<body")[0]
    (True, True, False)
    """
    facts = ("<ul class=\"nf-facts\">" + "".join(f"<li>{esc(x)}</li>" for x in page.facts)
             + "</ul>") if page.facts else ""
    body = "\n".join(_block(b) for b in page.blocks)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
        f"<title>{esc(page.title)}</title><style>{CSS}</style></head>\n"
        f"<body data-kind=\"{esc(page.kind)}\"><h1>{esc(page.title)}</h1>\n"
        f"<p id=\"verdict\">{page.verdict}</p>\n{facts}\n{body}\n"
        f"<p class=\"foot\">Written by {esc(generator)}; every number on this page is in the "
        "embedded JSON (the command's --json output).</p>"
        f"<div id=\"nf-tip\" role=\"tooltip\"></div>"
        f"<script type=\"application/json\" id=\"nf-json\">{_json_script(page.data)}</script>"
        f"<script>{SCRIPT}</script></body></html>\n")


def cells(rows: Any) -> pd.DataFrame:
    """A table's cells as an object DataFrame (row dicts or a column dict): object dtype
    keeps :class:`Markup` cells as they are (pandas would turn them into plain strings).

    Examples
    --------
    >>> type(cells([{"a": Markup("<b>x</b>")}]).iat[0, 0]).__name__
    'Markup'
    """
    return pd.DataFrame(rows, dtype=object)
