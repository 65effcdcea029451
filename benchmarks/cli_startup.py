"""Start-up time of the ``noisefloor`` command (issue target: ``noisefloor --help`` under 0.5 s).

Runs each command line several times in a fresh interpreter and prints the median wall time.
Usage: ``python benchmarks/cli_startup.py [--repeat N]``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

LINES = [["--help"], ["contrast", "--help"],
         ["contrast", "--wins", "27", "--losses", "9", "--ties", "64"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    for line in LINES:
        times = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-m", "noisefloor", *line], check=True,
                           stdout=subprocess.DEVNULL)
            times.append(time.perf_counter() - start)
        print(f"noisefloor {' '.join(line):<45} median {statistics.median(times):.3f} s "
              f"(min {min(times):.3f}, max {max(times):.3f}, n={args.repeat})")


if __name__ == "__main__":
    main()
