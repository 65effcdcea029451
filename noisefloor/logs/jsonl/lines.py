"""Streaming a JSONL file as blocks of lines, with bounded memory.

The file is read in binary blocks (4 MiB by default) and split on ``\\n``; a line longer than a
block is carried over until its newline arrives, so memory is bounded by the block size plus
the longest line. A UTF-8 byte-order mark at the start of the file is dropped. The text after
the last newline, when it is not blank, is returned separately as the *tail*, so that the
caller can tell a complete last line that merely lacks its newline from one that was cut off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["BLOCK_BYTES", "MAX_LINE_BYTES", "LineBlock", "iter_line_blocks"]

#: Bytes read per block: 4 MiB (8 MiB held about 10 MiB more at the peak of a 40 MiB log of
#: records with large ``extra`` objects, for no gain in speed).
BLOCK_BYTES = 4 * 1024 * 1024
#: Default longest line, in bytes (64 MiB): far above any real trial record (a tau-bench
#: trajectory is tens of kB), low enough that a line reader never holds gigabytes.
MAX_LINE_BYTES = 64 * 1024 * 1024
_BOM = b"\xef\xbb\xbf"


class LineBlock:
    """Consecutive lines of a file.

    Attributes
    ----------
    first_line : int
        1-based number of the first line.
    data : bytes
        The lines joined by ``\n``, without the newline after the last one.
    is_tail : bool
        True for the final text of the file that has no newline after it (then the block is
        exactly one line).
    lines : list of bytes
        ``data.split(b"\n")``, computed on first use: the lines without their ``\n`` (a
        trailing ``\r`` is kept: JSON treats it as whitespace). Blank lines are included so
        that numbering stays exact.
    newlines : numpy.ndarray of int64
        Byte offsets of the ``\n`` separators inside ``data`` (``n_lines - 1`` of them);
        found when the block is made, unless the caller passes them (``newlines=``).
    n_lines : int
        Number of lines.
    too_long : int or None
        For a line longer than the reader's maximum: its length in bytes (the block then holds
        that one line, with empty ``data``); None otherwise.
    """

    __slots__ = ("_lines", "data", "first_line", "is_tail", "n_lines", "newlines", "too_long")

    def __init__(self, first_line: int, data: bytes, is_tail: bool = False,
                 newlines: np.ndarray | None = None) -> None:
        self.first_line = first_line
        self.data = data
        self.is_tail = is_tail
        if newlines is None:
            newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        self.newlines = newlines
        self.n_lines = len(self.newlines) + 1
        self._lines: list[bytes] | None = None
        self.too_long: int | None = None

    @classmethod
    def over_long(cls, line: int, n_bytes: int, is_tail: bool = False) -> LineBlock:
        """The one-line block standing for a line of ``n_bytes`` that was skipped."""
        block = cls(line, b"", is_tail)
        block.too_long = n_bytes
        return block

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = self.data.split(b"\n")
        return self._lines


def iter_line_blocks(
    path: str | Path, block_bytes: int | None = None, max_line_bytes: int | None = None,
) -> Iterator[LineBlock]:
    """Yield the lines of ``path`` in blocks, numbering from 1.

    Parameters
    ----------
    path : str or pathlib.Path
        A JSONL file (a regular file: see
        :func:`noisefloor.logs.formats.files.regular_file_problem`).
    block_bytes : int, optional
        Bytes read per system call (default :data:`BLOCK_BYTES`, 4 MiB).
    max_line_bytes : int, optional
        Longest line kept, in bytes without its newline (default :data:`MAX_LINE_BYTES`,
        64 MiB). A longer line is not held in memory: its bytes are counted and skipped up
        to its newline (or the end of the file), and it comes back as a one-line block with
        ``too_long`` set to its length, so the caller can report it by file and line.

    Yields
    ------
    LineBlock
        Blocks in file order; at most one, the last, has ``is_tail=True``.

    Raises
    ------
    OSError
        The file cannot be opened or read.
    ValueError
        ``block_bytes`` or ``max_line_bytes`` is below 1.

    Notes
    -----
    Each byte is read once and searched for ``\\n`` once: the part of a line that runs past
    a block is kept as a list of pieces and joined only when its newline arrives, so time is
    linear in the file size and memory is at most ``block_bytes + max_line_bytes`` (plus the
    block being handed out).

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write(b'\\xef\\xbb\\xbf{"a": 1}\\n\\n{"a": 2')
    >>> [(b.first_line, b.lines, b.is_tail) for b in iter_line_blocks(f.name)]
    [(1, [b'{"a": 1}', b''], False), (3, [b'{"a": 2'], True)]
    >>> [(b.first_line, b.too_long) for b in iter_line_blocks(f.name, max_line_bytes=7)]
    [(1, 8), (2, None), (3, None)]
    >>> os.remove(f.name)
    """
    if block_bytes is None:
        block_bytes = BLOCK_BYTES
    if max_line_bytes is None:
        max_line_bytes = MAX_LINE_BYTES
    if block_bytes < 1:
        raise ValueError(f"block_bytes must be >= 1, got {block_bytes}")
    if isinstance(max_line_bytes, bool) or not isinstance(max_line_bytes, int) \
            or max_line_bytes < 1:
        raise ValueError(f"max_line_bytes must be an integer >= 1, got {max_line_bytes!r}")
    next_line = 1
    pieces: list[bytes | memoryview] = []  # the start of the current line, read earlier
    held = 0  # bytes in pieces
    skipped: int | None = None  # length so far of an over-long line being skipped
    first = True
    with open(path, "rb") as handle:
        while True:
            chunk = handle.read(block_bytes)
            if not chunk:
                break
            if first:
                first = False
                if chunk.startswith(_BOM):
                    chunk = chunk[len(_BOM) :]
                elif len(chunk) < len(_BOM) and _BOM.startswith(chunk):
                    # a BOM split across reads (tiny block sizes): read the rest of it
                    chunk += handle.read(len(_BOM) - len(chunk))
                    chunk = chunk.removeprefix(_BOM)
            pos = 0
            if skipped is not None:  # inside an over-long line: count it up to its newline
                end = chunk.find(b"\n")
                if end < 0:
                    skipped += len(chunk)
                    continue
                yield LineBlock.over_long(next_line, skipped + end)
                next_line += 1
                skipped = None
                pos = end + 1
            cut = chunk.rfind(b"\n", pos)
            if cut < 0:  # no newline: the whole chunk continues the current line
                pieces.append(chunk[pos:])
                held += len(chunk) - pos
                if held > max_line_bytes:
                    skipped, pieces, held = held, [], 0
                continue
            if pieces:
                end = chunk.find(b"\n", pos)
                if held + end - pos > max_line_bytes:
                    yield LineBlock.over_long(next_line, held + end - pos)
                    next_line += 1
                    pieces, held = [], 0
                    pos = end + 1
                    data = chunk[pos:cut] if pos <= cut else None
                else:
                    pieces.append(memoryview(chunk)[pos:cut])  # joined without a copy first
                    data = b"".join(pieces)
            else:
                data = chunk[pos:cut]
            if data is not None:
                for block in _split_long(next_line, data, max_line_bytes):
                    yield block
                    next_line += block.n_lines
            pieces, held = [chunk[cut + 1 :]], len(chunk) - cut - 1
            if held > max_line_bytes:
                skipped, pieces, held = held, [], 0
    if skipped is not None:
        yield LineBlock.over_long(next_line, skipped, is_tail=True)
        return
    carry = b"".join(pieces)
    if carry.strip():
        yield LineBlock(next_line, carry, is_tail=True)


def _split_long(first_line: int, data: bytes, max_line_bytes: int) -> Iterator[LineBlock]:
    """``LineBlock(first_line, data)``, with any line over ``max_line_bytes`` taken out as
    its own ``too_long`` block (only a block at least that long can hold one)."""
    if len(data) <= max_line_bytes:
        yield LineBlock(first_line, data)
        return
    line = first_line
    start = 0  # start of the lines not handed out yet
    pos = 0
    while True:
        end = data.find(b"\n", pos)
        stop = len(data) if end < 0 else end
        if stop - pos > max_line_bytes:
            if pos > start:
                block = LineBlock(line, data[start : pos - 1])
                yield block
                line += block.n_lines
            yield LineBlock.over_long(line, stop - pos)
            line += 1
            start = stop + 1
        if end < 0:
            break
        pos = end + 1
    if start <= len(data):  # the lines after the last over-long one (a blank one included)
        yield LineBlock(line, data[start:])
