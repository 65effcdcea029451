"""A module is one topic; a topic that outgrows about 600 lines becomes a folder.

The folder is a package whose ``__init__.py`` exports the topic's public names (not a
prefix shared by sibling modules). This test holds the limit and the counting rule in one
place.

Counting rule (:func:`lines_of_code`): a line counts when it holds any part of a Python token
other than a comment, so blank lines and comment-only lines do not count, while **docstrings
do count** (they are lines a reader pages through, and the harness's docstrings carry runnable
examples; a limit that ignored them would let a module grow without bound). A statement spread
over several lines counts every line it covers.

:data:`ENFORCED` packages fail the test when a module is over :data:`LIMIT`; :data:`REPORTED`
packages are only listed (a warning in the pytest summary) while they are being split. To
enforce a package, move it from one tuple to the other.
"""

from __future__ import annotations

import io
import tokenize
import warnings
from pathlib import Path

#: Largest number of lines of code a module may have.
LIMIT = 600
#: Packages (directories under the repository root) and modules whose modules must keep to
#: the limit.
ENFORCED = ("harness", "noisefloor")
#: Packages whose modules over the limit are listed but do not fail the test (yet).
REPORTED: tuple[str, ...] = ()

ROOT = Path(__file__).resolve().parents[2]
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER}


def lines_of_code(source: str) -> int:
    """Lines of ``source`` that hold part of a token other than a comment (docstrings count)."""
    lines: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in _NOT_CODE:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    return len(lines)


def over_limit(package: str) -> dict[str, int]:
    """``{path relative to the root: lines of code}`` of the package's modules over the limit."""
    out = {}
    root = ROOT / package
    for path in [root] if root.is_file() else sorted(root.rglob("*.py")):
        n = lines_of_code(path.read_text(encoding="utf-8"))
        if n > LIMIT:
            out[path.relative_to(ROOT).as_posix()] = n
    return out


def test_counting_rule():
    source = '"""Doc\nstring."""\n\n# a comment\nx = (1,\n     2)  # trailing\n\n'
    assert lines_of_code(source) == 4  # two docstring lines, two lines of the statement


def test_enforced_packages_keep_to_the_limit():
    big = {pkg: over_limit(pkg) for pkg in ENFORCED}
    assert all((ROOT / pkg).exists() for pkg in ENFORCED)
    assert not any(big.values()), (
        f"modules over {LIMIT} lines of code (a topic that outgrows the limit becomes a folder, "
        f"a package whose __init__.py exports its names): {big}")


def test_report_modules_over_the_limit():
    for pkg in REPORTED:
        assert (ROOT / pkg).is_dir()
        big = over_limit(pkg)
        if big:
            listing = ", ".join(f"{p} ({n})" for p, n in big.items())
            warnings.warn(f"{pkg}: modules over {LIMIT} lines of code: {listing}", UserWarning,
                          stacklevel=1)
