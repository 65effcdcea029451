"""The reader modules: the names they export, and the shared text helpers' invariants."""

from __future__ import annotations

import importlib
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

#: The reader names the package exports, each from the module of its topic.
READER_HOMES = {
    "CallContext": "reader_interface", "Injection": "reader_interface",
    "NoCoord": "reader_interface", "Reader": "reader_interface",
    "ReaderStart": "reader_interface", "ToolSpec": "reader_interface",
    "TrialState": "reader_interface", "WARNING_CLOSE": "intercept", "WARNING_OPEN": "intercept",
    "Intercept": "intercept", "SelectiveIntercept": "intercept",
    "PredicateIntercept": "intercept", "Pull": "pull",
    "peer_warnings_summary": "pull", "reader_by_name": "readers",
}


def test_the_package_exports_every_reader_name_from_its_module():
    # readers.py only makes a reader from its name; it re-exports nothing
    assert readers.__all__ == ["reader_by_name"]
    for name, module in READER_HOMES.items():
        home = importlib.import_module(f"noisefloor.protocols.{module}")
        assert getattr(protocols, name) is getattr(home, name), name


def test_each_reader_lives_in_the_module_of_its_topic():
    assert protocols.Pull.__module__ == "noisefloor.protocols.pull"
    assert protocols.Intercept.__module__ == "noisefloor.protocols.intercept"
    assert protocols.SelectiveIntercept.__module__ == "noisefloor.protocols.intercept"
    assert protocols.PredicateIntercept.__module__ == "noisefloor.protocols.intercept"
    assert protocols.Reader.__module__ == "noisefloor.protocols.reader_interface"
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
