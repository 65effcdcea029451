"""Reading published tables: every bad-input kind names the file, line and field."""

import pytest

from noisefloor.audit.published import TableError, read_claims, read_paired_counts

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
    with pytest.raises(TableError, match="no header row: the file is empty"):
        read_paired_counts(write(tmp_path, "\n  \n"))
    # '#' is not comment syntax: a lone '#' line is the header, and the error says so
    with pytest.raises(TableError, match="'#' is not a comment in these tables") as info:
        read_paired_counts(write(tmp_path, "# only a comment\n"))
    assert info.value.line == 1 and info.value.field == "seed"
    with pytest.raises(TableError, match="no data rows"):
        read_paired_counts(write(tmp_path, HEADER))
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        read_claims(tmp_path / "nope.csv")


def test_a_hash_line_before_the_header_gets_the_comment_hint(tmp_path):
    # a '#' line read as the header makes the real header row a row of the wrong width: that
    # error, too, says that '#' is not a comment (it used to stop at "expected 1 fields")
    p = write(tmp_path, "# counts from our paper\n" + HEADER + "1,0,all,a-b,3,1,5\n")
    with pytest.raises(TableError, match=r":2: expected 1 fields .*'#' is not a comment"):
        read_paired_counts(p)


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


# --- hostile-input regressions ---

def test_non_utf8_claims_name_file_line_and_column(tmp_path):
    p = tmp_path / "latin1.csv"
    p.write_bytes("paper,effect_high,unit\n# comment\nCaf\u00e9 et al.,5,pp\n".encode("latin-1"))
    with pytest.raises(TableError, match=r"latin1\.csv:3: not valid UTF-8 \(byte 0xe9 at column 4\)") as info:
        read_claims(p)
    assert info.value.line == 3


def test_utf16_counts_get_a_hint(tmp_path):
    p = tmp_path / "u16.csv"
    p.write_bytes((HEADER + "1,0,all,a-b,3,1,5\n").encode("utf-16"))
    with pytest.raises(TableError, match="UTF-16 byte-order mark; save it as UTF-8"):
        read_paired_counts(p)


def test_utf8_bom_and_crlf_still_read(tmp_path):
    p = tmp_path / "bom.csv"
    p.write_bytes("\ufeffpaper,effect_high,unit\r\nCaf\u00e9,5,pp\r\n".encode("utf-8"))
    assert read_claims(p)["paper"].tolist() == ["Caf\u00e9"]


@pytest.mark.parametrize("header,column,match", [
    ("paper,effect_high,unit,effect_high", "effect_high", r"columns 2 and 4"),
    ("paper,effect_high,unit,notes,notes", "notes", r"columns 4 and 5"),
    ("paper,reported,reported_effect,effect_high,unit", "reported_effect", "both name the 'reported'"),
])
def test_a_column_named_twice_is_an_error_not_the_later_column(tmp_path, header, column, match):
    n = header.count(",") + 1
    p = write(tmp_path, header + "\n" + ",".join(["X"] + ["1"] * (n - 2) + ["pp"]) + "\n")
    with pytest.raises(TableError, match=match) as info:
        read_claims(p)
    assert info.value.line == 1 and info.value.field == column


def test_count_table_with_benchmark_and_domain_is_an_error(tmp_path):
    p = write(tmp_path, "benchmark,domain," + HEADER + "x,y,1,0,all,a-b,3,1,5\n")
    with pytest.raises(TableError, match="'benchmark' and 'domain' both name") as info:
        read_paired_counts(p)
    assert info.value.field == "domain"


def test_a_quoted_field_spanning_lines_names_the_line_where_it_starts(tmp_path):
    p = write(tmp_path, 'paper,reported,effect_high,unit\nA,ok,1,pp\nB,"gain of\n5 pp",5,pp\nC,ok,2,pp\n')
    with pytest.raises(TableError, match=r"t\.csv:3: a quoted field is not closed on this line: "
                       r"an unclosed quote is the likely cause; a quote is closed on line 4") as info:
        read_claims(p)
    assert info.value.line == 3


def test_an_unclosed_quote_without_a_closing_line(tmp_path):
    p = write(tmp_path, HEADER + '1,0,all,"a-b,3,1,5\n')
    with pytest.raises(TableError, match="unclosed quote is the likely cause$") as info:
        read_paired_counts(p)
    assert info.value.line == 2


def test_quoted_commas_and_doubled_quotes_still_read(tmp_path):
    p = write(tmp_path, 'paper,reported,effect_high,unit\n"Smith, J.","the ""best"" gain",5,pp\n')
    c = read_claims(p)
    assert c["paper"].tolist() == ["Smith, J."] and c["reported"].tolist() == ['the "best" gain']


def test_text_after_a_closing_quote_is_malformed_csv(tmp_path):
    p = write(tmp_path, 'paper,reported,effect_high,unit\n"X"y,"r""",5,pp\n')
    with pytest.raises(TableError, match=r"t\.csv:2: malformed CSV"):
        read_claims(p)


def test_an_empty_seed_says_empty(tmp_path):
    p = write(tmp_path, HEADER + ",0,all,a-b,3,1,5\n")
    with pytest.raises(TableError, match="expected an integer, got an empty field") as info:
        read_paired_counts(p)
    assert info.value.field == "seed"


def test_a_quote_inside_an_unquoted_field_is_legal_csv(tmp_path):
    # RFC 4180 readers (Python's csv) take a quote inside an unquoted field literally
    path = tmp_path / "claims.csv"
    path.write_text('paper,benchmark,effect_high,unit\nX (2025),b 5" bench,3,pp\n')
    claims = read_claims(path)
    assert claims["benchmark"].tolist() == ['b 5" bench']


# --- rows starting with '#' are data, '2_1' is not 21, n and W+L+T must agree ---

def test_a_claim_whose_paper_starts_with_hash_is_kept(tmp_path):
    p = write(tmp_path, "paper,effect_high,unit\n#1 Agents (2025),12,pp\nB,3,pp\n")
    c = read_claims(p)
    assert c["paper"].tolist() == ["#1 Agents (2025)", "B"] and c["line"].tolist() == [2, 3]


def test_a_counts_row_starting_with_hash_is_data_or_an_error(tmp_path):
    # a model named '#m' is a row like any other: the floor keeps it
    p = write(tmp_path, "model," + HEADER + "#m,1,0,all,a-b,3,1,5\nm,1,0,all,a-b,2,2,5\n")
    t = read_paired_counts(p)
    assert t["model"].tolist() == ["#m", "m"] and int(t["wins"].sum()) == 5
    # a commented-out row is not silently skipped: it is read, and its seed is not an integer
    p = write(tmp_path, HEADER + "1,0,all,a-b,3,1,5\n#2,0,all,a-b,9,0,0\n")
    with pytest.raises(TableError, match="expected an integer") as info:
        read_paired_counts(p)
    assert (info.value.line, info.value.field) == (3, "seed")


def test_bundled_tables_keep_their_source_block():
    # the bundled CSVs open with '#' provenance lines; only the bundled reader skips them
    assert read_paired_counts()["line"].min() == 7 and read_claims()["line"].min() == 5


@pytest.mark.parametrize("cell", ["2_1", "1_000", "\u0662", "0x10", "1e1"])
def test_count_cells_take_plain_digits_only(tmp_path, cell):
    p = write(tmp_path, HEADER + f"1,0,all,a-b,{cell},1,5\n")
    with pytest.raises(TableError, match="digits 0-9 only") as info:
        read_paired_counts(p)
    assert (info.value.line, info.value.field) == (2, "wins") and str(p) in str(info.value)


def test_signed_and_padded_counts_still_read(tmp_path):
    t = read_paired_counts(write(tmp_path, HEADER + "-3,+0,all,a-b, 3 ,1,5\n"))
    assert (int(t["seed"][0]), int(t["trial"][0]), int(t["wins"][0])) == (-3, 0, 3)


@pytest.mark.parametrize("cell", ["2_1", "1_0.5", "\u0661\u0662"])
def test_claim_numbers_take_plain_digits_only(tmp_path, cell):
    p = write(tmp_path, f"paper,effect_high,unit\nX,{cell},pp\n")
    with pytest.raises(TableError, match="no '_'") as info:
        read_claims(p)
    assert (info.value.line, info.value.field) == (2, "effect_high")


def test_claim_numbers_in_usual_forms_still_read(tmp_path):
    c = read_claims(write(tmp_path, "paper,effect_high,unit\nA,.5,pp\nB,1e1,pp\nC,-2.,pp\n"))
    assert c["effect_high"].tolist() == [0.005, 0.1, -0.02]


def test_n_column_must_equal_wins_losses_ties(tmp_path):
    ok = read_paired_counts(write(tmp_path, "n," + HEADER + "9,1,0,all,a-b,3,1,5\n"))
    assert "n" not in ok.columns and int(ok["ties"][0]) == 5
    p = write(tmp_path, "n," + HEADER + "9,1,0,all,a-b,3,1,5\n10,1,0,all,a-c,3,1,5\n")
    with pytest.raises(TableError, match=r"n = 10 but wins \+ losses \+ ties = 3 \+ 1 \+ 5 = 9") as info:
        read_paired_counts(p)
    assert (info.value.line, info.value.field) == (3, "n")


def test_unequal_totals_within_a_seed_and_trial_warn(tmp_path):
    from noisefloor.audit.published import CountTotalsWarning

    body = ("1,0,all,a-b,3,1,5\n1,0,all,a-c,3,1,6\n"   # seed 1: 9 and 10 tasks
            "2,0,all,a-b,3,1,5\n2,0,all,a-c,1,3,5\n"   # seed 2: 9 and 9, fine
            "1,1,coordination_active,a-b,1,1,1\n1,1,coordination_active,a-c,1,1,4\n")
    p = write(tmp_path, HEADER + body)
    with pytest.warns(CountTotalsWarning) as record:
        t = read_paired_counts(p)
    assert len(t) == 6  # kept as written
    (w,) = record  # seed 2 agrees; the coordination-active subset is per contrast by construction
    assert f"{p}:2" in str(w.message) and "seed 1, trial 0" in str(w.message)
    assert "line 3: 10" in str(w.message)


def test_bundled_counts_raise_no_totals_warning(recwarn):
    read_paired_counts()
    assert not [w for w in recwarn if "paired tasks" in str(w.message)]


def test_agreement_csv_rows_starting_with_hash_are_items(tmp_path):
    from noisefloor.logs.annotations import read_annotations

    p = write(tmp_path, "item,rater,label\n#1,r1,yes\n#1,r2,yes\n2,r1,no\n2,r2,yes\n")
    a = read_annotations(p)
    assert a["item"].tolist() == ["#1", "#1", "2", "2"] and a["line"].tolist() == [2, 3, 4, 5]
    p = write(tmp_path, "item,a,b\n#1,yes,yes\n# note,no\n")
    with pytest.raises(ValueError, match=":3") as info:  # a short '#' row is an error, not skipped
        read_annotations(p)
    assert "2 fields" in str(info.value)
