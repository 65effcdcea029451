"""File checks made before a log is opened: only regular files are read.

Opening a named pipe (FIFO) blocks until a writer appears, and reading a character device such
as ``/dev/zero`` never ends; both would hang every command. Every reader therefore asks
:func:`regular_file_problem` first, which looks at the file with :func:`os.stat` (never
opening it) and names what it is when it is not a regular file. A symbolic link is followed;
one that points to itself (or into a loop) is named as such instead of failing later.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from noisefloor.logs.records.errors import LogProblem

__all__ = ["describe_mode", "regular_file_problem", "stat_problem"]

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISDIR, "a directory"),
)


def describe_mode(mode: int) -> str:
    """Name the kind of file an ``st_mode`` describes.

    Examples
    --------
    >>> import stat
    >>> describe_mode(stat.S_IFIFO | 0o644)
    'a named pipe (FIFO)'
    >>> describe_mode(stat.S_IFREG | 0o644)
    'a regular file'
    """
    for test, name in _KINDS:
        if test(mode):
            return name
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def stat_problem(path: str | Path, exc: OSError) -> LogProblem:
    """The problem for a path that :func:`os.stat` cannot follow (a symlink loop, a dangling
    link, no permission)."""
    if exc.errno == errno.ELOOP:
        message = ("a symbolic link that points to itself or into a loop of links; it leads to "
                   "no file")
    elif exc.errno == errno.ENOENT and os.path.islink(path):
        message = f"a symbolic link to {os.readlink(path)!r}, which does not exist"
    else:
        message = f"cannot read: {exc.strerror or exc}"
    return LogProblem(str(path), None, None, message, kind="io")


def regular_file_problem(path: str | Path) -> LogProblem | None:
    """None when ``path`` is a regular file (after following symlinks), else the problem.

    Parameters
    ----------
    path : str or pathlib.Path
        A log file, about to be opened.

    Returns
    -------
    LogProblem or None
        ``kind="io"``: the path is a named pipe, device, socket or directory (it is not
        opened), or :func:`os.stat` fails (a symlink loop, a dangling link, no permission).

    Examples
    --------
    >>> import os, tempfile
    >>> d = tempfile.mkdtemp(); fifo = os.path.join(d, "trials.jsonl"); os.mkfifo(fifo)
    >>> print(regular_file_problem(fifo).message)  # doctest: +ELLIPSIS
    a named pipe (FIFO), not a regular file: it is not read (reading it could wait forever ...
    >>> os.remove(fifo)
    """
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        return stat_problem(path, exc)
    if stat.S_ISREG(mode):
        return None
    return LogProblem(
        str(path), None, None,
        f"{describe_mode(mode)}, not a regular file: it is not read (reading it could wait "
        "forever or never end); copy the log into a regular file",
        kind="io")
