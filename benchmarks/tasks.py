"""Throughput of the collaboration-tax task suite.

For every registered task: generate, split, render (full instance and both views), solve
(oracle) and grade N instances (seeds 0..N-1 at one difficulty); print instances per second
per task and for the whole suite.

Usage::

    python benchmarks/tasks.py [--n 1000] [--difficulty 1] [--family spatial]

Targets: >= 1,000 instances/s for the suite as a whole, no task below 100/s at the
default difficulty.

Peer: the targets themselves, as a limit. The tasks are this project's own (no library
generates, renders or grades them), and the figure is a stated throughput target, so the
run is priced against that budget: time per instance over the target's (1 ms for the suite,
10 ms for the slowest task), by wall clock and by CPU; a ratio above 1 misses the target. The
task's own generate + oracle without rendering and grading would not be a peer: it is a
part of the same job, not the job done another way.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout


SUITE_TARGET = 1000  # instances per second, the suite as a whole
TASK_TARGET = 100  # instances per second, every task


def run_one(task, n: int, difficulty: int) -> tuple[float, float]:
    """(wall-clock seconds, CPU seconds of this process) to push ``n`` instances through the
    whole pipeline. The machine is shared, so both are reported: the wall clock is what a
    user waits, the CPU time is the figure that does not depend on other people's jobs."""
    t0, c0 = time.perf_counter(), time.process_time()
    for seed in range(n):
        inst = task.generate(seed, difficulty)
        a, b = task.split(inst)
        task.render(inst)
        task.render_view(a)
        task.render_view(b)
        answer = task.oracle(inst)
        score = task.grade(inst, answer)
        if score != 1.0:
            raise RuntimeError(f"{task.name} seed {seed}: oracle scored {score}")
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--difficulty", type=int, default=None,
                    help="instance size (default: the harness's default difficulty)")
    ap.add_argument("--family", default=None)
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    if args.tiny:
        args.n = 3
    # imported once the options are read, so that --help answers at once
    from harness.base import DEFAULT_DIFFICULTY
    from harness.registry import list_tasks

    if args.difficulty is None:
        args.difficulty = DEFAULT_DIFFICULTY
    tasks = list_tasks(args.family)
    total_s, total_cpu, slow = 0.0, 0.0, []
    slowest = ("", 0.0, 0.0)  # (task, wall seconds, CPU seconds) of the slowest task by wall
    print(f"{'task':<32} {'family':<10} {'inst/s':>9} {'ms/inst':>8} {'inst/s CPU':>11}")
    for task in tasks:
        secs, cpu = run_one(task, args.n, args.difficulty)
        total_s += secs
        total_cpu += cpu
        rate = args.n / secs
        if secs > slowest[1]:
            slowest = (task.name, secs, cpu)
        if rate < TASK_TARGET:
            slow.append(task.name)
        print(f"{task.name:<32} {task.family:<10} {rate:>9.0f} {1000 * secs / args.n:>8.2f} "
              f"{args.n / cpu:>11.0f}")
    n_all = args.n * len(tasks)
    print(f"{'SUITE':<32} {'':<10} {n_all / total_s:>9.0f} {1000 * total_s / n_all:>8.2f} "
          f"{n_all / total_cpu:>11.0f}")
    print(f"({len(tasks)} tasks x {args.n} instances, difficulty {args.difficulty}: "
          f"{total_s:.1f} s wall clock, {total_cpu:.1f} s CPU)")
    print("tasks below 100/s: " + (", ".join(slow) if slow else "none"))
    print(f"peer: the stated targets (a limit; no library makes these tasks): "
          f"{SUITE_TARGET:,} instances/s for the suite, {TASK_TARGET}/s for every task")
    print(f"ratio noisefloor / peer (suite, time per instance over the target's "
          f"{1000 / SUITE_TARGET:g} ms): wall {total_s / n_all * SUITE_TARGET:.2f}x, "
          f"CPU {total_cpu / n_all * SUITE_TARGET:.2f}x")
    name, secs, cpu = slowest
    print(f"ratio noisefloor / peer (slowest task, {name}, over the target's "
          f"{1000 / TASK_TARGET:g} ms): wall {secs / args.n * TASK_TARGET:.2f}x, "
          f"CPU {cpu / args.n * TASK_TARGET:.2f}x")


if __name__ == "__main__":
    main()
