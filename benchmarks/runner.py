"""Benchmark of the collaboration-tax runner, each figure beside its target.

Measures
--------
0. Set-up: making the endpoint layer for one model at concurrency 64 (one ``http://`` URL, and
   one ``https://`` URL, which loads the CA bundle once), its HTTP session included, and
   closing it (importing aiohttp, which loads a CA bundle of its own, is not counted).
1. The endpoint layer against the scripted server (a separate process, so that its work does
   not count as the runner's) with 0 ms and 100 ms latency per request, at concurrency 1, 16
   and 64: requests per second, the share of the ideal (``concurrency / latency``) reached at
   100 ms, and the runner's own CPU per request: user CPU seconds of this process per request
   (HTTP, the pool and the retry bookkeeping), and beside it the kernel (system) CPU per
   request, mostly the loopback TCP stack run on the sender's behalf, and the scripted
   server's CPU per request (it runs on the same two cores). At 100 ms a peer is measured at
   the same moment: a minimal HTTP/1.1 client on bare asyncio streams that parses nothing
   (what the machine allows). The endpoint layer's HTTP is aiohttp (one session per URL);
   ``--code DIR`` measures another checkout's layer with the same script.
2. The whole runner (``run_tax``, solo rollouts: one request each) at 0 ms latency: CPU per
   rollout, including the dialogue loop, grading, the transcript file and the fsynced journal
   line.
3. Resuming a run directory whose journal holds 100,000 finished rollouts: ``run_tax`` on the
   same settings (plan of 100,000 keys, the journal's index read, nothing to run,
   trials.jsonl current; median of 3), then once without the index (the journal decoded, as
   after a crash, when the index no longer matches the journal).

Targets: set-up under 0.1 s at concurrency 64; CPU under 2 ms per request; at 100 ms latency at
least 90 % of the ideal throughput at concurrency 16 and 60 % at 64; the resume under 2 s.

Usage: ``python benchmarks/runner.py [--requests 50] [--resume-rollouts 100000]``;
``--tiny`` runs every part at a size that takes seconds (10 ms instead of 100 ms of latency); ``--only resume`` (or ``setup``,
``endpoints``, ``runner``) measures one part; ``--code DIR`` measures another checkout's code
with this script.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

#: The checkout whose code is measured (``--code``; default: this script's).
CODE = Path(__file__).resolve().parents[1]
if "--code" in sys.argv:
    CODE = Path(sys.argv[sys.argv.index("--code") + 1]).resolve()
sys.path.insert(0, str(CODE))
# harness and noisefloor are imported where they are used (from CODE), so that --help answers
# at once

MESSAGES = [{"role": "system", "content": "You are solving a puzzle." * 20},
            {"role": "user", "content": "Solve the puzzle."}]


#: The scripted servers started so far, by latency in seconds: (process, base URL).
_SERVERS: dict[float, tuple[subprocess.Popen, str]] = {}


def _server(latency: float) -> tuple[subprocess.Popen, str]:
    """The scripted server that answers after ``latency`` seconds, started on first use and
    shared by the parts that run at that latency (its answers depend on the request only);
    :func:`_stop_servers` stops them."""
    if latency not in _SERVERS:
        proc = subprocess.Popen([sys.executable, "-m", "harness.runner.scripted", "--latency",
                                 str(latency), "--tasks", "csp_sudoku4", "--seeds", "0-199",
                                 "--difficulty", "0"], stdout=subprocess.PIPE, text=True,
                                cwd=CODE, env={**os.environ, "PYTHONPATH": str(CODE)})
        assert proc.stdout is not None
        _SERVERS[latency] = (proc, proc.stdout.readline().strip())
    return _SERVERS[latency]


def _stop_servers(latencies: list[float] | None = None) -> None:
    """Stop the scripted servers of these latencies (default: all)."""
    for latency in list(_SERVERS) if latencies is None else latencies:
        proc, _ = _SERVERS.pop(latency)
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def bench_setup(rounds: int) -> None:
    """Seconds to make and close the endpoint layer of one model at concurrency 64."""
    from noisefloor.endpoints import Endpoints, ModelEndpoint

    async def one(url: str) -> float:
        t0 = time.perf_counter()
        endpoints = Endpoints([ModelEndpoint("m", (url,), concurrency=64)])
        for client in endpoints._clients:  # the session is made on first use: made here
            getattr(client, "session", None)
        await endpoints.aclose()
        return time.perf_counter() - t0

    async def best(url: str) -> float:
        return min([await one(url) for _ in range(rounds)])

    plain = asyncio.run(best("http://127.0.0.1:9/v1"))
    tls = asyncio.run(best("https://127.0.0.1:9/v1"))
    print(f"0. set-up of the endpoint layer, concurrency 64 (best of {rounds}): "
          f"http:// {plain:.4f} s, target < 0.1 s: {'met' if plain < 0.1 else 'MISSED'}; "
          f"https:// {tls:.4f} s (the CA bundle, loaded once for every https:// URL)")


async def _requests(url: str, concurrency: int, n: int) -> tuple[float, float, float]:
    from noisefloor.endpoints import Endpoints, ModelEndpoint

    spec = ModelEndpoint("silent", (url,), concurrency=concurrency)
    async with Endpoints([spec]) as endpoints:
        await asyncio.gather(*(endpoints.complete("silent", MESSAGES)
                               for _ in range(concurrency)))  # connections warm
        before, wall = os.times(), time.perf_counter()
        await asyncio.gather(*(endpoints.complete("silent", MESSAGES) for _ in range(n)))
        after = os.times()
        return (time.perf_counter() - wall, after.user - before.user,
                after.system - before.system)


async def _raw_requests(url: str, concurrency: int, n: int) -> float:
    """Wall seconds for ``n`` requests by a minimal keep-alive HTTP/1.1 client on asyncio
    streams (no HTTP library): what the machine itself allows, for comparison."""
    host, port = url.split("//")[1].split("/")[0].split(":")
    body = json.dumps({"model": "silent", "messages": MESSAGES}).encode()
    request = (f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}\r\nContent-Type: "
               f"application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
    remaining = [n]

    async def worker() -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        while remaining[0] > 0:
            remaining[0] -= 1
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            json.loads(await reader.readexactly(length))
        writer.close()

    wall = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - wall


def _cpu_of(pid: int) -> float:
    """User + system CPU seconds of another process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: Share of the ideal throughput to reach at 100 ms latency, per concurrency.
SHARE_TARGETS = {16: 0.90, 64: 0.60}
#: Most CPU (user + system) of the runner's process per request, in ms.
CPU_TARGET_MS = 2.0


def bench_endpoints(n: int, rounds: int, slow: float = 0.1) -> None:
    print(f"1. endpoint layer (scripted server in its own process); at {slow * 1000:g} ms: share "
          "of the ideal, and the peer: a bare asyncio client at the same moment (its share, and "
          "the runner's time / the peer's)")
    print(f"   {'latency':>8} {'conc':>5} {'requests':>8} {'req/s':>8} {'ideal':>8} "
          f"{'share':>6} {'target':>6} {'user ms/req':>11} {'sys ms/req':>10} "
          f"{'server ms/req':>13} {'peer share':>10} {'/ peer':>7}")
    for latency in (0.0, slow):
        proc, url = _server(latency)
        for concurrency in (1, 16, 64):
            count = max(n, rounds * concurrency)
            if latency and concurrency == 1:
                count = min(count, 30)
            server_cpu = _cpu_of(proc.pid)
            wall, user, system = asyncio.run(_requests(url, concurrency, count))
            server_cpu = (_cpu_of(proc.pid) - server_cpu) / (count + concurrency)
            rate = count / wall
            ideal = concurrency / latency if latency else float("nan")
            share = f"{rate / ideal:6.1%}" if latency else "     -"
            target = SHARE_TARGETS.get(concurrency) if latency else None
            verdict = (f"{target:5.0%}{'' if rate / ideal >= target else '!'}"
                       if target else "     -")
            peers = ""
            if latency:
                raw_wall = asyncio.run(_raw_requests(url, concurrency, count))
                peers = f" {count / raw_wall / ideal:10.1%} {wall / raw_wall:6.2f}x"
            print(f"   {latency * 1000:6.0f}ms {concurrency:5d} {count:8d} {rate:8.1f} "
                  f"{ideal:8.1f} {share} {verdict:>6} {user / count * 1000:11.3f} "
                  f"{system / count * 1000:10.3f} {server_cpu * 1000:13.3f}{peers}")
    _stop_servers([slow])  # the one at 0 ms serves the runner part too
    print(f"   targets: share >= 90 % at concurrency 16 and >= 60 % at 64 (100 ms; '!' = "
          f"missed); CPU (user + sys) < {CPU_TARGET_MS:g} ms per request")


def bench_runner(rollouts: int) -> None:
    from harness.runner.run import RunSettings, run_tax
    from noisefloor.endpoints import ModelEndpoint

    _, url = _server(0.0)  # the endpoint part's server, when it ran
    settings = RunSettings(tasks=("csp_sudoku4",), models=("solver",), modes=("solo",),
                           rollouts=rollouts, difficulty=0)
    spec = ModelEndpoint("solver", (url,), concurrency=16, price_input_per_mtok=1.0,
                         price_output_per_mtok=1.0)
    with tempfile.TemporaryDirectory() as d:
        run_tax(RunSettings(tasks=("csp_sudoku4",), models=("solver",), modes=("solo",),
                            difficulty=0), [spec], Path(d) / "warm")
        cpu, wall = time.process_time(), time.perf_counter()
        result = run_tax(settings, [spec], Path(d) / "run")
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"2. run_tax, {result.ran} solo rollouts (1 request each), concurrency 16, 0 ms: "
          f"{result.ran / wall:.1f} rollouts/s, CPU {cpu / result.ran * 1000:.2f} ms per "
          "rollout (dialogue, grading, transcript, fsynced journal line, record)")


def bench_resume(n: int) -> None:
    from harness.registry import list_tasks
    from harness.runner import journal as jr
    from harness.runner.run import (
        RunSettings,
        check_meta,
        plan_rollouts,
        run_tax,
        variant_ids,
        variant_texts,
    )
    from noisefloor.endpoints import ModelEndpoint

    tasks = tuple(t.name for t in list_tasks())
    per_task = 4  # solo, pair, split_solo_a, split_solo_b
    rollouts = -(-n // (len(tasks) * per_task))
    settings = RunSettings(tasks=tasks, models=("m",), modes=("solo", "pair", "split_solo"),
                           rollouts=rollouts)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        texts = variant_texts(settings)
        plan = plan_rollouts(settings, texts)
        meta = check_meta(out, settings, variant_ids(settings, texts), False)
        jr.write_meta(out, meta)
        with open(out / jr.JOURNAL, "wb") as fh:
            for s in plan:
                record = {
                    "schema_version": "1", "benchmark": f"tax/{s.task}", "model": s.model,
                    "protocol": s.protocol, "seed": s.seed, "task_id": s.task_id,
                    "trial": s.repeat, "reward": 1.0, "termination_reason": "final_answer",
                    "infrastructure_error": False, "store_events_at_start": None,
                    "injections": None, "first_request_sha256": "0" * 64,
                    "extra": {"task": s.task, "family": "csp", "difficulty": 1,
                              "instance_seed": s.instance_seed, "mode": s.mode,
                              "model_a": s.model_a, "model_b": s.model_b,
                              "started_by": s.started_by, "prompt_variant": s.variant,
                              "turns": 5, "tokens_in": 4000, "tokens_out": 600,
                              "cost_usd": 0.001, "latency_s": 3.2, "retries": 0,
                              "extraction": "parse", "answer": "3412/1243/4321/2134",
                              "rollout_key": s.key,
                              "transcript": f"transcripts/{s.key}.jsonl", "error": None}}
                fh.write(json.dumps({"key": s.key, "settings": s.settings,
                                     "record": record}).encode() + b"\n")
        size = (out / jr.JOURNAL).stat().st_size
        # the parts as run_tax meets them: the cyclic collector paused while they are alive
        no_gc = getattr(jr, "no_gc", None) or contextlib.nullcontext
        with no_gc():
            t0 = time.process_time()
            state = jr.read_journal(out / jr.JOURNAL)
            t_read = time.process_time() - t0
            del state
        endpoints = [ModelEndpoint("m", ("http://127.0.0.1:9/v1",))]
        t0 = time.perf_counter()
        run_tax(settings, endpoints, out)  # the first resume also builds trials.jsonl
        t_first = time.perf_counter() - t0
        with no_gc():
            t0 = time.process_time()
            plan_rollouts(settings, texts)
            t_plan = time.process_time() - t0
        read_index = getattr(jr, "read_index", None)  # the journal's index, where there is one
        t_index = None
        if read_index is not None:
            from harness.runner.run import SUMMARY_FIELDS

            with no_gc():
                t0 = time.process_time()
                index = read_index(out / jr.JOURNAL, SUMMARY_FIELDS)
                t_index = time.process_time() - t0
            assert index is not None and len(index.keys) == len(plan)
            del index
        walls, cpus = [], []
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            result = run_tax(settings, endpoints, out)
            walls.append(time.perf_counter() - t0)
            cpus.append(time.process_time() - c0)
            assert result.ran == 0 and result.skipped == len(plan)
        t_resume, c_resume = sorted(walls)[1], sorted(cpus)[1]
        without = ""
        if read_index is not None:
            from noisefloor.journal import index_path

            index_path(out / jr.JOURNAL).unlink()
            t0, c0 = time.perf_counter(), time.process_time()
            run_tax(settings, endpoints, out)  # decodes the journal, writes the index again
            without = (f"; {time.perf_counter() - t0:.2f} s wall, "
                       f"{time.process_time() - c0:.2f} s CPU without the index (journal "
                       "decoded, as after a crash)")
        parts = (f"plan of the keys {t_plan:.2f} s, "
                 + (f"journal index {t_index:.2f} s" if t_index is not None
                    else f"read_journal {t_read:.2f} s") + " CPU")
        print(f"3. resume of {len(plan):,} finished rollouts (journal {size / 1e6:.0f} MB; "
              f"read_journal alone {t_read:.2f} s CPU): run_tax {t_resume:.2f} s wall, "
              f"{c_resume:.2f} s CPU, median of 3 (min {min(walls):.2f} s wall; of which "
              f"{parts}; nothing to run, trials.jsonl current); target < 2 s wall: "
              f"{'met' if t_resume < 2 else 'MISSED'}{without}; {t_first:.2f} s when "
              f"trials.jsonl ({result.planned:,} records) is rebuilt too")
        print(f"   ratio resume / peer (decoding the journal alone, read_journal): CPU "
              f"{c_resume / max(t_read, 1e-3):.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400,
                        help="requests per measurement (at least 20 per connection)")
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--resume-rollouts", type=int, default=100_000)
    parser.add_argument("--tiny", action="store_true",
                        help="every part at a size that runs in seconds (checks the script)")
    parser.add_argument("--code", type=Path, default=CODE,
                        help="checkout whose code is measured (default: this one)")
    parser.add_argument("--only", choices=("setup", "endpoints", "runner", "resume"),
                        help="measure only this part")
    args = parser.parse_args()
    rounds, slow = 20, 0.1
    if args.tiny:  # 10 ms instead of 100 ms: the same paths, a tenth of the waiting
        args.requests, args.rollouts, args.resume_rollouts, rounds, slow = 16, 4, 500, 1, 0.01
    warnings.simplefilter("ignore")
    print(f"# code measured: {CODE}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    parts = {"setup": lambda: bench_setup(1 if args.tiny else 10),
             "endpoints": lambda: bench_endpoints(args.requests, rounds, slow),
             "runner": lambda: bench_runner(args.rollouts),
             "resume": lambda: bench_resume(args.resume_rollouts)}
    try:
        for name, part in parts.items():
            if args.only in (None, name):
                part()
    finally:
        _stop_servers()


if __name__ == "__main__":
    main()
