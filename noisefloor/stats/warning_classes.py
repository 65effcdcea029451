"""Every warning noisefloor and its harness raise, one class per kind, under one base.

A caller filters by class, never by message text::

    warnings.simplefilter("ignore", TruncatedLineWarning)    # one kind
    warnings.simplefilter("error", NoisefloorWarning)        # all of them

Each class is also importable from the module that raises it (``noisefloor.logs``,
``noisefloor.audit.published``, ``noisefloor.report.forest``, ...). This module is pure (it imports nothing),
so :mod:`noisefloor.stats` raises its warnings without leaving the package.

Examples
--------
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     warnings.warn("a.jsonl:3: the last line is cut off", TruncatedLineWarning)
>>> [issubclass(w.category, NoisefloorWarning) for w in caught]
[True]
"""

from __future__ import annotations

__all__ = [
    "CountTotalsWarning",
    "FirstRequestMismatchWarning",
    "ForestRowsLeftOutWarning",
    "InfrastructureRewardWarning",
    "NaiveTimestampWarning",
    "NoisefloorWarning",
    "PartialRewardWarning",
    "PublishedFiguresWarning",
    "RawRatingsWarning",
    "TornJournalLineWarning",
    "TruncatedLineWarning",
    "UnknownPriceWarning",
]


class NoisefloorWarning(UserWarning):
    """Base of every warning noisefloor raises (the command line shows each as one line).

    Examples
    --------
    >>> issubclass(TruncatedLineWarning, NoisefloorWarning)
    True
    """


# ----------------------------------------------------------------------------- reading logs


class PartialRewardWarning(NoisefloorWarning):
    """Warned when a log holds partial rewards (strictly between 0 and 1): pass^k and pass@k
    count such a trial as a failure, so the mean reward and pass^1 part ways."""


class PublishedFiguresWarning(NoisefloorWarning):
    """Warned when a run's own published figures (Terminal-Bench's ``accuracy``) disagree with
    the trials the run holds."""


class TruncatedLineWarning(NoisefloorWarning):
    """Warned when the last line of a JSONL file is cut off without a newline and skipped."""


class InfrastructureRewardWarning(NoisefloorWarning):
    """Warned (once per tau2-bench run) when simulations that ended in ``infrastructure_error``
    carry a ``reward_info.reward``: they are read with a null reward, as documented in
    :mod:`noisefloor.logs.formats.tau2`, and the recorded reward is kept in
    ``extra["recorded_reward"]``."""


class CountTotalsWarning(NoisefloorWarning):
    """Rows of one seed, trial and ``all`` subset of a paired-count table count different tasks.

    Every contrast of one seed and trial on the ``all`` subset compares the same task set, so
    its ``wins + losses + ties`` should be equal on every row. When it is not, the rows are kept
    as written (the table may have dropped infrastructure errors per contrast) but the signed
    gaps of those rows have different denominators, which moves the floor; the warning names
    the lines and their totals. The ``coordination_active`` subset (and any subset other than
    ``all``) is per contrast by construction and is not compared.

    Examples
    --------
    >>> issubclass(CountTotalsWarning, UserWarning)
    True
    """


# ----------------------------------------------------------------------------- statistics


class RawRatingsWarning(NoisefloorWarning):
    """A count table that looks like raw ratings (item x rater labels); see
    :func:`noisefloor.stats.agreement.fleiss.counts.check_count_table`."""


class NaiveTimestampWarning(NoisefloorWarning):
    """Time stamps without a UTC offset were read as UTC (see
    :func:`noisefloor.monitoring.time_order.order_trials`).

    Examples
    --------
    >>> issubclass(NaiveTimestampWarning, UserWarning)
    True
    """


# ----------------------------------------------------------------------------- figures


class ForestRowsLeftOutWarning(NoisefloorWarning):
    """:func:`noisefloor.report.forest.audit_forest` drew only some rows (the figure's footnote says
    which; the tables and the report keep every row).

    Examples
    --------
    >>> issubclass(ForestRowsLeftOutWarning, UserWarning)
    True
    """


# ----------------------------------------------------------------------------- the harness runner


class UnknownPriceWarning(NoisefloorWarning):
    """A model has no known price: the costs of its completions are recorded as null (once
    per model and client)."""


class TornJournalLineWarning(NoisefloorWarning):
    """The last line of a run's journal is torn (the runner stopped while writing it): that
    rollout runs again."""


class FirstRequestMismatchWarning(NoisefloorWarning):
    """First requests of a trial-0 contrast differ on some tasks: the contrast is not clean
    (the E1 audit of Kaliyev & Maryanskyy 2026); the message names every such task."""
