"""Peak memory and time of the size limits: an inflating body, an endless body, a large
``.eval`` member and a 10^5-entry leaderboard.

Each case runs in its own child process (``python -c ...`` with ``cwd`` = the checkout
measured, so that checkout's ``noisefloor`` is imported); its peak RSS is the child's
``ru_maxrss`` from ``os.wait4`` and its time the wall clock. The misbehaving server
(:class:`harness.runner.hostile.HostileServer`) and the input files come from this checkout,
so the same inputs can be measured against another checkout's code::

    python benchmarks/limits.py                      # this checkout
    python benchmarks/limits.py --code /path/other   # another checkout, same inputs

``--cap S`` stops a case after S seconds (reported as such): the code before the limits
ran for minutes on some of them.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(HERE))

CLIENT = """
import asyncio, sys, warnings
warnings.simplefilter("ignore")
from noisefloor.endpoints import Endpoints, ModelEndpoint, EndpointError
async def go():
    async with Endpoints([ModelEndpoint("m", ("{url}",))], timeout={timeout},
                         max_retries=0) as e:
        try:
            r = await e.complete("m", [{{"role": "user", "content": "x"}}])
            print("ok", len(r.text))
        except EndpointError as exc:
            print("EndpointError", exc.kind, str(exc)[:100])
asyncio.run(go())
"""

EVAL = """
from noisefloor.logs import validate_logs
r = validate_logs({path!r})
print("problems", len(r.problems), (r.problems[0].message[:100] if r.problems else ""))
"""

BOARD = """
import sys
from click.testing import CliRunner
from noisefloor.cli.main import cli
r = CliRunner().invoke(cli, ["leaderboard", {path!r}])
print("exit", r.exit_code, r.output.splitlines()[0][:80] if r.output else "")
sys.exit(r.exit_code)
"""


def run_case(code_dir: Path, source: str, cap: float) -> dict:
    """Run ``source`` in a child with cwd ``code_dir``: peak RSS (MB), seconds, its output."""
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", source], cwd=code_dir,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONPATH": str(code_dir)})
    stopped = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() - t0 > cap:
            proc.kill()
            stopped = True
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.05)
    seconds = time.monotonic() - t0
    out = proc.stdout.read().strip().splitlines() if proc.stdout else []
    proc.returncode = os.waitstatus_to_exitcode(status)
    return {"peak_rss_mb": usage.ru_maxrss / 1024, "seconds": seconds, "stopped": stopped,
            "cpu": usage.ru_utime + usage.ru_stime,
            "exit": proc.returncode, "output": (out[-1] if out else "")[:110]}


def make_eval(path: Path, member_bytes: int) -> Path:
    """An .eval archive with a header and one sample member of ``member_bytes`` zero bytes."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("header.json", json.dumps({"version": 2, "status": "success"}))
        with z.open("samples/1_epoch_1.json", "w", force_zip64=True) as fh:
            block = bytes(1 << 20)
            for _ in range(member_bytes >> 20):
                fh.write(block)
    return path


def make_board(path: Path, n: int) -> Path:
    """A leaderboard of ``n`` submissions: n/2 models, each submitted twice, in airline."""
    subs = {f"s{i}": {"model_name": f"model-{i // 2}",
                      "results": {"airline": {"pass_1": 20.0 + (i * 37) % 60}},
                      "methodology": {"tau2_bench_version": "1.0", "user_simulator": "gpt-4.1"}}
            for i in range(n)}
    path.write_text(json.dumps(subs, indent=1))
    return path


def _make(kind: str, path: Path, size: int) -> Path:
    """Build an input in a child process: this process stays small, so the children it
    forks (whose peak RSS counts the image they were forked from) start small too."""
    subprocess.run([sys.executable, __file__, "--make", kind, str(path), str(size)], check=True)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=HERE, help="checkout whose code is measured")
    parser.add_argument("--cap", type=float, default=180.0, help="seconds before a case stops")
    parser.add_argument("--timeout", type=float, default=10.0,
                        help="the client's --timeout for the body cases (seconds)")
    parser.add_argument("--eval-member-mb", type=int, default=300)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--make", nargs=3, metavar=("KIND", "PATH", "SIZE"),
                        help=argparse.SUPPRESS)  # builds an input in a child process
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.eval_member_mb, args.entries, args.cap = 1, 100, 30.0
    if args.make:
        kind, path, size = args.make
        (make_eval if kind == "eval" else make_board)(Path(path), int(size))
        return
    only = set(filter(None, args.only.split(",")))
    from harness.runner.hostile import HostileServer

    tmp = Path(tempfile.mkdtemp(prefix="limits-"))
    atexit.register(shutil.rmtree, tmp, True)  # the inputs (300 MB at full size) go at exit
    cases: list[tuple[str, str]] = []
    with HostileServer({"bomb": "gzip_bomb", "endless": "endless"}) as server:
        for name, model in (("inflating body (1 MB gzip -> 1 GiB)", "bomb"),
                            ("endless chunked body", "endless")):
            url = server.base_url
            source = CLIENT.replace('"m"', f'"{model}"').format(url=url, timeout=args.timeout)
            cases.append((name, source))
        if not only or "eval" in only:
            path = _make("eval", tmp / "big.eval", args.eval_member_mb << 20)
            cases.append((f".eval with one {args.eval_member_mb} MiB member "
                          f"({path.stat().st_size / 1e6:.1f} MB file)", EVAL.format(path=str(path))))
        if not only or "leaderboard" in only:
            board = _make("board", tmp / "board.json", args.entries)
            cases.append((f"leaderboard of {args.entries:,} entries",
                          BOARD.format(path=str(board))))
        print(f"# code measured: {args.code}; cap {args.cap:g} s per case; client timeout "
              f"{args.timeout:g} s")
        print(f"{'case':48} {'peak RSS MB':>11} {'seconds':>8} {'CPU s':>6}  outcome")
        failed = []
        for name, source in cases:
            key = name.split()[0]
            if only and not any(o in name for o in only) and key not in only:
                continue
            r = run_case(args.code, source, args.cap)
            outcome = "stopped at the cap" if r["stopped"] else r["output"]
            if r["exit"] and not r["stopped"]:  # a crash (or a kill by the system) of the case
                outcome = f"exit {r['exit']}: {outcome}"
                failed.append(name)
            print(f"{name:48} {r['peak_rss_mb']:11.0f} {r['seconds']:8.1f} {r['cpu']:6.1f}  "
                  f"{outcome}",
                  flush=True)
    if failed:  # every case is printed; the exit status says one failed
        sys.exit(f"case(s) that exited with an error: {'; '.join(failed)}")


if __name__ == "__main__":
    main()
