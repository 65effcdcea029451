"""The reader modules: the names they export, and the shared text helpers' invariants."""

from __future__ import annotations

import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

import noisefloor.protocols as protocols
import noisefloor.protocols.readers as readers
from noisefloor.protocols import CallContext
from noisefloor.protocols.event_text import attempt_of, short_text
from noisefloor.protocols.intercept import WARNING_CLOSE, WARNING_OPEN, warning_block
from noisefloor.store import FailedTrialAction, StoredEvent, canonical_key

#: What ``noisefloor.protocols.readers`` exported before it was split into modules.
READERS_EXPORTS = [
    "WARNING_CLOSE", "WARNING_OPEN", "CallContext", "Injection", "Intercept", "NoCoord",
    "PredicateIntercept", "Pull", "Reader", "ReaderStart", "SelectiveIntercept", "ToolSpec",
    "TrialState", "peer_warnings_summary", "reader_by_name",
]


def test_readers_keeps_every_export_and_the_package_reexports_them():
    assert sorted(readers.__all__) == sorted(READERS_EXPORTS)
    for name in READERS_EXPORTS:
        assert getattr(readers, name) is not None
        if not name.startswith("WARNING_"):
            assert getattr(protocols, name) is getattr(readers, name), name
    # the LangChain adapter's import of the pull tool's name keeps working from the old place
    assert readers.TRACE_QUERY_TOOL == "trace_query"


def test_each_reader_lives_in_the_module_of_its_topic():
    assert readers.Pull.__module__ == "noisefloor.protocols.pull"
    assert readers.Intercept.__module__ == "noisefloor.protocols.intercept"
    assert readers.SelectiveIntercept.__module__ == "noisefloor.protocols.intercept"
    assert readers.PredicateIntercept.__module__ == "noisefloor.protocols.intercept"
    assert readers.Reader.__module__ == "noisefloor.protocols.reader_interface"
    assert {type(readers.reader_by_name(n)).__name__ for n in
            ("no_coord", "pull", "intercept", "selective", "predicate")} == {
        "NoCoord", "Pull", "Intercept", "SelectiveIntercept", "PredicateIntercept"}


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                     lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=5), inner, max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(value=st.text(max_size=80) | _json, limit=st.integers(3, 100))
def test_property_short_text_is_one_line_within_the_limit(value, limit):
    out = short_text(value, limit)
    whole = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                            sort_keys=True)
    whole = " ".join(whole.split())
    assert len(out) <= limit
    assert not re.search(r"\s\s|[\n\r\t]", out)
    if len(whole) <= limit:
        assert out == whole
    else:
        assert out.endswith("...") and out[:-3] == whole[: limit - 3]


@settings(max_examples=100, deadline=None)
@given(attempts=st.lists(st.sampled_from("abcde"), min_size=1, max_size=8),
       extra=st.integers(0, 5))
def test_property_warning_block_counts_distinct_attempts(attempts, extra):
    events = [StoredEvent(i + 1, FailedTrialAction(task_id="T", tool_name="f", reward=0.0,
                                                   position=1, k=3, attempt_id=a,
                                                   outcome=f"out {i}"))
              for i, a in enumerate(attempts)]
    call = CallContext(0, "f", {}, canonical_key("f", {}), "")
    total = len(events) + extra
    text = warning_block(call, events, total, "literal")
    n = len(set(attempts))
    assert len({attempt_of(s.event) for s in events}) == n
    assert text.startswith(WARNING_OPEN + "\n") and text.endswith(WARNING_CLOSE + "\n")
    noun = f"{n} failed attempt{'s' if n != 1 else ''}"
    if extra:
        assert f"at least {noun} ({total} matching calls recorded)" in text
    else:
        assert f"calls of {noun}." in text
    assert "Last recorded outcome: out 0\n" in text  # the newest (first) event's outcome
