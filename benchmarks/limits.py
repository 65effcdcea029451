"""Peak memory and time of the size limits: an inflating body, an endless body, a large
``.eval`` member and a 10^5-entry leaderboard.

Each case runs in its own child process (``python -c ...`` with ``cwd`` = the checkout
measured, so that checkout's ``noisefloor`` is imported); its peak RSS is the child's own
high-water mark (``VmHWM`` of ``/proc/self/status``, printed at exit; ``ru_maxrss`` from
``os.wait4``, which also counts the image the child was started from, when a case is stopped
at the cap) and its time the wall clock. The misbehaving server
(:class:`harness.runner.hostile.HostileServer`) and the input files come from this checkout,
so the same inputs can be measured against another checkout's code::

    python benchmarks/limits.py                      # this checkout
    python benchmarks/limits.py --code /path/other   # another checkout, same inputs

``--cap S`` stops a case after S seconds (reported as such): the code before the limits
ran for minutes on some of them.

Peers
-----
Each case is run a second time, in the same run and the same way (a child process, its
``ru_maxrss`` and wall clock), by the plain library call a user would otherwise make, with no
limit of its own: that is what the limits are measured against (what they save):

* the two bodies: ``httpx.Client.post`` reading the whole body (httpx is the transport under
  the endpoint client), bounded only by a hard ``RLIMIT_AS`` of ``--peer-budget-mb`` above the
  child's address space after its imports, so the machine stays safe (the peer then ends in a
  ``MemoryError``, or an ``httpx`` read error, at that bound);
* the ``.eval`` member: :meth:`zipfile.ZipFile.read` of the member, whole;
* the leaderboard: :func:`json.load` of the file and the mean ``pass_1`` per model in a dict
  (reading and grouping only: no validation, no floor, no tiers), a lower bound.

Where the figure is itself a limit, it is also printed against that limit: the growth of the
child's peak RSS over its RSS after the imports, divided by the body cap
(``Endpoints(max_response_bytes=...)``, 8 MiB) or by the largest ``.eval`` member read
(``MAX_MEMBER_BYTES``, 256 MiB). Ratios are noisefloor / peer (above 1: noisefloor uses more).
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
import resource
with open("/proc/self/status") as fh:
    print("#base", next(l.split()[1] for l in fh if l.startswith("VmHWM:")))
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
import resource
from noisefloor.logs import validate_logs
with open("/proc/self/status") as fh:
    print("#base", next(l.split()[1] for l in fh if l.startswith("VmHWM:")))
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


#: Prepended to every child: prints its own peak RSS (kB) at exit.
PRELUDE = """
import atexit
def _hwm():
    with open("/proc/self/status") as fh:
        print("#hwm", next(l.split()[1] for l in fh if l.startswith("VmHWM:")), flush=True)
atexit.register(_hwm)
"""

#: Sets a hard ``RLIMIT_AS`` of ``budget`` bytes above the child's address space now.
RLIMIT = """
import resource
def _vm():
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) * 1024 for l in fh if l.startswith("VmSize:"))
_limit = _vm() + {budget}
resource.setrlimit(resource.RLIMIT_AS, (_limit, _limit))
"""

PEER_BODY = """
import httpx
""" + RLIMIT + """
try:
    with httpx.Client(timeout={timeout}) as c:
        r = c.post("{url}/chat/completions",
                   json={{"model": "{model}", "messages": [{{"role": "user", "content": "x"}}]}})
        n = len(r.content)
    print("read whole:", n, "bytes")
except MemoryError:
    print("MemoryError at the RLIMIT_AS bound")
except Exception as exc:
    print(type(exc).__name__, str(exc)[:60])
"""

PEER_EVAL = """
import zipfile
""" + RLIMIT + """
with zipfile.ZipFile({path!r}) as z:
    n = len(z.read("samples/1_epoch_1.json"))
print("read whole:", n, "bytes")
"""

PEER_BOARD = """
import json
with open({path!r}) as fh:
    subs = json.load(fh)
by_model = {{}}
for s in subs.values():
    by_model.setdefault(s["model_name"], []).append(s["results"]["airline"]["pass_1"])
means = {{m: sum(v) / len(v) for m, v in by_model.items()}}
print("models", len(means))
"""


def run_case(code_dir: Path, source: str, cap: float) -> dict:
    """Run ``source`` in a child with cwd ``code_dir``: peak RSS (MiB; after the imports too
    where the child prints it), seconds, CPU seconds, its output."""
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", PRELUDE + source], cwd=code_dir,
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
    base = [float(line.split()[1]) / 1024 for line in out if line.startswith("#base ")]
    hwm = [float(line.split()[1]) / 1024 for line in out if line.startswith("#hwm ")]
    out = [line for line in out if not line.startswith("#")]
    return {"peak_rss_mb": hwm[-1] if hwm else usage.ru_maxrss / 1024, "seconds": seconds, "stopped": stopped,
            "cpu": usage.ru_utime + usage.ru_stime, "base_rss_mb": base[0] if base else None,
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
    parser.add_argument("--bomb-mib", type=int, default=1024,
                        help="MiB the gzip body inflates to (default 1024)")
    parser.add_argument("--peer-budget-mb", type=int, default=1024,
                        help="the peers' hard RLIMIT_AS above their address space after imports "
                             "(MiB, default 1024)")
    parser.add_argument("--only", default="", help="comma-separated case names")
    parser.add_argument("--make", nargs=3, metavar=("KIND", "PATH", "SIZE"),
                        help=argparse.SUPPRESS)  # builds an input in a child process
    parser.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = parser.parse_args()
    if args.tiny:
        args.eval_member_mb, args.entries, args.cap = 1, 100, 30.0
        args.bomb_mib, args.peer_budget_mb = 32, 256
    if args.make:
        kind, path, size = args.make
        (make_eval if kind == "eval" else make_board)(Path(path), int(size))
        return
    only = set(filter(None, args.only.split(",")))
    from harness.runner.hostile import HostileServer
    from noisefloor.endpoints.client import DEFAULT_MAX_RESPONSE_BYTES
    from noisefloor.logs.formats.inspect import MAX_MEMBER_BYTES

    tmp = Path(tempfile.mkdtemp(prefix="limits-"))
    atexit.register(shutil.rmtree, tmp, True)  # the inputs (300 MB at full size) go at exit
    budget = args.peer_budget_mb << 20
    # (name, source, peer's name, peer's source, limit's name, limit in bytes)
    cases: list[tuple[str, str, str, str, str, int]] = []
    with HostileServer({"bomb": "gzip_bomb", "endless": "endless"},
                       bomb_bytes=args.bomb_mib << 20) as server:
        url = server.base_url
        for name, model in ((f"inflating body (gzip -> {args.bomb_mib} MiB)", "bomb"),
                            ("endless chunked body", "endless")):
            source = CLIENT.replace('"m"', f'"{model}"').format(url=url, timeout=args.timeout)
            peer = PEER_BODY.format(url=url, model=model, timeout=args.timeout, budget=budget)
            cases.append((name, source, f"httpx post, whole body, no cap (RLIMIT_AS "
                          f"+{args.peer_budget_mb} MiB)", peer, "the body cap",
                          DEFAULT_MAX_RESPONSE_BYTES))
        if not only or "eval" in only:
            path = _make("eval", tmp / "big.eval", args.eval_member_mb << 20)
            cases.append((f".eval with one {args.eval_member_mb} MiB member "
                          f"({path.stat().st_size / 1e6:.1f} MB file)", EVAL.format(path=str(path)),
                          "zipfile.ZipFile.read of the member, whole",
                          PEER_EVAL.format(path=str(path), budget=budget),
                          "the largest member read (MAX_MEMBER_BYTES)", MAX_MEMBER_BYTES))
        if not only or "leaderboard" in only:
            board = _make("board", tmp / "board.json", args.entries)
            cases.append((f"leaderboard of {args.entries:,} entries",
                          BOARD.format(path=str(board)),
                          "json.load and the mean pass_1 per model in a dict",
                          PEER_BOARD.format(path=str(board)), "", 0))
        print(f"# code measured: {args.code}; cap {args.cap:g} s per case; client timeout "
              f"{args.timeout:g} s")
        header = f"{'case':48} {'peak RSS MB':>11} {'seconds':>8} {'CPU s':>6}  outcome"
        print(header)
        failed = []
        compared = []
        for name, source, peer_name, peer_source, limit_name, limit in cases:
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
            p = run_case(args.code, peer_source, args.cap)
            compared.append((name, r, peer_name, p, limit_name, limit))
        print("\n== peers: the plain library call without the limit, same input, same run ==")
        print(header.replace("case", "peer of case"))
        for name, r, peer_name, p, limit_name, limit in compared:
            outcome = "stopped at the cap" if p["stopped"] else p["output"]
            print(f"{name:48} {p['peak_rss_mb']:11.0f} {p['seconds']:8.1f} {p['cpu']:6.1f}  "
                  f"{outcome}")
            print(f"  peer: {peer_name}; ratio noisefloor / peer: peak RSS "
                  f"{r['peak_rss_mb'] / p['peak_rss_mb']:.2f}x, wall "
                  f"{r['seconds'] / p['seconds']:.2f}x, CPU "
                  f"{r['cpu'] / max(p['cpu'], 1e-3):.2f}x")
            if limit and r["base_rss_mb"] is not None:
                grown = r["peak_rss_mb"] - r["base_rss_mb"]
                print(f"  limit: {limit_name}, {limit / 2**20:.0f} MiB; noisefloor's peak RSS "
                      f"over its RSS after imports {grown:.0f} MiB, ratio to the limit "
                      f"{grown * 2**20 / limit:.2f}x")
    if failed:  # every case is printed; the exit status says one failed
        sys.exit(f"case(s) that exited with an error: {'; '.join(failed)}")


if __name__ == "__main__":
    main()
