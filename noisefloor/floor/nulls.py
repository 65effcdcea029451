"""Certified null contrasts from per-trial logs: which pairs of arms cannot differ, and why.

A contrast is a *null contrast* only when something certifies that its two arms cannot
differ; a contrast nothing certifies is a real contrast and never part of the noise floor
(a floor built from uncertified contrasts would turn every real gain into noise). What
certifies a pair (the value of the ``certified_by`` column):

Two different configurations at trial 0 (``kind == "trial0"``):

- :data:`EMPTY_STORE`: every paired record at both arms logs ``store_events_at_start == 0``
  (at trial 0 of the noise-floor paper every coordination store is empty, so every reader is
  a no-op);
- :data:`FIRST_REQUESTS`: ``first_request_sha256`` is logged and identical on every paired
  task (the agent saw byte-identical first requests);
- :data:`DECLARED` / :data:`DECLARED_CLEAN`: the user declares the pair null (``null_pairs``)
  or clean (``clean_pairs``).

One configuration against itself (``kind == "reruns"``): a re-run (trial i against trial j of one
run) or the same trial of two runs of one configuration. Besides an empty store and a
declaration (identical first requests do not certify a re-run: a reader that intercepts tool
calls acts after the first request):

- :data:`NO_INJECTION`: ``injections`` is logged and 0 on every paired record of both arms
  (the reader changed nothing the agent saw; ``no_coord`` writes its store but never reads
  it);
- :data:`NO_STORE_READER`: the configuration has no coordination layer at all: its protocol
  is one of :data:`NO_STORE_READER_PROTOCOLS` (``"default"``, the label the tau2-bench and
  tau-bench readers give a plain benchmark run) and no record logs a store.

Nothing else certifies: a log that simply does not record the store is *not* evidence that
the store was empty. Pairs that no rule certifies are returned in ``skipped`` with the reason.

Arms: within one benchmark, model and seed an arm is a protocol; when one protocol comes from
several runs (files given separately, e.g. two tau2-bench runs of one configuration, which
share tau2's default seed 300) each run is its own arm, labelled ``protocol@run``.

Configuration identity: two arms are one configuration (``kind == "reruns"``) only when their
protocol and everything their tool records about the system under test agree (the
``configuration`` column, :mod:`noisefloor.logs.configuration`: tau2-bench's agent
implementation and settings, user simulator and domain; inspect_ai's task, solver and scorers;
tau-bench's strategy and temperature). Runs of one protocol label whose configurations differ
(four tau2-bench runs of four agent implementations, say) are different systems: their
contrasts are candidates of two configurations, certified only by an empty store, identical
first requests, or a declaration naming the two arms (``"default@runA-default@runB"``); the
skipped reason names the fields that differ.

Source of the rule: Kaliyev & Maryanskyy (2026), "How Much Coordination Gain Is Real? A
Paired Noise-Floor Protocol for Multi-Agent LLM Benchmarks", section "The noise floor".
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from noisefloor.floor.contrast_table import TRIAL, seed_array, split_protocol_pair
from noisefloor.floor.pairing import Slot, encode_groups, pair_counts
from noisefloor.logs.configuration import describe_differences, parse_configuration
from noisefloor.results import FrozenResult
from noisefloor.stats.validation import MentionError, literal
from noisefloor.stats.warning_classes import FirstRequestMismatchWarning

#: Values of ``certified_by``.
EMPTY_STORE = "empty store at start"
FIRST_REQUESTS = "identical first requests"
DECLARED = "declared null by the user"
DECLARED_CLEAN = "declared clean by the user"
NO_INJECTION = "no injection"
NO_STORE_READER = "no store reader"
#: ``certified_by`` of a published count table's trial-0 rows: the table (the noise-floor
#: paper's) declares trial 0 null, since every store is empty at trial 0.
COUNT_TABLE = "count table: trial 0 declared null"

#: Protocols that are a plain benchmark run without a coordination layer (the tau2-bench and
#: tau-bench readers' label when no protocol is given): their re-runs are null pairs.
NO_STORE_READER_PROTOCOLS = ("default",)

#: What a user can do when nothing certifies any contrast, one remedy each.
#: Written with a parameter mention (``{null_pairs}``, see :class:`NoNullContrastError`).
REMEDIES_LIST = (
    "record store_events_at_start in the trial records (0 at trial 0, when every store is "
    "empty)",
    "record first_request_sha256 in the trial records (identical first requests certify two "
    "protocols at trial 0)",
    "declare a pair you know cannot differ with {null_pairs} as 'a-b' (trial 0 of protocols a "
    "and b) or 'a-a' (the re-runs of a)",
)
#: The remedies as one text, one per line.
REMEDIES = "\n".join(f"  - {r}" for r in REMEDIES_LIST)

#: Columns of :attr:`NullContrasts.table`.
TABLE_COLUMNS = ("contrast", "kind", "clean", "certified_by", "level", "seed", "wins",
                 "losses", "ties", "n_only_a", "n_only_b", "n_excluded", "reoriented", "a", "b",
                 "trial_a", "trial_b")


class NoNullContrastError(MentionError):
    """No pair of arms in the log is a certified null contrast (the message names remedies).

    A :class:`ValueError` whose message mentions ``null_pairs``: ``null_pairs=`` in Python,
    the command's option (``--null``) on the command line. ``skipped`` holds every candidate
    pair with the reason nothing certifies it (as :attr:`NullContrasts.skipped`).
    """

    skipped: tuple = ()


@dataclass(frozen=True)
class NullContrasts(FrozenResult):
    """Result of :func:`certified_null_contrasts`.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per certified (contrast, seed), columns :data:`TABLE_COLUMNS`: ``contrast``
        (``"a-b"``; ``"p[ti]-p[tj]"`` for a re-run; prefixed ``benchmark/model:`` when the log
        holds several), ``kind`` (``"trial0"`` or ``"reruns"``), ``clean`` (bool),
        ``certified_by`` (what certified it, see the module notes), ``level`` (always
        ``"trial"``: one seed; the shape of :mod:`noisefloor.floor.contrast_table`), ``seed``
        (nullable integer, NA for a log without seeds), ``wins, losses, ties``,
        ``n_only_a, n_only_b`` (tasks in one arm only),
        ``n_excluded`` (infrastructure error or no reward), ``reoriented`` (a user-named
        clean pair written against the sorted order), and ``a, b, trial_a, trial_b`` (the arms
        and the trial compared in each).
    skipped : tuple of dict
        Candidate pairs nothing certifies, each ``{"contrast", "kind", "seed", "reason"}``.
    first_request_mismatches : tuple of dict
        The E1 audit's failures: trial-0 contrasts of two protocols whose first requests are
        identical on some paired tasks but not on all (none identical: different by design), each ``{"contrast", "seed",
        "tasks", "unlogged"}`` (the task ids whose hashes differ, and those without a hash in
        one arm). Such a contrast is not clean; :func:`certified_null_contrasts` also warns
        (:class:`FirstRequestMismatchWarning`) naming every task.
    """

    _frame_field = "table"

    table: pd.DataFrame = field(repr=False)
    skipped: tuple = ()
    first_request_mismatches: tuple = ()

    # hand-written: every record's seed as a plain int or None (pandas NA in the table)
    def to_dict(self) -> dict:
        """``{"contrasts": [...], "skipped": [...]}`` (JSON-ready; a missing seed is None)."""
        return {"contrasts": [{**r, "seed": _plain_seed(r["seed"])}
                              for r in self.table.to_dict(orient="records")],
                "skipped": [{**r, "seed": _plain_seed(r["seed"])} for r in self.skipped],
                "first_request_mismatches": [{**r, "seed": _plain_seed(r["seed"])}
                                             for r in self.first_request_mismatches]}


def _plain_seed(seed):
    if seed is None or seed is pd.NA or (isinstance(seed, float) and seed != seed):
        return None
    return int(seed)


def arm_labels(trials: pd.DataFrame) -> pd.Series:
    """The arm of each record: its protocol, or ``protocol@run`` when the protocol comes from
    more than one run within one benchmark, model and seed.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records with ``protocol`` and optionally ``run`` (as
        :func:`noisefloor.logs.load_trials` adds), ``benchmark, model, seed``.

    Returns
    -------
    pandas.Series of str
        Same index as ``trials``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["default"] * 2 + ["pull"], "seed": 300,
    ...                   "run": ["runA", "runB", "runB"]})
    >>> arm_labels(t).tolist()
    ['default@runA', 'default@runB', 'pull']
    """
    protocol = trials["protocol"]
    if not pd.api.types.is_string_dtype(protocol.dtype):
        protocol = protocol.astype(str)
    if "run" not in trials.columns or trials["run"].nunique(dropna=False) <= 1:
        return protocol
    keys = [c for c in ("benchmark", "model", "seed") if c in trials.columns]
    frame = pd.DataFrame({"protocol": protocol, "run": trials["run"].astype(str)})
    for k in keys:
        frame[k] = trials[k].astype(object).where(trials[k].notna(), "\x00none")
    n_runs = frame.groupby(keys + ["protocol"], dropna=False)["run"].transform("nunique")
    return pd.Series(np.where(n_runs.to_numpy() > 1, protocol + "@" + frame["run"], protocol),
                     index=trials.index)


def _paired_values(a: Slot, b: Slot) -> tuple[Slot, Slot]:
    """The two slots restricted to the tasks both hold (the paired records)."""
    both = a.present & b.present
    return (Slot(*(x[both] for x in (a.present, a.outcome, a.store, a.injections,
                                      a.first_request))),
            Slot(*(x[both] for x in (b.present, b.outcome, b.store, b.injections,
                                     b.first_request))))


def _first_request_mismatch(a: Slot, b: Slot, tasks: tuple) -> tuple[list[str], list[str]]:
    """Task ids whose first-request hashes differ, and those hashed in one arm only, for a pair
    identical on at least one task (both empty when nothing is logged, when every paired task
    is identical, or when none is: arms whose requests differ by design, such as pull's)."""
    both = a.present & b.present
    if not tasks or not both.any():
        return [], []
    fa, fb = a.first_request[both], b.first_request[both]
    names = np.asarray(tasks, dtype=object)[both]
    logged_a, logged_b = fa >= 0, fb >= 0
    if not (logged_a | logged_b).any():
        return [], []
    logged = logged_a & logged_b
    if not (logged & (fa == fb)).any():
        return [], []  # no task identical: the arms send different requests by design (pull)
    return ([str(t) for t in names[logged & (fa != fb)]],
            [str(t) for t in names[~logged]])


def _all_zero(values: np.ndarray) -> bool:
    return values.size > 0 and not np.isnan(values).any() and bool((values == 0).all())


def _certify(a: Slot, b: Slot, *, same_configuration: bool, protocols: tuple[str, str],
             declared: bool, declared_clean: bool) -> tuple[str, bool]:
    pa_, pb_ = _paired_values(a, b)
    fa, fb = pa_.first_request, pb_.first_request
    identical = fa.size > 0 and bool((fa >= 0).all() and (fb >= 0).all() and (fa == fb).all())
    clean = declared_clean or identical
    if declared_clean:
        return DECLARED_CLEAN, True
    if declared:
        return DECLARED, clean
    if identical and not same_configuration:
        # a reader that intercepts tool calls acts after the first request: identical first
        # requests certify two protocols at trial 0, never a re-run
        return FIRST_REQUESTS, True
    if _all_zero(pa_.store) and _all_zero(pb_.store):
        return EMPTY_STORE, clean
    if same_configuration:
        if _all_zero(pa_.injections) and _all_zero(pb_.injections):
            return NO_INJECTION, clean
        no_store = all(bool(np.isnan(x).all()) for x in (pa_.store, pb_.store, pa_.injections,
                                                          pb_.injections))
        if all(p in NO_STORE_READER_PROTOCOLS for p in protocols) and no_store:
            return NO_STORE_READER, clean
    return "", clean


def certify_pair(a_rows: pd.DataFrame, b_rows: pd.DataFrame, *, same_configuration: bool,
                 protocols: tuple[str, str] = ("", ""), declared: bool = False,
                 declared_clean: bool = False) -> tuple[str, bool]:
    """What certifies that two arms cannot differ, and whether the pair is clean.

    Parameters
    ----------
    a_rows, b_rows : pandas.DataFrame
        The records of each arm (``task_id`` and optionally ``store_events_at_start,
        injections, first_request_sha256``; one benchmark, model, seed; one trial each).
    same_configuration : bool
        True for a re-run or two runs of one configuration, False for two protocols.
    protocols : (str, str)
        The configuration (protocol as logged) of each arm, for :data:`NO_STORE_READER`.
    declared, declared_clean : bool
        The user declares the pair null, or clean.

    Returns
    -------
    (str, bool)
        ``certified_by`` (one of the module's constants, ``""`` when nothing certifies the
        pair) and ``clean`` (identical first requests, or declared clean).

    Examples
    --------
    >>> import pandas as pd
    >>> a = pd.DataFrame({"task_id": ["1", "2"], "store_events_at_start": [0, 0]})
    >>> certify_pair(a, a.copy(), same_configuration=False)
    ('empty store at start', False)
    >>> certify_pair(a.drop(columns="store_events_at_start"), a.copy(), same_configuration=False)
    ('', False)
    """
    sa, sb = _slots_of(a_rows, b_rows)
    return _certify(sa, sb, same_configuration=same_configuration, protocols=protocols,
                    declared=declared, declared_clean=declared_clean)


def _slots_of(a_rows: pd.DataFrame, b_rows: pd.DataFrame) -> tuple[Slot, Slot]:
    cols = ["task_id"] + [c for c in ("store_events_at_start", "injections",
                                      "first_request_sha256") if c in a_rows.columns
                          or c in b_rows.columns]
    both = pd.concat([a_rows.reindex(columns=cols), b_rows.reindex(columns=cols)],
                     ignore_index=True)
    both["trial"] = 0
    both["reward"] = np.nan
    arms = pd.Series(["a"] * len(a_rows) + ["b"] * len(b_rows))
    (group,) = encode_groups(both, arms)
    empty = Slot(*(np.zeros(0, dtype=d) for d in (bool, float, float, float, np.int64)))
    return group.slots.get(("a", 0), empty), group.slots.get(("b", 0), empty)


def _why_not(same_configuration: bool, a: Slot, b: Slot) -> str:
    """Why nothing certifies the pair, from what the paired records show."""
    pa_, pb_ = _paired_values(a, b)
    store = np.concatenate([pa_.store, pb_.store])
    if store.size == 0 or np.isnan(store).all():
        store_text = "the log does not record store_events_at_start"
    elif np.isnan(store).any():
        store_text = "store_events_at_start is missing on some paired records"
    else:
        store_text = (f"the store held events at the start of {int((store > 0).sum())} paired "
                      "record(s)")
    if not same_configuration:
        return (f"{store_text} and first requests are not logged identical, so nothing "
                "certifies these two protocols cannot differ at trial 0: a contrast of two "
                "systems, not a null contrast")
    inj = np.concatenate([pa_.injections, pb_.injections])
    if (np.nan_to_num(inj) > 0).any():
        inj_text = (f"the reader injected peer events on {int((np.nan_to_num(inj) > 0).sum())} "
                    "paired record(s)")
    else:
        inj_text = "injections are not logged as 0 on every paired record"
    return (f"{store_text} and {inj_text}, so the reader may have acted: the runs may differ "
            "by coordination, not a null contrast")


def _pair_names(pairs, names: set, what: str) -> list[tuple[str, str]]:
    out = []
    for p in pairs:
        parts = split_protocol_pair(p, names, what=what) if isinstance(p, str) else tuple(p)
        if len(parts) != 2 or not all(isinstance(x, str) and x for x in parts):
            raise ValueError(f"{what} must name two protocols as 'a-b' (e.g. "
                             f"'no_coord-intercept'), got {p!r}")
        out.append((parts[0], parts[1]))
    return out


def certified_null_contrasts(
    trials: pd.DataFrame,
    *,
    clean_pairs: Iterable = (),
    null_pairs: Iterable = (),
    trial0: bool = True,
    reruns: bool = True,
    infrastructure_errors: str = "exclude",
) -> NullContrasts:
    """The certified null contrasts of a per-trial log, and the candidates nothing certifies.

    Parameters
    ----------
    trials : pandas.DataFrame
        Output of :func:`noisefloor.logs.load_trials`
        (``protocol, task_id, trial, reward`` and optionally ``benchmark, model, seed, run,
        logged_protocol, infrastructure_error, store_events_at_start, injections,
        first_request_sha256``).
    clean_pairs : iterable of str or (str, str)
        Pairs the user certifies clean (identical first requests), ``"a-b"``; each must be a
        trial-0 contrast of the log and is oriented as written (wins: a succeeded, b failed).
        Other trial-0 contrasts are written in sorted order. Names may contain '-' (see
        :func:`~noisefloor.floor.contrast_table.split_protocol_pair`).
    null_pairs : iterable of str or (str, str)
        Pairs the user declares null: ``"a-b"`` (trial 0 of arms a and b) or ``"a-a"`` (every
        re-run of a, and a's runs against each other).
    trial0 : bool, default True
        Consider trial 0 across every pair of arms.
    reruns : bool, default True
        Consider one configuration against itself: trial i vs trial j of one arm, and the same
        trial of two runs of one protocol.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Passed to :func:`~noisefloor.floor.pairing.paired_contrast`.

    Returns
    -------
    NullContrasts
        The certified contrasts (``table``) and the skipped candidates with their reasons.

    Raises
    ------
    NoNullContrastError
        When no candidate is certified (the message names the remedies), or no candidate
        exists at all.
    ValueError
        A clean or null pair that does not split into two arms of the log, or a clean pair
        that is not a trial-0 contrast of the log.

    Notes
    -----
    See the module notes for the certification rules. Within each (benchmark, model, seed),
    every pair of arms is compared at trial 0 and every pair of trials within one arm
    (i < j); the W/L/T are counted by :func:`~noisefloor.floor.pairing.paired_contrast`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["baseline"] * 2 + ["swarm"] * 2, "task_id": ["1", "2"] * 2,
    ...                   "trial": 0, "reward": [1.0, 0.0, 1.0, 1.0]})
    >>> try:
    ...     certified_null_contrasts(t)
    ... except NoNullContrastError as exc:
    ...     print(str(exc)[:50], "...", "Remedies (any one):" in str(exc))
    no null contrast can be formed: nothing certifies ... True
    >>> nc = certified_null_contrasts(t, null_pairs=["baseline-swarm"])
    >>> nc.table[["contrast", "certified_by", "wins", "losses", "ties"]].to_dict("records")
    [{'contrast': 'baseline-swarm', 'certified_by': 'declared null by the user', 'wins': 0, 'losses': 1, 'ties': 1}]
    """
    arms = arm_labels(trials)
    arm_codes, arm_names = pd.factorize(arms)
    _, first_of_arm = np.unique(arm_codes, return_index=True)
    protocol_col = trials["protocol"]
    logged_col = trials["logged_protocol"] if "logged_protocol" in trials.columns else protocol_col
    config_of = {str(arm_names[arm_codes[i]]): str(protocol_col.iat[i]) for i in first_of_arm}
    logged_of = {str(arm_names[arm_codes[i]]): str(logged_col.iat[i]) for i in first_of_arm}
    identity_of = _identities(trials, arm_names, arm_codes, first_of_arm)
    names = set(config_of) | set(config_of.values())
    named_clean = _pair_names(clean_pairs, names, "clean pair") if clean_pairs else []
    named_null = _pair_names(null_pairs, names, "null pair") if null_pairs else []

    def same_configuration(a, b):
        return config_of[a] == config_of[b] and identity_of[a] == identity_of[b]

    def is_named(named, a, b):
        if not same_configuration(a, b) and config_of[a] == config_of[b]:
            # runs of one label whose recorded configurations differ: only naming the two
            # arms themselves declares them null, never the label's re-runs ('a-a')
            return any({x, y} == {a, b} for x, y in named)
        ca, cb = config_of.get(a, a), config_of.get(b, b)
        return any({x, y} in ({a, b}, {ca, cb}) and (x == y) == (a == b or ca == cb)
                   for x, y in named)

    groups = encode_groups(trials, arms, infrastructure_errors)
    multi = len({g.key for g in groups}) > 1
    rows: list[dict] = []
    skipped: list[dict] = []
    formed: set = set()
    mismatches: list[dict] = []

    def consider(group, prefix, label, kind, a, ta, b, tb, swapped=False):
        sa, sb = group.slots[(a, ta)], group.slots[(b, tb)]
        same = kind == "reruns"
        if not same:
            differ, unlogged = _first_request_mismatch(sa, sb, group.tasks)
            if differ or unlogged:
                mismatches.append({"contrast": prefix + label, "seed": group.seed,
                                   "tasks": differ, "unlogged": unlogged})
        cert, clean = _certify(
            sa, sb, same_configuration=same, protocols=(logged_of[a], logged_of[b]),
            declared=is_named(named_null, a, b),
            declared_clean=not same and is_named(named_clean, a, b))
        if not cert:
            reason = _why_not(same, sa, sb)
            if not same and config_of[a] == config_of[b]:
                reason = (f"the runs' recorded configurations differ ("
                          f"{describe_differences(identity_of[a], identity_of[b], name_a=a, name_b=b)}"
                          f"), so they are two systems, not re-runs; {reason}")
            skipped.append({"contrast": prefix + label, "kind": kind, "seed": group.seed,
                            "reason": reason})
            return
        rows.append({"contrast": prefix + label, "kind": kind, "clean": bool(clean),
                     "certified_by": cert, "level": TRIAL, "seed": group.seed,
                     **pair_counts(sa, sb),
                     "reoriented": bool(swapped), "a": a, "b": b, "trial_a": ta, "trial_b": tb})

    for group in groups:
        prefix = ("/".join(group.key) + ":") if multi else ""
        arms_here = group.arms
        for a, b in itertools.combinations(arms_here, 2):
            same = same_configuration(a, b)
            if not (reruns if same else trial0):
                continue
            swapped = (b, a) in named_clean and (a, b) not in named_clean
            if swapped:
                a, b = b, a
            ta, tb = set(group.trials(a)), set(group.trials(b))
            # two protocols: trial 0 only; two runs of one configuration: every shared trial
            shared = sorted(ta & tb) if same else ([0] if 0 in ta and 0 in tb else [])
            for t in shared:
                if not same:
                    formed.add((a, b))
                    consider(group, prefix, f"{a}-{b}", "trial0", a, t, b, t, swapped)
                else:
                    consider(group, prefix, f"{a}[t{t}]-{b}[t{t}]", "reruns", a, t, b, t)
        if reruns:
            for p in arms_here:
                for i, j in itertools.combinations(group.trials(p), 2):
                    consider(group, prefix, f"{p}[t{i}]-{p}[t{j}]", "reruns", p, i, p, j)
    for a, b in named_clean:
        if not any(is_named([(a, b)], x, y) for x, y in formed):
            raise ValueError(f"clean pair {a}-{b} is not a trial-0 contrast of the log; protocol "
                             "pairs at trial 0: " + (", ".join(f"{x}-{y}" for x, y in sorted(formed))
                                                     or "none"))
    if not rows:
        error = NoNullContrastError(_no_null_message(trial0, reruns, skipped))
        error.skipped = tuple(skipped)  # every candidate with its reason, for the renderers
        raise error
    for m in mismatches:
        seed = "" if m["seed"] is None else f" at seed {m['seed']}"
        parts = [f"first requests differ on task(s) {', '.join(m['tasks'])}"] if m["tasks"] else []
        if m["unlogged"]:
            parts.append(f"are hashed in one arm only on task(s) {', '.join(m['unlogged'])}")
        warnings.warn(f"E1 audit: {m['contrast']}{seed}: " + "; ".join(parts)
                      + ", so the contrast is not clean", FirstRequestMismatchWarning, stacklevel=2)
    table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS))
    table["seed"] = seed_array(table["seed"])
    return NullContrasts(table=table, skipped=tuple(skipped),
                         first_request_mismatches=tuple(mismatches))


def _identities(trials: pd.DataFrame, arm_names, arm_codes, first_of_arm) -> dict[str, dict]:
    """Per arm: what its tool records about the system under test (the protocol as logged and
    the ``configuration`` column; see :mod:`noisefloor.logs.configuration`)."""
    logged = trials["logged_protocol"] if "logged_protocol" in trials.columns else trials["protocol"]
    conf = trials["configuration"] if "configuration" in trials.columns else None
    out = {}
    for i in first_of_arm:
        identity = {"protocol": str(logged.iat[i])}
        if conf is not None:
            identity.update(parse_configuration(conf.iat[i]))
        out[str(arm_names[arm_codes[i]])] = identity
    return out


def _no_null_message(trial0: bool, reruns: bool, skipped: list[dict]) -> str:
    if not (trial0 or reruns):
        return ("no null contrast can be formed: both kinds are switched off ({trial0=False} "
                "and {reruns=False})")
    if not skipped:
        needs = [what for on, what in ((trial0, "trial 0 of two protocols"),
                                       (reruns, "two trials of one configuration, or two runs "
                                                "of it")) if on]
        return "no null contrast can be formed: the log needs " + ", or ".join(needs)
    shown = "\n".join(literal(f"  - {r['contrast']}"
                               f"{' at trial 0' if r['kind'] == 'trial0' else ''}: {r['reason']}")
                       for r in skipped[:3])
    more = f"\n  - and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    return (f"no null contrast can be formed: nothing certifies any of the {len(skipped)} "
            f"candidate pair(s) as null:\n{shown}{more}\nRemedies (any one):\n{REMEDIES}")
