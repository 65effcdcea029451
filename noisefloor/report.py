"""Markdown reports a person reads: the floor, the verdicts, the plot."""

from __future__ import annotations

import math

import pandas as pd

from noisefloor.audit import AuditResult
from noisefloor.floor import NoiseFloor
from noisefloor.plots import above_note


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


def count_noun(n: int, noun: str, plural: str | None = None) -> str:
    """``"1 informative pair"``, ``"2 informative pairs"``.

    Examples
    --------
    >>> count_noun(1, "informative pair"), count_noun(194, "informative pair"), count_noun(0, "seed")
    ('1 informative pair', '194 informative pairs', '0 seeds')
    """
    return f"{n} {noun if n == 1 else (plural or noun + 's')}"


def _p(value: float) -> str:
    """A p-value for a table cell: ``"n/a"`` when undefined, ``"<1e-300"`` when a defined p
    underflowed to 0.0 in floating point (an exact sign-test p is never 0), else 3 digits.

    >>> _p(0.003933), _p(0.0), _p(float("nan"))
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
        t = t[t["seed"] != "pooled"]
    return pd.DataFrame({
        "contrast": t["contrast"] + t["clean"].map({True: " (clean)", False: ""}),
        "seed": t["seed"].astype(str),
        "W/L/T": [f"{w}/{lo}/{ti}" for w, lo, ti in zip(t["wins"], t["losses"], t["ties"])],
        "gap pp": [pp(g, signed=True) for g in t["gap"]],
        "95% CI pp": [f"[{pp(a, signed=True)}, {pp(b, signed=True)}]"
                      for a, b in zip(t["ci_low"], t["ci_high"])],
        "p": [_p(p) for p in t["p_value"]],
        "p Bonferroni": [_p(p) for p in t["p_bonferroni"]],
        "tau pp": [pp(x) if s == "pooled" else "" for x, s in zip(t["tau"], t["seed"])],
    })


def reported_text(effect_low: float, effect_high: float, unit: str) -> str:
    """A claim in its own unit, for a claims table without a ``reported`` column.

    Effects are proportions (as :func:`~noisefloor.published.read_claims` returns them); a
    unit other than ``proportion``/``fraction`` was read on a 0-100 scale and is shown so.

    Examples
    --------
    >>> reported_text(float("nan"), 0.05, "percent"), reported_text(0.01, 0.027, "pp")
    ('+5.0 percent', '+1.0 to +2.7 pp')
    >>> reported_text(0.05, 0.05, "%"), reported_text(float("nan"), 0.05, "proportion")
    ('+5.0%', '+0.05 proportion')
    """
    from noisefloor.published import PROPORTION_UNITS

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


def contrast_table(contrasts: pd.DataFrame, *, ci: bool = False) -> pd.DataFrame:
    """Human-facing table of sign-tested contrasts (``sign_test_table`` or
    :func:`~noisefloor.audit.log_contrasts` rows; gaps in pp), with the 95% interval when
    ``ci`` and the verdict columns of :func:`~noisefloor.audit.place_contrasts` when present
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
    shown["W/L/T"] = [f"{w}/{lo}/{t}" for w, lo, t in
                      zip(contrasts["wins"], contrasts["losses"], contrasts["ties"])]
    shown["gap pp"] = [pp(g, signed=True) for g in contrasts["gap"]]
    if ci:
        shown["95% CI pp"] = [f"[{pp(a, signed=True)}, {pp(b, signed=True)}]"
                              for a, b in zip(contrasts["ci_low"], contrasts["ci_high"])]
    shown["p"] = [_p(p) for p in contrasts["p_value"]]
    shown["p_adj"] = [_p(p) for p in contrasts["p_adjusted"]]
    if "verdict" in contrasts.columns:
        shown["x floor"] = ["n/a" if r != r else f"{r:.2f}" for r in contrasts["ratio"]]
        shown["verdict"] = [v + (" *" if f else "") for v, f in
                            zip(contrasts["verdict"], contrasts.get("flag", [""] * len(contrasts)))]
    return shown.reset_index(drop=True)


def _markdown(frame: pd.DataFrame) -> str:
    cols = list(frame.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for rec in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in rec) + " |")
    return "\n".join(lines)


def audit_report(result: AuditResult, nf: NoiseFloor, *, figure: str | None = "forest.png",
                 source: str = "", claims_source: str = "", claims_note: str = "",
                 others: pd.DataFrame | None = None,
                 log_contrasts: pd.DataFrame | None = None) -> str:
    """A short Markdown report of an audit.

    Parameters
    ----------
    result : AuditResult
        Claims placed against the floor.
    nf : NoiseFloor
        The floor they were placed against.
    figure : str or None, default "forest.png"
        Relative path of the forest plot to embed.
    source : str
        Where the floor's inputs came from (shown under the title).
    claims_source : str
        Where the claims came from (a file, or the bundled table).
    claims_note : str
        A sentence shown under it (e.g. that bundled claims were placed against a log's floor).
    others : pandas.DataFrame, optional
        Sign tests of the count table's non-null contrasts
        (:func:`~noisefloor.stats.paired.sign_test_table`): section "Other contrasts in the
        count table".
    log_contrasts : pandas.DataFrame, optional
        The log's own protocol contrasts placed against the floor
        (:func:`~noisefloor.audit.place_contrasts`): section "Contrasts in this log".

    Returns
    -------
    str
        Markdown text.
    """
    c = result.counts
    lines = [
        "# Noise-floor audit",
        "",
        f"- Floor from: {source}" if source else "",
        f"- Claims: {claims_source}" if claims_source else "",
        "",
        "## The floor",
        "",
        f"- **Noise floor: {pp(nf.floor)} pp**, the pooled upper 95% bound of "
        f"`{nf.floor_contrast}` ({'a clean null contrast' if nf.basis == 'clean' else 'no contrast is certified clean'}).",
        f"- **Envelope: {pp(nf.envelope)} pp**, the largest pooled upper bound over all null "
        f"contrasts (`{nf.envelope_contrast}`).",
        f"- Null gaps per seed range from {pp(nf.null_gap_min, signed=True)} to "
        f"{pp(nf.null_gap_max, signed=True)} pp (SD {pp(nf.null_gap_sd)} pp) over {nf.n_seeds} "
        f"seed(s), with {count_noun(nf.n_informative, 'informative (untied) pair')}.",
    ]
    if nf.reason:
        lines.append(f"- Note: {nf.reason}.")
    if nf.caution:
        lines.append(f"- **Caution: {nf.caution}.**")
    lines += ["", _markdown(floor_table(nf)), "",
              "Gaps are (wins - losses) / n; intervals are Wilson 95% intervals on wins / (wins + "
              "losses) mapped to the gap; p is the exact two-sided sign test (ties dropped), "
              "Bonferroni over the contrasts of one seed (or of the pooled family).", ""]
    if log_contrasts is not None:
        lines += ["## Contrasts in this log", "",
                  "Each protocol pair compared on the same tasks at each trial after trial 0 (and "
                  "on the coordination-active subset at trial 1), its gap placed against the floor "
                  "like a claim; Bonferroni within seed, trial and subset.", ""]
        if log_contrasts.empty:
            lines += ["No pair of protocols shares a trial after trial 0.", ""]
        else:
            lines += [_markdown(contrast_table(log_contrasts, ci=True)), ""]
            if "flag" in log_contrasts.columns and log_contrasts["flag"].astype(bool).any():
                lines += ["\\* fewer than 6 informative (untied) pairs: the sign test cannot "
                          "reach p < 0.05 whatever the gap.", ""]
    if others is not None and not others.empty:
        lines += ["## Other contrasts in the count table", "",
                  "Sign test; Bonferroni within seed, trial and subset.", "",
                  _markdown(contrast_table(others)), ""]
    lines += ["## The claims", "",
              f"Claims: {claims_source}." if claims_source else "",
              f"*{claims_note}*" if claims_note else "", "",
              f"**{c['below']} below** the floor, **{c['inside']} inside** the envelope, "
              f"**{c['above']} above** it.", "",
              _markdown(verdict_table(result)), "",
              f"*{above_note(nf)}.*" if above_note(nf) else "", "",
              "A range is placed by its end farthest from zero (for a gain, its upper end). "
              "*Below* means unresolved against the floor: the "
              "claim may be true, but a gap of that size also appears between two runs that cannot "
              "differ. It is not refuted.", ""]
    if figure:
        lines += ["## Forest plot", "", f"![forest plot]({figure})", ""]
    return "\n".join(lines)
