"""Conversation features (functions of the messages alone) and the grouped ridge of the tax."""

import math

import pytest

from noisefloor.tax.cells import cell_table
from noisefloor.tax.features import FEATURES, conversation_features
from noisefloor.tax.prediction import predict_tax
from noisefloor.tax.run import read_run


def ev(agent, role, content):
    return {"agent": agent, "role": role, "content": content}


def test_features_by_hand():
    events = [
        ev("a", "system", "Your view: cells (1,2) and (3,4); door D9."),
        ev("b", "system", "Your view: key K5 at (7,7)."),
        ev("a", "assistant", "I see D9. Where is the key?"),
        ev("b", "user", "[other agent]: I see D9. Where is the key?"),      # relay: not a turn
        ev("b", "assistant", "K5 is at (7,7). You said D9? I suggest D9 then K5."),
        ev("a", "assistant", "K5 noted. Let me verify (7,7) is reachable. FINAL ANSWER: K5,D9"),
    ]
    f = conversation_features(events)
    assert f["turns"] == 3
    assert f["words_per_turn"] == pytest.approx((7 + 12 + 11) / 3)
    assert f["questions_per_turn"] == pytest.approx(2 / 3)
    # b writes D9 (a's view, not b's); a writes K5 and 7 (b's view, not a's): 3 distinct
    assert f["partner_facts"] == 3
    assert f["proposals_before_final"] == 1
    assert f["turns_to_final"] == 3 and f["reached_final"] == 1
    assert f["receiver_rederives"] == 1          # b proposed, a verified


def test_no_final_answer_is_censored_and_no_turns_is_nan():
    f = conversation_features([ev("a", "assistant", "hmm"), ev("b", "assistant", "hmm")])
    assert f["turns_to_final"] == 3 and f["reached_final"] == 0 and f["receiver_rederives"] == 0
    g = conversation_features([ev("a", "system", "x")])
    assert g["turns"] == 0 and math.isnan(g["words_per_turn"])
    assert set(f) == set(FEATURES)


def test_proposer_checking_itself_is_not_a_rederivation():
    f = conversation_features([ev("a", "assistant", "I propose X."),
                               ev("a", "assistant", "Let me check X myself."),
                               ev("b", "assistant", "FINAL ANSWER: X")])
    assert f["receiver_rederives"] == 0


@pytest.fixture(scope="module")
def prediction(planted):
    run = read_run(planted[0])
    cells = cell_table(run, n_boot=50)
    return predict_tax(run, cells, n_permutations=49, rng=0)


def test_prediction_reports_both_r2_and_three_schemes(prediction):
    g = prediction.grouped
    assert g.n == 18 and g.n_groups == 6 and g.n_folds == 5
    assert g.r2_pooled_oof != g.r2_mean_fold
    assert g.spearman.method == "permutation" and 0 < g.r2_perm_p <= 1
    assert prediction.leave_one_task_out.n_folds == 6
    assert prediction.leave_one_model_out.n_folds == 3
    frame = prediction.to_frame()
    assert list(frame["scheme"]) == ["grouped", "leave_one_task_out", "leave_one_model_out"]


def test_prediction_finds_the_planted_shape(tmp_path):
    # more models and tasks: the synthetic dialogues' shape follows the planted tax
    from noisefloor.tax.synthetic import write_synthetic_run
    tasks = [("spatial_maze_halves", "spatial"), ("spatial_one_way", "spatial"),
             ("spatial_key_door", "spatial"), ("relational_family_tree", "relational"),
             ("relational_org_chart", "relational"), ("relational_install_order", "relational"),
             ("csp_sudoku4", "csp"), ("csp_seating", "csp"), ("csp_room_booking", "csp")]
    models = {f"m{i}": c for i, c in enumerate((1.0, 0.9, 0.8, 0.7, 0.6))}
    write_synthetic_run(tmp_path, models=models, tasks=tasks, n_instances=20,
                        modes=("solo", "pair"), judge_labels=False, seed=5)
    run = read_run(tmp_path)
    p = predict_tax(run, cell_table(run, n_boot=20), n_permutations=49, rng=1)
    assert p.grouped.r2_pooled_oof > 0.1 and p.grouped.spearman.rho > 0.4
    assert p.grouped.r2_perm_p < 0.1


def test_too_few_models_for_leave_one_model_out(small):
    run = read_run(small[0])
    df = run.rollouts
    sub = type(run)(df[df["model"].isin(["m-hi", "m-lo"])].reset_index(drop=True), run.sources, 0)
    p = predict_tax(sub, cell_table(sub, n_boot=20), n_permutations=0)
    assert p.leave_one_model_out is None
    assert p.reasons["leave_one_model_out"].startswith("2 models with a defined tax")
    assert p.grouped is not None


def test_cells_with_undefined_tax_left_out_and_named(small):
    run = read_run(small[0])
    df = run.rollouts
    drop = (df["model"] == "m-lo") & (df["mode"] == "solo") & (df["task"] == "csp_seating")
    sub = type(run)(df[~drop].reset_index(drop=True), run.sources, 0)
    p = predict_tax(sub, cell_table(sub, n_boot=20), n_permutations=0)
    assert p.n_cells_left_out == 1 and p.left_out == ("m-lo/csp_seating",)
