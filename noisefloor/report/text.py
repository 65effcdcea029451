"""What a person reads: the floor, the contrasts and the verdicts as text and Markdown.

One module renders every view of a result: :func:`floor_text` (``noisefloor floor``),
:func:`contrast_text` (``noisefloor contrast --log``), :func:`audit_text` and
:func:`audit_markdown` (``noisefloor audit`` and its ``report.md``). The text and the Markdown
of an audit are built from the same facts (:func:`floor_facts`, :func:`log_contrast_facts`,
:func:`claim_facts`), so the terminal and report.md carry the same content.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from noisefloor.floor.contrast_table import POOLED, TRIAL, seed_text

if TYPE_CHECKING:
    from noisefloor.audit.verdicts import AuditResult
    from noisefloor.floor.estimate import NoiseFloor
    from noisefloor.pipelines.audit import AuditRun
    from noisefloor.pipelines.contrast import ContrastRun
    from noisefloor.pipelines.floor import FloorRun


def pp(value: float, digits: int = 1, signed: bool = False) -> str:
    """A proportion as percentage points text (``n/a`` for NaN).

    Examples
    --------
    >>> pp(0.11816), pp(-0.03, signed=True), pp(float("nan"))
    ('11.8', '-3.0', 'n/a')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value * 100:+.{digits}f}" if signed else f"{value * 100:.{digits}f}"


def pp_or_why(value: float, why: str, signed: bool = False) -> str:
    """A proportion as ``"11.8 pp"``, or, when undefined, ``"n/a (why)"``: an undefined value
    is shown with the reason it is undefined, never as a bare ``"n/a pp"``.

    Examples
    --------
    >>> pp_or_why(0.118, "unused"), pp_or_why(float("nan"), "one seed")
    ('11.8 pp', 'n/a (one seed)')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"n/a ({why})" if why else "n/a"
    return f"{pp(value, signed=signed)} pp"


def level_text(confidence: float) -> str:
    """An interval level as a person reads it: ``0.95`` -> ``"95%"``.

    Examples
    --------
    >>> level_text(0.95), level_text(0.9), level_text(0.975)
    ('95%', '90%', '97.5%')
    """
    return f"{confidence * 100:g}%"


#: How a floor's pooling over seeds reads in text, by :attr:`NoiseFloor.pooling`.
POOLING_TEXT = {"summed": "counts summed over seeds", "random": "random effects over seeds"}

#: Estimators of tau^2 by name.
TAU_METHOD_TEXT = {"dl": "DerSimonian-Laird", "pm": "Paule-Mandel"}


def pooling_line(nf: NoiseFloor) -> str:
    """With random-effects pooling: the method and the tau of the floor's and the envelope's
    contrasts, in one line; ``""`` for summed counts."""
    if nf.pooling != "random":
        return ""
    pooled = nf.table[nf.table["level"] == POOLED].set_index("contrast")["tau"]

    def tau(contrast: str) -> str:
        return f"tau {pp(float(pooled[contrast]))} pp" if contrast in pooled.index else "tau n/a"

    parts = [f"{c} {tau(c)}" for c in dict.fromkeys((nf.floor_contrast, nf.envelope_contrast))
             if c]
    if not parts:
        return (f"pooling: random effects over seeds ({TAU_METHOD_TEXT[nf.tau_method]} tau): "
                "undefined for every contrast (see the note)")
    return (f"pooling: random effects over seeds ({TAU_METHOD_TEXT[nf.tau_method]} tau; "
            f"{', '.join(parts)}); bounds from the pooled {level_text(nf.confidence)} interval")


def count_noun(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 informative pair"``, ``"2 informative pairs"``.

    Examples
    --------
    >>> count_noun(1, "informative pair"), count_noun(194, "informative pair"), count_noun(0, "seed")
    ('1 informative pair', '194 informative pairs', '0 seeds')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def p_cell(value: float) -> str:
    """A p-value as a table cell shows it: 3 significant digits.

    ``"n/a"`` when undefined (None or NaN); ``"<1e-300"`` when a defined p underflowed to 0.0
    in floating point (an exact sign-test p is never 0). A sentence uses :func:`p_phrase`.

    >>> p_cell(0.003933), p_cell(0.0), p_cell(float("nan"))
    ('0.00393', '<1e-300', 'n/a')
    """
    if value is None or math.isnan(value):
        return "n/a"
    return "<1e-300" if value == 0.0 else f"{value:.3g}"


def floor_table(nf: NoiseFloor) -> pd.DataFrame:
    """Human-facing table of the null contrasts (gaps and bounds in pp).

    Pooled rows are shown only when there is more than one seed.
    """
    t = nf.to_frame()
    if nf.n_seeds <= 1:  # pooled rows would repeat the single seed's rows
        t = t[t["level"] != POOLED]
    return pd.DataFrame({
        "contrast": t["contrast"] + t["clean"].map({True: " (clean)", False: ""}),
        "seed": [seed_text(level, seed) for level, seed in zip(t["level"], t["seed"])],
        "W/L/T": [f"{w}/{lo}/{ti}" for w, lo, ti in zip(t["wins"], t["losses"], t["ties"])],
        "gap pp": [pp(g, signed=True) for g in t["gap"]],
        f"{level_text(nf.confidence)} CI pp": [f"[{pp(a, signed=True)}, {pp(b, signed=True)}]"
                                               for a, b in zip(t["ci_low"], t["ci_high"])],
        "p": [p_cell(p) for p in t["p_value"]],
        "p Bonferroni": [p_cell(p) for p in t["p_adjusted"]],
        "tau pp": [pp(x) if s == POOLED else "" for x, s in zip(t["tau"], t["level"])],
    })


def reported_text(effect_low: float, effect_high: float, unit: str) -> str:
    """A claim in its own unit, for a claims table without a ``reported`` column.

    Effects are proportions (as :func:`~noisefloor.audit.published.read_claims` returns them); a
    unit other than ``proportion``/``fraction`` was read on a 0-100 scale and is shown so.

    Examples
    --------
    >>> reported_text(float("nan"), 0.05, "percent"), reported_text(0.01, 0.027, "pp")
    ('+5.0 percent', '+1.0 to +2.7 pp')
    >>> reported_text(0.05, 0.05, "%"), reported_text(float("nan"), 0.05, "proportion")
    ('+5.0%', '+0.05 proportion')
    """
    from noisefloor.audit.published import PROPORTION_UNITS

    unit = str(unit).strip()
    if unit.lower() in PROPORTION_UNITS:
        def show(x):
            return f"{x:+.3g}"
    else:
        def show(x):
            return f"{x * 100:+.1f}"
    low = effect_low if effect_low is not None else math.nan
    text = show(effect_high)
    if not math.isnan(low) and low != effect_high:
        text = f"{show(low)} to {text}"
    return text + (unit if unit == "%" else f" {unit}")


def verdict_table(result: AuditResult) -> pd.DataFrame:
    """Human-facing table of the claims: ``reported`` as published (or in the claim's own
    unit when the table gave no text), the placed value and the verdict."""
    t = result.to_frame()
    return pd.DataFrame({
        "paper": t["paper"],
        "benchmark": t["benchmark"],
        "reported": [r if r else reported_text(lo, hi, u) for r, lo, hi, u in
                     zip(t["reported"], t["effect_low"], t["effect_high"], t["unit"])],
        "placed pp": [pp(e) for e in t["effect"]],
        "x floor": [f"{r:.2f}" for r in t["ratio"]],
        "verdict": t["verdict"],
        "flag": t["flag"],
    })


def contrast_table(contrasts: pd.DataFrame, *, ci: bool = False,
                   confidence: float = 0.95) -> pd.DataFrame:
    """Human-facing table of sign-tested contrasts (``sign_test_table`` or
    :func:`~noisefloor.audit.verdicts.log_contrasts` rows; gaps in pp), with the interval (computed at
    ``confidence``, which heads its column) when ``ci`` and the verdict columns of :func:`~noisefloor.audit.verdicts.place_contrasts` when present
    (a verdict marked ``*`` has a flag: too few informative pairs).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"seed": [1], "trial": [1], "subset": ["all"], "contrast": ["a-b"],
    ...                   "wins": [2], "losses": [6], "ties": [20], "gap": [-4 / 28],
    ...                   "p_value": [0.289], "p_adjusted": [0.867]})
    >>> contrast_table(t).iloc[0, 3:].tolist()
    ['a-b', '2/6/20', '-14.3', '0.289', '0.867']
    """
    keys = [c for c in ("benchmark", "model") if c in contrasts.columns
            and contrasts[c].nunique(dropna=False) > 1]
    shown = contrasts[keys + ["seed", "trial", "subset", "contrast"]].copy()
    if "level" in contrasts.columns and contrasts["seed"].isna().any():
        # the contrast-table shape: a pooled row (or a log without seeds) has no seed
        shown["seed"] = pd.Series([int(sd) if lv != POOLED and pd.notna(sd) else seed_text(lv, sd)
                                   for lv, sd in zip(contrasts["level"], contrasts["seed"])],
                                  index=shown.index, dtype=object)
    shown["W/L/T"] = [f"{w}/{lo}/{t}" for w, lo, t in
                      zip(contrasts["wins"], contrasts["losses"], contrasts["ties"])]
    shown["gap pp"] = [pp(g, signed=True) for g in contrasts["gap"]]
    if ci:
        shown[f"{level_text(confidence)} CI pp"] = [f"[{pp(a, signed=True)}, {pp(b, signed=True)}]"
                              for a, b in zip(contrasts["ci_low"], contrasts["ci_high"])]
    shown["p"] = [p_cell(p) for p in contrasts["p_value"]]
    shown["p_adj"] = [p_cell(p) for p in contrasts["p_adjusted"]]
    if "verdict" in contrasts.columns:
        shown["x floor"] = ["n/a" if r != r else f"{r:.2f}" for r in contrasts["ratio"]]
        shown["verdict"] = [v + (" *" if f else "") for v, f in
                            zip(contrasts["verdict"], contrasts.get("flag", [""] * len(contrasts)))]
    return shown.reset_index(drop=True)


def markdown_table(frame: pd.DataFrame) -> str:
    """A DataFrame as a GitHub-flavoured Markdown table, without the index.

    Every cell is written with ``str``; a ``|`` inside a cell is escaped so the row keeps its
    columns. Format the numbers first (:func:`pp`, :func:`p_cell`).

    >>> print(markdown_table(pd.DataFrame({"arm": ["a|b"], "p": [p_cell(0.5)]})))
    | arm | p |
    |---|---|
    | a\\|b | 0.5 |
    """
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for rec in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in rec) + " |")
    return "\n".join(lines)



def text_table(frame: pd.DataFrame) -> str:
    """A DataFrame as an aligned text table without the index (as the CLI prints it)."""
    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 200, "display.max_colwidth", 60):
        return frame.to_string(index=False)


def _listed(labels: list[str], limit: int = 6) -> str:
    return ", ".join(labels[:limit]) + (", ..." if len(labels) > limit else "")


def certification_line(null_table: pd.DataFrame) -> str:
    """What certified the null contrasts, in one line (``""`` for an empty table).

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"contrast": ["a-b", "a[t0]-a[t1]", "a-b"], "seed": [1, 1, 2],
    ...                   "certified_by": ["empty store at start", "no injection",
    ...                                    "empty store at start"]})
    >>> certification_line(t)
    'certified null by: empty store at start (a-b); no injection (a[t0]-a[t1])'
    """
    if null_table.empty or "certified_by" not in null_table.columns:
        return ""
    by: dict[str, list[str]] = {}
    for label, cert in zip(null_table["contrast"].astype(str), null_table["certified_by"]):
        labels = by.setdefault(str(cert) or "unstated", [])
        if label not in labels:
            labels.append(label)
    if len(by) == 1:
        return f"certified null by: {next(iter(by))} (every null contrast)"
    return "certified null by: " + "; ".join(f"{cert} ({_listed(labels)})"
                                             for cert, labels in by.items())


def left_out_line(null_table: pd.DataFrame) -> str:
    """One line saying how many paired tasks each kind of exclusion removed, or ``""``."""
    cols = ("n_only_a", "n_only_b", "n_excluded")
    totals = {c: int(null_table[c].sum()) for c in cols if c in null_table.columns}
    if not any(totals.values()):
        return ""
    parts = []
    only = totals.get("n_only_a", 0) + totals.get("n_only_b", 0)
    if only:
        parts.append(f"{only} task(s) present in one arm only")
    if totals.get("n_excluded", 0):
        parts.append(f"{totals['n_excluded']} task(s) with an infrastructure error or no reward")
    present = [c for c in cols if c in null_table.columns]
    affected = int((null_table[present].sum(axis=1) > 0).sum())
    return (f"left out: {', '.join(parts)}, summed over {affected} per-seed contrast(s) "
            "(per contrast under left_out in --json)")


def skipped_line(skipped) -> str:
    """One line naming the candidate pairs nothing certified as null, or ``""``."""
    if not skipped:
        return ""
    labels = [r["contrast"] for r in skipped]
    return (f"skipped: {len(skipped)} pair(s) nothing certifies as null (not null contrasts): "
            f"{_listed(labels)} (each with its reason under skipped in --json)")


def floor_facts(nf: NoiseFloor, null_table: pd.DataFrame, skipped=()) -> list[tuple[str, str]]:
    """The floor's facts after its three headline lines, as ``(kind, text)``: ``pooling``
    (random effects only), ``certified``, ``note``, ``caution``, ``left_out``, ``skipped``
    (only those that apply), in that order."""
    facts = []
    if pooling_line(nf):
        facts.append(("pooling", pooling_line(nf)))
    cert = certification_line(null_table)
    if cert:
        facts.append(("certified", cert))
    if nf.reason:
        facts.append(("note", f"note: {nf.reason}"))
    if nf.caution:
        facts.append(("caution", f"caution: {nf.caution}"))
    for kind, text in (("left_out", left_out_line(null_table)), ("skipped", skipped_line(skipped))):
        if text:
            facts.append((kind, text))
    return facts


def _which(contrast: str, pooling: str = "summed") -> str:
    if contrast:
        return contrast
    return ("no contrast has two seeds with variance to pool" if pooling == "random"
            else "no contrast has an untied pair")


def _undefined_why(reason: str, fallback: str) -> str:
    """The parts of a result's ``reason`` (parts joined by ``"; "``, parenthesised text kept
    whole) that say why a value is undefined; ``fallback`` when none does."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(reason):
        depth += {"(": 1, ")": -1}.get(ch, 0)
        if depth == 0 and reason.startswith("; ", i):
            parts.append(reason[start:i])
            start = i + 2
    parts.append(reason[start:])
    return "; ".join(p for p in parts if "undefined" in p) or fallback


def floor_text(run: FloorRun) -> str:
    """The terminal output of ``noisefloor floor``."""
    nf = run.noise_floor
    how = f", upper {level_text(nf.confidence)} bound, {POOLING_TEXT[nf.pooling]}"
    # an undefined value says why (the reason the result carries), never a bare "n/a pp"
    if nf.floor == nf.floor:
        floor = f"{pp(nf.floor)} pp  ({_which(nf.floor_contrast, nf.pooling)}; basis: {nf.basis})"
    else:
        floor = f"{pp_or_why(nf.floor, _undefined_why(nf.reason, _which('', nf.pooling)))}; basis: {nf.basis}"
    envelope = (f"{pp(nf.envelope)} pp  ({_which(nf.envelope_contrast, nf.pooling)})"
                if nf.envelope == nf.envelope else pp_or_why(nf.envelope, _which("", nf.pooling)))
    signing = "each contrast signed so its pooled gap is >= 0; the table signs them as written"
    spread = (f"SD {pp(nf.null_gap_sd)} pp ({signing})" if nf.null_gap_sd == nf.null_gap_sd
              else f"SD {pp_or_why(nf.null_gap_sd, 'fewer than two null gaps')}; {signing}")
    lines = [f"{run.n_trials} trials, {run.n_tasks} tasks, {run.n_protocols} protocol(s), "
             f"{len(run.null_contrasts.table)} per-seed null contrast(s)",
             f"  floor     {floor}{how}",
             f"  envelope  {envelope}",
             f"  null gaps {pp(nf.null_gap_min, signed=True)} to "
             f"{pp(nf.null_gap_max, signed=True)} pp, {spread}; "
             f"{count_noun(nf.n_informative, 'informative pair')}"]
    lines += [f"  {text}" for _, text in floor_facts(nf, run.null_contrasts.table, run.skipped)]
    return "\n".join(lines + ["", text_table(floor_table(nf))])


def _left_out_contrasts_line(left: dict, where: str) -> str:
    only = left.get("n_only_a", 0) + left.get("n_only_b", 0)
    excluded = left.get("n_excluded", 0)
    if not (only or excluded):
        return ""
    return (f"left out: {only} task(s) present in one arm only, {excluded} with an "
            "infrastructure error or no reward, each once per contrast, seed and trial "
            f"({where})")


def p_phrase(p: float) -> str:
    """A p-value as a sentence states it, relation included: ``"= 0.003933"`` (4 significant
    digits), ``"= n/a"`` when undefined (NaN), or ``"< 1e-300 (...)"`` with the reason when a
    defined p underflowed to 0.0 in floating point. A table cell uses :func:`p_cell`.

    >>> "sign test p " + p_phrase(0.003933), p_phrase(float("nan"))
    ('sign test p = 0.003933', '= n/a')
    """
    if p != p:
        return "= n/a"
    if p == 0.0:
        return "< 1e-300 (underflows to 0 in floating point; not exactly 0)"
    return f"= {p:.4g}"


def contrast_text(run: ContrastRun, spell=None) -> str:
    """The terminal output of ``noisefloor contrast --log`` (``spell`` spells the parameters
    a note mentions, see :func:`noisefloor.stats.validation.mention_text`)."""
    from noisefloor.stats.validation import mention_text

    rows = run.contrasts
    arms = "models" if run.by == "model" else "records"
    lines = [f"{run.a}-{run.b} from {', '.join(run.sources)}: {arms} paired by task and trial; "
             "wins = tasks where a succeeded and b failed"]
    shown = contrast_table(rows, ci=True, confidence=run.confidence)
    column = f"p Bonferroni (m = {run.family_size})"
    shown = shown.rename(columns={"p_adj": column})
    if run.family_size == 1:
        shown = shown.drop(columns=[column])
    if rows["certified_by"].astype(bool).any():
        shown["certified null by"] = rows["certified_by"].replace("", "-").to_numpy()
    lines.append(text_table(shown))
    lines += [f"note: {reason}" for reason in run.notes]
    lines += [f"left out: {mention_text(t, spell)}" for t in run.left_out_trials]
    left = _left_out_contrasts_line(run.left_out, "per row in --json")
    if left:
        lines.append(left)
    return "\n".join(lines)


def log_contrast_facts(run: AuditRun, spell=None) -> list[tuple[str, str]]:
    """Facts under the log's own contrasts: ``none``, ``note``, ``flag``, ``left_out``
    (``spell`` spells the parameters a note mentions, see
    :func:`noisefloor.stats.validation.mention_text`)."""
    from noisefloor.stats.validation import mention_text

    own = run.log_contrasts
    if own is None:
        return [("none", f"none: the log holds {count_noun(run.n_arms, 'protocol')}; a contrast "
                         "needs two")]
    if own.empty:
        return [("none", "none: no two protocols share a trial after trial 0")]
    facts = [("note", f"note: {mention_text(n, spell)}") for n in run.notes]
    if own["flag"].astype(bool).any():
        facts.append(("flag", "* fewer than 6 informative pairs: the sign test cannot reach "
                              "p < 0.05 whatever the gap"))
    left = _left_out_contrasts_line(run.log_contrasts_left_out or {},
                                    "per row under log_contrasts in --json")
    if left:
        facts.append(("left_out", left))
    return facts


def claim_facts(run: AuditRun) -> tuple[str, list[tuple[str, str]], list[str]]:
    """The claims' headline, the facts under it (``source``, ``note``, ``caution``) and the
    ``flagged:`` lines after the table."""
    c = run.result.counts
    head = (f"Claims: {c['below']} below the floor, {c['inside']} inside the envelope, "
            f"{c['above']} above it (below = unresolved against the floor, not refuted)"
            if run.result.verdicts else "Claims: none placed")
    facts = [("source", f"claims used: {run.claims_source}")]
    if not run.result.verdicts:
        return head, facts, []
    if run.claims_note:
        facts.append(("note", f"note: {run.claims_note[0].lower()}{run.claims_note[1:]}"))
    if run.noise_floor.caution:
        facts.append(("caution", "caution: provisional: the floor is weakly supported (see its "
                                 "caution above)"))
    if above_note(run.noise_floor):
        facts.append(("note", f"note: {above_note(run.noise_floor)}"))
    flagged = [f"flagged: {v.paper}: {v.flag}" for v in run.result.verdicts if v.flag]
    return head, facts, flagged


_LOG_HEAD = ("Contrasts in this log, placed against the floor (sign test per trial; "
             "Bonferroni within seed, trial, subset)")
_OTHERS_HEAD = "Other contrasts in the count table (sign test; Bonferroni within seed, trial, subset)"


def audit_text(run: AuditRun, spell=None) -> str:
    """The terminal output of ``noisefloor audit`` (without the ``Wrote`` line); ``spell``
    spells the parameters a note mentions (see :func:`noisefloor.stats.validation.mention_text`)."""
    nf = run.noise_floor
    pooled = "pooled" if nf.pooling == "summed" else "random-effects"
    lines = [f"Noise floor from {run.floor_source}",
             f"  floor     {pp(nf.floor)} pp  {pooled} upper {level_text(nf.confidence)} bound "
             f"of {nf.floor_contrast} ({'clean' if nf.basis == 'clean' else 'no clean contrast'})",
             f"  envelope  {pp(nf.envelope)} pp  largest {pooled} upper bound "
             f"({nf.envelope_contrast})",
             f"  null gaps {pp(nf.null_gap_min, signed=True)} to "
             f"{pp(nf.null_gap_max, signed=True)} pp over {nf.n_seeds} seed(s); "
             f"{count_noun(nf.n_informative, 'informative pair')}"]
    lines += [f"  {text}" for _, text in floor_facts(nf, run.null_table, run.skipped)]
    lines += ["", text_table(floor_table(nf))]
    if run.from_logs:
        lines += ["", _LOG_HEAD]
        if run.log_contrasts is not None and not run.log_contrasts.empty:
            lines.append(text_table(contrast_table(run.log_contrasts, ci=True,
                                                   confidence=nf.confidence)))
        lines += [f"  {text}" for _, text in log_contrast_facts(run, spell)]
    if run.other_contrasts is not None:
        lines += ["", _OTHERS_HEAD, text_table(contrast_table(run.other_contrasts))]
    head, facts, flagged = claim_facts(run)
    lines += ["", head, *[f"  {text}" for _, text in facts]]
    if run.result.verdicts:
        lines += [text_table(verdict_table(run.result).drop(columns=["flag"])),
                  *[f"  {text}" for text in flagged]]
    return "\n".join(lines)


def _md_fact(kind: str, text: str) -> str:
    if kind == "caution":
        return f"- **{text[0].upper()}{text[1:]}.**"
    return f"- {text[0].upper()}{text[1:]}"


def audit_markdown(run: AuditRun, *, figure: str | None = "forest.png", spell=None) -> str:
    """The ``report.md`` of ``noisefloor audit``: the same facts as :func:`audit_text`.

    Parameters
    ----------
    run : AuditRun
        The audit.
    figure : str or None, default "forest.png"
        Relative path of the forest plot to embed.
    spell : callable, optional
        Spells the parameters a note mentions (as in :func:`audit_text`).

    Returns
    -------
    str
        Markdown text.
    """
    nf = run.noise_floor
    c = run.result.counts
    level = level_text(nf.confidence)
    pooled = "pooled" if nf.pooling == "summed" else "random-effects pooled"
    lines = ["# Noise-floor audit", "",
             f"- Floor from: {run.floor_source}",
             f"- Claims: {run.claims_source}", "",
             "## The floor", "",
             f"- **Noise floor: {pp(nf.floor)} pp**, the {pooled} upper {level} bound of "
             f"`{nf.floor_contrast}` ({'a clean null contrast' if nf.basis == 'clean' else 'no contrast is certified clean'}).",
             f"- **Envelope: {pp(nf.envelope)} pp**, the largest {pooled} upper bound over all null "
             f"contrasts (`{nf.envelope_contrast}`).",
             f"- Null gaps per seed range from {pp(nf.null_gap_min, signed=True)} to "
             f"{pp(nf.null_gap_max, signed=True)} pp (SD {pp(nf.null_gap_sd)} pp) over "
             f"{nf.n_seeds} seed(s), with "
             f"{count_noun(nf.n_informative, 'informative (untied) pair')}."]
    lines += [_md_fact(kind, text) for kind, text in floor_facts(nf, run.null_table, run.skipped)]
    lines += ["", markdown_table(floor_table(nf)), "",
              f"Gaps are (wins - losses) / n; intervals are Wilson {level} intervals on wins / "
              "(wins + losses) mapped to the gap; p is the exact two-sided sign test (ties "
              "dropped), Bonferroni over the contrasts of one seed (or of the pooled family)."
              + ("" if nf.pooling == "summed" else
                 f" Pooled rows: the random-effects estimate of the per-seed gaps, its {level} "
                 f"interval and the z-test p ({TAU_METHOD_TEXT[nf.tau_method]} tau)."), ""]
    if run.from_logs:
        lines += ["## Contrasts in this log", "",
                  "Each protocol pair compared on the same tasks at each trial after trial 0 (and, "
                  "when the records carry store fields, on the coordination-active subset at "
                  "trial 1), its gap placed against the floor like a claim; Bonferroni within "
                  "seed, trial and subset.", ""]
        if run.log_contrasts is not None and not run.log_contrasts.empty:
            lines += [markdown_table(contrast_table(run.log_contrasts, ci=True,
                                               confidence=nf.confidence)), ""]
        lines += [("\\" + text if kind == "flag" else _md_fact(kind, text))
                  for kind, text in log_contrast_facts(run, spell)] + [""]
    if run.other_contrasts is not None and not run.other_contrasts.empty:
        lines += ["## Other contrasts in the count table", "",
                  "Sign test; Bonferroni within seed, trial and subset.", "",
                  markdown_table(contrast_table(run.other_contrasts)), ""]
    head, facts, flagged = claim_facts(run)
    lines += ["## The claims", "", head, ""]
    lines += [_md_fact(kind, text) for kind, text in facts]
    if run.result.verdicts:
        lines += ["", f"**{c['below']} below** the floor, **{c['inside']} inside** the "
                  f"envelope, **{c['above']} above** it.", "",
                  markdown_table(verdict_table(run.result).drop(columns=["flag"])), ""]
        lines += [f"- {text[0].upper()}{text[1:]}" for text in flagged]
    lines += ["", "A range is placed by its end farthest from zero (for a gain, its upper end). "
              "*Below* means unresolved against the floor: the claim may be true, but a gap of "
              "that size also appears between two runs that cannot differ. It is not refuted.",
              ""]
    if figure:
        lines += ["## Forest plot", "", f"![forest plot]({figure})", ""]
    return "\n".join(lines)


def null_gaps_beyond_envelope(noise_floor) -> list[tuple[str, object, float]]:
    """Per-seed null contrasts whose gap lies beyond the envelope: ``(contrast, seed, gap)``.

    The envelope is the largest upper bound *pooled over seeds*; a single seed's null gap can
    exceed it (the noise-floor paper's +18 pp against a 15.3 pp envelope), so "above the
    envelope" does not mean beyond every gap two null runs showed.

    Examples
    --------
    >>> from noisefloor.floor.count_table import null_contrasts_from_counts
    >>> from noisefloor.floor.estimate import noise_floor
    >>> from noisefloor.audit.published import read_paired_counts
    >>> null_gaps_beyond_envelope(noise_floor(null_contrasts_from_counts(read_paired_counts())))
    [('pull-intercept', 1, 0.18)]
    """
    t = noise_floor.to_frame()
    t = t[t["level"] == TRIAL]
    env = noise_floor.envelope
    if env != env:
        return []
    out = t[t["gap"].abs() > env + 1e-12]
    return [(str(c), None if pd.isna(s) else int(s), float(g))
            for c, s, g in zip(out["contrast"], out["seed"], out["gap"])]


def above_note(noise_floor) -> str:
    """What "above" means when a per-seed null gap exceeds the envelope; ``""`` otherwise.

    Examples
    --------
    >>> from noisefloor.floor.count_table import null_contrasts_from_counts
    >>> from noisefloor.floor.estimate import noise_floor
    >>> from noisefloor.audit.published import read_paired_counts
    >>> print(above_note(noise_floor(null_contrasts_from_counts(read_paired_counts()))))
    'above' = beyond the envelope (15.3 pp, pooled over seeds); a single seed's null gap went further (pull-intercept at seed 1: +18.0 pp), so a claim above the envelope is not beyond every gap two runs that cannot differ have shown
    """
    beyond = null_gaps_beyond_envelope(noise_floor)
    if not beyond:
        return ""
    shown = ", ".join(f"{c} at seed {s}: {g * 100:+.1f} pp" for c, s, g in beyond[:3])
    more = f" and {len(beyond) - 3} more" if len(beyond) > 3 else ""
    return (f"'above' = beyond the envelope ({noise_floor.envelope * 100:.1f} pp, pooled over "
            f"seeds); a single seed's null gap went further ({shown}{more}), so a claim above "
            "the envelope is not beyond every gap two runs that cannot differ have shown")
