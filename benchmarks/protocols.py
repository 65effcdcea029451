"""Benchmark of ``noisefloor protocols run`` on tau2-bench against tau2's own ``run_task``.

Measures
--------
1. Throughput: simulations per second of :func:`noisefloor.protocols.tau2.run_protocols` (one
   ``intercept`` arm, one trial, ``--tasks`` retail tasks, concurrency 16) against the scripted
   endpoint (:class:`noisefloor.protocols.tau2.ScriptedEndpoint`) at 0 ms and at 100 ms of added
   latency per model call.
2. Overhead: wall time per simulation, one at a time, of tau2-bench's own ``run_task`` with its
   ``llm_agent`` and of ``run_protocols`` (coordinated agent, journal, simulation files, store,
   records) on the same tasks, same endpoint. Target: within 10 % of tau2 alone.

The scripted endpoint answers without a model, so the figures are the harness's own cost
(tau2's orchestrator and evaluator, the HTTP round trips: litellm for tau2 alone,
``noisefloor.endpoints`` for ``run_protocols``, and noisefloor's bookkeeping).

Usage: ``python benchmarks/protocols.py [--tasks 16] [--overhead-tasks 6] [--repeat 2] [--tiny]``
(``--tiny``: 1 task, the one with the fewest expected actions, at 0 ms only, one repeat, and
tau2's retail database cut to that task's customer
(:func:`noisefloor.protocols.tau2.retail_cut.cut_retail_db`): the size the test suite runs; its
figures say that every part runs, not how fast).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
#: Tells LiteLLM (imported by tau2-bench) to read its price map from its own copy, not the network.
OFFLINE_PRICES = "LITELLM_LOCAL_MODEL_COST_MAP"

# noisefloor and tau2 are imported where they are used, so that --help answers at once
if TYPE_CHECKING:
    from noisefloor.protocols.tau2 import ProtocolRunSettings


def _tasks(n: int, shortest: bool = False):
    from tau2.registry import registry

    every = registry.get_tasks_loader("retail")("base")
    fit = [t for t in every if 1 <= len(t.evaluation_criteria.actions or []) <= 6]
    if shortest:  # fewest expected actions first: fewest turns per simulation (stable order)
        fit.sort(key=lambda t: len(t.evaluation_criteria.actions or []))
    return fit[:n]


def _settings(url: str, tasks, concurrency: int, protocol: str = "intercept") -> ProtocolRunSettings:
    from noisefloor.endpoints import ModelEndpoint
    from noisefloor.protocols.tau2 import ProtocolRunSettings

    # one request in flight per simulation and role: the per-URL limit never binds
    return ProtocolRunSettings(domain="retail",
                               agent=ModelEndpoint("scripted-agent", (url,), concurrency=concurrency),
                               user=ModelEndpoint("scripted-user", (url,), concurrency=concurrency),
                               tasks=tuple(str(t.id) for t in tasks), protocols=(protocol,),
                               trials=1, max_steps=40, concurrency=concurrency, max_retries=0)


def throughput(tasks, latency: float, concurrency: int) -> tuple[float, float, int]:
    from noisefloor.protocols.tau2 import ScriptedEndpoint, run_protocols

    with ScriptedEndpoint(tasks, latency=latency) as server, tempfile.TemporaryDirectory() as d:
        start = time.perf_counter()
        result = run_protocols(_settings(server.base_url, tasks, concurrency), Path(d) / "run")
        wall = time.perf_counter() - start
    ok = sum(n for n, _ in result.success.values())
    return result.simulations / wall, wall, ok


def per_simulation(tasks, repeat: int) -> tuple[list[float], list[float]]:
    from loguru import logger
    from tau2.run import run_task

    from noisefloor.protocols.tau2 import ScriptedEndpoint, run_protocols

    # tau2 logs every step; run_protocols silences it the same way while it runs. The caller's
    # choice is restored on the way out (as run_protocols restores it).
    core = getattr(logger, "_core", None)
    was_off = ("tau2.", False) in getattr(core, "activation_list", [])
    alone, ours = [], []
    try:
        with ScriptedEndpoint(tasks) as server:
            args = {"api_base": server.base_url, "api_key": "EMPTY", "temperature": 0.0,
                    "max_retries": 0, "timeout": 120.0}
            for _ in range(repeat):
                logger.disable("tau2")  # run_protocols enables it again on its way out
                start = time.perf_counter()
                for task in tasks:
                    run_task("retail", task, "llm_agent", "user_simulator",
                             llm_agent="openai/scripted-agent", llm_args_agent=dict(args),
                             llm_user="openai/scripted-user", llm_args_user=dict(args),
                             max_steps=40, seed=1)
                alone.append((time.perf_counter() - start) / len(tasks))
                with tempfile.TemporaryDirectory() as d:
                    start = time.perf_counter()
                    run_protocols(_settings(server.base_url, tasks, 1), Path(d) / "run")
                    ours.append((time.perf_counter() - start) / len(tasks))
    finally:
        if not was_off:
            logger.enable("tau2")
    return alone, ours


def main() -> None:
    """Parse the options and run; the process's environment is left as it was found."""
    previous = os.environ.get(OFFLINE_PRICES)
    os.environ[OFFLINE_PRICES] = previous or "True"  # read by LiteLLM when it is first imported
    try:
        _main()
    finally:
        if previous is None:
            del os.environ[OFFLINE_PRICES]


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=16)
    parser.add_argument("--overhead-tasks", type=int, default=6)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--tiny", action="store_true",
                        help="1 task (the shortest), 0 ms latency only, one repeat (seconds, not minutes)")
    a = parser.parse_args()
    latencies: tuple[float, ...] = (0.0, 0.1)
    if a.tiny:  # every part once, on the shortest task, without the added latency
        a.tasks, a.overhead_tasks, a.repeat, latencies = 1, 1, 1, (0.0,)
    # imported after the options are read (--help answers at once); takes seconds, not timed
    import noisefloor.protocols.tau2.registration  # noqa: F401  (tau2-bench, the agent, the user)

    print(f"python {platform.python_version()}, cpus {os.cpu_count()}")
    tasks = _tasks(a.tasks, shortest=a.tiny)
    with ExitStack() as stack:
        if a.tiny:  # every simulation loads the database three times: the cut one, at this size
            from noisefloor.protocols.tau2.retail_cut import cut_retail_db

            stack.enter_context(cut_retail_db(tasks, stack.enter_context(tempfile.TemporaryDirectory())))
            print("retail database: cut to the task's customer")
        _measure(tasks, latencies, a.overhead_tasks, a.repeat)


def _measure(tasks, latencies: tuple[float, ...], overhead_tasks: int, repeat: int) -> None:
    print(f"\n== throughput: {len(tasks)} retail tasks, 1 arm (intercept), concurrency 16 ==")
    for latency in latencies:
        rate, wall, ok = throughput(tasks, latency, 16)
        print(f"latency {latency * 1000:5.0f} ms: {rate:6.2f} simulations/s "
              f"({len(tasks)} in {wall:6.1f} s, {ok} with reward 1)")
    few = tasks[:overhead_tasks]
    alone, ours = per_simulation(few, repeat)
    best_alone, best_ours = min(alone), min(ours)
    ratio = best_ours / best_alone - 1
    print(f"\n== wall time per simulation, one at a time, {len(few)} tasks, best of {repeat} ==")
    print(f"peer: tau2 run_task (llm_agent):     {best_alone:6.3f} s  (runs: "
          f"{', '.join(f'{x:.3f}' for x in alone)}; median {statistics.median(alone):.3f})")
    print(f"noisefloor run_protocols (intercept): {best_ours:6.3f} s  (runs: "
          f"{', '.join(f'{x:.3f}' for x in ours)}; median {statistics.median(ours):.3f})")
    print(f"ratio noisefloor / peer (tau2 run_task alone): wall {best_ours / best_alone:.2f}x")
    print(f"\n== target ==\nwithin 10 % of tau2 alone: {ratio:+.1%} -> "
          f"{'MET' if ratio <= 0.10 else 'NOT MET'}")


if __name__ == "__main__":
    main()
