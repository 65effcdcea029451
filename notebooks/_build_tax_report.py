"""Builds notebooks/tax_report.ipynb from the cells below (run: python notebooks/_build_tax_report.py).

The notebook is committed unexecuted; tests/tax/test_tax_notebook.py executes it.
"""

from pathlib import Path

import nbformat as nbf

cells = [
    ("md", """# A collaboration-tax run, end to end

This notebook runs a small real `noisefloor tax run` against a local scripted OpenAI-compatible
endpoint (`harness.runner.scripted.ScriptedServer`, real HTTP on 127.0.0.1), then analyses the run
directory with `noisefloor tax report` / `noisefloor.tax.tax_report`: the tax per cell with
intervals, the mixed pair read as a two-player game, the prompt intervention, the figures.

The scripted agents do not have coordination failures (the `solver` policy always shares its
half and answers correctly), so the honest result on this run is a tax of zero for the solver;
the `assert` lines check what the policies imply. Section 3 analyses a synthetic run with a
planted tax per family to show the estimators recovering it."""),
    ("code", """import tempfile, warnings
from pathlib import Path
from click.testing import CliRunner
from harness.runner.scripted import ScriptedServer, answer_book
from noisefloor.cli.tax import tax
from noisefloor.cli.tax_report import report
from noisefloor.tax import tax_report

warnings.filterwarnings("ignore", message="no price known")
work = Path(tempfile.mkdtemp())
tasks = ["spatial_one_way", "relational_family_tree", "csp_sudoku4"]
book = answer_book(tasks, range(0, 2), difficulty=0)"""),
    ("md", """## 1. A real run: `noisefloor tax run` against the scripted endpoint

Models `solver` (correct), `wrong` (commits to a wrong answer) in solo, homogeneous pairs and split
solo, a mixed pair `solver+wrong` in both slot orders, baseline and the `all_four` prompt
variant; 2 instances per task. (The runner drives its requests with `asyncio.run`, which
cannot start inside Jupyter's own event loop, so the command runs in a worker thread here; in a
shell it is just `noisefloor tax run ...`.)"""),
    ("code", """from concurrent.futures import ThreadPoolExecutor

def in_thread(fn, *args):
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(fn, *args).result()

with ScriptedServer(book=book) as server:
    result = in_thread(CliRunner().invoke, tax, [
        "run", "--tasks", ",".join(tasks), "--models", "solver,wrong",
        "--pair-models", "solver+wrong", "--modes", "solo,pair,split_solo", "--rollouts", "2",
        "--difficulty", "0", "--turn-cap", "6", "--prompt-variant", "baseline,all_four",
        "--base-url", server.base_url, "--out", str(work / "run"), "--no-progress"])
print(result.output[-400:])
assert result.exit_code == 0"""),
    ("md", """## 2. The report: `noisefloor tax report RUN --out DIR`

The command only parses options and renders; `tax_report(RUN, out=DIR)` is the same analysis in one
Python call."""),
    ("code", """cli = CliRunner().invoke(report, [str(work / "run"), "--out", str(work / "report"),
                                  "--n-boot", "200", "--permutations", "0", "--no-predict"])
print(cli.output)
assert cli.exit_code == 0
r = tax_report(work / "run", n_boot=200, predict=False)
cells = r.family_cells.set_index(["model", "family"])
solver = cells.loc["solver"]
assert (solver["solo"] == 1).all() and (solver["pair"] == 1).all() and (solver["tax"] == 0).all()
# union-necessity: one view alone never answers
assert (r.family_cells["split_solo"] == 0).all()
r.family_cells[["model", "family", "n_instances", "solo", "pair", "split_solo", "tax",
                "ci_low", "ci_high", "sign_p"]]"""),
    ("md", """The mixed pair as a cooperative game: `v1`, `v2` are the members' solo scores, `v12` the
pair's, in each slot order; the Shapley values add up to `v12` (efficiency)."""),
    ("code", """m = r.mixed.set_index("pair")
print(m[["v1", "v2", "v12", "tax", "phi1", "phi2", "midpoint", "share_violating"]].round(3))
assert (abs(m["phi1"] + m["phi2"] - m["v12"]) < 1e-12).all()
assert m.loc["solver+wrong", "v1"] == 1.0"""),
    ("md", """The intervention needs a positive baseline tax: here there is none, so the recovered share is
undefined and says why (NaN with a reason, never 0)."""),
    ("code", """print(r.intervention[["variant", "family", "solo", "pair_baseline", "pair_variant",
                      "recovered", "note"]].to_string(index=False))
assert r.intervention["recovered"].isna().all()
assert r.intervention["note"].str.contains("not positive").all()"""),
    ("md", """## 3. A synthetic run with a planted tax

`write_synthetic_run` writes records and transcripts in the runner's format from a stated truth:
planted family taxes 30 / 18 / 10 pp for a model of capability 1 (more for weaker models), a
prompt variant recovering 40 % of it, judge labels for the cascade."""),
    ("code", """from noisefloor.tax.synthetic import write_synthetic_run
planted = [("spatial_maze_halves", "spatial"), ("spatial_one_way", "spatial"),
           ("relational_family_tree", "relational"), ("relational_org_chart", "relational"),
           ("csp_sudoku4", "csp"), ("csp_seating", "csp")]
truth = write_synthetic_run(work / "synthetic", models={"m-hi": 1.0, "m-mid": 0.9, "m-lo": 0.8},
                            tasks=planted, n_instances=30, seed=4,
                            variants={"all_four": {"spatial": 0.4, "relational": 0.4, "csp": 0.4}})
s = tax_report(work / "synthetic", labels=work / "synthetic" / "judge_labels.jsonl",
               n_boot=500, n_permutations=49, out=work / "synthetic_report")
fc = s.family_cells.copy()
fc["planted"] = [truth.family_tax(m, f) for m, f in zip(fc["model"], fc["family"])]
fc["covered"] = (fc["ci_low"] <= fc["planted"]) & (fc["planted"] <= fc["ci_high"])
print(fc[["model", "family", "tax", "ci_low", "ci_high", "planted", "covered"]].round(3))
assert fc["covered"].sum() >= 8"""),
    ("code", """print(s.prediction.to_frame()[["scheme", "n", "r2_pooled_oof", "r2_mean_fold",
                               "spearman_rho", "spearman_p", "r2_perm_p"]].round(3))
print(s.intervention[["variant", "family", "recovered", "ci_low", "ci_high"]].round(3))"""),
    ("code", """from IPython.display import Image, display
display(Image(filename=str(work / "synthetic_report" / "fig3_heatmap.png")))
display(Image(filename=str(work / "synthetic_report" / "fig5_cascade.png")))"""),
]

nb = nbf.v4.new_notebook()
nb.cells = [nbf.v4.new_markdown_cell(src) if kind == "md" else nbf.v4.new_code_cell(src)
            for kind, src in cells]
nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
Path(__file__).with_name("tax_report.ipynb").write_text(nbf.writes(nb))
