"""Paired contrasts built from trial records: W/L/T of ``a-b`` over the tasks both arms ran."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from noisefloor.stats import validation as _validate
from noisefloor.stats.paired import sign_test
from noisefloor.stats.passk import trial_outcomes

#: Columns that must hold a single value within one paired contrast.
PAIRING_COLUMNS = ("benchmark", "model", "seed")


@dataclass(frozen=True)
class Contrast:
    """A paired contrast ``a-b`` and its sign test.

    Attributes
    ----------
    label : str
        ``"a-b"``, or ``"a[t_i]-a[t_j]"`` for a re-run of one configuration against itself.
    a, b : str
        Protocols of the two arms.
    trial_a, trial_b : int
        Trial index compared in each arm.
    wins, losses, ties, n : int
        Paired outcome counts over the tasks both arms ran (``n`` includes ties).
    gap, p_value, ci_low, ci_high : float
        As in :class:`~noisefloor.stats.paired.SignTest` (proportions).
    tasks_only_a, tasks_only_b : tuple of str
        Tasks present in one arm only: counted and listed, not paired.
    tasks_excluded : tuple of str
        Tasks present in both arms but left out because a trial has no reward or ended in an
        infrastructure error (``infrastructure_errors="exclude"``).
    reason : str
        Why a statistic is NaN; empty otherwise.

    Examples
    --------
    >>> import pandas as pd
    >>> from noisefloor.stats.contrasts import paired_contrast
    >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
    ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
    >>> c = paired_contrast(t, "x", "y")
    >>> c.label, c.n, c.gap, c.p_value, round(c.ci_low, 4)
    ('x-y', 1, 1.0, 1.0, -0.5869)
    """

    label: str
    a: str
    b: str
    trial_a: int
    trial_b: int
    wins: int
    losses: int
    ties: int
    n: int
    gap: float
    p_value: float
    ci_low: float
    ci_high: float
    tasks_only_a: tuple[str, ...] = ()
    tasks_only_b: tuple[str, ...] = ()
    tasks_excluded: tuple[str, ...] = ()
    reason: str = ""

    def to_dict(self) -> dict:
        """Plain-dict view (task tuples as lists).

        Returns
        -------
        dict
            One key per field, in declaration order; ``tasks_only_a``, ``tasks_only_b`` and
            ``tasks_excluded`` are lists of task ids.

        Examples
        --------
        >>> import pandas as pd
        >>> from noisefloor.stats.contrasts import paired_contrast
        >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
        ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
        >>> d = paired_contrast(t, "x", "y").to_dict()
        >>> d["wins"], d["tasks_only_a"], d["tasks_only_b"], d["tasks_excluded"]
        (1, ['2'], ['3'], [])
        """
        d = asdict(self)
        for key in ("tasks_only_a", "tasks_only_b", "tasks_excluded"):
            d[key] = list(d[key])
        return d

    def to_frame(self) -> pd.DataFrame:
        """One-row DataFrame (task lists replaced by their counts).

        Returns
        -------
        pandas.DataFrame, shape (1, 17)
            The scalar fields, then ``n_tasks_only_a, n_tasks_only_b, n_tasks_excluded``.

        Examples
        --------
        >>> import pandas as pd
        >>> from noisefloor.stats.contrasts import paired_contrast
        >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
        ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
        >>> f = paired_contrast(t, "x", "y").to_frame()
        >>> f.shape, f[["n_tasks_only_a", "n_tasks_only_b", "n_tasks_excluded"]].iloc[0].tolist()
        ((1, 17), [1, 1, 0])
        """
        d = self.to_dict()
        for key in ("tasks_only_a", "tasks_only_b", "tasks_excluded"):
            d["n_" + key] = len(d.pop(key))
        return pd.DataFrame([d])


def _arm(trials: pd.DataFrame, protocol: str, trial: int, infrastructure_errors: str) -> pd.Series:
    rows = trials[(trials["protocol"].astype(str) == protocol) & (trials["trial"] == trial)]
    dup = rows["task_id"].astype(str).duplicated(keep=False)
    if dup.any():
        task = rows.loc[dup, "task_id"].iloc[0]
        raise ValueError(
            f"protocol {protocol!r} trial {trial}: task {task!r} appears more than once; a paired "
            "contrast needs one record per task (filter by seed/model/benchmark first)"
        )
    reward = rows["reward"].astype(float).to_numpy()
    infra = (rows["infrastructure_error"].fillna(False).astype(bool).to_numpy()
             if "infrastructure_error" in rows.columns else np.zeros(len(rows), dtype=bool))
    outcome = trial_outcomes(reward, infra, infrastructure_errors)
    return pd.Series(outcome, index=rows["task_id"].astype(str).to_numpy())


def paired_contrast(
    trials: pd.DataFrame,
    a: str,
    b: str,
    *,
    trial: int = 0,
    trial_b: int | None = None,
    tasks=None,
    infrastructure_errors: str = "exclude",
    confidence: float = 0.95,
) -> Contrast:
    """W/L/T and the sign test of contrast ``a-b`` from per-trial records.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records with ``protocol``, ``task_id``, ``trial``, ``reward`` (NaN when the trial
        never ran) and optionally ``infrastructure_error``; one benchmark, model and seed.
    a, b : str
        Protocols of the two arms; equal for a re-run of one configuration (then the trials
        must differ).
    trial : int, default 0
        Trial index of arm a.
    trial_b : int, optional
        Trial index of arm b (default: ``trial``).
    tasks : iterable of str, optional
        Restrict the contrast to these tasks (e.g. the coordination-active subset).
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Whether a trial that ended in an infrastructure error is left out (its task is listed
        in ``tasks_excluded``) or counted as a failure.
    confidence : float, default 0.95
        Level of the Wilson-mapped interval.

    Returns
    -------
    Contrast
        Counts, sign test and the tasks that could not be paired.

    Raises
    ------
    ValueError
        On missing columns, several seeds/models/benchmarks, a duplicate task within an arm,
        an arm with no records, or ``a == b`` with equal trials.

    Notes
    -----
    Success is ``|reward - 1| <= 1e-6`` (a partial reward is a failure). A win is a task where
    a succeeded and b failed. Statistics by :func:`~noisefloor.stats.paired.sign_test`.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["x", "x", "y", "y"], "task_id": ["1", "2", "1", "3"],
    ...                   "trial": 0, "reward": [1.0, 0.0, 0.0, 1.0]})
    >>> c = paired_contrast(t, "x", "y")
    >>> c.wins, c.losses, c.ties, c.tasks_only_a, c.tasks_only_b
    (1, 0, 0, ('2',), ('3',))
    """
    _validate.choice("infrastructure_errors", infrastructure_errors, ("exclude", "fail"))
    if not isinstance(trials, pd.DataFrame):
        raise TypeError(f"trials must be a pandas DataFrame, got {type(trials).__name__}")
    for col in ("protocol", "task_id", "trial", "reward"):
        if col not in trials.columns:
            raise ValueError(f"trials must have a {col!r} column; columns are {list(trials.columns)}")
    for col in PAIRING_COLUMNS:
        if col in trials.columns and trials[col].nunique(dropna=True) > 1:
            values = sorted(map(str, trials[col].dropna().unique()))
            raise ValueError(
                f"trials hold {len(values)} values of {col!r} ({', '.join(values[:5])}); a paired "
                f"contrast pairs tasks within one {col}: filter first"
            )
    trial_b = trial if trial_b is None else trial_b
    if a == b and trial == trial_b:
        raise ValueError(f"contrast {a}-{b} compares trial {trial} with itself; pass trial_b")
    arm_a = _arm(trials, a, trial, infrastructure_errors)
    arm_b = _arm(trials, b, trial_b, infrastructure_errors)
    for name, arm, t in ((a, arm_a, trial), (b, arm_b, trial_b)):
        if arm.empty:
            known = sorted(map(str, trials["protocol"].unique()))
            raise ValueError(f"no records for protocol {name!r} at trial {t}; protocols present: "
                             f"{', '.join(known)}")
    if tasks is not None:
        keep = {str(t) for t in tasks}
        arm_a = arm_a[arm_a.index.isin(keep)]
        arm_b = arm_b[arm_b.index.isin(keep)]
    from noisefloor.stats.paired import Slot, pair_counts

    only_a = tuple(sorted(set(arm_a.index) - set(arm_b.index)))
    only_b = tuple(sorted(set(arm_b.index) - set(arm_a.index)))
    both = arm_a.index.intersection(arm_b.index)
    oa, ob = arm_a.loc[both].to_numpy(float), arm_b.loc[both].to_numpy(float)
    excluded = tuple(sorted(both[np.isnan(oa) | np.isnan(ob)]))
    # the one pairing of every paired comparison: W/L/T over the tasks both arms hold
    present, none = np.ones(len(both), dtype=bool), np.full(len(both), np.nan)
    first = np.full(len(both), -1, dtype=np.int64)
    counts = pair_counts(Slot(present, oa, none, none, first), Slot(present, ob, none, none, first))
    wins, losses, ties = counts["wins"], counts["losses"], counts["ties"]
    test = sign_test(wins, losses, ties, confidence=confidence)
    label = f"{a}-{b}" if a != b else f"{a}[t{trial}]-{b}[t{trial_b}]"
    return Contrast(label, a, b, int(trial), int(trial_b), wins, losses, ties, test.n, test.gap,
                    test.p_value, test.ci_low, test.ci_high, only_a, only_b, excluded, test.reason)
