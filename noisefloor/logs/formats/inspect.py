"""inspect_ai evaluation logs -> trial records.

inspect_ai (UK AI Security Institute, ``inspect_ai/log/_log.py``) writes one log per eval run,
in one of two formats:

* **.eval**: a zip archive holding ``header.json`` (the log without its samples; absent while
  the eval runs, when ``_journal/start.json`` holds the version and the eval spec) and one
  ``samples/<id>_epoch_<epoch>.json`` per sample and epoch. Members are deflate-compressed
  (older releases) or zstd-compressed (zip method 93, current releases); both are read here
  with :mod:`zipfile` and :mod:`zstandard`, without importing inspect_ai.
* **.json**: the whole ``EvalLog`` as one JSON document (``version``, ``status``, ``eval``,
  ``results``, ``samples``, ...). inspect writes non-finite numbers as ``NaN``/``Infinity``
  literals, so they are accepted in these logs (a reward must still be finite).

Log versions 1, 2 and 3 are read: version 1 stores a sample's single score under ``score``,
versions 2 and 3 a dict of scores by scorer name under ``scores`` (inspect reads a version-1
``score`` as the score of the first scorer, and so does this reader). inspect_ai validates
every log version with its one ``EvalLog`` model and refuses only a version newer than it
knows, so a version-3 log is read with the version-2 sample schema. A log with no scorer at
all (an eval run without one) has no reward to read: it is one problem naming the file, not
one per sample.

Each sample (one ``EvalSample``: a dataset sample at one epoch) maps to one
:class:`~noisefloor.logs.TrialRecord`:

=====================  =================================================================
TrialRecord            inspect_ai
=====================  =================================================================
benchmark              ``eval.task`` (the task name, e.g. ``"gsm8k"``)
model                  ``eval.model`` (e.g. ``"openai/gpt-4o"``)
protocol               ``"default"`` unless the caller passes one
seed                   ``eval.model_generate_config.seed``, else null
task_id                ``str(sample.id)`` (inspect ids are strings or integers)
trial                  ``sample.epoch - 1`` (epochs count from 1; epoch 1 is trial 0)
reward                 the sample's score from the scorer named by ``score=`` (``--score``),
                       by default the first scorer (``results.scores[0].name``, else
                       ``eval.scorers[0].name``), mapped to a float as inspect's
                       ``value_to_float`` does; null when the sample ended in an error
termination_reason     ``"error: <message>"`` for a sample error, ``"limit: <type>"`` (e.g.
                       ``"limit: message"``) when a limit ended the sample, else null
infrastructure_error   True when ``sample.error`` is set: the sample never produced a result
                       (inspect leaves it out of its metrics, as pass^k does here)
extra                  ``scorer``, ``score_value`` (the value as written), ``eval_id``,
                       ``run_id``, ``sample_uuid``; ``limit`` (the limit's value) and
                       ``error`` when set
=====================  =================================================================

The score mapping (inspect's ``value_to_float`` with its defaults): ``"C"`` -> 1, ``"I"`` -> 0,
``"P"`` -> 0.5, ``"N"`` -> 0; ``"yes"``/``"true"`` -> 1 and ``"no"``/``"false"`` -> 0 (any case);
a string holding a finite number -> that number; numbers and booleans -> ``float(value)``.
Where inspect maps anything else (a dict, a list, another string) to 0 with a warning, this
reader reports a problem naming the sample, so no failure is invented. The record index (the
``line`` column) is the sample's 1-based position in ``samples`` (.json) or among the
archive's sample members (.eval).
"""

from __future__ import annotations

import math
import re
import struct
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from noisefloor.logs.formats.files import regular_file_problem
from noisefloor.logs.formats.tau2 import tail_problem
from noisefloor.logs.jsonl.jsonparse import JSONProblem, parse_strict
from noisefloor.logs.jsonl.pipeline import ProblemSink, RecordBlock
from noisefloor.logs.records.errors import LogProblem, describe_value
from noisefloor.stats.validation import literal

__all__ = [
    "MANIFEST_NAMES",
    "ZIP_MAGIC",
    "inspect_manifest",
    "is_inspect_document",
    "iter_inspect_blocks",
    "value_to_float",
]

#: First bytes of a zip archive (a local file header).
ZIP_MAGIC = b"PK\x03\x04"
#: Largest archive member read (256 MiB): a sample is kilobytes to megabytes; a larger member
#: is refused before it is decompressed (its declared size bounds what it may inflate to).
MAX_MEMBER_BYTES = 256 << 20
#: Most bytes all members of one archive may inflate to (1 GiB); the rest is refused unread.
MAX_ARCHIVE_BYTES = 1 << 30
_ZIP_ZSTD = 93  # the zip compression method number of Zstandard (APPNOTE 4.4.5)
_SAMPLE_MEMBER = re.compile(r"samples/(?P<id>.+)_epoch_(?P<epoch>\d+)\.json")
_VERSIONS = (1, 2, 3)
_NUMBER = re.compile(r"\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*")


def is_inspect_document(doc: Any) -> bool:
    """True if a decoded JSON value has the top-level shape of an inspect_ai ``EvalLog``
    (an integer ``version`` and an ``eval`` object)."""
    return (isinstance(doc, dict) and type(doc.get("version")) is int
            and isinstance(doc.get("eval"), dict))


def value_to_float(value: Any) -> float | None:
    """Map an inspect_ai score value to a float as inspect's default ``value_to_float`` does.

    Parameters
    ----------
    value : str, int, float or bool
        A ``Score.value`` as written in the log.

    Returns
    -------
    float or None
        ``"C"`` -> 1.0, ``"P"`` -> 0.5, ``"I"`` and ``"N"`` -> 0.0 (exact, case-sensitive, as
        inspect compares with ``==``); numbers and booleans -> ``float(value)``; other
        strings, lower-cased: ``"yes"``/``"true"`` -> 1.0, ``"no"``/``"false"`` -> 0.0, a
        finite number -> its value. None where inspect would give up (warn and return 0):
        the caller reports it instead.

    References
    ----------
    .. [1] UK AI Security Institute, "Inspect: a framework for large language model
       evaluations", ``inspect_ai.scorer.value_to_float`` (2024-).

    Examples
    --------
    >>> [value_to_float(v) for v in ("C", "I", "P", "N", "Yes", "false", "0.25", 1, True)]
    [1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 0.25, 1.0, 1.0]
    >>> value_to_float({"a": 1}) is None, value_to_float("maybe") is None
    (True, True)
    """
    if isinstance(value, (bool, int, float)):
        # inspect compares with the sentinels first ("C" == 1.0 is False), so a number maps to
        # itself; a non-finite one would be a float inspect keeps, and the schema refuses
        return float(value)
    if isinstance(value, str):
        if value == "C":
            return 1.0
        if value == "P":
            return 0.5
        if value in ("I", "N"):
            return 0.0
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        if _NUMBER.fullmatch(value):
            number = float(value)
            return number if math.isfinite(number) else None
    return None


#: File names of the manifests inspect's ``eval_set`` writes beside its logs.
MANIFEST_NAMES = ("logs.json", "eval-set.json")


def inspect_manifest(path: str | Path, limit: int = 64 << 20) -> str | None:
    """What an inspect_ai log-directory manifest is, or None when ``path`` is not one.

    ``eval_set`` writes ``logs.json`` (each log's header, keyed by the log's file name) and
    ``eval-set.json`` (``eval_set_id`` and the tasks) beside the logs. They index the logs and
    hold no samples, so a directory walk leaves them out; the logs are read themselves.
    """
    path = Path(path)
    if path.name not in MANIFEST_NAMES or regular_file_problem(path) is not None:
        return None
    if path.stat().st_size > limit:
        return None
    try:
        doc = parse_strict(path.read_bytes(), allow_nan=True, document=True)
    except (JSONProblem, OSError):
        return None
    if not isinstance(doc, dict):
        return None
    if path.name == "eval-set.json":
        if "eval_set_id" in doc and isinstance(doc.get("tasks"), list):
            return "an inspect_ai eval-set manifest (eval-set.json: the set's tasks, no samples)"
        return None
    if doc and all(isinstance(k, str) and k.endswith((".eval", ".json"))
                   and is_inspect_document(v) for k, v in doc.items()):
        return ("an inspect_ai log-directory manifest (logs.json: the headers of "
                f"{len(doc)} log(s), no samples)")
    return None


# -- reading the two formats ------------------------------------------------------------------

def _member_bytes(handle: Any, archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The uncompressed bytes of one archive member (stored, deflate or zstd), CRC-checked."""
    if info.flag_bits & 0x1:
        raise ValueError(f"member {info.filename} is encrypted")
    if info.file_size > MAX_MEMBER_BYTES:
        raise ValueError(f"member {info.filename} would expand to {info.file_size:,} bytes, more "
                         f"than the {MAX_MEMBER_BYTES:,} a sample of a log may hold")
    if info.compress_type != _ZIP_ZSTD:
        # stored and deflate: the standard library; any other method raises with its name
        return archive.read(info)
    try:
        import zstandard
    except ImportError:  # pragma: no cover - zstandard is a dependency of noisefloor
        raise ValueError("reading zstd-compressed members needs the zstandard package "
                         "(pip install zstandard)") from None
    handle.seek(info.header_offset)
    header = handle.read(30)
    if len(header) != 30 or header[:4] != ZIP_MAGIC:
        raise ValueError(f"member {info.filename}: bad local file header")
    name_len, extra_len = struct.unpack("<HH", header[26:30])
    handle.seek(info.header_offset + 30 + name_len + extra_len)
    raw = handle.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise ValueError(f"member {info.filename} is cut off ({len(raw)} of "
                         f"{info.compress_size} bytes)")
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        data = reader.read(info.file_size + 1)
    except zstandard.ZstdError as exc:
        raise ValueError(f"member {info.filename}: zstd data is corrupt ({exc})") from None
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise ValueError(f"member {info.filename}: decompressed data does not match its size "
                         "or CRC-32 (a damaged archive)")
    return data


def _decode(raw: bytes, source: str, sink: ProblemSink, record: int | None = None) -> Any:
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        return parse_strict(raw, allow_nan=True, document=True)
    except JSONProblem as exc:
        sink.add([LogProblem(source, record, exc.field, str(exc), kind=exc.kind,
                                   templates=exc.templates)])
        return None


def _read_eval_archive(path: Path, sink: ProblemSink) -> tuple[Any, list[tuple[int, Any]]] | None:
    """``(header, [(index, sample), ...])`` of a ``.eval`` archive, or None (reported)."""
    source = str(path)
    with open(path, "rb") as handle:
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError) as exc:
            sink.add([LogProblem(source, None, None,
                                 f"not a readable inspect_ai .eval archive ({exc})",
                                 "a zip archive written by inspect_ai", kind="format")])
            return None
        with archive:
            infos = archive.infolist()
            names = {info.filename: info for info in infos}
            if len(names) != len(infos):
                seen: set[str] = set()
                dup = ""
                for info in infos:  # the first name met a second time
                    if info.filename in seen:
                        dup = info.filename
                        break
                    seen.add(info.filename)
                sink.add([LogProblem(source, None, None,
                                     f"the archive holds two members named {dup!r} (one of "
                                     "them would be left unread)",
                                     "member names that occur once", kind="format")])
                return None
            budget = MAX_ARCHIVE_BYTES
            head_name = next((n for n in ("header.json", "_journal/start.json") if n in names),
                             None)
            if head_name is None:
                sink.add([LogProblem(source, None, None,
                                     "a zip archive without inspect_ai's header.json or "
                                     "_journal/start.json", "an inspect_ai .eval log",
                                     f"members {', '.join(list(names)[:5]) or 'none'}",
                                     kind="format")])
                return None
            try:
                header = _decode(_member_bytes(handle, archive, names[head_name]),
                                 f"{source}!{head_name}", sink)
            except (ValueError, NotImplementedError, zipfile.BadZipFile, OSError) as exc:
                sink.add([LogProblem(source, None, None, f"cannot read {head_name}: {exc}",
                                     kind="io")])
                return None
            if header is None:
                return None
            samples: list[tuple[int, Any]] = []
            members = [n for n in names if _SAMPLE_MEMBER.fullmatch(n)]
            for index, name in enumerate(members, 1):
                budget -= names[name].file_size
                if budget < 0:
                    sink.add([LogProblem(source, index, None,
                                         f"cannot read {name}: the archive's members would "
                                         f"inflate to more than {MAX_ARCHIVE_BYTES:,} bytes in "
                                         "all", kind="io")])
                    continue
                try:
                    raw = _member_bytes(handle, archive, names[name])
                except (ValueError, NotImplementedError, zipfile.BadZipFile, OSError) as exc:
                    sink.add([LogProblem(source, index, None, f"cannot read {name}: {exc}",
                                         kind="io")])
                    continue
                sample = _decode(raw, source, sink, index)
                if sample is not None:
                    samples.append((index, sample))
    return header, samples


def _read_json_log(path: Path, sink: ProblemSink) -> tuple[Any, list[tuple[int, Any]]] | None:
    source = str(path)
    problem = tail_problem(path)  # a huge garbage tail is refused before the file is read
    if problem is not None:
        sink.add([problem])
        return None
    doc = _decode(path.read_bytes(), source, sink)
    if doc is None:
        return None
    if not is_inspect_document(doc):
        sink.add([LogProblem(source, None, None, "not an inspect_ai log",
                             "an object with an integer 'version' and an 'eval' object",
                             describe_value(doc) if not isinstance(doc, dict)
                             else f"an object with keys {', '.join(map(repr, list(doc)[:5]))}",
                             kind="format")])
        return None
    samples = doc.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        sink.add([LogProblem(source, None, "samples", "samples is not a list",
                             "an array of samples", describe_value(samples), kind="format")])
        return None
    return doc, list(enumerate(samples, 1))


# -- mapping -----------------------------------------------------------------------------------

def _first_scorer(header: dict[str, Any]) -> str | None:
    results = header.get("results")
    scores = results.get("scores") if isinstance(results, dict) else None
    if isinstance(scores, list) and scores and isinstance(scores[0], dict):
        name = scores[0].get("name")
        if isinstance(name, str):
            return name
    spec_scorers = header.get("eval", {}).get("scorers")
    if isinstance(spec_scorers, list) and spec_scorers and isinstance(spec_scorers[0], dict):
        name = spec_scorers[0].get("name")
        if isinstance(name, str):
            return name
    return None


def _sample_score(sample: dict[str, Any], scorer: str | None, version: int) -> tuple[Any, str]:
    """``(Score object or None, scorer name used)``; a version-1 ``score`` belongs to the
    first scorer."""
    if version == 1 and "scores" not in sample:
        return sample.get("score"), scorer or "score"
    scores = sample.get("scores")
    if not isinstance(scores, dict) or not scores:
        return None, scorer or "?"
    if scorer is None:
        scorer = next(iter(scores))
    return scores.get(scorer), scorer


def map_sample(
    sample: Any, *, source: str, index: int, labels: dict[str, Any], scorer: str | None,
    chosen: bool, version: int,
) -> tuple[Any, list[LogProblem]]:
    """Map one inspect_ai sample to TrialRecord fields, with the problems it has."""
    if not isinstance(sample, dict):
        return None, [LogProblem(source, index, None, "a sample is not a JSON object",
                                 "an object", describe_value(sample), kind="format")]
    problems = []
    rec: dict[str, Any] = {"schema_version": "1", **labels}
    sample_id = sample.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)):
        problems.append(LogProblem(source, index, "id", "the sample id is not a string or an "
                                   "integer", "a string or integer", describe_value(sample_id)))
    else:
        rec["task_id"] = str(sample_id)
    epoch = sample.get("epoch")
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        problems.append(LogProblem(source, index, "epoch", "the sample epoch is not an integer "
                                   ">= 1", "an integer >= 1 (epoch 1 is trial 0)",
                                   describe_value(epoch)))
    else:
        rec["trial"] = epoch - 1
    error = sample.get("error")
    limit = sample.get("limit")
    extra: dict[str, Any] = {"sample_uuid": sample.get("uuid")}
    score, used = _sample_score(sample, scorer, version)
    extra["scorer"] = used
    if error is not None:
        message = error.get("message") if isinstance(error, dict) else error
        rec["infrastructure_error"] = True
        rec["reward"] = None
        rec["termination_reason"] = f"error: {message}"[:500]
        extra["error"] = message
        if isinstance(score, dict) and "value" in score:
            extra["score_value"] = score["value"]
    else:
        rec["infrastructure_error"] = False
        rec["termination_reason"] = None
        if score is None:
            have = sorted(sample.get("scores") or {}) if isinstance(sample.get("scores"), dict) \
                else []
            what = (literal(f"no score from scorer {used!r}")
                    + (literal(f" (it has {', '.join(map(repr, have))}")
                       + "; choose one with {score})" if have else ""))
            problems.append(LogProblem.mentioning(
                source, index, f"scores.{used}", f"the sample has {what}",
                "a score for every sample that did not end in an error",
                "none" if not have else f"scores {', '.join(map(repr, have))}"))
        elif not isinstance(score, dict) or "value" not in score:
            problems.append(LogProblem(source, index, f"scores.{used}", "malformed score",
                                       "an object with a value", describe_value(score)))
        else:
            value = score["value"]
            extra["score_value"] = value
            reward = value_to_float(value)
            if reward is None:
                problems.append(LogProblem.mentioning(
                    source, index, f"scores.{used}.value",
                    "cannot map the score value to a reward (inspect's value_to_float would "
                    "count it as 0 with a warning)" + ("" if chosen else
                                                       "; choose a scorer with {score}"),
                    "C/I/P/N, yes/no, true/false, a number or a boolean", describe_value(value)))
            else:
                rec["reward"] = reward
    if isinstance(limit, dict):
        kind = limit.get("type")
        rec["termination_reason"] = rec["termination_reason"] or f"limit: {kind}"
        extra["limit"] = limit.get("limit")
    rec["extra"] = extra
    return rec, problems


def _run_labels(header: dict[str, Any], source: str, benchmark: str | None, model: str | None,
                protocol: str | None) -> tuple[dict[str, Any], dict[str, Any], list[LogProblem]]:
    spec = header.get("eval")
    problems = []
    if not isinstance(spec, dict):
        return {}, {}, [LogProblem(source, None, "eval", "the log has no eval spec",
                                   "an object", describe_value(spec), kind="format")]
    if benchmark is None:
        benchmark = spec.get("task")
        if not isinstance(benchmark, str) or not benchmark:
            problems.append(LogProblem.mentioning(source, None, "eval.task", "cannot name the "
                                       "benchmark (or pass {benchmark})", "a non-empty string",
                                       describe_value(benchmark)))
    if model is None:
        model = spec.get("model")
        if not isinstance(model, str) or not model:
            problems.append(LogProblem.mentioning(source, None, "eval.model", "cannot name the "
                                       "model (or pass {model})", "a non-empty string",
                                       describe_value(model)))
    config = spec.get("model_generate_config")
    seed = config.get("seed") if isinstance(config, dict) else None
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        problems.append(LogProblem(source, None, "eval.model_generate_config.seed",
                                   "the seed is not an integer", "an integer or null",
                                   describe_value(seed)))
    labels = {"benchmark": benchmark, "model": model, "protocol": protocol or "default",
              "seed": seed}
    run = {"eval_id": spec.get("eval_id"), "run_id": spec.get("run_id")}
    return labels, run, problems


def run_configuration(header: dict[str, Any], scorer: str | None) -> dict[str, Any]:
    """The configuration an inspect_ai log records (see :mod:`noisefloor.logs.configuration`):
    task, task arguments, the plan's solvers with their parameters, the scorers with their
    options, the scorer read as the reward, and the generation settings without the seed."""
    eval_spec = header.get("eval")
    spec: dict[str, Any] = eval_spec if isinstance(eval_spec, dict) else {}
    plan = header.get("plan")
    steps = plan.get("steps") if isinstance(plan, dict) else None
    solver = ([{"solver": s.get("solver"), "params": s.get("params")} for s in steps
               if isinstance(s, dict)] if isinstance(steps, list) else None)
    generate = spec.get("model_generate_config")
    if isinstance(generate, dict):
        generate = {k: v for k, v in generate.items() if k != "seed" and v is not None}
    scorers = spec.get("scorers")
    if isinstance(scorers, list):
        scorers = [{"name": s.get("name"), "options": s.get("options")} for s in scorers
                   if isinstance(s, dict)]
    out = {"task": spec.get("task"), "task_args": spec.get("task_args") or None,
           "solver": solver, "scorers": scorers, "score": scorer,
           "generate_config": generate or None}
    return {k: v for k, v in out.items() if v is not None}


def iter_inspect_blocks(
    path: str | Path, *, allow_nan: bool, sink: ProblemSink, score: str | None = None,
    benchmark: str | None = None, model: str | None = None, protocol: str | None = None,
) -> Iterator[RecordBlock]:
    """Read an inspect_ai log (``.eval`` archive or ``.json`` document) as record blocks.

    ``allow_nan`` is accepted for the common reader signature; inspect logs always may hold
    ``NaN`` literals (outside the reward). Problems (through ``sink``): not an inspect log, an
    unsupported log version, a scorer named by ``score`` that the log does not have, a sample
    without a usable score, a malformed sample.
    """
    del allow_nan  # inspect's own JSON writer emits NaN literals; see the module docstring
    path = Path(path)
    source = str(path)
    problem = regular_file_problem(path)
    if problem is not None:
        sink.add([problem])
        return
    with open(path, "rb") as handle:
        magic = handle.read(4)
    read = _read_eval_archive(path, sink) if magic == ZIP_MAGIC else _read_json_log(path, sink)
    if read is None:
        return
    header, samples = read
    if not is_inspect_document(header):
        sink.add([LogProblem(source, None, None, "not an inspect_ai log header",
                             "an object with an integer 'version' and an 'eval' object",
                             describe_value(header), kind="format")])
        return
    version = header["version"]
    if version not in _VERSIONS:
        sink.add([LogProblem(source, None, "version", "unsupported inspect_ai log version",
                             " or ".join(map(str, _VERSIONS)), describe_value(version),
                             kind="format")])
        return
    labels, run, problems = _run_labels(header, source, benchmark, model, protocol)
    if problems:
        sink.add(problems)
        return
    scorer = score if score is not None else _first_scorer(header)
    if score is not None:
        known = _known_scorers(header, samples)
        if known and score not in known:
            sink.add([LogProblem(source, None, "score", f"the log has no scorer {score!r}",
                                 "one of " + ", ".join(map(repr, sorted(known))), repr(score),
                                 kind="format")])
            return
    if score is None and not _known_scorers(header, samples) and not _has_v1_scores(samples):
        scored = [i for i, smp in samples if isinstance(smp, dict) and smp.get("error") is None]
        if scored:
            sink.add([LogProblem(
                source, None, "scores",
                f"the log has no scorer at all (the eval ran without one): none of its "
                f"{len(scored)} sample(s) has a score to read as the reward; score the log "
                "first (inspect's 'inspect score' command) and read the scored log",
                "a scorer in eval.scorers or results.scores, and scores in the samples",
                "no scorer", kind="format")])
            return
    run = {**run, "configuration": run_configuration(header, scorer)}
    records, lines, found = [], [], []
    for index, sample in samples:
        rec, bad = map_sample(sample, source=source, index=index, labels=labels, scorer=scorer,
                              chosen=score is not None, version=version)
        if bad:
            found.extend(bad)
            continue
        rec["extra"] = {**run, **rec["extra"]}
        records.append(rec)
        lines.append(index)
    yield RecordBlock(source, lines, records, problems=found)


def _known_scorers(header: dict[str, Any], samples: list[tuple[int, Any]]) -> set[str]:
    names: set[str] = set()
    results = header.get("results")
    for entry in (results.get("scores") or []) if isinstance(results, dict) else []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            names.add(entry["name"])
    for entry in header.get("eval", {}).get("scorers") or []:
        if isinstance(entry, dict) and isinstance(entry.get("name"), str):
            names.add(entry["name"])
    for _, sample in samples:
        if isinstance(sample, dict) and isinstance(sample.get("scores"), dict):
            names.update(sample["scores"])
    return names


def _has_v1_scores(samples: list[tuple[int, Any]]) -> bool:
    """True when some sample carries a version-1 ``score``."""
    return any(isinstance(smp, dict) and smp.get("score") is not None for _, smp in samples)
