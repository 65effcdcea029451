"""Start-up time of the ``noisefloor`` command, and ``noisefloor audit`` against its peer.

Runs each command line in a fresh interpreter (``python -m noisefloor``, from the checkout given
by ``--repo``, default this one) and prints the median wall time and the median CPU time
(user + system) of the child. Targets: ``noisefloor --help`` under 0.5 s; ``noisefloor audit``
on the bundled data (its report and its two figure files, ``forest.png`` and ``forest.svg``)
within 1.3x of its peer, a bare script that imports pandas, scipy.stats and matplotlib and
saves a forest plot of the same size as PNG and SVG. The audit and the peer run alternately
(A B A B), so a change of the machine's load hits both; the ratio is printed for wall and CPU
time (CPU time is the steadier of the two on a loaded machine).

Usage: ``python benchmarks/cli_startup.py [--repeat N] [--repo PATH] [--tiny]`` (``--tiny``: one
run of ``--help``, the audit and its peer, the size the test suite runs).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

LINES = [["--help"], ["contrast", "--help"],
         ["contrast", "--wins", "27", "--losses", "9", "--ties", "64"]]

#: The peer of ``noisefloor audit``: the libraries it needs, and two figure files of a forest
#: plot as large as the audit's (28 rows: 18 null contrasts and 10 claims).
PEER = """
import sys
import pandas, scipy.stats, matplotlib
matplotlib.use("Agg")
from matplotlib.figure import Figure
rows = 28
fig = Figure(figsize=(8, 0.3 * rows + 1.5))
ax = fig.add_subplot()
y = list(range(rows))
x = [0.01 * i - 0.1 for i in y]
ax.errorbar(x, y, xerr=0.05, fmt="o", capsize=2)
ax.set_yticks(y, [f"contrast {i}" for i in y])
ax.axvspan(-0.118, 0.118, alpha=0.15)
ax.set_xlabel("gap (percentage points)")
fig.savefig(sys.argv[1] + "/forest.png", dpi=150, bbox_inches="tight")
fig.savefig(sys.argv[1] + "/forest.svg", bbox_inches="tight")
"""


def run(argv: list[str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def line(name: str, runs: list[tuple[float, float]]) -> tuple[float, float]:
    walls, cpus = [w for w, _ in runs], [c for _, c in runs]
    wall, cpu = statistics.median(walls), statistics.median(cpus)
    print(f"{name:<56} wall {wall:6.3f} s (min {min(walls):.3f})  cpu {cpu:6.3f} s  "
          f"n={len(runs)}")
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repo", type=Path, default=REPO,
                        help="checkout whose noisefloor runs (python -m from its root)")
    parser.add_argument("--tiny", action="store_true", help="one run of each line")
    args = parser.parse_args()
    repeat = 1 if args.tiny else args.repeat
    print(f"python {sys.version.split()[0]}, noisefloor from {args.repo}, {repeat} run(s) each")
    for argv in LINES[:1] if args.tiny else LINES:
        runs = [run([sys.executable, "-m", "noisefloor", *argv], args.repo)
                for _ in range(repeat)]
        line("noisefloor " + " ".join(argv), runs)
    with tempfile.TemporaryDirectory() as tmp:
        audit_runs, peer_runs = [], []
        for _ in range(repeat):  # A B A B
            audit_runs.append(run([sys.executable, "-m", "noisefloor", "audit", "--out",
                                   f"{tmp}/audit"], args.repo))
            peer_runs.append(run([sys.executable, "-c", PEER, tmp], args.repo))
        a_wall, a_cpu = line("noisefloor audit --out DIR (bundled; report + 2 figures)",
                             audit_runs)
        p_wall, p_cpu = line("peer: import pandas, scipy.stats, matplotlib; save 2 figures",
                             peer_runs)
        print(f"{'ratio audit / peer':<56} wall {a_wall / p_wall:6.2f}x  "
              f"          cpu {a_cpu / p_cpu:6.2f}x  (target <= 1.3x)")


if __name__ == "__main__":
    main()
