"""Line-reader benchmark: time and peak memory on long unterminated tails.

Makes sparse files in a temporary directory (one valid trial record, then a hole of zero
bytes with no newline: what a crash or a full disk leaves at the end of a log) and reads each
with ``validate_logs(path, format="jsonl")`` in a fresh subprocess, so that the peak resident
set size (``resource.getrusage(RUSAGE_SELF).ru_maxrss`` in the child, printed after the
imports and after the read) is the reader's own, interpreter and imports included. Also reads a tau2-bench ``results.json`` whose document is followed by
the same kind of tail (refused from its last bytes, never read whole).

Target: linear in the tail's length, a 1 GiB tail in under 20 s and 300 MB.

Peer: the same file read in the same kind of subprocess, timed and measured the same way, by
the plainest reader of the same bytes: ``readinto`` of a 1 MiB buffer until the end, the bytes
going nowhere (no line splitting, no parsing). No reader can do less with the file, so the
ratio is what the line splitting, the bounds and the validation cost over reading the disk. The
target is printed as a ratio too: read time over the budget of 20 s per GiB, peak RSS over
300 MB.

Usage::

    python benchmarks/line_reader.py [--sizes 256,512,1024] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RECORD = {"schema_version": "1", "benchmark": "b", "model": "m", "protocol": "p", "seed": 1,
          "task_id": "t", "trial": 0, "reward": 1.0, "termination_reason": None,
          "infrastructure_error": False}

CHILD = """
import resource, sys, time, warnings
from noisefloor.logs import validate_logs
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    report = validate_logs(sys.argv[1], format=sys.argv[2] if sys.argv[2] != "auto" else None)
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kinds = sorted({p.kind for p in report.problems})
print(f"{elapsed:.3f} {base / 1024:.0f} {peak / 1024:.0f} {report.n_valid} "
      f"{len(report.problems)} {','.join(kinds)}")
"""


PEER = """
import resource, sys, time
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
buf, n = bytearray(1 << 20), 0
with open(sys.argv[1], "rb", buffering=0) as fh:
    while (got := fh.readinto(buf)):
        n += got
elapsed = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(f"{elapsed:.6f} {base / 1024:.0f} {peak / 1024:.0f} {n}")
"""


def ratio(x: float) -> str:
    """A ratio with two decimals, or two significant digits below 0.1."""
    return f"{x:.2f}x" if x >= 0.1 else f"{x:.2g}x"


def sparse(path: Path, head: bytes, size: int) -> None:
    with open(path, "wb") as handle:
        handle.write(head)
        handle.truncate(size)


def measure(path: Path, fmt: str, child: str = CHILD
            ) -> tuple[float, float, float, float, str]:
    """(read s, process s, RSS MiB after imports, peak RSS MiB, result), in a subprocess."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", child, str(path), fmt], capture_output=True,
                          text=True, cwd=REPO, check=True)
    wall = time.perf_counter() - start
    if child == PEER:
        read_s, base, peak, n_bytes = done.stdout.split()
        return float(read_s), wall, float(base), float(peak), f"{int(n_bytes):,} bytes read"
    read_s, base, peak, n_valid, n_problems, *kinds = done.stdout.split()
    return (float(read_s), wall, float(base), float(peak),
            f"{n_valid} valid, {n_problems} problem(s) {' '.join(kinds)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="256,512,1024",
                        help="tail sizes in MiB, increasing (default 256,512,1024)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size; best is shown")
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.sizes, args.repeat = "1", 1
    sizes = [int(s) for s in args.sizes.split(",")]
    line = (json.dumps(RECORD) + "\n").encode()
    print(f"python {sys.version.split()[0]}; each read in its own subprocess; best of "
          f"{args.repeat}")
    print(f"{'file':<34} {'read s':>7} {'MiB/s':>6} {'process s':>9} "
          f"{'RSS MiB after imports':>21} {'peak RSS MiB':>12}  result")
    with tempfile.TemporaryDirectory(prefix="noisefloor-lines-") as tmp:
        rows = []
        for mib in sizes:
            rows.append((f"jsonl, {mib} MiB zero tail", Path(tmp) / f"tail{mib}.jsonl",
                         line, mib, "jsonl"))
        head = b'{"info": {"seed": 300}, "tasks": [], "simulations": ['
        rows.append((f"tau2 results.json, {sizes[-1]} MiB tail", Path(tmp) / "results.json",
                     head, sizes[-1], "auto"))
        for label, path, head_bytes, mib, fmt in rows:
            sparse(path, head_bytes, mib << 20)
            best = min((measure(path, fmt) for _ in range(args.repeat)), key=lambda r: r[0])
            read_s, wall, base, peak, result = best
            rate = mib / read_s if read_s else float("inf")
            print(f"{label:<34} {read_s:>7.2f} {rate:>6.0f} {wall:>9.2f} {base:>21.0f} "
                  f"{peak:>12.0f}  {result}")
            peer = min((measure(path, fmt, PEER) for _ in range(args.repeat)),
                       key=lambda r: r[0])
            p_read, p_wall, p_base, p_peak, p_result = peer
            p_rate = mib / p_read if p_read else float("inf")
            print(f"{'  peer: readinto 1 MiB, no parsing':<34} {p_read:>7.2f} {p_rate:>6.0f} "
                  f"{p_wall:>9.2f} {p_base:>21.0f} {p_peak:>12.0f}  {p_result}")
            print(f"  ratio noisefloor / peer: read {ratio(read_s / max(p_read, 1e-6))}, "
                  f"process {ratio(wall / p_wall)}, peak RSS {ratio(peak / p_peak)}; "
                  f"target (20 s per GiB, 300 MB): read {ratio(read_s / (20 * mib / 1024))}, "
                  f"peak RSS {ratio(peak * 2**20 / 300e6)}")
            path.unlink()


if __name__ == "__main__":
    main()
