"""Reading a paired-count table and a claims table against ``pandas.read_csv`` of the same file.

Writes a count table (``model,benchmark,seed,trial,subset,contrast,wins,losses,ties,n``; three
contrasts per seed at trials 0 and 1, default 100,000 rows) and a claims table (default
10,000 rows), and times in this process (imports excluded), in turn and ``--repeat`` times,
medians printed:

* ``read_paired_counts``: every check of the count table (field counts, integers written
  with digits only, ``n`` against wins + losses + ties, contrast labels, duplicate rows, the
  unequal-totals warning), the peer ``pandas.read_csv(path)`` (no checks) and the ratio;
* ``null_contrasts_from_counts``: the count-range and reversed-twin checks over every row and
  the trial-0 selection;
* ``read_claims`` and its peer ``pandas.read_csv``.

CPU seconds (``time.process_time``) and wall seconds. ``--quoted`` writes both tables with
their text fields in double quotes, as a spreadsheet's CSV export may. Usage::

    python benchmarks/count_tables.py [--rows 100000] [--claims 10000] [--repeat 3]
                                      [--repo DIR] [--quoted] [--tiny]

``--repo`` measures another checkout's noisefloor (before and after a change); ``--tiny``
(300 rows, one run) only checks that the script runs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# the synthetic count table of the audit benchmark (imported before --repo goes first on the path)
from audit_counts import make_table  # noqa: E402


def write_claims(path: Path, rows: int) -> None:
    lines = ["paper,benchmark,reported,effect_low,effect_high,unit"]
    lines += [f"paper {i},bench {i % 7},+{i % 20} pp,{i % 5},{5 + i % 20}.5,pp" for i in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def quote_text(path: Path) -> None:
    """Rewrite a table written above with each field that is not a number in double quotes
    (its header too); the tables hold no comma or quote inside a field."""
    def cell(text: str) -> str:
        return text if text.lstrip("+-").replace(".", "", 1).isdigit() else f'"{text}"'

    lines = path.read_text(encoding="utf-8").splitlines()
    path.write_text("\n".join(",".join(map(cell, line.split(","))) for line in lines) + "\n",
                    encoding="utf-8")


def timed(fn) -> tuple[float, float]:
    c, t = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - c, time.perf_counter() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000, help="rows of the count table")
    ap.add_argument("--claims", type=int, default=10_000, help="rows of the claims table")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each, in turn; medians")
    ap.add_argument("--repo", type=Path, default=REPO,
                    help="checkout whose noisefloor is measured (default: this one)")
    ap.add_argument("--quoted", action="store_true",
                    help="text fields in double quotes (a spreadsheet's CSV export)")
    ap.add_argument("--tiny", action="store_true", help="300 rows, one run: checks it runs")
    args = ap.parse_args(argv)
    sys.path.insert(0, str(args.repo.resolve()))
    if args.tiny:
        args.rows, args.claims, args.repeat = 300, 300, 1
    import warnings

    import pandas as pd

    from noisefloor.audit.published import read_claims, read_paired_counts
    from noisefloor.floor.count_table import null_contrasts_from_counts

    with tempfile.TemporaryDirectory(prefix="noisefloor-counts-") as tmp:
        counts, claims = Path(tmp) / "counts.csv", Path(tmp) / "claims.csv"
        make_table(counts, args.rows)
        write_claims(claims, args.claims)
        if args.quoted:
            quote_text(counts)
            quote_text(claims)
        print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, pandas {pd.__version__}, "
              f"noisefloor from {args.repo}; "
              f"count table {args.rows:,} rows ({counts.stat().st_size / 2**20:.1f} MiB), "
              f"claims {args.claims:,} rows{', text fields quoted' if args.quoted else ''}; "
              f"median of {args.repeat}, in turn")
        table = read_paired_counts(counts)  # warm: first calls load code paths
        read_claims(claims)
        pd.read_csv(counts)
        steps = {
            "read_paired_counts": lambda: read_paired_counts(counts),
            "pandas.read_csv (counts)": lambda: pd.read_csv(counts),
            "null_contrasts_from_counts": lambda: null_contrasts_from_counts(table),
            "read_claims": lambda: read_claims(claims),
            "pandas.read_csv (claims)": lambda: pd.read_csv(claims),
        }
        runs: dict[str, list[tuple[float, float]]] = {k: [] for k in steps}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(args.repeat):
                for name, fn in steps.items():
                    runs[name].append(timed(fn))
    med = {k: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v))
           for k, v in runs.items()}
    print(f"{'step':<30}{'CPU s':>9}{'wall s':>9}")
    for name, (cpu, wall) in med.items():
        print(f"{name:<30}{cpu:9.3f}{wall:9.3f}")
    for what, peer in (("read_paired_counts", "pandas.read_csv (counts)"),
                       ("read_claims", "pandas.read_csv (claims)")):
        cpu = med[what][0] / max(med[peer][0], 1e-9)
        wall = med[what][1] / max(med[peer][1], 1e-9)
        print(f"{what} / peer (pandas.read_csv): CPU {cpu:.2f}x, wall {wall:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
