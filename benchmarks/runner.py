"""Benchmark of the collaboration-tax runner.

Measures
--------
1. The endpoint layer against the scripted server (a separate process, so that its work does
   not count as the runner's) with 0 ms and 100 ms latency per request, at concurrency 1, 16
   and 64: requests per second, the share of the ideal (``concurrency / latency``) reached at
   100 ms, and the runner's own overhead per request: user CPU seconds of this process per
   request (the openai SDK, httpx, the pool and the retry bookkeeping), and beside it the
   kernel (system) CPU per request, mostly the loopback TCP stack run on the sender's behalf,
   and the scripted server's CPU per request (it runs on the same two cores). At 100 ms the
   share of the ideal reached by a minimal HTTP/1.1 client on bare asyncio streams (no SDK,
   no httpx) is printed beside it: what the machine itself allows at that moment.
2. The whole runner (``run_tax``, solo rollouts: one request each) at 0 ms latency: CPU per
   rollout, including the dialogue loop, grading, the transcript file and the fsynced journal
   line.
3. Resuming a run directory whose journal holds 100,000 finished rollouts: ``run_tax`` on the
   same settings (plan of 100,000 keys, journal read, nothing to run, trials.jsonl rewritten).

Targets: overhead under 2 ms per request; at 100 ms latency at least 90 % of the ideal
throughput at concurrency 16 and at least 50 % at 64; the resume in under 2 s.

Usage: ``python benchmarks/runner.py [--requests 400] [--resume-rollouts 100000]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.runner import journal as jr  # noqa: E402
from noisefloor.endpoints import Endpoints, ModelEndpoint  # noqa: E402
from harness.runner.run import RunSettings, _check_meta, _variant_ids, plan_rollouts  # noqa: E402
from harness.runner.run import run_tax, variant_texts  # noqa: E402

MESSAGES = [{"role": "system", "content": "You are solving a puzzle." * 20},
            {"role": "user", "content": "Solve the puzzle."}]


def _server(latency: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "harness.runner.scripted", "--latency",
                             str(latency), "--tasks", "csp_sudoku4", "--seeds", "0-199",
                             "--difficulty", "0"], stdout=subprocess.PIPE, text=True)
    return proc, proc.stdout.readline().strip()


async def _requests(url: str, concurrency: int, n: int) -> tuple[float, float, float]:
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
    streams (no SDK, no httpx): what the machine itself allows, for comparison."""
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


def bench_endpoints(n: int) -> None:
    print("1. endpoint layer (scripted server in its own process)")
    print(f"   {'latency':>8} {'conc':>5} {'requests':>8} {'req/s':>8} {'ideal':>8} "
          f"{'share':>6} {'user ms/req':>11} {'sys ms/req':>10} {'server ms/req':>13} "
          f"{'raw client share':>16}")
    for latency in (0.0, 0.1):
        proc, url = _server(latency)
        try:
            for concurrency in (1, 16, 64):
                count = n if latency == 0 else max(n, 20 * concurrency)
                if latency and concurrency == 1:
                    count = 30
                server_cpu = _cpu_of(proc.pid)
                wall, user, system = asyncio.run(_requests(url, concurrency, count))
                server_cpu = (_cpu_of(proc.pid) - server_cpu) / (count + concurrency)
                rate = count / wall
                ideal = concurrency / latency if latency else float("nan")
                share = f"{rate / ideal:6.1%}" if latency else "     -"
                raw = ""
                if latency:
                    raw_wall = asyncio.run(_raw_requests(url, concurrency, count))
                    raw = f"{count / raw_wall / ideal:16.1%}"
                print(f"   {latency * 1000:6.0f}ms {concurrency:5d} {count:8d} {rate:8.1f} "
                      f"{ideal:8.1f} {share} {user / count * 1000:11.3f} "
                      f"{system / count * 1000:10.3f} {server_cpu * 1000:13.3f} {raw}")
        finally:
            proc.kill()
            proc.wait()


def bench_runner(rollouts: int) -> None:
    proc, url = _server(0.0)
    try:
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
    finally:
        proc.kill()
        proc.wait()


def bench_resume(n: int) -> None:
    from harness.registry import list_tasks

    tasks = tuple(t.name for t in list_tasks())
    per_task = 4  # solo, pair, split_solo_a, split_solo_b
    rollouts = -(-n // (len(tasks) * per_task))
    settings = RunSettings(tasks=tasks, models=("m",), modes=("solo", "pair", "split_solo"),
                           rollouts=rollouts)
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        texts = variant_texts(settings)
        plan = plan_rollouts(settings, texts)
        meta = _check_meta(out, settings, _variant_ids(settings, texts), False)
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
        t0 = time.process_time()
        state = jr.read_journal(out / jr.JOURNAL)
        t_read = time.process_time() - t0
        endpoints = [ModelEndpoint("m", ("http://127.0.0.1:9/v1",))]
        t0 = time.perf_counter()
        run_tax(settings, endpoints, out)  # the first resume also builds trials.jsonl
        t_first = time.perf_counter() - t0
        t0 = time.process_time()
        plan_rollouts(settings, texts)
        t_plan = time.process_time() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        result = run_tax(settings, endpoints, out)
        t_resume, c_resume = time.perf_counter() - t0, time.process_time() - c0
        assert result.ran == 0 and result.skipped == len(plan)
        print(f"3. resume of {len(plan):,} finished rollouts (journal {size / 1e6:.0f} MB): "
              f"run_tax {t_resume:.2f} s wall, {c_resume:.2f} s CPU (of which plan of the keys {t_plan:.2f} s, "
              f"read_journal {t_read:.2f} s CPU; nothing to run, trials.jsonl current); "
              f"{t_first:.2f} s when trials.jsonl ({result.planned:,} records) is rebuilt too")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--rollouts", type=int, default=200)
    parser.add_argument("--resume-rollouts", type=int, default=100_000)
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.requests, args.rollouts, args.resume_rollouts = 16, 8, 200
    warnings.simplefilter("ignore")
    bench_endpoints(args.requests)
    bench_runner(args.rollouts)
    bench_resume(args.resume_rollouts)


if __name__ == "__main__":
    main()
