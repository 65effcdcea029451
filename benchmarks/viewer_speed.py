"""How fast the tax transcript viewer is on a large run.

Writes synthetic tax runs (``noisefloor.tax.synthetic.write_synthetic_run``; transcripts in
per-(model, protocol) shards, judge labels) of about 10,000 and 52,800 rollouts, and prints:
the time to read the run and build the index, the index's size, the time to scan every
transcript shard for offsets, the time to serve one rollout (median of 50), and, when Debian's
chromium and chromedriver are installed, the time in the browser from navigation start until
the filtered list is shown and until one dialogue is shown.

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
        print(f"{len(data.run.rollouts):,} rollouts ({size / 1e6:.0f} MB of transcripts, "
              f"written in {made:.1f} s)")
        print(f"  read the run and build the index: {opened:.2f} s; index "
              f"{len(data.index_json) / 1e6:.2f} MB")
        print(f"  scan every transcript shard for offsets: {scanned:.2f} s")
        print(f"  serve one rollout: median {statistics.median(one) * 1000:.1f} ms, "
              f"max {max(one) * 1000:.1f} ms (50 rollouts)")
        server = make_server(data, port=0, prefetch=False)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        host, port = server.server_address[:2]
        times = _browser_times(f"http://{host}:{port}/")
        server.shutdown()
        server.server_close()
        if times is None:
            print("  browser: chromium or selenium not installed, skipped")
        else:
            print(f"  browser, from navigation start: filtered list {times[0]:.0f} ms, one "
                  f"dialogue shown {times[1]:.0f} ms")


if __name__ == "__main__":
    main()
