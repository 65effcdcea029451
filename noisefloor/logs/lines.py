"""Streaming a JSONL file as blocks of lines, with bounded memory.

The file is read in binary blocks (8 MiB by default) and split on ``\\n``; a line longer than a
block is carried over until its newline arrives, so memory is bounded by the block size plus
the longest line. A UTF-8 byte-order mark at the start of the file is dropped. The text after
the last newline, when it is not blank, is returned separately as the *tail*, so that the
caller can tell a complete last line that merely lacks its newline from one that was cut off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np

__all__ = ["BLOCK_BYTES", "LineBlock", "iter_line_blocks"]

BLOCK_BYTES = 8 * 1024 * 1024
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
        Byte offsets of the ``\n`` separators inside ``data`` (``n_lines - 1`` of them).
    n_lines : int
        Number of lines.
    """

    __slots__ = ("_lines", "data", "first_line", "is_tail", "n_lines", "newlines")

    def __init__(self, first_line: int, data: bytes, is_tail: bool = False) -> None:
        self.first_line = first_line
        self.data = data
        self.is_tail = is_tail
        self.newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 10)
        self.n_lines = len(self.newlines) + 1
        self._lines: list[bytes] | None = None

    @property
    def lines(self) -> list[bytes]:
        if self._lines is None:
            self._lines = self.data.split(b"\n")
        return self._lines


def iter_line_blocks(path: str | Path, block_bytes: int | None = None) -> Iterator[LineBlock]:
    """Yield the lines of ``path`` in blocks, numbering from 1.

    Parameters
    ----------
    path : str or pathlib.Path
        A JSONL file.
    block_bytes : int, optional
        Bytes read per system call (default :data:`BLOCK_BYTES`, 8 MiB); bounds memory
        together with the longest line.

    Yields
    ------
    LineBlock
        Blocks in file order; at most one, the last, has ``is_tail=True``.

    Raises
    ------
    OSError
        The file cannot be opened or read.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.NamedTemporaryFile("wb", suffix=".jsonl", delete=False) as f:
    ...     _ = f.write(b'\\xef\\xbb\\xbf{"a": 1}\\n\\n{"a": 2')
    >>> [(b.first_line, b.lines, b.is_tail) for b in iter_line_blocks(f.name)]
    [(1, [b'{"a": 1}', b''], False), (3, [b'{"a": 2'], True)]
    >>> os.remove(f.name)
    """
    if block_bytes is None:
        block_bytes = BLOCK_BYTES
    if block_bytes < 1:
        raise ValueError(f"block_bytes must be >= 1, got {block_bytes}")
    next_line = 1
    carry = b""
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
            if carry:
                chunk = carry + chunk
            cut = chunk.rfind(b"\n")
            if cut < 0:
                carry = chunk
                continue
            carry = chunk[cut + 1 :]
            block = LineBlock(next_line, chunk[:cut])
            yield block
            next_line += block.n_lines
    if carry.strip():
        yield LineBlock(next_line, carry, is_tail=True)
