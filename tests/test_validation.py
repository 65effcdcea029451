"""One validation module: ParameterError names its parameter, the CLI spells it as the
running command's option, and every warning has its own NoisefloorWarning class.

Bugs these tests catch: a message that loses the parameter or the value received; an exception
that is not a ValueError/TypeError any more (callers' ``except`` clauses); data with braces in a
message breaking or being read as a mention; an option looked up by the wrong name (a
destination such as ``log_format`` for ``--format``); a warning raised without its class (the CLI
would then filter it by Python's defaults); a warning shown twice.
"""

from __future__ import annotations

import ast
import pickle
import warnings

import click
import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from noisefloor.cli._common import clean_warnings, error_text, option_spelling
from noisefloor.stats import warning_classes
from noisefloor.stats.validation import (
    MentionError,
    ParameterError,
    ParameterTypeError,
    choice,
    count,
    literal,
    mention_text,
    probability,
)
from noisefloor.stats.warning_classes import NoisefloorWarning
from tests.source_tree import ROOT, nodes, source_files

# ----------------------------------------------------------------------------- the exception


def test_one_template_and_the_fields_it_carries():
    err = ParameterError("confidence", "strictly between 0 and 1", 95)
    assert str(err) == "confidence must be strictly between 0 and 1, got 95"
    assert (err.parameter, err.expected, err.got, err.has_got) == (
        "confidence", "strictly between 0 and 1", 95, True)
    missing = ParameterError("gap", "given to solve for n")
    assert str(missing) == "gap must be given to solve for n" and not missing.has_got
    # a received None is a value, not "nothing received"
    assert str(ParameterError("k", "an integer", None)) == "k must be an integer, got None"


def test_existing_except_clauses_still_catch_it():
    with pytest.raises(ValueError):
        count("wins", -1)
    with pytest.raises(TypeError):
        count("wins", "3")
    with pytest.raises(TypeError):
        probability("alpha", "x")
    assert issubclass(ParameterTypeError, ParameterError)


def test_validators_name_parameter_expectation_and_value():
    with pytest.raises(ParameterError) as info:
        choice("method", "sidak", ("holm", "bonferroni"))
    assert (info.value.parameter, info.value.got) == ("method", "sidak")
    assert str(info.value) == "method must be one of 'holm', 'bonferroni', got 'sidak'"
    with pytest.raises(ParameterError, match=r"^alpha must be strictly between 0 and 1, got 1\.0$"):
        probability("alpha", 1.0)
    assert count("ties", 4.0) == 4 and probability("alpha", "0.05") == 0.05


@pytest.mark.parametrize("err", [
    ParameterError("n_boot", "an integer >= 100", 5),
    ParameterTypeError("k", "an integer", "3"),
    ParameterError("k_exceeds_n", "'nan' or 'exclude'", message="pass {k_exceeds_n='nan'}"),
    MentionError(literal("task {1}") + " needs {null_pairs}"),
])
def test_errors_survive_pickling_with_their_fields(err):
    # multiprocessing (the harness runner's workers) pickles exceptions across processes
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is type(err) and str(back) == str(err)
    assert getattr(back, "parameter", None) == getattr(err, "parameter", None)


@given(st.text())
def test_literal_text_renders_as_itself(text):
    # data (a task id, a file name) may hold braces; they must never be read as mentions
    assert mention_text(literal(text)) == text
    assert mention_text(literal(text), lambda name, value: "--X") == text


@given(st.from_regex(r"[a-z][a-z_]{0,12}", fullmatch=True), st.text(max_size=20))
def test_a_mention_is_spelled_by_the_front_end(name, data):
    text = literal(data) + "{" + name + "}"
    assert mention_text(text) == data + name + "="
    assert mention_text(text, lambda n, v: f"<{n}>") == data + f"<{name}>"


# ----------------------------------------------------------------------------- the CLI mapping


@click.command()
@click.option("--format", "log_format")              # stored under another name
@click.option("--k-exceeds-n")
@click.option("--allow-nan", is_flag=True)
@click.option("-n", "--n-boot", type=int)            # a short and a long option
def _command(log_format, k_exceeds_n, allow_nan, n_boot):
    """A command whose options the tests spell."""


@pytest.mark.parametrize("name,value,spelled", [
    ("k_exceeds_n", None, "--k-exceeds-n"),           # destination == parameter
    ("k_exceeds_n", "'exclude'", "--k-exceeds-n exclude"),
    ("format", None, "--format"),                     # destination log_format, flag --format
    ("allow_nan", "True", "--allow-nan"),             # a flag takes no value
    ("n_boot", None, "--n-boot"),                     # the long option, not -n
    ("protocol", None, "protocol="),                  # no option of this command: Python's name
    ("protocol", "'pull'", "protocol='pull'"),
])
def test_option_spelling(name, value, spelled):
    assert option_spelling(_command)(name, value) == spelled


def test_error_text_spells_the_subject_and_mentions():
    err = ParameterError("n_boot", "at least 100 (or {allow_nan=True})", 5)
    assert error_text(err, _command) == "--n-boot must be at least 100 (or --allow-nan), got 5"
    # the same error in a command without those options reads as in Python
    bare = click.Command("bare", callback=lambda: None)
    assert error_text(err, bare) == "n_boot must be at least 100 (or allow_nan=True), got 5"
    assert error_text(err, bare) == str(err)


def test_a_log_problem_names_the_option_in_the_cli(tmp_path):
    # the strict reader's NaN hint travels as a mention, so the same log reads "allow_nan=True"
    # in Python and "--allow-nan" on the command line (no keyword rewriting of the text)
    from noisefloor.cli.main import cli
    from noisefloor.logs import LogValidationError, load_trials

    log = tmp_path / "nan.jsonl"
    log.write_text('{"task_id": "a", "trial": 0, "protocol": "p", "reward": NaN, '
                   '"benchmark": "b", "model": "m"}\n')
    with pytest.raises(LogValidationError, match=r"pass allow_nan=True to accept it") as info:
        load_trials(log)
    assert "--allow-nan" not in str(info.value)
    r = CliRunner().invoke(cli, ["passk", str(log)])
    assert r.exit_code == 1 and "(pass --allow-nan to accept it" in r.output
    assert "allow_nan" not in r.output


# ----------------------------------------------------------------------------- warnings

#: Warning classes raised but not defined in noisefloor.stats.warning_classes (none left).
NOT_YET_IN_THE_MODULE: set[str] = set()


def _warn_calls():
    for path in sorted(source_files()):
        for node in nodes(path):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "warn" and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "warnings"):
                yield path.relative_to(ROOT).as_posix(), node


def _category(call: ast.Call) -> str | None:
    arg = next((k.value for k in call.keywords if k.arg == "category"),
               call.args[1] if len(call.args) > 1 else None)
    return arg.id if isinstance(arg, ast.Name) else None


def test_the_scan_finds_the_warn_calls():
    found = list(_warn_calls())
    assert len(found) >= 9  # logs (2), published, plots, floor, fleiss counts, monitor, runner (2)
    assert {_category(c) for _, c in found} >= {"TruncatedLineWarning", "CountTotalsWarning",
                                                 "UnknownPriceWarning"}


def test_every_warning_passes_a_noisefloor_warning_class():
    ours = {name for name, obj in vars(warning_classes).items()
            if isinstance(obj, type) and issubclass(obj, NoisefloorWarning)}
    bad = [f"{path}:{call.lineno}: {_category(call)}" for path, call in _warn_calls()
           if _category(call) not in ours | NOT_YET_IN_THE_MODULE]
    assert not bad, "warnings.warn without a NoisefloorWarning subclass: " + "; ".join(bad)
    # the allowance is for classes that exist and are still raised, nothing more
    raised = {_category(c) for _, c in _warn_calls()}
    assert NOT_YET_IN_THE_MODULE <= raised and not NOT_YET_IN_THE_MODULE & ours
    assert raised <= ours  # and each class raised is one of the module's


def test_classes_stay_importable_where_they_were():
    from noisefloor import logs
    from noisefloor.audit import published
    from noisefloor.report import forest as plots
    from noisefloor.stats.agreement.fleiss import counts as fleiss_counts

    assert logs.TruncatedLineWarning is warning_classes.TruncatedLineWarning
    assert logs.InfrastructureRewardWarning is warning_classes.InfrastructureRewardWarning
    assert published.CountTotalsWarning is warning_classes.CountTotalsWarning
    assert plots.ForestRowsLeftOutWarning is warning_classes.ForestRowsLeftOutWarning
    assert fleiss_counts.RawRatingsWarning is warning_classes.RawRatingsWarning
    from noisefloor import monitoring

    assert monitoring.NaiveTimestampWarning is warning_classes.NaiveTimestampWarning


def test_clean_warnings_shows_ours_by_class_once_per_message():
    @click.command()
    def noisy():
        with clean_warnings():
            for _ in range(3):  # one code location: Python's default filter shows it once only
                for n in (1, 2):
                    warnings.warn(f"{n} task(s) left unpaired",
                                  warning_classes.CountTotalsWarning, stacklevel=1)

    r = CliRunner().invoke(noisy, [])
    assert r.exit_code == 0
    assert r.stderr.splitlines() == ["warning: 1 task(s) left unpaired",
                                     "warning: 2 task(s) left unpaired"]
