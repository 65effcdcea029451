"""The coordination-active subset: where the coordination mechanism had a chance to act.

Noise-floor paper, "The coordination-active subset": tasks where both compared protocols
failed trial 0, so both task-scoped stores hold peer events at trial 1; the protocols are then
compared on trial 1. Where ``store_events_at_start`` is logged, the subset can instead be the
tasks whose store was non-empty at the start of trial 1 in both arms.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from noisefloor.floor.pairing import Contrast, paired_contrast
from noisefloor.passk.trials import pass_hat_k
from noisefloor.stats import validation as _validate
from noisefloor.stats.passk import PassHatK, is_success


def coordination_active_tasks(
    trials: pd.DataFrame, a: str, b: str, *, definition: str = "failed_trial0", trial: int = 1
) -> tuple[str, ...]:
    """Task ids of the coordination-active subset of contrast ``a-b``.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records of one benchmark, model and seed (columns ``protocol``, ``task_id``,
        ``trial``, ``reward``; ``store_events_at_start`` for ``definition="store"``).
    a, b : str
        The two protocols.
    definition : {"failed_trial0", "store"}, default "failed_trial0"
        ``"failed_trial0"``: both protocols failed trial 0 (reward defined and not within 1e-6
        of 1, and not an infrastructure error: a trial whose ``infrastructure_error`` is true
        never counts as a failure here, even if the frame gives it a reward). ``"store"``:
        ``store_events_at_start > 0`` at ``trial`` in both arms (an infrastructure error at
        ``trial`` is then left to the contrast's ``infrastructure_errors`` policy).
    trial : int, default 1
        The trial the contrast is compared on (used by ``definition="store"``).

    Returns
    -------
    tuple of str
        Sorted task ids.

    Raises
    ------
    ValueError
        On an unknown definition, or ``definition="store"`` without a logged store size.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": ["p", "p", "q", "q"], "task_id": ["1", "2", "1", "2"],
    ...                   "trial": 0, "reward": [0.0, 1.0, 0.0, 0.0]})
    >>> coordination_active_tasks(t, "p", "q")
    ('1',)
    """
    _validate.choice("definition", definition, ("failed_trial0", "store"))
    sets = []
    for proto in (a, b):
        if definition == "failed_trial0":
            rows = trials[(trials["protocol"].astype(str) == proto) & (trials["trial"] == 0)]
            reward = rows["reward"].astype(float).to_numpy()
            # an infrastructure error is not a failed attempt, whatever reward a frame carries
            # for it: the agent never finished the task, so nothing says its store got the peer
            # events a failure writes
            infra = (rows["infrastructure_error"].fillna(False).astype(bool).to_numpy()
                     if "infrastructure_error" in rows.columns else np.zeros(len(rows), bool))
            failed = ~np.isnan(reward) & ~is_success(reward) & ~infra
            sets.append(set(rows["task_id"].astype(str).to_numpy()[failed]))
        else:
            if "store_events_at_start" not in trials.columns:
                raise _validate.ParameterError("definition", "'failed_trial0'", definition,
                                               message="{definition='store'} needs a "
                                               "store_events_at_start column")
            rows = trials[(trials["protocol"].astype(str) == proto) & (trials["trial"] == trial)]
            events = rows["store_events_at_start"]
            if events.isna().all():
                raise _validate.ParameterError("definition", "'failed_trial0'", definition,
                                               message=_validate.literal(
                    f"protocol {proto!r} trial {trial}: store_events_at_start is not logged; ")
                    + "use {definition='failed_trial0'}")
            active = events.fillna(0).astype(int).to_numpy() > 0
            sets.append(set(rows["task_id"].astype(str).to_numpy()[active]))
    return tuple(sorted(sets[0] & sets[1]))


def coordination_active_contrast(
    trials: pd.DataFrame, a: str, b: str, *, definition: str = "failed_trial0", trial: int = 1,
    infrastructure_errors: str = "exclude",
) -> Contrast:
    """Contrast ``a-b`` on ``trial`` restricted to the coordination-active subset.

    Parameters
    ----------
    trials : pandas.DataFrame
        Trial records of one benchmark, model and seed, as for :func:`coordination_active_tasks`.
    a, b : str
        The two protocols.
    definition : {"failed_trial0", "store"}, default "failed_trial0"
        How the subset is chosen (see :func:`coordination_active_tasks`).
    trial : int, default 1
        The trial both arms are compared on.
    infrastructure_errors : {"exclude", "fail"}, default "exclude"
        Passed to :func:`~noisefloor.floor.pairing.paired_contrast`.

    Returns
    -------
    Contrast
        W/L/T and the uncorrected sign test on the subset (the paper reports 1.00, 0.29 and
        0.33 for its three contrasts).

    Raises
    ------
    ValueError
        As :func:`coordination_active_tasks` and
        :func:`~noisefloor.floor.pairing.paired_contrast` (unknown definition, missing
        columns, an arm without records at ``trial``).

    Examples
    --------
    Task 1 failed trial 0 in both arms, so only task 1 is compared on trial 1:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"protocol": list("ppppqqqq"), "task_id": ["1", "2"] * 4,
    ...                   "trial": [0, 0, 1, 1] * 2,
    ...                   "reward": [0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0]})
    >>> c = coordination_active_contrast(t, "p", "q")
    >>> c.label, c.trial_a, c.wins, c.losses, c.ties, c.p_value
    ('p-q', 1, 1, 0, 0, 1.0)
    """
    subset = coordination_active_tasks(trials, a, b, definition=definition, trial=trial)
    return paired_contrast(trials, a, b, trial=trial, tasks=subset,
                           infrastructure_errors=infrastructure_errors)


def coordination_active_pass_hat_k(trials: pd.DataFrame, k: int = 1, **kwargs) -> PassHatK:
    """pass^k over the trials whose store was non-empty at trial start.

    The noise-floor paper's minimum reporting protocol: pass^k restricted to trials where the
    coordination mechanism was logically active (``store_events_at_start > 0``).

    Parameters
    ----------
    trials : pandas.DataFrame, shape (n_trials, ...)
        One configuration's trial records as for :func:`~noisefloor.passk.pass_hat_k`,
        plus ``store_events_at_start`` (int, peer events in the store when the trial began).
    k : int, default 1
        Number of trials that must all succeed.
    **kwargs
        Keyword policies of :func:`~noisefloor.passk.pass_hat_k`
        (``infrastructure_errors``, ``k_exceeds_n``, ``unequal_trials``), passed through.

    Returns
    -------
    PassHatK
        pass^k over the active trials only (``n_trials`` counts them).

    Raises
    ------
    ValueError
        If ``store_events_at_start`` is not logged, or as
        :func:`~noisefloor.passk.pass_hat_k`.

    Examples
    --------
    Only the two trial-1 rows had a non-empty store:

    >>> import pandas as pd
    >>> t = pd.DataFrame({"task_id": ["1", "2", "1", "2"], "trial": [0, 0, 1, 1],
    ...                   "reward": [0.0, 0.0, 1.0, 0.0], "store_events_at_start": [0, 0, 2, 1]})
    >>> r = coordination_active_pass_hat_k(t, 1)
    >>> r.value, r.n_trials
    (0.5, 2)
    """
    if "store_events_at_start" not in trials.columns or trials["store_events_at_start"].isna().all():
        raise ValueError("coordination-active pass^k needs store_events_at_start in the trial log")
    active = trials[trials["store_events_at_start"].fillna(0).astype(int) > 0]
    return pass_hat_k(active, k, **kwargs)
