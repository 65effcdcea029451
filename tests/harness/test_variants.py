"""The runner's prompt-variants file: the clause texts the intervention runs."""

import pytest

from harness.runner.variants import load_variants


def test_the_shipped_variants_are_the_papers_ablation():
    # the four stage clauses and the leave-one-out rows of the collaboration-tax paper, sec. 5
    v = load_variants()
    assert list(v) == ["baseline", "all_four", "no_L1", "no_L2", "no_L3", "no_L4"]
    assert v["baseline"] == ""
    clauses = v["all_four"].split("\n\n")
    assert len(clauses) == 4
    for k in range(4):
        drop = v[f"no_L{k + 1}"].split("\n\n")
        assert clauses[k] not in drop and len(drop) == 3 and set(drop) < set(clauses)


def test_variants_file_errors(tmp_path):
    p = tmp_path / "v.toml"
    p.write_text("[variants]\nx = ['L9']\n")
    with pytest.raises(ValueError, match=r"variants.x: unknown clause"):
        load_variants(p)
