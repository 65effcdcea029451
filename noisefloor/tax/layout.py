"""The files of a collaboration-tax run directory that its writer and its readers share.

Kept apart from :mod:`noisefloor.tax.run` (the reader, which loads pandas and the trial-record
reader) so that the runner, which only writes the directory, imports none of that.
"""

from __future__ import annotations

import os

__all__ = ["JOURNAL_FILE", "TRIALS_STAMP_FILE", "path_inside"]

#: The runner's journal beside ``trials.jsonl``, and the note of the journal size the
#: records were built from (written by the runner; read to refuse stale records).
JOURNAL_FILE = "journal.ndjson"
TRIALS_STAMP_FILE = ".trials.stamp"


def path_inside(rel: str) -> bool:
    """Whether a relative path stays inside the folder it is relative to (lexically: not
    absolute, no NUL, no ``..`` that climbs out).

    Examples
    --------
    >>> path_inside("transcripts/k.jsonl"), path_inside("../../etc/passwd")
    (True, False)
    >>> path_inside("/etc/passwd"), path_inside("transcripts/../k.jsonl")
    (False, True)
    """
    if not rel or "\x00" in rel or os.path.isabs(rel):
        return False
    norm = os.path.normpath(rel)
    return norm != ".." and not norm.startswith(".." + os.sep)
