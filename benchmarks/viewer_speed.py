"""How fast the tax transcript viewer is on a large run.

Writes synthetic tax runs (``noisefloor.tax.synthetic.write_synthetic_run``; transcripts in
per-(model, protocol) shards, judge labels) of about 10,000 and 52,800 rollouts, and prints:
the time to read the run and build the index, the index's size, the time to scan every
transcript shard for offsets, the time to serve one rollout (median of 50), and, when Debian's
chromium and chromedriver are installed, the time in the browser from navigation start until
the filtered list is shown and until one dialogue is shown.

Peers (timed the same way, wall clock, on the same files in the same run):

* reading the run and building the index against :func:`pandas.read_json` (``lines=True``)
  of the same ``trials.jsonl`` and ``judge_labels.jsonl``: the plain library read of the same
  files, without validation, derived columns or the index (the row counts are checked equal);
* serving one rollout over HTTP (``GET /api/rollout``, the 50 rollouts above, a new connection
  each, median, taken in turns with the peer's) against the standard library's :class:`http.server.SimpleHTTPRequestHandler`
  serving the very bytes the viewer answered, each stored as a static file (the bodies are
  checked equal): the least a server can do for the same answer;
* the browser times against the stated target (the filtered list and one dialogue shown within
  2 s of navigation start).

Ratios are noisefloor / peer (above 1: noisefloor is slower).

Usage: ``python benchmarks/viewer_speed.py [--sizes 10080,52800] [--dir DIR]``
"""

from __future__ import annotations

import argparse
import atexit
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout

#: The browser target: the filtered list and one dialogue shown within this many ms.
TARGET_MS = 2000.0
MODELS5 = {"m-a": 0.95, "m-b": 0.9, "m-c": 0.85, "m-d": 0.75, "m-e": 0.7}


def _run(root: Path, n: int) -> Path:
    from harness.manifest import TASK_NAMES, family_of
    from noisefloor.tax.synthetic import write_synthetic_run

    d = root / f"run{n}"
    if (d / "trials.jsonl").exists():
        return d
    # 32 registered tasks x 3 modes: 3 models x 35 instances = 10,080; 5 x 110 = 52,800
    models = None if n <= 10_080 else MODELS5
    per = max(1, n // (288 if models is None else 480))  # rollouts per instance: 3 or 5 models
    write_synthetic_run(d, models=models, tasks=[(n, family_of(n)) for n in TASK_NAMES],
                        n_instances=per)
    return d


def _get(url: str) -> tuple[float, bytes]:
    """Seconds for one GET on a new connection, and the body."""
    from urllib.request import urlopen

    t = time.perf_counter()
    with urlopen(url, timeout=60) as resp:
        body = resp.read()
    return time.perf_counter() - t, body


def _static_server(folder: Path):
    """The standard library's static file server on ``folder`` (quiet), on a free port."""
    from functools import partial
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=str(folder)))
    server.daemon_threads = True
    return server


def _serve_times(base: str, keys: list[str], folder: Path) -> tuple[list[float], list[float], int]:
    """GET times of the viewer's ``/api/rollout`` and of the same bytes as static files, taken
    in turns (viewer, static, viewer, ...) so that both see the same load; the number of
    bodies that differ. A first, untimed pass fetches the bodies the static files hold."""
    from urllib.parse import quote

    urls = [f"{base}api/rollout?key={quote(k)}" for k in keys]
    bodies = [_get(url)[1] for url in urls]
    folder.mkdir(exist_ok=True)
    for i, body in enumerate(bodies):
        (folder / f"{i}.json").write_bytes(body)
    static = _static_server(folder)
    thread = threading.Thread(target=static.serve_forever, daemon=True)
    thread.start()
    ours, peer, differ = [], [], 0
    try:
        host, port = static.server_address[:2]
        for i, (url, body) in enumerate(zip(urls, bodies)):
            sec, got = _get(url)
            ours.append(sec)
            differ += got != body
            sec, got = _get(f"http://{host}:{port}/{i}.json")
            peer.append(sec)
            differ += got != body
    finally:
        static.shutdown()
        static.server_close()
        thread.join()
    return ours, peer, differ


def _pandas_read(d: Path) -> tuple[float, int, int]:
    """Seconds for pandas to read the run's trials and labels; their row counts."""
    import pandas as pd

    t = time.perf_counter()
    trials = pd.read_json(d / "trials.jsonl", lines=True)
    labels_path = d / "judge_labels.jsonl"
    labels = pd.read_json(labels_path, lines=True) if labels_path.exists() else None
    return time.perf_counter() - t, len(trials), 0 if labels is None else len(labels)


def _browser_times(base: str) -> tuple[float, float] | None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "report_html"))
    try:
        from nf_browser import chromium_paths, start_browser, stop_browser
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return None
    if chromium_paths() is None:
        return None
    d = start_browser()
    try:
        d.get(base + "viewer?family=csp&mode=pair&outcome=failure")
        WebDriverWait(d, 60).until(lambda x: x.execute_script("return window.nfFilteredAt"))
        filtered = d.execute_script("return window.nfFilteredAt")
        d.find_element(By.CSS_SELECTOR, "#rows tr").click()
        WebDriverWait(d, 60).until(lambda x: x.execute_script("return window.nfShownAt"))
        return filtered, d.execute_script("return window.nfShownAt")
    finally:
        stop_browser(d)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10080,52800")
    ap.add_argument("--dir", default=None, help="Keep the runs here (default: a temp folder).")
    ap.add_argument("--tiny", action="store_true",
        help="a tiny size that only checks the script runs (the test suite's)")
    args = ap.parse_args()
    if args.tiny:
        args.sizes = "288"
    # imported once the options are read, so that --help answers at once
    from noisefloor.report.html.viewer import ViewerData, make_server

    root = Path(args.dir) if args.dir else Path(tempfile.mkdtemp(prefix="nf-viewer-"))
    if not args.dir:
        atexit.register(shutil.rmtree, root, True)  # the runs go at exit unless --dir keeps them
    for n in (int(x) for x in args.sizes.split(",")):
        t = time.perf_counter()
        d = _run(root, n)
        made = time.perf_counter() - t
        t = time.perf_counter()
        data = ViewerData.open(d)
        opened = time.perf_counter() - t
        t = time.perf_counter()
        data.prefetch()
        scanned = time.perf_counter() - t
        keys = data.run.rollouts["rollout_key"].sample(50, random_state=0).tolist()
        one = []
        for k in keys:
            t = time.perf_counter()
            data.rollout(k)
            one.append(time.perf_counter() - t)
        size = sum(p.stat().st_size for p in (d / "transcripts").iterdir())
        p_read, p_trials, p_labels = _pandas_read(d)
        n_labels = 0 if data.labels is None else len(data.labels)
        print(f"{len(data.run.rollouts):,} rollouts ({size / 1e6:.0f} MB of transcripts, "
              f"written in {made:.1f} s)")
        print(f"  read the run and build the index: {opened:.2f} s; index "
              f"{len(data.index_json) / 1e6:.2f} MB")
        print(f"    peer: pandas read_json(lines=True) of trials.jsonl and judge_labels.jsonl "
              f"{p_read:.2f} s ({p_trials:,} and {p_labels:,} rows; the viewer's "
              f"{len(data.run.rollouts):,} and {n_labels:,}); ratio noisefloor / peer "
              f"{opened / p_read:.2f}x")
        if (p_trials, p_labels) != (len(data.run.rollouts), n_labels):
            raise SystemExit("the viewer and pandas read different numbers of rows")
        print(f"  scan every transcript shard for offsets: {scanned:.2f} s")
        print(f"  serve one rollout (in process): median {statistics.median(one) * 1000:.1f} ms, "
              f"max {max(one) * 1000:.1f} ms (50 rollouts)")
        server = make_server(data, port=0, prefetch=False)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            host, port = server.server_address[:2]
            base = f"http://{host}:{port}/"
            ours, peer, differ = _serve_times(base, keys, root / f"static{n}")
            times = _browser_times(base)
        finally:
            server.shutdown()
            server.server_close()
            thread.join()
        shutil.rmtree(root / f"static{n}", True)
        if differ:
            raise SystemExit(f"{differ} static bodies differ from the viewer's")
        mo, mp = statistics.median(ours), statistics.median(peer)
        print(f"  serve one rollout over HTTP (GET /api/rollout, new connection): median "
              f"{mo * 1000:.1f} ms, max {max(ours) * 1000:.1f} ms")
        print(f"    peer: http.server SimpleHTTPRequestHandler, the same 50 bodies as static "
              f"files (all equal): median {mp * 1000:.1f} ms; ratio noisefloor / peer "
              f"{mo / mp:.2f}x")
        if times is None:
            print("  browser: chromium or selenium not installed, skipped (no peer ratio)")
        else:
            print(f"  browser, from navigation start: filtered list {times[0]:.0f} ms, one "
                  f"dialogue shown {times[1]:.0f} ms")
            print(f"    peer: the target of {TARGET_MS:.0f} ms; ratio to it: filtered list "
                  f"{times[0] / TARGET_MS:.2f}x, one dialogue {times[1] / TARGET_MS:.2f}x")


if __name__ == "__main__":
    main()
