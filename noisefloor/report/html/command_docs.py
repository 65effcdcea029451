"""The pages of ``leaderboard``, ``agreement`` and ``plan``: :class:`ReportDoc` builders from
the documents these commands print with ``--json``."""

from __future__ import annotations

import math
from typing import Any

from noisefloor.report.forest import interval_text
from noisefloor.report.html.page import VERDICT_FILL
from noisefloor.report.html.page import cells as table_cells
from noisefloor.report.html.report_doc import DocTable, ReportDoc, figure_svg
from noisefloor.report.html.svg import ForestRow, forest_svg

__all__ = ["agreement_doc", "leaderboard_compare_doc", "leaderboard_listing_doc",
           "leaderboard_tiers_doc", "plan_doc"]


def _nan(v: Any) -> float:
    return math.nan if v is None else float(v)


def leaderboard_compare_doc(doc: dict) -> ReportDoc:
    """The page of ``noisefloor leaderboard FILE --a A --b B`` from its ``--json`` (the
    :class:`~noisefloor.pipelines.LeaderboardRun` of mode ``"compare"``)."""
    comparison = doc["comparison"]
    rows = comparison["rows"]
    level = f"{rows[0]['confidence'] * 100:g}%" if rows else "95%"
    forest = [ForestRow("Gap a - b per domain (two-proportion z-test)", r["domain"],
                        _nan(r["gap"]), _nan(r["ci_low"]), _nan(r["ci_high"]),
                        VERDICT_FILL.get(r["verdict"], "#444444"),
                        f"{r['domain']}: {r['a']} {r['pass_1_a']} vs {r['b']} {r['pass_1_b']}\n"
                        f"gap {interval_text(_nan(r['gap']), _nan(r['ci_low']), _nan(r['ci_high']), scale=100)} pp\n"
                        f"p {r['p_value']}\nverdict: {r['verdict']}") for r in rows]
    key = "comparison.rows"
    cells = table_cells([{
        "domain": r["domain"], "n": f"{{{key}.{i}.n_tasks:int}}",
        "a (%)": f"{{{key}.{i}.pass_1_a:pp}}", "b (%)": f"{{{key}.{i}.pass_1_b:pp}}",
        "gap (pp)": f"{{{key}.{i}.gap:pp+}}",
        f"{level} CI (pp)": f"[{{{key}.{i}.ci_low:pp+}}, {{{key}.{i}.ci_high:pp+}}]",
        "p": f"{{{key}.{i}.p_value:p}}", "vs floor": r["verdict"],
        "flags": "; ".join(r["flags"])} for i, r in enumerate(rows)])
    parts = [f"{r['domain']} {{{key}.{i}.gap:pp+}} pp ({r['verdict']})"
             for i, r in enumerate(rows)]
    kind = comparison["floor_kind"]
    source = ("given with --floor" if comparison["floor_source"] == "given"
              else comparison["floor_source"])
    floor = ("{comparison.floor:pp} pp" if comparison.get("floor") is not None
             else "n/a (no floor to place the gaps against)")
    verdict = (f"{comparison['a']} minus {comparison['b']}, placed against the {kind}, {floor}: "
               + "; ".join(parts) + ".")
    floor_v, env_v = _nan(comparison.get("floor")), _nan(comparison.get("envelope"))
    return ReportDoc("leaderboard", f"Leaderboard: {comparison['a']} vs {comparison['b']}",
                     verdict, doc,
                     facts=[f"{kind}: {source}",
                            "unpaired two-proportion z-test, n = the domain's task count per "
                            "entry"],
                     tables=[DocTable("Gaps per domain", cells, tips=[f.tip for f in forest])],
                     figures=[("Hover a row for the pass^1 of each entry, the interval and p.",
                               forest_svg(forest, floor=floor_v,
                                          envelope=env_v))])


def leaderboard_listing_doc(doc: dict) -> ReportDoc:
    """The page of ``noisefloor leaderboard FILE`` (the entries and the re-runs floor) from its
    ``--json`` (the :class:`~noisefloor.pipelines.LeaderboardRun` of mode
    ``"listing"``)."""
    entries = doc["entries"]
    reruns = doc["reruns_floor"]
    tables = []
    for d in dict.fromkeys(e["domain"] for e in entries):
        idx = [i for i, e in enumerate(entries) if e["domain"] == d]
        cells = table_cells([{
            "rank": str(r + 1), "submission": entries[i]["submission"],
            "model": entries[i]["model_name"], "pass^1 (%)": f"{{entries.{i}.pass_1:pp}}",
            "tau2": entries[i].get("tau2_bench_version") or "-",
            "user sim": entries[i].get("user_simulator") or "-",
            "type": entries[i].get("submission_type") or "-"} for r, i in enumerate(idx)])
        tables.append(DocTable(f"{d}: {len(idx)} entries", cells, table_id=f"entries-{d}"))
    reruns_rows = reruns.get("table") or []
    verdict = ("Re-submissions of one model differ by up to the re-runs floor of "
               "{reruns_floor.floor:pp}"
               " pp" if reruns.get("floor") is not None else "No two re-submissions match in setup,"
               " so the re-runs floor is undefined")
    verdict += (" (envelope {reruns_floor.envelope:pp} pp): a gap between two entries smaller than "
                "that is inside the leaderboard's own noise." if reruns.get("envelope") is not None
                else ".")
    facts = [f"{doc['n_submissions']} submissions from {doc['source']}",
             f"Re-run contrasts (re-submissions of one model): {len(reruns_rows)}"]
    if reruns.get("reason"):
        facts.append(f"note: {reruns['reason']}")
    return ReportDoc("leaderboard", "tau2-bench leaderboard", verdict, doc, facts=facts,
                     tables=tables)


#: Fill of a tier's rows in the tiers figure, tier 1 first (cycled).
_TIER_FILLS = ("#1b6ca8", "#d9822b", "#2e8b57", "#8e44ad", "#b03a2e", "#5d6d7e")


def leaderboard_tiers_doc(doc: dict) -> ReportDoc:
    """The page of ``noisefloor leaderboard FILE --tiers`` (or ``--tiers --log LOG``) from its
    ``--json`` (the :class:`~noisefloor.pipelines.LeaderboardRun` of mode ``"tiers"``): per
    domain, the entries with their tier, simultaneous rank interval and score interval."""
    results = doc.get("tiers") or []
    tables, forest, parts, facts = [], [], [], []
    for k, t in enumerate(results):
        heading = t["domain"] or "trial logs"
        level = f"{t['confidence'] * 100:g}%"
        key = f"tiers.{k}.entries"
        cells = table_cells([{
            "tier": f"{{{key}.{i}.tier:int}}", "rank": f"{{{key}.{i}.rank:int}}",
            f"rank {level} (simultaneous)": f"{{{key}.{i}.rank_low:int}}-"
                                            f"{{{key}.{i}.rank_high:int}}",
            "entry": e["entry"], "score (%)": f"{{{key}.{i}.score:pp}}",
            f"{level} CI (%)": f"[{{{key}.{i}.ci_low:pp}}, {{{key}.{i}.ci_high:pp}}]",
            "n": f"{{{key}.{i}.n_items:int}}"} for i, e in enumerate(t["entries"])])
        tables.append(DocTable(f"{heading}: {t['n_entries']} entries in {t['n_tiers']} tier(s)",
                               cells, table_id=f"tiers-{heading.replace(' ', '-')}"))
        forest += [ForestRow(heading, f"tier {e['tier']}: {e['entry']}", _nan(e["score"]),
                             _nan(e["ci_low"]), _nan(e["ci_high"]),
                             _TIER_FILLS[(e["tier"] - 1) % len(_TIER_FILLS)],
                             f"{e['entry']}: tier {e['tier']}, rank {e['rank']} "
                             f"({e['rank_low']}-{e['rank_high']} at {level})\nscore "
                             f"{interval_text(_nan(e['score']), _nan(e['ci_low']), _nan(e['ci_high']), scale=100)} %")
                   for e in t["entries"]]
        parts.append(f"{heading}: {t['n_entries']} entries in {t['n_tiers']} tier(s), "
                     f"{t['n_distinguishable']} of {t['n_pairs']} pairs distinguishable")
        facts.append(f"{heading}: {t['method']}; {t['adjustment']}")
        facts += [f"note ({heading}): {n}" for n in t.get("notes") or ()]
    reruns = doc.get("reruns_floor")
    if reruns:
        facts.append(f"Re-run contrasts (re-submissions of one model): {len(reruns.get('table') or [])}"
                     + (f"; note: {reruns['reason']}" if reruns.get("reason") else ""))
    facts.append("A tier runs from its best entry down to the first entry that entry beats (Holm "
                 "over all pairs); rank intervals hold jointly (Bonferroni over the pairs; Klein, "
                 "Wright & Wieczorek 2020).")
    verdict = ("; ".join(parts) + ".") if parts else "No entry to rank."
    figures = [("Each entry's score with its interval, coloured by tier; hover a row for its "
                "rank interval.", forest_svg(forest, xlabel="score (%)"))] if forest else []
    return ReportDoc("leaderboard", "tau2-bench leaderboard: tiers", verdict, doc,
                     facts=facts, tables=tables, figures=figures)


def agreement_doc(document: dict, *, table: Any = None) -> ReportDoc:
    """The page of ``noisefloor agreement FILE`` from its ``--json`` document (the JSON-safe
    ``AgreementStudy.to_dict()``: source, layout, counts and rows) and, for the figure, the
    :class:`~noisefloor.agreement.study.AgreementTable`."""
    rows = list(document["rows"])
    layout = document["layout"]
    cells = table_cells([{
        "label": str(r["label"]), "metric": r["metric"], "value": f"{{rows.{i}.value:prop}}",
        "CI (bootstrap)": f"[{{rows.{i}.ci_low:prop}}, {{rows.{i}.ci_high:prop}}]",
        "items": f"{{rows.{i}.n_items:int}}", "raters": f"{{rows.{i}.n_raters:int}}",
        "obs. agreement": f"{{rows.{i}.observed_agreement:prop}}",
        "Landis-Koch": r["landis_koch"], "comparison": r["comparison"],
        "note": "; ".join(x for x in (r["reason"], r["ci_reason"], r["note"]) if x)}
        for i, r in enumerate(rows)])
    defined = [(i, r) for i, r in enumerate(rows) if r["value"] is not None]
    if defined:
        lo = min(defined, key=lambda x: x[1]["value"])
        hi = max(defined, key=lambda x: x[1]["value"])
        verdict = (f"Agreement ranges from {{rows.{lo[0]}.value:prop}} ({lo[1]['metric']}, "
                   f"label {lo[1]['label']}, {lo[1]['landis_koch']}) to "
                   f"{{rows.{hi[0]}.value:prop}} ({hi[1]['metric']}, label {hi[1]['label']}, "
                   f"{hi[1]['landis_koch']}) over {len(defined)} defined coefficients.")
    else:
        verdict = "No agreement coefficient is defined for this file (see the notes)."
    figures = []
    if table is not None and defined:
        from noisefloor.report.agreement_figure import agreement_forest_plot

        figures.append(("Each coefficient with its bootstrap interval, by label.",
                        figure_svg(agreement_forest_plot(table))))
    return ReportDoc("agreement", "Inter-rater agreement", verdict, document,
                     facts=[f"annotations: {document['source']} ({layout['layout']} layout, "
                            f"{layout['reason']}); {document['n_ratings']} ratings",
                            "Landis-Koch: verbal bands of Landis & Koch (1977), Biometrics "
                            "33:159-174."],
                     tables=[DocTable("Coefficients", cells, table_id="coefficients")],
                     figures=figures)


_TEST_NAMES = {"mcnemar": "McNemar (paired)", "sign_test": "sign test (paired, exact)",
               "two_proportion": "two-proportion (unpaired)"}


def plan_doc(doc: dict, fig: Any = None) -> ReportDoc:
    """The page of ``noisefloor plan`` from its ``--json`` (and the power figure)."""
    plans = doc["plans"]
    solve_n = doc["solve_for"] == "n"
    cells = table_cells([{
        "test": _TEST_NAMES.get(p["test"], p["test"]),
        "n": f"{{plans.{i}.n:int}}" if p["n"] is not None and p["n"] >= 0 else "none",
        ("gap (pp)" if solve_n else "MDE (pp)"): f"{{plans.{i}.gap:pp+}}",
        "power": f"{{plans.{i}.achieved_power:prop}}",
        "assumes": (f"baseline {{plans.{i}.baseline:pp}}%, {p['effect_size']}"
                    if p["test"] == "two_proportion" else f"p_d {p['p_d']}"),
        "note": p["reason"]} for i, p in enumerate(plans)])
    first = plans[0]
    measured = doc.get("measured_floor") or {}
    kind = "an envelope" if measured.get("kind") == "envelope" else "a floor"
    if solve_n:
        parts = [f"{_TEST_NAMES.get(p['test'], p['test'])} {{plans.{i}.n:int}}"
                 for i, p in enumerate(plans) if p["n"] is not None and p["n"] >= 0]
        verdict = (f"To detect a gain of {{plans.0.gap:pp+}} pp with power {first['power']:g} "
                   f"at alpha {first['alpha']:g}"
                   + (f", clearing {kind} of {{plans.0.floor:pp}} pp" if first["floor"] else "")
                   + ", you need " + (", ".join(parts) or "no feasible design") + " tasks.")
    else:
        parts = [f"{_TEST_NAMES.get(p['test'], p['test'])} {{plans.{i}.gap:pp+}} pp"
                 for i, p in enumerate(plans)]
        verdict = (f"With {{plans.0.n:int}} tasks, power {first['power']:g} and alpha "
                   f"{first['alpha']:g}, the smallest detectable gain is " + ", ".join(parts)
                   + ".")
    figures = [("Power against the number of tasks; marks at each design's n.",
                figure_svg(fig))] if fig is not None else []
    facts = [f"floor: {doc['floor_source']}"] if doc.get("floor_source") else []
    if any(p["test"] == "two_proportion" for p in plans):
        facts.append("two_proportion n is per arm (two independent samples of tasks)")
    return ReportDoc("plan", "Sample-size plan", verdict, doc, facts=facts,
                     tables=[DocTable("Designs", cells, table_id="designs")], figures=figures)

