"""Coordinate frames of the Spatial tasks: how one agent writes cells and draws its map.

A :class:`Frame` maps canonical cells (``(row, column)``, 0-based, row 0 at the top = north)
to what one agent writes and draws: origin corner, axis order, index base, a tile offset, an
egocentric origin, a quarter-turn rotation. :func:`sixteen` lists the sixteen answer
conventions the route grader accepts. :mod:`harness.tasks.spatial.grid` re-exports every name.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from functools import lru_cache
from itertools import product

from noisefloor.results import FrozenResult

#: Compass directions as (row step, column step) in the canonical frame: north, east, south, west.
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: One-way arrows in the order of :data:`DIRS`.
ARROWS = "^>v<"
ORIGINS = ("top-left", "top-right", "bottom-left", "bottom-right")
ORDERS = ("row-col", "col-row")
_SIDES = ("top", "right", "bottom", "left")  # drawing side of north after 0..3 clockwise turns

Cell = tuple[int, int]


@dataclass(frozen=True)
class Frame(FrozenResult):
    """How one agent writes coordinates and draws its map.

    Canonical ``(r, c)`` goes through: subtract the tile corner ``(r0, c0)``; turn the tile
    ``rot`` quarter-turns clockwise (the drawing); read the drawing row/column counted from the
    ``origin`` corner; order them (``row-col`` or ``col-row``); add ``base``; subtract the
    post-offset ``(p0, q0)`` (egocentric frames put the agent's own cell at ``(0, 0)``).

    Attributes
    ----------
    origin : str
        Corner of the drawing where counting starts, one of :data:`ORIGINS`.
    order : str
        ``"row-col"`` (first number counts rows) or ``"col-row"`` (first counts columns, x/y).
    base : int
        0 or 1.
    th, tw : int
        Tile size in canonical rows and columns (the whole map unless tiles are used).
    rot : int
        Clockwise quarter-turns of the drawing relative to north-up.
    r0, c0 : int
        Canonical cell at the tile's top-left corner.
    p0, q0 : int
        Post-offset subtracted from the final coordinates.

    Examples
    --------
    >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
    >>> f.to_view(0, 0), f.to_canon(*f.to_view(2, 3))
    ((1, 3), (2, 3))
    """

    origin: str = "top-left"
    order: str = "row-col"
    base: int = 0
    th: int = 1
    tw: int = 1
    rot: int = 0
    r0: int = 0
    c0: int = 0
    p0: int = 0
    q0: int = 0

    @property
    def dims(self) -> tuple[int, int]:
        """Drawing size (rows, columns) after rotation.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.dims, turned.dims
        ((3, 4), (4, 3))
        """
        return (self.tw, self.th) if self.rot % 2 else (self.th, self.tw)

    # canonical <-> drawing -----------------------------------------------------------
    def canon_to_draw(self, r: int, c: int) -> Cell:
        """Canonical cell -> (row, column) of the turned drawing, 0-based from its top-left.

        Parameters
        ----------
        r, c : int
            Canonical row and column.

        Returns
        -------
        (int, int)

        Examples
        --------
        After one clockwise quarter-turn of a 3 x 4 map the north-west corner is drawn at the
        top-right:

        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> Frame(rot=1, th=3, tw=4).canon_to_draw(0, 0)
        (0, 2)
        """
        i, j, h, w = r - self.r0, c - self.c0, self.th, self.tw
        for _ in range(self.rot % 4):
            i, j, h, w = j, h - 1 - i, w, h
        return i, j

    def draw_to_canon(self, i: int, j: int) -> Cell:
        """Inverse of :meth:`canon_to_draw`.

        Parameters
        ----------
        i, j : int
            Drawing row and column, 0-based from the drawing's top-left.

        Returns
        -------
        (int, int)
            Canonical ``(r, c)``.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame(rot=1, th=3, tw=4)
        >>> f.draw_to_canon(0, 2), f.draw_to_canon(*f.canon_to_draw(2, 3))
        ((0, 0), (2, 3))
        """
        dh, dw = self.dims
        for _ in range(self.rot % 4):
            i, j, dh, dw = dw - 1 - j, i, dw, dh
        return i + self.r0, j + self.c0

    # drawing <-> view coordinates ----------------------------------------------------
    def draw_to_view(self, i: int, j: int) -> Cell:
        """Drawing cell -> this frame's written coordinates (origin, order, base, offset).

        Parameters
        ----------
        i, j : int
            Drawing row and column, 0-based from the drawing's top-left.

        Returns
        -------
        (int, int)

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).draw_to_view(0, 0)
        (1, 3)
        """
        dh, dw = self.dims
        row = i if self.origin.startswith("top") else dh - 1 - i
        col = j if self.origin.endswith("left") else dw - 1 - j
        p, q = (row, col) if self.order == "row-col" else (col, row)
        return p + self.base - self.p0, q + self.base - self.q0

    def view_to_draw(self, p: int, q: int) -> Cell:
        """Inverse of :meth:`draw_to_view`.

        Parameters
        ----------
        p, q : int
            Coordinates as written in this frame.

        Returns
        -------
        (int, int)
            Drawing row and column (may lie outside the drawing).

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).view_to_draw(1, 3)
        (0, 0)
        """
        dh, dw = self.dims
        p, q = p - self.base + self.p0, q - self.base + self.q0
        row, col = (p, q) if self.order == "row-col" else (q, p)
        i = row if self.origin.startswith("top") else dh - 1 - row
        j = col if self.origin.endswith("left") else dw - 1 - col
        return i, j

    def to_view(self, r: int, c: int) -> Cell:
        """Canonical cell -> this frame's coordinates.

        Parameters
        ----------
        r, c : int
            Canonical row and column.

        Returns
        -------
        (int, int)

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.to_view(0, 0), f.to_view(2, 3)
        ((1, 3), (4, 1))
        """
        return self.draw_to_view(*self.canon_to_draw(r, c))

    def to_canon(self, p: int, q: int) -> Cell:
        """This frame's coordinates -> canonical cell (may lie outside the map).

        Parameters
        ----------
        p, q : int
            Coordinates as written in this frame.

        Returns
        -------
        (int, int)
            Canonical ``(r, c)``; no bounds check.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.to_canon(1, 3), f.to_canon(0, 0)
        ((0, 0), (3, -1))
        """
        return self.draw_to_canon(*self.view_to_draw(p, q))

    def north_side(self) -> str:
        """Side of the drawing where north lies.

        Returns
        -------
        {"top", "right", "bottom", "left"}

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.north_side(), turned.north_side()
        ('top', 'right')
        """
        return _SIDES[self.rot % 4]

    def arrow(self, d: int) -> str:
        """Arrow character, as drawn in this frame, of canonical direction index ``d``.

        Parameters
        ----------
        d : int
            Index into :data:`DIRS` (0 north, 1 east, 2 south, 3 west).

        Returns
        -------
        str
            One of ``^ > v <``.

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> f = Frame("bottom-left", "col-row", 1, th=3, tw=4)
        >>> turned = Frame(rot=1, th=3, tw=4)
        >>> f.arrow(0), turned.arrow(0), turned.arrow(3)
        ('^', '>', '^')
        """
        return ARROWS[(d + self.rot) % 4]

    def summary(self) -> str:
        """One line naming this frame's conventions, for people reading an instance.

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> Frame("bottom-left", "col-row", 1, th=3, tw=4).summary()
        '(column, row), 1-based, origin at the bottom-left corner'
        >>> Frame(rot=1, th=3, tw=4).summary()
        '(row, column), 0-based, origin at the top-left corner, drawing turned (north on the right side)'
        """
        first, second = ("row", "column") if self.order == "row-col" else ("column", "row")
        parts = [f"({first}, {second})", f"{self.base}-based",
                 f"origin at the {self.origin} corner"]
        if self.p0 or self.q0:
            parts.append(f"relative to the agent's own cell (offset {self.p0}, {self.q0})")
        if self.rot % 4:
            parts.append(f"drawing turned (north on the {self.north_side()} side)")
        if self.r0 or self.c0:
            parts.append(f"tile {self.th}x{self.tw} starting at canonical cell ({self.r0}, {self.c0})")
        return ", ".join(parts)

    def describe(self) -> str:
        """One paragraph explaining the coordinates, as an agent reads it.

        Returns
        -------
        str

        Examples
        --------
        >>> from harness.tasks.spatial.grid.frames import Frame
        >>> print(Frame(rot=1, th=3, tw=4).describe())
        Coordinates are written (row, column), counted from 0 at the top-left corner of your drawing: row numbers grow downwards and column numbers grow to the right on your drawing. Your drawing is turned: north is at the right of it.
        """
        first, second = ("row", "column") if self.order == "row-col" else ("column", "row")
        vert, horiz = self.origin.split("-")
        rows_grow = "downwards" if vert == "top" else "upwards"
        cols_grow = "to the right" if horiz == "left" else "to the left"
        text = (
            f"Coordinates are written ({first}, {second}), counted from {self.base} at the "
            f"{self.origin} corner of your drawing: row numbers grow {rows_grow} and column "
            f"numbers grow {cols_grow} on your drawing."
        )
        if self.p0 or self.q0:
            text += (
                " They are relative to your own position, which is (0, 0); negative numbers "
                "are allowed."
            )
        if self.rot % 4:
            text += f" Your drawing is turned: north is at the {self.north_side()} of it."
        else:
            text += " North is at the top of your drawing."
        return text


_FRAME_FIELDS = tuple(f.name for f in fields(Frame))


@lru_cache(maxsize=256)
def sixteen(h: int, w: int) -> tuple[Frame, ...]:
    """The sixteen answer conventions for an ``h`` x ``w`` map: 4 origin corners x 2 axis
    orders x 2 index bases, north up, no offsets.

    Parameters
    ----------
    h, w : int
        Map size in rows and columns.

    Returns
    -------
    tuple of Frame
        Memoised; origins in the order of :data:`ORIGINS`, then orders, then bases 0, 1.

    Examples
    --------
    >>> from harness.tasks.spatial.grid.frames import sixteen
    >>> sixteen(3, 4)[1].summary()
    '(row, column), 1-based, origin at the top-left corner'
    >>> len(sixteen(3, 4)), len(set(sixteen(3, 4)))
    (16, 16)
    """
    return tuple(
        Frame(o, a, b, th=h, tw=w) for o, a, b in product(ORIGINS, ORDERS, (0, 1))
    )


def canonical(h: int, w: int) -> Frame:
    """The canonical frame: (row, column), 0-based, top-left, north up.

    Parameters
    ----------
    h, w : int
        Map size in rows and columns.

    Returns
    -------
    Frame
        ``to_view`` and ``to_canon`` are the identity.

    Examples
    --------
    >>> from harness.tasks.spatial.grid.frames import canonical
    >>> f = canonical(3, 4)
    >>> f.to_view(2, 1), f.to_canon(2, 1), f.summary()
    ((2, 1), (2, 1), '(row, column), 0-based, origin at the top-left corner')
    """
    return Frame("top-left", "row-col", 0, th=h, tw=w)
