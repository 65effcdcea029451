"""The pages in headless Chromium: no console error, no network request, the DOM's numbers
equal --json, a screenshot that is not blank, hover, sort and filter; the transcript viewer
on a 10,000-rollout run.

Chromium and chromedriver are Debian's packages (``.ci/run`` installs them when missing);
selenium drives them. Nothing is downloaded at run time.
"""

from __future__ import annotations

import io
import json
import math
import threading

import pytest
from nf_browser import chromium_paths, start_browser, stop_browser
from nf_pages import COMMANDS

selenium = pytest.importorskip("selenium", reason="selenium is in the test extra")
if chromium_paths() is None:
    pytest.skip("no system chromium/chromedriver (apt-get install chromium chromium-driver; "
                ".ci/run installs them)", allow_module_level=True)

from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


@pytest.fixture(scope="module")
def browser():
    d = start_browser()
    yield d
    stop_browser(d)


def _requests(d) -> list[str]:
    """URLs the page asked the network for (CDP Network events of the performance log)."""
    urls = []
    for entry in d.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            url = msg["params"]["request"]["url"]
            if not url.startswith(("chrome://", "chrome-untrusted://", "about:")):
                urls.append(url)  # the browser's own pages are no request of the page
    return urls


def _not_blank(png: bytes) -> tuple[float, int]:
    """Share of non-white pixels and number of distinct colours of a screenshot."""
    import numpy as np
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    px = np.asarray(img.resize((img.width // 4, img.height // 4))).reshape(-1, 3)
    return float((px.min(axis=1) < 240).mean()), len(np.unique(px, axis=0))


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-15)
    return a == b


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_page_in_chromium(browser, reports, kind):
    from noisefloor.report.html.render import FORMATS, resolve

    page, doc = reports[kind]
    browser.get("about:blank")
    browser.get_log("performance")  # drop earlier events (the browser's own start page)
    browser.get_log("browser")
    browser.get(page.as_uri())
    WebDriverWait(browser, 10).until(
        lambda d: d.execute_script("return document.readyState") == "complete")
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == [], errors
    urls = _requests(browser)
    assert urls and all(u.startswith(("file://", "data:")) for u in urls), urls
    resources = browser.execute_script(
        "return performance.getEntriesByType('resource').map(function(e){return e.name;})")
    assert resources == []
    # the verdict and every number, as the browser shows them, against an independent --json
    verdict = browser.find_element(By.ID, "verdict")
    assert verdict.text.strip().endswith(".") and len(verdict.text) > 40
    assert verdict.find_elements(By.CLASS_NAME, "nf-num")
    nums = browser.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('.nf-num'), function(e){"
        "return [e.dataset.key, e.dataset.fmt, e.dataset.value, e.textContent];});")
    assert len(nums) >= 5
    for key, fmt, value, text in nums:
        expected = resolve(doc, key)
        if isinstance(expected, float) and not math.isfinite(expected):
            expected = None
        assert _close(json.loads(value), expected), (kind, key)
        assert text == FORMATS[fmt](expected), (kind, key, text)
    ink, colours = _not_blank(browser.get_screenshot_as_png())
    assert ink > 0.02 and colours > 8, (kind, ink, colours)


def test_forest_row_hover_shows_counts_interval_p_and_certification(browser, reports):
    browser.get(reports["audit-log"][0].as_uri())
    row = browser.find_elements(By.CSS_SELECTOR, "svg g.nf-row")[0]
    ActionChains(browser).move_to_element(row).perform()
    tip = browser.find_element(By.ID, "nf-tip")
    WebDriverWait(browser, 5).until(lambda d: tip.is_displayed())
    text = tip.text
    for part in ("W/L/T", "CI", "sign test p", "certified null by:"):
        assert part in text, text


def test_tables_sort_and_filter(browser, reports):
    browser.get(reports["audit"][0].as_uri())
    table = browser.find_element(By.ID, "claims")

    def column(i):
        return [r.find_elements(By.TAG_NAME, "td")[i].text
                for r in table.find_elements(By.CSS_SELECTOR, "tbody tr") if r.is_displayed()]

    table.find_elements(By.TAG_NAME, "th")[3].click()  # placed pp, ascending
    placed = [float(x) for x in column(3)]
    assert placed == sorted(placed)
    table.find_elements(By.TAG_NAME, "th")[3].click()
    assert [float(x) for x in column(3)] == sorted(placed, reverse=True)
    box = browser.find_element(By.CSS_SELECTOR, 'input[data-table="claims"]')
    box.send_keys("above")
    assert column(5) == ["above", "above"]


@pytest.fixture(scope="module")
def big_run(tmp_path_factory):
    """A synthetic tax run of 10,080 rollouts (32 tasks x 35 instances x 3 models x 3 modes)
    with per-(model, protocol) transcript shards and judge labels."""
    from harness.manifest import TASK_NAMES, family_of
    from noisefloor.tax.synthetic import write_synthetic_run

    d = tmp_path_factory.mktemp("bigrun")
    write_synthetic_run(d, tasks=[(n, family_of(n)) for n in TASK_NAMES], n_instances=35)
    return d


@pytest.fixture(scope="module")
def viewer(big_run):
    from noisefloor.report.html.viewer import ViewerData, make_server

    data = ViewerData.open(big_run)
    assert data.run.rollouts.shape[0] >= 10_000
    server = make_server(data, port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    yield f"http://{host}:{port}/", data
    server.shutdown()
    server.server_close()


def test_viewer_filters_and_shows_a_dialogue(browser, viewer):
    base, data = viewer
    browser.get("about:blank")
    browser.get_log("performance")
    browser.get(base + "viewer?family=csp&mode=pair")
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.nfFilteredAt"))
    Select(browser.find_element(By.ID, "f-outcome")).select_by_visible_text("failure")
    Select(browser.find_element(By.ID, "f-label")).select_by_visible_text("L2")
    count = browser.find_element(By.ID, "count").text
    df = data.run.rollouts
    keys = {k for k, labs in data._labels_by_key.items()
            if any(r["category"] == "L2" and r["label"] == 1 for r in labs)}
    want = df[(df["family"] == "csp") & (df["mode"] == "pair") & (df["success"] == False)  # noqa: E712
              & df["rollout_key"].isin(keys)]
    assert count.startswith(f"{len(want)} of {len(df)} rollouts match"), count
    browser.find_element(By.CSS_SELECTOR, "#rows tr").click()
    WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.nfShownAt"))
    # how fast is a benchmark (benchmarks/viewer_speed.py), not a timed test: a loaded CI machine
    # would fail any wall-clock bound here
    # two columns, relayed messages, the answer and the judge labels
    assert browser.find_elements(By.CSS_SELECTOR, "#turns .msg.a")
    assert browser.find_elements(By.CSS_SELECTOR, "#turns .msg.b")
    relays = browser.find_elements(By.CSS_SELECTOR, "#turns .msg.relay")
    assert relays and "[other agent]:" in relays[0].text
    labels = browser.find_element(By.ID, "labels").text
    assert "L2" in labels and "1 (failed)" in labels
    page = browser.find_element(By.ID, "dialogue").text
    assert "extraction" in page and "tokens in / out" in page
    # lazily: the index and one rollout were fetched, never every transcript
    urls = [u for u in _requests(browser) if "/api/" in u]
    assert sum("/api/index" in u for u in urls) == 1
    assert sum("/api/rollout" in u for u in urls) == 1
    assert all(u.startswith(base) for u in _requests(browser))


def test_viewer_rollout_matches_the_transcript(viewer):
    from urllib.request import urlopen

    from noisefloor.tax.run import read_transcripts

    base, data = viewer
    key = data.run.rollouts["rollout_key"].iloc[4321]
    with urlopen(base + "api/rollout?key=" + key.replace("|", "%7C")) as r:
        doc = json.loads(r.read())
    events, _ = read_transcripts(data.run, [key])
    assert [e["content"] for e in doc["events"]] == [e["content"] for e in events[key]]
    assert doc["record"]["extra"]["rollout_key"] == key
    with pytest.raises(Exception, match="404"):
        urlopen(base + "api/rollout?key=nope")
    with urlopen(base + "api/index") as r:
        index = json.loads(r.read())
    assert index["n"] == len(data.run.rollouts)
    assert len(index["columns"]["key"]) == index["n"]


def test_report_links_open_the_viewer(browser, tax_run, reports, tmp_path):
    from noisefloor.report.html.viewer import ViewerData, make_server

    server = make_server(ViewerData.open(tax_run), port=0, report=reports["tax"][0])
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        host, port = server.server_address[:2]
        browser.get(f"http://{host}:{port}/report.html")
        browser.find_element(By.CSS_SELECTOR, "#heatmap a").click()
        WebDriverWait(browser, 10).until(lambda d: d.execute_script("return window.nfFilteredAt"))
        assert Select(browser.find_element(By.ID, "f-model")).first_selected_option.text \
            == "model-hi"
        assert Select(browser.find_element(By.ID, "f-mode")).first_selected_option.text == "pair"
        assert "rollouts match" in browser.find_element(By.ID, "count").text
    finally:
        server.shutdown()
        server.server_close()
