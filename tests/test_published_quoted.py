"""Count and claim tables with quoted fields are read as tables, with the row reader's result.

The row reader (one :func:`csv.reader` record per physical line) is the reference. A quoted
file whose every quote plainly quotes a field is read by Arrow's reader; any other quote (inside
an unquoted field, after a space, text after a closing quote, a field left open) sends the file
to the row reader, which names the line. Plausible bugs each test catches: a delimiter inside
quotes counted as a field boundary (a wrong field-count error), a doubled quote read as two
fields or as the end of one, a malformed quote accepted with a different reading than the csv
module's, quoted whitespace not stripped, a well-formed quoted file still taking the row loop.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from noisefloor.audit import published
from noisefloor.audit.published import read_claims, read_paired_counts
from tests.test_published_table import _by_rows, _outcome, _same


def _both(read, path):
    """(table path outcome, row reader outcome, whether the table path read the file)."""
    rows_read = []
    original_rows = published._read_rows

    def spy(*args, **kwargs):
        rows_read.append(True)
        return original_rows(*args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(published, "_read_rows", spy)
        table = _outcome(lambda: read(path))
    return table, _by_rows(read, path), not rows_read


def _quote(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


# a cell as written: plain, quoted (commas, doubled quotes and spaces inside), or with a quote
# the two readers could read differently
_plain = st.sampled_from(["m", " m ", "all", "a-b", "c-a", "1", "0", " 2 ", "", "é"])
_quoted = st.builds(_quote, st.sampled_from(["m, n", 'say "hi"', " m ", "", "a-b", "3", ",",
                                            '"', "all"]))
_odd = st.sampled_from(['m"', 'a"b', ' "m"', '"m" ', '"m"x', '"open', '""x', '"a""'])
_cell = st.one_of(_plain, _quoted, _quoted, _odd)

_COUNTS = "model,seed,trial,subset,contrast,wins,losses,ties"


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(_cell, st.sampled_from(["0", "1", '"2"', "3"]),
                               st.sampled_from(["0", '"1"']), _cell,
                               st.one_of(st.sampled_from(["a-b", "c-a", '"b-c"']), _cell),
                               st.sampled_from(["1", '"2"', " 3 ", '" 4 "']),
                               st.sampled_from(["1", "2"]), st.sampled_from(["0", '"5"'])),
                     max_size=8),
       crlf=st.booleans(), blank=st.booleans())
def test_quoted_count_tables_equal_the_row_reader(tmp_path, rows, crlf, blank):
    lines = [",".join(r) for r in rows]
    if blank and lines:
        lines.insert(len(lines) // 2, "  ")
    eol = "\r\n" if crlf else "\n"
    p = tmp_path / "c.csv"
    p.write_bytes((eol.join([_COUNTS, *lines]) + eol).encode())
    table, rows_outcome, by_table = _both(read_paired_counts, p)
    _same(table, rows_outcome)
    plain_quotes = not any(odd in line for line in lines
                           for odd in ('m"', 'a"b', ' "m"', '"m" ', '"m"x', '"open', '""x',
                                       '"a""'))
    if plain_quotes:  # every quote quotes a field: no row loop
        assert by_table


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows=st.lists(st.tuples(st.one_of(_plain, _quoted),
                               st.sampled_from(["", "1", '"2.5"', "x", '" 3 "']),
                               st.sampled_from(["2", '"10"', "inf"]),
                               st.sampled_from(["pp", '"points"', '" Proportion "', ""])),
                     max_size=8))
def test_quoted_claims_equal_the_row_reader(tmp_path, rows):
    p = tmp_path / "k.csv"
    p.write_text("\n".join(["paper,effect_low,effect_high,unit", *map(",".join, rows)]) + "\n",
                 encoding="utf-8")
    table, rows_outcome, by_table = _both(read_claims, p)
    _same(table, rows_outcome)
    assert by_table


def test_a_comma_inside_quotes_far_down_is_no_field_and_errors_keep_their_line(tmp_path):
    # 6,000 rows, every model name quoted with a comma inside: read by the table path; then
    # a bad count at line 4,002 is named exactly as the row reader names it
    body = [f'"m, {s % 3}",{s},0,all,a-b,{s % 5},2,"1"' for s in range(6000)]
    p = tmp_path / "c.csv"
    p.write_text("\n".join([_COUNTS, *body]) + "\n", encoding="utf-8")
    table, rows_outcome, by_table = _both(read_paired_counts, p)
    assert by_table
    _same(table, rows_outcome)
    assert table[0]["model"].iloc[1] == "m, 1"
    body[4000] = '"m, 1",4000,0,all,a-b,x,2,"1"'
    p.write_text("\n".join([_COUNTS, *body]) + "\n", encoding="utf-8")
    table, rows_outcome, by_table = _both(read_paired_counts, p)
    assert by_table
    assert table == rows_outcome
    assert table[2] == 4002 and table[3] == "wins"


@pytest.mark.parametrize("line", ['"m,1,0,all,a-b,1,2,3', 'm"x",1,0,all,a-b,1,2,3',
                                  '"m"x,1,0,all,a-b,1,2,3'])
def test_a_quote_the_readers_could_read_differently_is_left_to_the_row_reader(tmp_path, line):
    p = tmp_path / "c.csv"
    p.write_text("\n".join([_COUNTS, "m,0,0,all,a-b,1,2,3", line]) + "\n", encoding="utf-8")
    table, rows_outcome, by_table = _both(read_paired_counts, p)
    assert not by_table
    _same(table, rows_outcome)
