"""Bounded reading of inspect_ai ``.eval`` archives: a member's declared size bounds what it
may inflate to, an archive's members together are bounded, duplicate member names refused."""

from __future__ import annotations

import tracemalloc
import warnings
import zipfile
from pathlib import Path

from noisefloor.logs import validate_logs
from noisefloor.logs.formats import inspect as inspect_reader


def _copy(src: Path, dst: Path, extra: list[tuple[str, int]] = (), duplicate: str | None = None):
    """Copy an .eval archive, adding members of zero bytes (name, size) and one duplicate.
    Deflate level 1: 300 MiB of zeros compress in a third of the default level's time."""
    with zipfile.ZipFile(src) as zin, \
            zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))
        for name, size in extra:
            with zout.open(name, "w", force_zip64=True) as fh:
                block = bytes(1 << 20)
                for _ in range(size >> 20):
                    fh.write(block)
        if duplicate:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # zipfile warns of the duplicate it writes
                zout.writestr(duplicate, zin.read(duplicate))
    return dst


def _sample_names(path):
    with zipfile.ZipFile(path) as z:
        return [n for n in z.namelist() if inspect_reader._SAMPLE_MEMBER.fullmatch(n)]


def test_a_duplicate_member_name_is_refused(inspect_logs, tmp_path):
    src = Path(inspect_logs["deflate"]["path"])
    name = _sample_names(src)[0]
    report = validate_logs(_copy(src, tmp_path / "dup.eval", duplicate=name))
    assert not report.ok
    assert f"the archive holds two members named {name!r}" in report.problems[0].message


def test_a_member_over_the_cap_is_refused_before_it_inflates(inspect_logs, tmp_path):
    src = Path(inspect_logs["deflate"]["path"])
    stem = _sample_names(src)[0].rsplit("_epoch_", 1)[0]
    big = _copy(src, tmp_path / "big.eval", extra=[(f"{stem}x_epoch_1.json", 300 << 20)])
    assert big.stat().st_size < 2 << 20  # 300 MiB of zeros deflate to about 1.4 MB
    tracemalloc.start()
    report = validate_logs(big)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert any("would expand to 314,572,800 bytes, more than the 268,435,456" in p.message
               for p in report.problems)
    assert peak < 50 << 20  # the member was never inflated


def test_the_members_of_one_archive_are_bounded_together(inspect_logs, tmp_path, monkeypatch):
    src = Path(inspect_logs["deflate"]["path"])
    sizes = sorted(zipfile.ZipFile(src).getinfo(n).file_size for n in _sample_names(src))
    monkeypatch.setattr(inspect_reader, "MAX_ARCHIVE_BYTES", sizes[0] + sizes[1])
    report = validate_logs(src)
    assert any("would inflate to more than" in p.message for p in report.problems)
