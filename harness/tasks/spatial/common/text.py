"""The text of the Spatial tasks: drawing a map with its legend, and reading it back.

:func:`draw_map` writes cells in any :class:`~harness.tasks.spatial.grid.Frame` (``?`` for
cells not held), :func:`legend_text` explains the characters that occur, and :func:`read_map`
rebuilds the world from a rendering's ``MAP`` drawing (the solo-tractability probe).
"""

from __future__ import annotations

import re
from typing import Any

from harness.tasks.spatial.grid import ARROWS, Frame

_ROW = re.compile(r"^\s*(-?\d+) \|(.*)$")
LEGEND = {
    "#": "# wall",
    ".": ". open cell",
    "?": "? a cell you do not know",
    "S": "S start",
    "G": "G goal",
    "X": "X waypoint: the route must visit X before it ends on G",
    "K": "K key",
    "D": "D door: locked, it can only be entered after the route has visited K",
    "arrow": "^ > v < one-way cell: you may leave it only in the arrow's direction",
    "digit": "1-9 entry cost of that cell (every other open cell costs 1)",
    "pad": "a-h teleporter pads: from a pad, one step (cost 1) takes you to the other pad "
    "with the same letter",
}


def draw_map(fr: Frame, lookup: dict[tuple[int, int], str]) -> str:
    """The drawing of a map in frame ``fr``: a header of column labels, one labelled line per
    drawing row, ``?`` where ``lookup`` (view coordinates -> character) has no entry.

    Examples
    --------
    >>> from harness.tasks.spatial.grid import canonical
    >>> print(draw_map(canonical(2, 2), {(0, 0): "S", (0, 1): ".", (1, 1): "G"}))
            0   1
      0 |   S   .
      1 |   ?   G
    """
    dh, dw = fr.dims
    first_is_row = fr.order == "row-col"
    # draw_to_view(i, j) is separable: one coordinate depends on i, the other on j
    row_lab = [fr.draw_to_view(i, 0)[0 if first_is_row else 1] for i in range(dh)]
    col_lab = [fr.draw_to_view(0, j)[1 if first_is_row else 0] for j in range(dw)]
    lines = ["     " + "".join(f"{v:>4}" for v in col_lab)]
    for label in row_lab:
        if first_is_row:
            row = [lookup.get((label, q), "?") for q in col_lab]
        else:
            row = [lookup.get((p, label), "?") for p in col_lab]
        lines.append(f"{label:>3} |" + "".join(f"{ch:>4}" for ch in row))
    return "\n".join(lines)


def legend_text(chars: set[str]) -> str:
    """One legend line per kind of character in ``chars``, in a fixed order.

    Examples
    --------
    >>> print(legend_text({"#", ".", "S"}))
      # wall
      . open cell
      S start
    """
    keys = [k for k in "#.?SGXKD" if k in chars]
    if chars & set(ARROWS):
        keys.append("arrow")
    if chars & set("123456789"):
        keys.append("digit")
    if chars & set("abcdefgh"):
        keys.append("pad")
    return "\n".join(f"  {LEGEND[k]}" for k in keys)


def read_map(text: str) -> dict[str, Any] | None:
    """The world drawn under the ``MAP`` line of a full rendering, or ``None`` if there is none.

    Items become open cells plus entries of ``items`` (a lowercase letter, a teleporter pad,
    collects its two cells); ``v`` is a one-way arrow, not an item.

    Examples
    --------
    >>> read_map("MAP\\n        0   1\\n  0 |   S   G") == {
    ...     "h": 1, "w": 2, "cells": [".."], "items": {"S": [0, 0], "G": [0, 1]}}
    True
    >>> print(read_map("no map here"))
    None
    """
    rows = []
    started = False
    for line in text.splitlines():
        if line.strip() == "MAP":
            started = True
            continue
        m = _ROW.match(line) if started else None
        if m:
            rows.append(m.group(2).split())
        elif started and rows:
            break
    if not rows:
        return None
    cells: list[str] = []
    items: dict[str, Any] = {}
    for r, row in enumerate(rows):
        line = ""
        for c, ch in enumerate(row):
            if ch.isalpha() and ch not in "v":
                if ch.islower():
                    items.setdefault(ch, []).append([r, c])
                else:
                    items[ch] = [r, c]
                ch = "."
            line += ch
        cells.append(line)
    return {"h": len(cells), "w": len(cells[0]), "cells": cells, "items": items}
