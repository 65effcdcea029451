"""Builds notebooks/noise_floor_audit.ipynb from the cells below (run: python notebooks/_build_noise_floor_audit.py).

The notebook is committed unexecuted; tests/test_noise_floor_notebook.py executes it.
"""

from pathlib import Path

import nbformat as nbf

cells = [
    ("md", """# Auditing coordination claims against the noise floor

This notebook reproduces the headline numbers of Kaliyev & Maryanskyy (2026), *How Much Coordination Gain Is
Real? A Paired Noise-Floor Protocol for Multi-Agent LLM Benchmarks*, from the paired counts and the claims
table that ship with noisefloor (figures transcribed from the paper), and draws the forest plot.

Every number below is computed, not typed in: the `assert` lines check them against the paper's text."""),
    ("code", """from noisefloor.audit.published import read_claims, read_paired_counts
from noisefloor.audit.verdicts import audit
from noisefloor.floor.contrast_table import FAMILY
from noisefloor.floor.count_table import null_contrasts_from_counts
from noisefloor.floor.estimate import noise_floor
from noisefloor.stats import adjust_pvalues, pool_counts, sign_test
from noisefloor.stats.paired import sign_test_table

counts = read_paired_counts()
counts.drop(columns="line")"""),
    ("md", """## 1. The artifact the protocol caught

At trial 0 every store is empty, so every reader is a no-op: any gap between protocols is noise. On seed 1,
pull vs intercept shows +18 pp with Bonferroni-corrected p = 0.012 (three trial-0 contrasts, m = 3). On
seed 2 the gap is -3 pp, p_corr = 1.0. Pooled (counts summed over seeds), +7.5 pp and p_corr = 0.316."""),
    ("code", """seed1 = sign_test(27, 9, 64)
seed2 = sign_test(18, 21, 61)
pooled = pool_counts([(27, 9, 64), (18, 21, 61)])
rows = []
for name, r in [("seed 1", seed1), ("seed 2", seed2), ("pooled", pooled)]:
    p_corr = adjust_pvalues([r.p_value], method="bonferroni", family_size=3).p_adjusted[0]
    rows.append((name, f"{r.wins}/{r.losses}/{r.ties}", round(100 * r.gap, 1), round(p_corr, 3)))
    print(f"{name:7s} W/L/T {r.wins}/{r.losses}/{r.ties}  gap {100 * r.gap:+.1f} pp  p_corr {p_corr:.3f}")
assert rows[0][2:] == (18.0, 0.012) and rows[1][2:] == (-3.0, 1.0) and rows[2][2:] == (7.5, 0.316)"""),
    ("md", """## 2. The coordination-active subset

Tasks where both compared protocols failed trial 0 (so both stores hold peer events), compared on trial 1.
The paper reports uncorrected sign-test p-values of 1.00, 0.29 and 0.33."""),
    ("code", """active = counts[counts["subset"] == "coordination_active"].drop(columns="line")
tests = sign_test_table(active, family=FAMILY)
print(tests[["contrast", "wins", "losses", "ties", "gap", "p_value"]].round(3).to_string(index=False))
assert [round(p, 2) for p in tests["p_value"]] == [1.00, 0.29, 0.33]"""),
    ("md", """## 3. The floor and the envelope

The floor is the pooled upper 95% bound of the clean null contrast (no_coord vs intercept at trial 0: the first
requests are byte-identical); the envelope is the largest pooled upper bound over all null contrasts. The
paper: about 12 pp and about 15 pp."""),
    ("code", """nf = noise_floor(null_contrasts_from_counts(counts))
print(f"floor {100 * nf.floor:.1f} pp ({nf.floor_contrast}), envelope {100 * nf.envelope:.1f} pp ({nf.envelope_contrast})")
assert round(100 * nf.floor) == 12 and round(100 * nf.envelope) == 15
nf.to_frame()[["contrast", "seed", "wins", "losses", "ties", "gap", "p_adjusted", "ci_low", "ci_high", "tau"]].round(3)"""),
    ("md", """## 4. Ten published claims against the floor

A range is placed by its end farthest from zero (for a gain, its upper end). Below the floor means
*unresolved*: a gap of that size also appears
between two runs that cannot differ. It does not mean the claim is false."""),
    ("code", """result = audit(read_claims(), nf)
print(result.counts)
assert result.counts == {"below": 7, "inside": 1, "above": 2}
result.to_frame()[["paper", "benchmark", "reported", "effect", "ratio", "verdict"]].round(3)"""),
    ("md", "## 5. The forest plot"),
    ("code", """import tempfile

from IPython.display import Image, display

from noisefloor.report.forest import audit_forest, save_figure

out = tempfile.mkdtemp()
png, svg = save_figure(audit_forest(result), out, "forest")
display(Image(filename=str(png)))"""),
]

nb = nbf.v4.new_notebook()
nb["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
nb["cells"] = [nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src)
               for kind, src in cells]
nbf.write(nb, Path(__file__).with_name("noise_floor_audit.ipynb"))
