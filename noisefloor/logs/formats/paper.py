"""The noise-floor paper's per-protocol layout -> trial records.

The paper's harness (Kaliyev & Maryanskyy, KDD 2026 workshop, "All 600 trials are logged as
JSONL artifacts") keeps one folder per protocol, ``<protocol>/trials.jsonl``, one trial per
line with at least ``protocol, task_id, trial, reward, termination_reason``. A harness error
is written as ``reward: null`` with ``termination_reason: "harness_error:<detail>"``.

Mapping, line by line:

* ``protocol``: the line's, else the folder name; a line whose protocol differs from its folder
  is an error (a file in the wrong folder would mix arms).
* ``benchmark``, ``model``, ``seed``: the line's when it records them, else ``benchmark=``,
  ``model=`` (required then) and null.
* ``task_id``, ``trial``, ``reward``, ``termination_reason``, ``store_events_at_start``,
  ``injections``, ``first_request_sha256``: copied (a missing field stays missing, an integer
  task id is an error, as in the native format).
* ``infrastructure_error``: the line's when given, else ``reward is null and
  termination_reason starts with "harness_error"``. A harness error never produced a result,
  so a line with ``termination_reason: "harness_error:..."`` (and no ``infrastructure_error``)
  but a non-null ``reward`` is an error naming ``reward``, as is any line with
  ``infrastructure_error: true`` and a non-null reward (the rule of every reader).
* every other key goes to ``extra`` (merged with the line's own ``extra`` object).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock, iter_jsonl_blocks
from noisefloor.logs.records.errors import LogProblem, describe_value

__all__ = ["HARNESS_ERROR_PREFIX", "PAPER_FILE_NAME", "iter_paper_blocks"]

HARNESS_ERROR_PREFIX = "harness_error"
PAPER_FILE_NAME = "trials.jsonl"
_COPIED = ("task_id", "trial", "reward", "termination_reason", "store_events_at_start",
           "injections", "first_request_sha256")
_LABELS = ("benchmark", "model", "seed", "protocol", "infrastructure_error", "schema_version",
           "extra")


def map_paper_line(
    obj: Any, *, folder_protocol: str | None, benchmark: str | None, model: str | None,
    protocol: str | None,
) -> Any:
    """Map one decoded line of the paper layout to TrialRecord fields (no validation)."""
    if not isinstance(obj, dict):
        return obj
    rec: dict[str, Any] = {"schema_version": obj.get("schema_version", "1")}
    for name, given in (("benchmark", benchmark), ("model", model)):
        if name in obj:
            rec[name] = obj[name]
        elif given is not None:
            rec[name] = given
    rec["protocol"] = obj.get("protocol", protocol if protocol is not None else folder_protocol)
    if rec["protocol"] is None:
        del rec["protocol"]
    rec["seed"] = obj.get("seed")
    for name in _COPIED:
        if name in obj:
            rec[name] = obj[name]
    if "infrastructure_error" in obj:
        rec["infrastructure_error"] = obj["infrastructure_error"]
    else:
        reason = obj.get("termination_reason")
        rec["infrastructure_error"] = (
            "reward" in obj and obj["reward"] is None
            and isinstance(reason, str) and reason.startswith(HARNESS_ERROR_PREFIX)
        )
    extra = {k: v for k, v in obj.items() if k not in _COPIED and k not in _LABELS}
    own = obj.get("extra")
    if isinstance(own, dict):
        extra = {**own, **extra}
    elif own is not None:
        rec["extra"] = own  # not an object: validation names it
        return rec
    rec["extra"] = extra or None
    return rec


def iter_paper_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
    max_line_bytes: int | None = None,
) -> Iterator[RecordBlock]:
    """Read one ``<protocol>/trials.jsonl`` file of the paper layout as record blocks."""
    path = Path(path)
    folder = path.parent.name or None
    expect = {k: v for k, v in (("benchmark", benchmark), ("model", model),
                                ("protocol", protocol)) if v is not None}
    reported_missing = False
    for block in iter_jsonl_blocks(str(path), allow_nan=allow_nan, sink=sink, native=False,
                                   max_line_bytes=max_line_bytes):
        records = []
        lines = []
        problems = list(block.problems)
        for obj, line in zip(block.records, block.lines):
            if isinstance(obj, dict):
                if (protocol is None and "protocol" in obj and folder is not None
                        and obj["protocol"] != folder):
                    problems.append(LogProblem(
                        block.source, line, "protocol",
                        f"the line's protocol differs from its folder {folder!r}",
                        repr(folder), describe_value(obj["protocol"])))
                    continue
                reason = obj.get("termination_reason")
                if ("infrastructure_error" not in obj and obj.get("reward") is not None
                        and isinstance(reason, str) and reason.startswith(HARNESS_ERROR_PREFIX)):
                    problems.append(LogProblem(
                        block.source, line, "reward",
                        f"a harness error (termination_reason {reason[:80]!r}) never produced "
                        "a result, so it cannot carry a reward (make reward null, or give "
                        "infrastructure_error: false if the trial did run)",
                        f"null when termination_reason starts with {HARNESS_ERROR_PREFIX!r}",
                        describe_value(obj["reward"])))
                    continue
                missing = [n for n, given in (("benchmark", benchmark), ("model", model))
                           if n not in obj and given is None]
                if missing:
                    if not reported_missing:
                        problems.append(LogProblem.mentioning(
                            block.source, line, missing[0],
                            f"the line does not record {' or '.join(missing)}; pass "
                            + " and ".join(f"{{{n}}}" for n in missing)
                            + " (reported once per file)", "a non-empty string",
                            "no such key"))
                        reported_missing = True
                    continue
            records.append(map_paper_line(obj, folder_protocol=folder, benchmark=benchmark,
                                          model=model, protocol=protocol))
            lines.append(line)
        if records or problems:
            yield RecordBlock(block.source, lines, records, None, expect, problems)
