"""``noisefloor agreement``: inter-rater agreement per label, from a long or wide annotation file.

Thin layer: the work is one call, :func:`noisefloor.agreement.from_file.agreement_study`
(layout, reading, and :func:`~noisefloor.agreement.study.agreement_by_label` or with
``--metric icc`` :func:`~noisefloor.agreement.study.icc_by_label`); ``--json`` prints its
``to_dict()`` (the file, its layout and why, the counts and the rows, with the same keys for
every metric); the plot is
:func:`noisefloor.report.agreement_figure.agreement_forest_plot`.
"""

from __future__ import annotations

import math
from pathlib import Path

import click

from noisefloor.agreement.from_file import AgreementStudy, NoCohenPairError, agreement_study
from noisefloor.agreement.study import IccTable
from noisefloor.cli._common import (
    HELP_OPTIONS,
    emit_json,
    error_text,
    handle_errors,
    jsonable,
    os_error_text,
)
from noisefloor.cli._html import html_option, write_page
from noisefloor.cli._logs import refuse_unused
from noisefloor.logs.annotations import LAYOUTS, parse_label
from noisefloor.stats.agreement import NO_RESAMPLES_REASON

PLOT_FORMATS = (".png", ".svg", ".pdf")  # what save_agreement_plot writes

_ORDER_SOURCE = {
    "declared": "declared by --categories",
    "numeric": "numeric order of the labels used; --categories declares unused points",
    "table": "table order",
}


def _scale_line(result) -> str:
    """``low < mid < high (declared by --categories)``: the order a weighted value used."""
    cats = [str(c) for c in result.categories]
    if len(cats) > 12:
        cats = cats[:5] + [f"... ({len(cats) - 10} more) ..."] + cats[-5:]
    if result.metric == "krippendorff" and result.level in ("interval", "ratio"):
        return (f"{' < '.join(cats)} (numeric values; {result.level} distances are their "
                "differences)")
    return f"{' < '.join(cats)} ({_ORDER_SOURCE[result.category_order]})"


def _split(text: str | None) -> list[str] | None:
    if text is None:
        return None
    return [t.strip() for t in text.split(",") if t.strip()]


def _fmt(x: float, digits: int = 3) -> str:
    return "n/a" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _fmt_z(rec: dict) -> str:
    """z of the H0 test where the metric has one (Fleiss), ``-`` where it has none."""
    return _fmt(rec["z"], 1) if rec["metric"] == "fleiss" else "-"


def _check_plot_paths(ctx: click.Context, param: click.Parameter, value: tuple) -> tuple:
    """Refuse an unsupported plot format before any statistics are computed."""
    for path in value:
        if path.suffix.lower() not in PLOT_FORMATS:
            raise click.BadParameter(
                f"{str(path)!r}: the plot format follows the file suffix, one of "
                f"{', '.join(PLOT_FORMATS)}; got {path.suffix or 'no suffix'!r}",
                ctx=ctx, param=param,
            )
    return value


@click.command(
    "agreement",
    short_help=("Inter-rater agreement per label: Fleiss' and Cohen's kappa, "
                "Krippendorff's alpha, ICC."),
    context_settings=HELP_OPTIONS)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--metric", type=click.Choice(["cohen", "fleiss", "krippendorff", "all", "icc"]),
              default="all", show_default=True,
              help="Coefficient(s) per label. fleiss: Fleiss' kappa among the human raters "
                   "(needs every item rated by all of them); krippendorff: Krippendorff's alpha "
                   "among them (allows missing ratings); cohen: Cohen's kappa of the --judge "
                   "against the human majority, or between the two raters when there are two; "
                   "all: the three. icc: for numeric scores (e.g. judge scores on a 1-10 "
                   "scale), the six intraclass correlations of Shrout and Fleiss (1979) with "
                   "F tests and --confidence intervals, every rater and the --judge alike; "
                   "items not scored by all of them are left out.")
@click.option("--weights", type=click.Choice(["none", "linear", "quadratic"]), default="none",
              show_default=True,
              help="Cohen's kappa weights for ordered labels. none: every disagreement counts "
                   "fully; linear/quadratic: partial credit by the distance between the two "
                   "categories' positions on the scale: --categories, or for numeric labels "
                   "their numeric order (text labels need --categories). The output's scale: "
                   "line shows the order used.")
@click.option("--level", type=click.Choice(["nominal", "ordinal", "interval", "ratio"]),
              default="nominal", show_default=True,
              help="Krippendorff's alpha level of measurement. nominal: unordered labels; "
                   "ordinal: ordered, in --categories order (numeric labels: numeric order; "
                   "text labels need --categories); interval, ratio: numeric labels.")
@click.option("--judge", metavar="RATER", default=None,
              help="A rater in FILE (e.g. an LLM judge) to compare with the majority of the "
                   "human raters by Cohen's kappa; it is left out of Fleiss' kappa and alpha.")
@click.option("--raters", metavar="A,B,..", default=None,
              help="Use only these raters as the human raters (comma-separated); the others "
                   "in FILE, except the --judge, are ignored and the first output line names "
                   "them. Two raters without --judge give Cohen's kappa between them. A name "
                   "not in FILE is an error.")
@click.option("--categories", metavar="C1,C2,..", default=None,
              help="The full category scale from lowest to highest, comma-separated, e.g. "
                   "low,mid,high. Required for --weights linear/quadratic and --level ordinal "
                   "when the labels are not all numbers (their order is never guessed from "
                   "the spelling); for numeric labels, declare it when a scale point went "
                   "unused. A label outside it is an error.")
@click.option("--tie", type=click.Choice(["exclude", "lowest", "highest"]), default="exclude",
              show_default=True,
              help="A tied human majority in the --judge comparison. exclude: leave the item "
                   "out (a note counts them); lowest/highest: take the tied category that comes "
                   "first/last in category order (for 0/1 labels, highest calls a tie 1).")
@click.option("--randolph", is_flag=True,
              help="In the Fleiss row, report Randolph's free-marginal kappa (chance agreement "
                   "1/number of categories) instead of Fleiss' kappa.")
@click.option("--layout", type=click.Choice(LAYOUTS), default="auto", show_default=True,
              help="File layout. auto: long if the CSV header has item, rater and label "
                   "columns, wide if it has neither rater nor label; a header with only one of "
                   "the two is an error (a long file missing a column). The output's first line "
                   "says which layout was used and why.")
@click.option("--confidence", type=click.FloatRange(0, 1, min_open=True, max_open=True),
              default=0.95, show_default=True,
              help="Confidence level of the bootstrap intervals, strictly between 0 and 1 "
                   "(0.95 gives 95% intervals); with --metric icc, of the F-based intervals.")
@click.option("--n-boot", type=click.IntRange(min=0), default=2000, show_default=True,
              help="Bootstrap resamples of items for every interval (0: no interval; the CI "
                   "shows n/a).")
@click.option("--seed", type=int, default=0, show_default=True,
              help="Seed of the bootstrap: the same seed gives the same intervals.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document instead of the table: source, layout (which "
                   "and why), metric, n_ratings, n_ignored_ratings and rows, one object per "
                   "(label, metric) row (with --metric icc, per label and form), every row "
                   "with the same keys whatever the metric; an undefined value, or a number "
                   "that does not belong to the row's metric, is null.")
@click.option("--plot", "plot_paths", type=click.Path(dir_okay=False, path_type=Path),
              multiple=True, callback=_check_plot_paths, metavar="PATH",
              help="Write a per-label forest plot to PATH, in the format its suffix names "
                   "(.png, .svg or .pdf) and nothing else; repeat the option for more than one "
                   "format. The paths written are printed on stderr.")
@html_option()
@handle_errors
def agreement(file, metric, weights, level, judge, raters, categories, tie, randolph, layout,
              confidence, n_boot, seed, as_json, plot_paths, html_path=None) -> None:
    """Inter-rater agreement of the annotations in FILE, one row per label and metric:
    Fleiss' and Cohen's kappa and Krippendorff's alpha for labels, or with --metric icc the
    intraclass correlations (ICC) of numeric scores.

    FILE is CSV or JSONL. Long layout: item,rater,label[,category] (category names the
    question, e.g. a failure stage; each becomes one output label). Wide layout (CSV):
    item[,category],<one column per rater>; an empty cell is a rating not given.
    """
    if metric == "icc" and (plot_paths or html_path is not None):
        raise click.UsageError("--plot and --html draw the kappa and alpha rows; they are "
                               "not available with --metric icc")
    if metric == "icc":
        refuse_unused(click.get_current_context(), KAPPA_ONLY_OPTIONS, "with --metric icc",
                      "the intraclass correlations take --judge, --raters, --layout and "
                      "--confidence (the others set the kappa and alpha rows)")
    cats = _split(categories)
    try:
        study = agreement_study(
            file,
            metric=metric,
            judge=judge,
            raters=_split(raters),
            layout=layout,
            confidence=confidence,
            # the kappa options, never with icc (a default-map value is not given either)
            **({} if metric == "icc" else dict(
                weights=weights, level=level,
                categories=None if cats is None else [parse_label(c) for c in cats],
                fleiss_method="randolph" if randolph else "fleiss", tie=tie, n_boot=n_boot,
                rng=seed)),
        )
    except NoCohenPairError as exc:
        # no pair to compare: the option that was asked for cannot be honoured (usage, exit 2);
        # the library's message, its parameters spelled as this command's options
        raise click.UsageError(error_text(exc)) from None
    table = study.table
    if isinstance(table, IccTable):
        _echo_icc(study, confidence, as_json)
        return
    frame = table.to_frame()
    if plot_paths:
        from noisefloor.report.agreement_figure import save_agreement_plot

        try:
            written = save_agreement_plot(table, plot_paths)
        except OSError as exc:  # a folder that cannot be created, a read-only place, ...
            raise click.ClickException(
                f"--plot {', '.join(map(str, plot_paths))}: cannot write the plot: "
                f"{os_error_text(exc)}") from None
        if not as_json:
            click.echo("plot: " + ", ".join(str(p) for p in written), err=True)
    document = jsonable(study.to_dict())  # NaN as None, as --json writes it
    if html_path is not None:
        from noisefloor.report.html.command_docs import agreement_doc

        write_page(agreement_doc(document, table=table), html_path)
    if as_json:
        emit_json(document)
        return
    pct = f"{confidence * 100:g}"  # 0.975 is 97.5%, not a rounded 98%
    click.echo(f"{file}: {study.layout.describe()}; {study.n_ratings} ratings; "
               f"raters {', '.join(table.raters)}" + (f"; judge {judge}" if judge else "")
               + (f"; ignored (not in --raters): {', '.join(table.ignored)}, "
                  f"{study.n_ignored_ratings} ratings"
                  if table.ignored else ""))
    header = f"{'label':<8} {'metric':<13} {'value':>7} {f'{pct}% CI (bootstrap)':>20} " \
             f"{'z(H0)':>6} {'items':>5} {'raters':>6} {'obs.agr':>7}  {'Landis-Koch':<15} " \
             "comparison"
    click.echo(header)
    for rec, res in zip(frame.to_dict(orient="records"), table.results):
        ci = f"[{_fmt(rec['ci_low'])}, {_fmt(rec['ci_high'])}]"
        click.echo(
            f"{rec['label']:<8} {rec['metric']:<13} {_fmt(rec['value']):>7} {ci:>20} "
            f"{_fmt_z(rec):>6} {rec['n_items']:>5} {rec['n_raters']:>6} "
            f"{_fmt(rec['observed_agreement']):>7}  "
            f"{rec['landis_koch']:<15} {rec['comparison']}"
        )
        for key, name in (("reason", "reason"), ("ci_reason", "no CI"), ("null_reason", "z(H0)"),
                          ("note", "note")):
            # --n-boot 0 is said once below the table, not on every row
            if rec[key] and not (key == "ci_reason" and rec[key] == NO_RESAMPLES_REASON):
                click.echo(f"{'':<8} {name}: {rec[key]}")
        if res.category_order and not res.reason.startswith("not computed"):
            click.echo(f"{'':<8} scale: {_scale_line(res)}")
        if rec["metric"] == "cohen" and table.judge is None and len(table.raters) != 2:
            click.echo(f"{'':<8} hint: --judge RATER compares one rater with the majority of the "
                       "others; --raters A,B gives Cohen's kappa between two raters")
    if (frame["metric"] == "fleiss").any():
        click.echo("z(H0): Fleiss' kappa / its SE under kappa = 0 (Fleiss, Nee & Landis 1979); "
                   "tests chance agreement, gives no interval.")
    if (frame["ci_reason"] == NO_RESAMPLES_REASON).any():
        click.echo("no CI: --n-boot 0 draws no bootstrap resamples, so no row has an interval.")
    click.echo("Landis-Koch: verbal bands of Landis & Koch (1977), Biometrics 33:159-174.")



#: Options of the kappa and alpha rows only: the intraclass correlations take none of them.
KAPPA_ONLY_OPTIONS = ("weights", "level", "categories", "tie", "randolph", "n_boot", "seed")


def _echo_icc(study: AgreementStudy, confidence: float, as_json: bool) -> None:
    """Print the intraclass correlations: a table per label, or the JSON document."""
    if as_json:
        emit_json(study.to_dict())
        return
    table = study.table
    assert isinstance(table, IccTable)
    pct = f"{confidence * 100:g}"
    click.echo(f"{study.source}: {study.layout.describe()}; raters {', '.join(table.raters)}"
               + (f" (judge {table.judge})" if table.judge else "")
               + (f"; ignored (not in --raters): {', '.join(table.ignored)}"
                  if table.ignored else ""))
    click.echo(f"{'label':<8} {'form':<9} {'value':>7} {f'{pct}% CI':>17} {'F':>7} {'df1':>4} "
               f"{'df2':>5} {'p':>7} {'items':>5} {'raters':>6}  model")
    for label, res in table.results:
        for e in res.estimates:
            ci = f"[{_fmt(e.ci_low)}, {_fmt(e.ci_high)}]"
            click.echo(f"{label:<8} {e.notation:<9} {_fmt(e.value):>7} {ci:>17} "
                       f"{_fmt(e.f, 2):>7} {_fmt(e.df1, 0):>4} {_fmt(e.df2, 0):>5} "
                       f"{_fmt_p(e.p_value):>7} {res.n_items:>5} {res.n_raters:>6}  "
                       f"{e.description}")
        if res.reason:
            click.echo(f"{'':<8} reason: {res.reason}")
        if res.n_left_out:
            click.echo(f"{'':<8} note: {res.n_left_out} item(s) not scored by every rater "
                       "left out")
    click.echo("ICC: Shrout & Fleiss (1979), Psychological Bulletin 86:420-428; intervals and F "
               "tests of McGraw & Wong (1996), Psychological Methods 1:30-46. Form 2 (absolute "
               "agreement) counts a rater's offset against agreement; form 3 (consistency) does "
               "not.")


def _fmt_p(p: float) -> str:
    return "n/a" if not math.isfinite(p) else (f"{p:.4f}" if p >= 1e-4 else f"{p:.1e}")
