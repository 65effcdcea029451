"""Reading published tables: every bad-input kind names the file, line and field."""

import pytest

from noisefloor.published import TableError, read_claims, read_paired_counts

HEADER = "seed,trial,subset,contrast,wins,losses,ties\n"


def write(tmp_path, text, name="t.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_bundled_tables_hold_the_paper_figures():
    counts = read_paired_counts()
    assert len(counts) == 12 and set(counts["subset"]) == {"all", "coordination_active"}
    claims = read_claims()
    assert len(claims) == 10


def test_shared_column_names_accepted(shared_data):
    t = read_paired_counts(shared_data / "noise-floor-paper" / "paired_counts.csv")
    assert t["benchmark"].iloc[0] == "tau2-retail" and len(t) == 12


@pytest.mark.parametrize("body,line,field,match", [
    ("1,0,all,a-b,3,x,5\n", 2, "losses", "integer"),
    ("1,0,all,a-b,3,-1,5\n", 2, "losses", "integer >= 0"),
    ("1,0,all,ab,3,1,5\n", 2, "contrast", "'a-b'"),
    ("1,0,all,a-b,3,1\n", 2, None, "expected 7 fields"),
    ("1,0,all,a-b,3,1,5\n\n1,0,all,a-b,1,1,1\n", 4, "contrast", "duplicate row: .* line 2"),
])
def test_count_table_errors(tmp_path, body, line, field, match):
    p = write(tmp_path, HEADER + body)
    with pytest.raises(TableError, match=match) as info:
        read_paired_counts(p)
    assert info.value.line == line and info.value.field == field
    assert str(p) in str(info.value)


def test_missing_column(tmp_path):
    p = write(tmp_path, "seed,trial,contrast,wins,losses\n1,0,a-b,1,2\n")
    with pytest.raises(TableError, match="missing column") as info:
        read_paired_counts(p)
    assert info.value.field == "ties" and info.value.line == 1


def test_empty_and_missing_files(tmp_path):
    with pytest.raises(TableError, match="empty"):
        read_paired_counts(write(tmp_path, "# only a comment\n"))
    with pytest.raises(TableError, match="no data rows"):
        read_paired_counts(write(tmp_path, HEADER))
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_claims(tmp_path / "nope.csv")


@pytest.mark.parametrize("row,field,match", [
    ("X,b,r,5,abc,pp", "effect_high", "number"),
    ("X,b,r,5,,pp", "effect_high", "upper end"),
    ("X,b,r,9,5,pp", "effect_low", "greater than"),
    ("X,b,r,1,2,", "unit", "unit"),
    (",b,r,1,2,pp", "paper", "non-empty"),
    ("X,b,r,1,inf,pp", "effect_high", "finite"),
])
def test_claim_errors(tmp_path, row, field, match):
    p = write(tmp_path, "paper,benchmark,reported,effect_low,effect_high,unit\n" + row + "\n")
    with pytest.raises(TableError, match=match) as info:
        read_claims(p)
    assert info.value.field == field and info.value.line == 2


def test_claims_converted_to_proportions(tmp_path):
    p = write(tmp_path, "paper,effect_high,unit\nX,12.5,pp\n")
    c = read_claims(p)
    assert c["effect_high"].iloc[0] == 0.125


def test_proportion_unit_is_not_divided_again(tmp_path):
    p = write(tmp_path, "paper,effect_high,unit\nX,0.2,proportion\nY,20,pp\n")
    c = read_claims(p)
    assert c["effect_high"].tolist() == [0.2, 0.2]
