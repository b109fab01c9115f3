"""Defects an audit of the experiment tools found: each test failed on the code before its fix.

The exact solver's banker rule read from a spec as the policy reads it; output paths refused
before the work; a belief banker at the environments' tables (which keep the bank in one seat);
``report --belief-banker`` refusing a run that is not one; one evaluation round giving no NaN;
the generated tables of docs/training.md matching their records.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from agents.banker_belief import BeliefTable
from pontoon_env.game.hands import HandClass, HandResult
from pontoon_env.game.observation import HIDDEN, HandView
from pontoon_env.game.rules import make_rules
from pontoon_env.solver import BankerRule
from pontoon_tools.evaluation import EvaluationError, banker_rule_for

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ the solver's banker rule


@pytest.mark.parametrize("spelling", ["on", "ON", "true", "yes", "1"])
def test_every_spelling_the_policy_takes_doubles_for_the_solver_too(spelling: str) -> None:
    # "on" was read as no double: the optimum was solved against a banker who never doubles,
    # while the banker at the table doubled on every ace.
    rules = make_rules("pontoon_1939")
    rule = banker_rule_for(f"banker_threshold:double_ace={spelling}", rules)
    assert rule == BankerRule(17, hit_soft=False, double_on=frozenset({1}))
    assert banker_rule_for("banker_threshold:double_ace=off", rules).double_on == frozenset()


@pytest.mark.parametrize("spec", ["banker_threshold", "banker_threshold:stand=17", "banker_threshold:stand=15",
                                  "casino_dealer"])
def test_a_dealer_rule_the_rules_fix_is_the_solvers_whatever_the_spec(spec: str) -> None:
    # Under the casino rules the engine forces the dealer to hit soft 17 (one legal move), so the
    # table plays alike for every one of these specs; "stand=17" written out solved a banker who
    # stands on soft 17.
    rule = banker_rule_for(spec, make_rules("casino"))
    assert (rule.stand_on, rule.hit_soft) == (17, True)


def test_free_drawing_rules_follow_the_spec() -> None:
    pagat = make_rules("pagat")
    assert banker_rule_for("casino_dealer", pagat) == BankerRule(17, hit_soft=True, double_on=frozenset())
    assert banker_rule_for("banker_threshold:stand=15", pagat) == BankerRule(15, double_on=frozenset())
    # the policy takes 0 and 1 (he stands on every hand); the solver's rule "stand on 2" plays alike
    assert banker_rule_for("banker_threshold:stand=1", pagat).stand_on == 2


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("bogus", "--optimality-gap: unknown policy 'bogus'"),
        ("banker_threshold:stand=99", "--optimality-gap: policy 'banker_threshold': parameter 'stand' expects"),
        ("banker_threshold:hit_soft=yes", "--optimality-gap: policy 'banker_threshold' has no parameter 'hit_soft'"),
        ("banker_threshold:stand_on=16", "--optimality-gap: policy 'banker_threshold' has no parameter 'stand_on'"),
        ("banker_smart", "--optimality-gap needs a banker with a fixed drawing rule"),
    ],
)
def test_a_spec_the_solver_cannot_use_is_refused_in_the_policys_words(spec: str, message: str) -> None:
    with pytest.raises(EvaluationError, match=message.replace("(", r"\(")):
        banker_rule_for(spec, make_rules("pagat"))


def test_the_evaluation_report_says_which_way_the_soft_17_rules_differ(tmp_path: Path) -> None:
    from pontoon_tools.evaluation import EvaluateSettings, run_evaluation

    report = run_evaluation(EvaluateSettings(rules="pagat", seats=1, player="threshold", banker="casino_dealer",
                                             optimality_gap=True, rounds=50, out=str(tmp_path / "ev"), charts=False,
                                             progress=False))
    assert report["optimality_gap"]["note"].endswith(
        "the banker hits on soft 17 but the simulated optimal player assumes he stands on soft 17")


# ------------------------------------------------------------------ output paths, before the work


@pytest.mark.parametrize("module", ["diagnose", "diagnose_banker", "docs"])
@pytest.mark.parametrize("where", ["folder", "under_a_file"])
def test_an_output_path_that_cannot_be_written_is_refused_first(module: str, where: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    (tmp_path / "afile").write_text("x")
    out = tmp_path if where == "folder" else tmp_path / "afile" / "x.json"
    argv = {"diagnose": [str(tmp_path / "no-such-run"), "--rounds", "5"],
            "diagnose_banker": ["banker_threshold", "--seats", "1", "--rounds", "5"],
            "docs": []}[module]
    with pytest.raises(SystemExit) as stopped:
        importlib.import_module(f"pontoon_tools.{module}").main([*argv, "--out", str(out)])
    assert stopped.value.code == 2
    error = capsys.readouterr().err
    assert "--out: expected a file" in error and str(out) in error


# ------------------------------------------------------------------ the belief banker at a table


def _belief_run(folder: Path) -> Path:
    table = BeliefTable(make_rules("pagat"))
    hand = HandView((HIDDEN, HIDDEN, 24), 1, 1, 0, 0, True, False, False, 0, True, False, False)
    table.add(hand, HandResult(HandClass.TOTAL, 17))
    folder.mkdir()
    table.save(folder / "belief.json")
    return folder


def test_a_belief_banker_plays_at_the_environments_table(tmp_path: Path) -> None:
    # The environments keep the bank in one seat (bank_passing='none'); a showdown does not depend
    # on who banks next round, so the belief fits (it was refused: "learnt under 'pagat' ...
    # expected rules 'pagat'").
    run = _belief_run(tmp_path / "belief")
    env = gym.make("Pontoon-v0", num_players=2, opponents={"banker": str(run)})
    _, info = env.reset(seed=0)
    for _ in range(20):
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        if terminated or truncated:
            _, info = env.reset()
    # options a showdown does depend on are still compared
    with pytest.raises(ValueError, match="stick_min=15 not 16"):
        BeliefTable.load(run / "belief.json", make_rules("pagat", stick_min=16))


def test_the_benchmark_scores_a_belief_banker(tmp_path: Path) -> None:
    from pontoon_env.benchmark import get_task
    from pontoon_tools.benchmark import score

    result = score(get_task("pagat/banker-1"), str(_belief_run(tmp_path / "belief")), episodes=20)
    assert np.isfinite(result.ev)


def test_report_refuses_a_belief_banker_that_is_no_belief_run(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from pontoon_tools.report import main

    (tmp_path / "ppo").mkdir()
    assert main(["--belief-banker", str(tmp_path / "ppo"), "--out", str(tmp_path / "out")]) == 2
    assert "--belief-banker: expected a run of train.py --algo belief" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_one_evaluation_round_of_a_belief_banker_writes_no_nan(tmp_path: Path) -> None:
    from pontoon_tools.training import TrainSettings, train

    summary = train(TrainSettings(role="banker", algo="belief", seats=1, timesteps=50, eval_rounds=1,
                                  progress=False, out=str(tmp_path / "run")))
    json.dumps(summary, allow_nan=False, default=str)  # train.py prints it: NaN is no JSON
    assert summary["eval"]["minus_banker_smart_half_width"] is None


# ------------------------------------------------------------------ generated tables of the docs


@pytest.mark.parametrize(("module", "records"), [("ablation", "docs/measurements/ablation"),
                                                 ("targets", "docs/measurements/targets")])
def test_the_training_docs_tables_are_what_their_records_print(module: str, records: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    import importlib

    copy = tmp_path / "training.md"
    shutil.copy(ROOT / "docs" / "training.md", copy)
    importlib.import_module(f"pontoon_tools.{module}").main(["table", "--out", str(ROOT / records), "--docs",
                                                             str(copy)])
    capsys.readouterr()
    assert copy.read_text() == (ROOT / "docs" / "training.md").read_text(), (
        f"docs/training.md's {module} block is stale: python -m pontoon_tools.{module} table --out {records} "
        "--docs docs/training.md")


def test_report_markdown_refuses_a_json_with_no_summary_section(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from pontoon_tools.report import main

    timings = tmp_path / "timings.json"  # printed a blank line with exit 0
    timings.write_text(json.dumps({"phases": {"train": 12.5}, "total": 15.5}))
    assert main(["--markdown", str(timings)]) == 2
    assert "which holds none of its sections (player, banker, belief_banker, timings)" in capsys.readouterr().err


def test_diagnose_names_the_first_card_contribution_as_chips() -> None:
    # The column summed to the gap in chips (its "all" row was the gap), but was headed "share of the gap".
    from pontoon_tools.diagnose import format_tables

    row = {"first_card": 1, "share": 0.077, "model_ev": 0.5, "optimal_ev": 0.7, "gap": 0.2, "gap_low": 0.1,
           "gap_high": 0.3, "contribution": 0.0154, "model_stake": 2.0, "optimal_stake": 4.0}
    costly = {"rounds_read": 10, "total_chips_per_round": 0.0, "rows": []}
    header = format_tables([row], costly).splitlines()[0]
    assert "contribution to the gap (chips a round)" in header and "share of the gap" not in header


@pytest.mark.parametrize("module", ["ablation", "targets"])
def test_a_table_of_no_records_is_refused_before_the_docs_are_touched(module: str, tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    # `table --docs docs/training.md` with the default --out (absent on a fresh clone) replaced the
    # block with a header alone and exited 0.
    import importlib

    copy = tmp_path / "training.md"
    shutil.copy(ROOT / "docs" / "training.md", copy)
    code = importlib.import_module(f"pontoon_tools.{module}").main(
        ["table", "--out", str(tmp_path / "none"), "--docs", str(copy)])
    assert code == 2 and "--out: expected the records `run` writes" in capsys.readouterr().err
    assert copy.read_text() == (ROOT / "docs" / "training.md").read_text()


@pytest.mark.parametrize(("argv", "message"), [
    (["bench/solver.py", "--repeat", "0"], "--repeat: expected at least 1, got 0"),  # None.ev
    (["bench/engine.py", "--rounds", "-5"], "--rounds: expected at least 1, got -5"),  # a verdict from 1-round chunks
    (["bench/engine.py", "--steps", "0", "--encode-share"], "--steps: expected at least 1, got 0"),  # ZeroDivisionError
    (["bench/instructions.py", "--scripted", "--vector"], "expected one of --scripted, --vector, --encode"),
    (["bench/instructions.py", "--caches", "--encode"], "got --encode --caches"),  # --encode was dropped
    (["bench/instructions.py", "--parts", "--scripted"], "--parts: counts the Pontoon-v0 step only"),
    (["bench/rllib_scaling.py", "--runners", "a"], "--runners: expected comma-separated runner counts"),  # int()
    (["bench/rllib_scaling.py", "--batch", "0"], "--batch: expected an integer >= 1, got 0"),  # --train-batch-size
    (["bench/rllib_scaling.py", "--envs-per-runner", "0"], "--envs-per-runner: expected an integer >= 1"),
    (["bench/rllib_scaling.py", "--rules", "nope"], "--rules: unknown preset 'nope'"),  # found after Ray started
])
def test_the_bench_scripts_refuse_flags_they_cannot_honour(argv: list[str], message: str) -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, *argv], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and message in done.stderr, done.stderr[-500:]
