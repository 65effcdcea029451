"""The HTML pages without a browser: every number a page shows equals the command's --json,
formatted as the page says; pages load nothing from the network; the renderer's pieces."""

from __future__ import annotations

import html
import math
import re
import xml.etree.ElementTree as ET

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from nf_pages import COMMANDS, NUM

from noisefloor.cli.main import cli
from noisefloor.report.html.page import Markup, Page, Table, cells, render_page, render_table
from noisefloor.report.html.render import FORMATS, html_report, resolve
from noisefloor.report.html.report_doc import fill
from noisefloor.report.html.svg import ForestRow, Series, bars_svg, curves_svg, forest_svg


def _close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(float(a), float(b), rel_tol=1e-12, abs_tol=1e-15)
    return a == b


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_every_number_equals_the_json(reports, kind):
    import json

    page, doc = reports[kind]
    text = page.read_text(encoding="utf-8")
    nums = NUM.findall(text)
    assert len(nums) >= 5, f"{kind}: too few numbers tied to --json ({len(nums)})"
    verdict = re.search(r'<p id="verdict">(.*?)</p>', text, re.S).group(1)
    assert NUM.search(verdict), f"{kind}: the verdict shows no number from --json"
    for key, fmt, value, shown in nums:
        expected = resolve(doc, key)
        if isinstance(expected, float) and not math.isfinite(expected):
            expected = None
        assert _close(json.loads(html.unescape(value)), expected), (kind, key)
        # the text a reader sees is the JSON value in the stated format
        assert html.unescape(shown) == FORMATS[fmt](expected), (kind, key, shown, expected)


@pytest.mark.parametrize("kind", list(COMMANDS))
def test_page_is_self_contained(reports, kind):
    text = reports[kind][0].read_text(encoding="utf-8")
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', text), kind
    assert "@import" not in text
    assert not re.search(r"url\((?!#)", text)  # only references inside the page (url(#id))
    assert "<img" not in text  # figures are inline SVG
    assert "Content-Security-Policy" in text and "default-src 'none'" in text
    assert text.count('id="verdict"') == 1


def test_embedded_json_is_the_command_json(reports):
    import json

    for kind, (page, doc) in reports.items():
        text = page.read_text(encoding="utf-8")
        embedded = re.search(r'<script type="application/json" id="nf-json">(.*?)</script>',
                             text, re.S).group(1)
        got = json.loads(embedded.replace("<\\/", "</"))
        if kind in ("audit", "audit-log", "tax"):  # the --json of a run names its files
            got.pop("files", None)
            doc = {k: v for k, v in doc.items() if k != "files"}
        assert json.dumps(got, sort_keys=True) == json.dumps(doc, sort_keys=True), kind


def test_audit_page_states_floor_and_counts(reports):
    text = reports["audit"][0].read_text(encoding="utf-8")
    verdict = html.unescape(re.sub(r"<[^>]+>", "", re.search(
        r'<p id="verdict">(.*?)</p>', text, re.S).group(1)))
    # the noise-floor paper's bundled figures: floor 11.8 pp, envelope 15.3 pp, 7/1/2
    assert verdict == ("Against a noise floor of 11.8 pp and an envelope of 15.3 pp, 7 of 10 "
                       "claims lie below the floor (unresolved, not refuted), 1 inside the "
                       "envelope and 2 above it.")
    # every null row's hover names what certified it
    assert text.count("certified null by: count table: trial 0 declared null") >= 9


def test_tax_page_cells_link_to_the_viewer(reports):
    text = reports["tax"][0].read_text(encoding="utf-8")
    links = re.findall(r'href="(viewer\?[^"]*)"', text)
    assert any("model=model-hi&amp;family=spatial&amp;mode=pair" in x for x in links)
    assert any("label=L1" in x for x in links)  # stage rates
    assert any("variant=explicit" in x for x in links)  # intervention
    assert any("model=model-hi%2Bmodel-lo" in x for x in links)  # mixed pair


def test_compare_flips_table_adds_up_to_the_pooled_counts(reports):
    """The per-task flips are the pairs behind W/L/T: their letters count to the pooled row."""
    page, doc = reports["compare"]
    text = page.read_text(encoding="utf-8")
    body = text.split('id="flips"')[1].split("</table>")[0]
    letters = re.findall(r"<td[^>]*>([WLT?])</td>", body)
    assert letters.count("W") == doc["pooled"]["wins"] == 49
    assert letters.count("L") == doc["pooled"]["losses"] == 24
    assert letters.count("T") == doc["pooled"]["ties"] == 87
    assert body.count("<tr") - 1 == doc["n_tasks"] == 80


def test_html_given_a_directory_names_the_option(tmp_path):
    r = CliRunner().invoke(cli, ["plan", "--gap", "0.1", "--p-d", "0.3", f"--html={tmp_path}"])
    assert r.exit_code != 0
    assert "--html" in r.output and "is a directory" in r.output


def test_bare_html_writes_report_html_in_out(tmp_path):
    r = CliRunner().invoke(cli, ["audit", "--out", str(tmp_path), "--no-plot", "--html"])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "report.html").exists() and (tmp_path / "report.md").exists()


def test_unregistered_result_is_a_type_error():
    with pytest.raises(TypeError, match="no HTML page for int"):
        html_report(3)


def test_resolve_names_a_missing_key():
    assert resolve({"a": [{"b": 2}], "k": {1: 0.5}}, "k.1") == 0.5
    with pytest.raises(KeyError, match="a.1.b"):
        resolve({"a": {"c": 1}}, "a.1.b")


@given(st.text(max_size=60).filter(lambda t: "{" not in t))
def test_fill_escapes_plain_text(text):
    out = fill(text, {})
    assert html.unescape(out) == text
    assert "<" not in out and isinstance(out, Markup)


def test_table_escapes_text_and_keeps_markup():
    t = Table(cells([{"a": "<script>x</script>", "b": Markup("<b>1</b>"),
                      "c": ("<i>", "viewer?x=1&y=2")}]))
    out = render_table(t)
    assert "&lt;script&gt;" in out and "<b>1</b>" in out
    assert '<a href="viewer?x=1&amp;y=2">&lt;i&gt;</a>' in out


finite = st.floats(-1, 1, allow_nan=False)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(finite, finite, finite, st.sampled_from(["circle", "diamond"])),
                min_size=1, max_size=12),
       st.floats(0, 0.5), st.floats(0, 0.5), st.booleans())
def test_forest_svg_is_well_formed_and_has_a_tip_per_row(rows, floor, extra, nan_end):
    fr = [ForestRow("s" if i < 3 else "t", f"row <{i}> & co", e, math.nan if nan_end else
                    min(a, e), max(a, e), "#0072B2", f"tip {i}", m)
          for i, (e, a, _, m) in enumerate(rows)]
    svg = forest_svg(fr, floor=floor, envelope=floor + extra)
    root = ET.fromstring(svg)
    tips = [g.get("data-tip") for g in root.iter("{http://www.w3.org/2000/svg}g")]
    assert tips == [f"tip {i}" for i in range(len(rows))]
    # every drawn x lies inside the plot
    width = float(root.get("width"))
    for el in root.iter():
        for attr in ("cx", "x1", "x2"):
            if el.get(attr) is not None:
                assert 0 <= float(el.get(attr)) <= width


def test_curves_and_bars_are_well_formed():
    s = [Series("a", [(1, 0.5, 0.3, 0.7), (2, 0.25, math.nan, math.nan)], ["p1", "p2"]),
         Series("b", [(1, math.nan, math.nan, math.nan), (2, 0.1, 0.0, 0.3)], ["q1", "q2"])]
    root = ET.fromstring(curves_svg(s, xlabel="k", ylabel="%"))
    points = [c.get("data-tip") for c in root.iter("{http://www.w3.org/2000/svg}circle")]
    assert points == ["p1", "p2", "q2"]  # an undefined value is not drawn
    root = ET.fromstring(bars_svg(["x", "y"], [0.2, math.nan], tips=["t1", "t2"],
                                  hrefs=["viewer?task=x", "viewer?task=y"]))
    assert len(list(root.iter("{http://www.w3.org/2000/svg}a"))) == 2


def test_render_page_embeds_json_safely():
    doc = render_page(Page("T", "v", {"x": "</script><b>", "y": float("nan")}, "k"))
    assert "</script><b>" not in doc.split('id="nf-json">')[1].split("</script>")[0]
    assert '"y": null' in doc


def test_passk_interval_matches_hand_computation():
    """Four tasks, two trials each: per-task pass^1 1, 0, 0.5, 0.5. Mean 0.5, per-task SD
    sqrt(0.5 / 3), SE = SD / 2 = 0.2041241; normal quantiles 1.959964 (95%) and 1.644854
    (90%) from a standard normal table: [0.0999240, 0.9000760] and [0.1642451, 0.8357549]."""
    from noisefloor.passk import pass_hat_k_report, pass_hat_k_table

    t = pd.DataFrame({"task_id": list("aabbccdd"), "trial": [0, 1] * 4,
                      "reward": [1, 1, 0, 0, 1, 0, 0, 1.0]})
    table = pass_hat_k_table(t, [1, 2])
    for level, low, high in ((0.95, 0.0999240, 0.9000760), (0.90, 0.1642451, 0.8357549)):
        r = pass_hat_k_report(t, table, confidence=level)
        iv = r.groups[0]["intervals"][1]
        assert iv["ci_low"] == pytest.approx(low, abs=1e-6)
        assert iv["ci_high"] == pytest.approx(high, abs=1e-6)
        assert r.groups[0]["pass_hat_k"][1] == 0.5
    # pass^2: per task 1, 0, 0, 0 -> 0.25, SE = sqrt(0.75 / 3) / 2 = 0.25; lower end clipped
    iv2 = pass_hat_k_report(t, table).groups[0]["intervals"][2]
    assert iv2["ci_low"] == 0.0 and iv2["ci_high"] == pytest.approx(0.25 + 1.959964 * 0.25,
                                                                    abs=1e-6)


def test_passk_interval_truncate_is_nan_with_reason():
    from noisefloor.passk import pass_hat_k_report, pass_hat_k_table

    t = pd.DataFrame({"task_id": list("aab"), "trial": [0, 1, 0], "reward": [1, 0, 1.0]})
    table = pass_hat_k_table(t, [1], unequal_trials="truncate")
    iv = pass_hat_k_report(t, table, unequal_trials="truncate").groups[0]["intervals"][1]
    assert math.isnan(iv["ci_low"]) and "truncate" in iv["reason"]
