"""Builds notebooks/tax_report.ipynb from the cells below (run: python notebooks/_build_tax_report.py).

The notebook is committed unexecuted; tests/tax/test_tax_notebook.py executes it.
"""

from pathlib import Path

import nbformat as nbf

cells = [
    ("md", """# A collaboration-tax run, end to end

This notebook runs a real `noisefloor tax run` against a local scripted OpenAI-compatible
endpoint (`harness.runner.scripted.ScriptedServer`, real HTTP on 127.0.0.1, a free port), then
analyses the run directory with `noisefloor tax report`: the tax per family with intervals, the
prompt intervention's recovered share, and the grounding-failure cascade labelled by a judge
model over the same endpoint.

The scripted model `m` follows the `taxed` policy: solo it answers correctly with a competence
per family; in a pair each grounding failure L1-L4 happens with a rate per family, writes its
trace phrase into the dialogue and makes the pair commit to a wrong answer; a prompt variant's
clause for a stage lowers that stage's rate. The `judge` policy answers the cascade prompt from
the trace phrases. So the run has a tax, and we know what it should be."""),
    ("code", """import tempfile, warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from click.testing import CliRunner
from harness.runner.scripted import ScriptedServer, TaxPolicy, answer_book
from noisefloor.cli.tax import report, tax
from noisefloor.tax import tax_report

warnings.filterwarnings("ignore", message="no price known")
work = Path(tempfile.mkdtemp())
tasks = ["spatial_maze_halves", "spatial_one_way", "relational_family_tree",
         "relational_org_chart", "csp_sudoku4", "csp_seating"]
competence = {"spatial": 0.95, "relational": 0.9, "csp": 0.85}
rates = {"spatial": {"L1": 0.3, "L3": 0.2}, "relational": {"L2": 0.2, "L4": 0.1},
         "csp": {"L4": 0.1}}
policy = TaxPolicy({"m": competence}, rates, clause_effect=0.25)
server = ScriptedServer({"m": "taxed", "judge": "judge"}, book=answer_book(tasks, range(12), 0),
                        tax=policy).start()            # 127.0.0.1, a port the OS chooses
print(server.base_url)

def in_thread(fn, *args):
    # the runner and the judge drive their requests with asyncio.run, which cannot start
    # inside Jupyter's own event loop; in a shell these are plain commands
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()"""),
    ("md", """## 1. `noisefloor tax run`

Solo and pair rollouts of `m` on six tasks (two per family), 12 instances each, with the
baseline prompt and the `all_four` variant (one clause per grounding stage): 288 rollouts."""),
    ("code", """run = work / "run"
result = in_thread(CliRunner().invoke, tax, [
    "run", "--tasks", ",".join(tasks), "--models", "m", "--prompt-variant", "baseline,all_four",
    "--rollouts", "12", "--difficulty", "0", "--turn-cap", "6",
    "--base-url", server.base_url, "--out", str(run), "--no-progress"])
print(result.output)
assert result.exit_code == 0, result.output"""),
    ("md", """## 2. `noisefloor tax report RUN --out DIR --judge-model judge --judge-url URL`

The command only parses options and renders; `tax_report(RUN, ...)` is the same analysis in one
Python call. Every judge reply is journalled in `DIR/judge_journal.jsonl` as it arrives."""),
    ("code", """out = in_thread(CliRunner().invoke, report, [
    str(run), "--out", str(work / "report"), "--judge-model", "judge",
    "--judge-url", server.base_url, "--permutations", "0", "--no-predict"])
print(out.output)
assert out.exit_code == 0, out.output"""),
    ("md", """The same analysis in Python (the judge's labels are read back from the journal the command
wrote, so no request is repeated). The planted tax of a family is `c (1 - prod_k (1 - r_k))`
times what a wrong answer loses (some tasks give a wrong answer partial credit), so the planted
column below is an upper bound of the tax the run should show."""),
    ("code", """from noisefloor.endpoints import ModelEndpoint
before = server.requests
r = in_thread(lambda: tax_report(run, judge=ModelEndpoint("judge", (server.base_url,)),
                                 judge_journal=work / "report" / "judge_journal.jsonl",
                                 n_permutations=0, predict=False, rng=0))
assert server.requests == before                 # every label came from the journal
fc = r.family_cells.set_index("family")
fc["planted_upper"] = [policy.expected_tax("m", f) for f in fc.index]
print(fc[["n_instances", "solo", "pair", "tax", "ci_low", "ci_high", "planted_upper"]].round(3))
assert fc.loc["spatial", "ci_low"] > 0 and fc.loc["relational", "ci_low"] > 0
assert fc.loc["spatial", "tax"] > fc.loc["relational", "tax"] > fc.loc["csp", "tax"]
assert (fc["ci_low"] <= fc["planted_upper"]).all()"""),
    ("md", """## 3. The intervention: how much of the tax the `all_four` clauses recover

Recovered share = (pair with the variant - baseline pair) / (solo - baseline pair), per family
and over all families, with a stratified bootstrap interval. The clauses divide each stage's
failure rate by four, so the planted share is about 0.72 to 0.75. CSP's baseline tax is inside
its noise (its interval covers 0), so its share's interval is unbounded above: a ratio over a
denominator that may be zero."""),
    ("code", """iv = r.intervention
print(iv[["variant", "family", "solo", "pair_baseline", "pair_variant", "recovered",
          "ci_low", "ci_high"]].round(3).to_string(index=False))
assert iv["recovered"].notna().any() and (iv["recovered"].dropna() > 0).all()"""),
    ("md", """## 4. The cascade: which grounding stage failed

The judge labels every baseline pair rollout; the rates are shares of the failed (and of the
successful) rollouts in which each stage failed. The scripted pairs fail only at the planted
stages, and successful rollouts carry no failure."""),
    ("code", """rates_table = r.stage_rates
print(rates_table.round(3).to_string(index=False))
fail = rates_table[rates_table["outcome"] == "failed"].set_index(["family", "stage"])
assert fail.loc[("spatial", "L1"), "rate"] > 0 and fail.loc[("csp", "L1"), "k"] == 0
assert (rates_table[rates_table["outcome"] == "success"]["k"] == 0).all()"""),
    ("md", """## 5. Matched spend: `--solo-budget pair-median`

A pair spends more tokens than the solo control. With `--solo-budget pair-median` the runner
runs the pairs first, then each solo under a token cap, the median tokens of the pair rollouts
of its task; every record holds its cap (`extra.token_cap`). The scripted solo answers in one
short turn, mostly far under the cap, and Spatial and Relational keep their tax unchanged. The
scripted CSP pairs are short, though, and the runner bounds a solo's first request by its
prompt's bytes (a guaranteed bound, about four times the scripted count), so a CSP solo whose
prompt alone may not fit the cap sends nothing (`token_cap`, score 0) or has its reply cut by
`max_tokens`: at equal spend the CSP tax moves, an effect of the cap, read as such."""),
    ("code", """import json
matched = work / "matched"
result = in_thread(CliRunner().invoke, tax, [
    "run", "--tasks", ",".join(tasks), "--models", "m", "--rollouts", "12", "--difficulty", "0",
    "--turn-cap", "6", "--solo-budget", "pair-median", "--base-url", server.base_url,
    "--out", str(matched), "--no-progress"])
assert result.exit_code == 0, result.output
records = [json.loads(line) for line in open(matched / "trials.jsonl")]
solos = [x for x in records if x["protocol"] == "solo"]
assert all(x["extra"]["tokens_in"] + x["extra"]["tokens_out"] <= x["extra"]["token_cap"]
           for x in solos)
m = in_thread(lambda: tax_report(matched, n_permutations=0, predict=False, rng=0))
mc = m.family_cells.set_index("family")
print(mc[["solo", "pair", "tax", "ci_low", "ci_high", "tokens_solo", "tokens_pair",
          "tax_per_1k_tokens"]].round(3))
capped = [x for x in solos if x["termination_reason"] == "token_cap"]
print(len(capped), "solo rollouts stopped at their cap:",
      sorted({x["extra"]["task"] for x in capped}))
for family in ("spatial", "relational"):                # the cap never bound there
    assert abs(mc.loc[family, "tax"] - fc.loc[family, "tax"]) < 1e-12"""),
    ("code", """from IPython.display import Image, display
display(Image(filename=str(work / "report" / "fig3_heatmap.png")))
display(Image(filename=str(work / "report" / "fig5_cascade.png")))
server.stop()"""),
]

nb = nbf.v4.new_notebook()
nb.cells = [nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src)
            for kind, src in cells]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
Path(__file__).with_name("tax_report.ipynb").write_text(nbf.writes(nb))
