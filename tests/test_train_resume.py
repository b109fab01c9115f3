"""train.py's runs and folders: what a resumed run keeps, what a fresh run replaces, and the flags
that used to be accepted and silently ignored (each refused now, naming the flag)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from agents.checkpoint import CheckpointError
from pontoon_tools.training import Trainer, TrainingError, TrainSettings, train

TINY = TrainSettings(timesteps=256, seats=1, n_envs=2, n_steps=64, batch_size=64, n_epochs=1, eval_rounds=40,
                     eval_freq=128, progress=False, net_arch=[16, 16])
SB3_TINY = dataclasses.replace(TINY, algo="maskable_ppo", n_envs=2, n_steps=32, batch_size=32)


def run_folder(tmp_path: Path, name: str, settings: TrainSettings, **changes) -> Path:
    out = tmp_path / name
    train(dataclasses.replace(settings, out=str(out), **changes))
    return out


def test_a_resumed_sb3_model_keeps_its_hyperparameters_and_says_so(tmp_path: Path) -> None:
    first = run_folder(tmp_path, "m1", SB3_TINY, eval_rounds=0)
    resumed = dataclasses.replace(SB3_TINY, resume=str(first / "model.zip"), out=str(tmp_path / "m2"), eval_rounds=0,
                                  n_steps=None, batch_size=None, n_epochs=None)
    # given and different: refused (a loaded SB3 model keeps what it was saved with)
    for name, value in (("learning_rate", 0.01), ("n_steps", 16), ("gamma", 0.9)):
        with pytest.raises(TrainingError, match=f"--{name.replace('_', '-') if name != 'learning_rate' else 'lr'}: "
                                                 "expected the checkpoint's .* SB3 model keeps its hyperparameters"):
            train(dataclasses.replace(resumed, **{name: value}))
    # left at their defaults: the config records the checkpoint's values, which the model trains with
    train(resumed)
    config = json.loads((tmp_path / "m2" / "config.json").read_text())
    assert config["hyperparameters"]["n_steps"] == 32 and config["hyperparameters"]["batch_size"] == 32


@pytest.mark.parametrize(("flag", "value"), [("features", ["keep", "onehot"]), ("trunk", [32])])
@pytest.mark.parametrize("algo", ["maskable_ppo", "ppo"])
def test_the_feature_layer_is_refused_where_it_would_be_ignored(tmp_path: Path, flag: str, value, algo: str) -> None:
    settings = dataclasses.replace(SB3_TINY, algo=algo, out=str(tmp_path / "run"), **{flag: value})
    with pytest.raises(TrainingError, match=f"--{flag}: expected .*the feature layer is lean_ppo's and lean_dqn's"):
        train(settings)
    assert not (tmp_path / "run").exists()


def test_a_periodic_checkpoint_resumes_with_its_own_reward_scale_and_curve(tmp_path: Path) -> None:
    run = run_folder(tmp_path, "run", TINY, timesteps=512, checkpoint_freq=128)
    steps = sorted((run / "checkpoints").glob("step_*.zip"))
    early = steps[0]
    scale_file = early.with_name(f"{early.stem}.reward_scale.json")
    assert scale_file.is_file()  # saved with the checkpoint (it was looked for in checkpoints/ and never found)
    saved = json.loads(scale_file.read_text())
    # Resuming the early checkpoint into its own folder would replace the later model: refused.
    with pytest.raises(TrainingError, match="--out: resuming the checkpoint at step .* would replace"):
        train(dataclasses.replace(TINY, resume=str(early), out=None, timesteps=128))
    # Into a new folder: the scale it continues is the checkpoint's.
    trainer = Trainer(dataclasses.replace(TINY, resume=str(early), out=str(tmp_path / "branch"), timesteps=128),
                      "player", tmp_path / "branch")
    assert trainer._check_scaler() == {key: float(saved[key]) for key in ("mean", "var", "count")}


def test_resuming_in_place_keeps_the_curve_up_to_the_checkpoint(tmp_path: Path) -> None:
    run = run_folder(tmp_path, "run", TINY, timesteps=256, checkpoint_freq=128)
    history = json.loads((run / "eval_history.json").read_text())
    last = history[-1]
    train(dataclasses.replace(TINY, resume=str(run / "model.zip"), out=None, timesteps=128))
    resumed = json.loads((run / "eval_history.json").read_text())
    steps = [point["timesteps"] for point in resumed]
    assert steps == sorted(set(steps))  # no step twice
    assert resumed[: len(history)] == history
    assert resumed[-1]["wall_s"] >= last["wall_s"]  # wall time goes on from the checkpoint


def test_another_runs_folder_is_not_mixed_into(tmp_path: Path) -> None:
    player = run_folder(tmp_path, "player", TINY, timesteps=128, eval_freq=0)
    banker = run_folder(tmp_path, "banker", TINY, role="banker", timesteps=128, eval_freq=0)
    # resuming the player into the banker's folder would append to the banker's curve
    with pytest.raises(TrainingError, match="--out: expected a new folder .* holds another run"):
        train(dataclasses.replace(TINY, resume=str(player / "model.zip"), out=str(banker), timesteps=64))
    # a fresh run into a folder that holds one replaces it: none of its checkpoints or points stay
    train(dataclasses.replace(TINY, role="player", out=str(banker), timesteps=128, eval_freq=0))
    for config in (banker / "checkpoints").glob("step_?????????.json"):
        assert json.loads(config.read_text())["role"] == "player"
    history = json.loads((banker / "eval_history.json").read_text())
    assert json.loads((banker / "config.json").read_text())["role"] == "player"
    steps = [point["timesteps"] for point in history]
    assert steps[0] == 0 and steps == sorted(set(steps))  # one curve, this run's
    player_tables = {key for key in json.loads((player / "eval_history.json").read_text())[0]}
    assert set(history[0]) == player_tables  # a player's tables, none of the banker's


@pytest.mark.parametrize("content", ['{"mean": 1.0, "var"', "{}", '{"mean": "x", "var": 1, "count": 2}'])
def test_a_corrupt_reward_scale_is_refused_before_anything_is_made(tmp_path: Path, content: str) -> None:
    run = run_folder(tmp_path, "run", TINY, timesteps=128, eval_rounds=0)
    (run / "reward_scale.json").write_text(content)
    with pytest.raises(CheckpointError, match=r"reward scale '.*reward_scale.json' beside the checkpoint is unreadable"):
        train(dataclasses.replace(TINY, resume=str(run / "model.zip"), out=str(tmp_path / "next"), timesteps=64))
    assert not (tmp_path / "next").exists()


def test_flags_that_would_be_ignored_or_clamped_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cases = [
        (dict(stake_levels=["50", "20"]), r"--stake-levels: expected min, max, a chip amount in 1\.\.10 .*got '50'"),
        (dict(stake_levels=["foo"]), r"--stake-levels: .*got 'foo'"),
        (dict(algo="maskable_ppo", vec_env="batched", rules="shoot"), r"--vec-env: expected auto, dummy or subproc"),
        (dict(role="banker", learner_seat=1), r"--learner-seat: expected no --learner-seat with --role banker"),
    ]
    for changes, message in cases:
        with pytest.raises(TrainingError, match=message):
            train(dataclasses.replace(TINY, out=str(out), **changes))
        assert not out.exists()


def test_the_config_describes_the_lean_learners(tmp_path: Path) -> None:
    for algo in ("lean_ppo", "lean_dqn"):
        run = run_folder(tmp_path, algo, TINY, algo=algo, timesteps=128, eval_rounds=0, batch_size=64)
        config = json.loads((run / "config.json").read_text())
        assert config["illegal_actions"] == "masked"
        fields = set(config["hyperparameters"])
        if algo == "lean_dqn":
            assert {"buffer_steps", "eps_final", "tau"} <= fields and "n_epochs" not in fields
        else:
            assert {"n_epochs", "clip_range", "learning_rate_final"} <= fields


def test_a_belief_run_refuses_a_banker_opponent_and_keeps_stdout_for_the_summary(tmp_path: Path, capsys) -> None:
    settings = dataclasses.replace(TINY, algo="belief", role="banker", timesteps=200, eval_rounds=0,
                                   out=str(tmp_path / "belief"))
    with pytest.raises(TrainingError, match=r"--opponents: expected player specs only for --algo belief"):
        train(dataclasses.replace(settings, opponents=["threshold", "banker_smart"]))
    train(dataclasses.replace(settings, progress=True))
    assert "training banker (belief)" in capsys.readouterr().err


@pytest.mark.parametrize(("role", "teacher"), [("player", "banker_smart"), ("banker", "threshold")])
def test_a_warm_start_teacher_of_the_other_role_is_refused(tmp_path: Path, role: str, teacher: str) -> None:
    # It used to imitate the default policy of the learner's role and report "imitated 'banker_smart'".
    settings = dataclasses.replace(SB3_TINY, role=role, warm_start=teacher, out=str(tmp_path / "run"))
    with pytest.raises(ValueError, match=f"--warm-start {teacher}: expected a {role} policy"):
        train(settings)
    assert not (tmp_path / "run").exists()


def test_a_both_run_takes_a_learner_seat_and_warm_starts_only_the_teachers_side() -> None:
    from pontoon_tools.training import _side

    TrainSettings(role="both", learner_seat=2, seats=4).validate()  # the player side's seat
    settings = TrainSettings(role="both", warm_start="banker_smart", seats=2)
    assert _side(settings, "banker").warm_start == "banker_smart"
    assert _side(settings, "player").warm_start is None  # it would imitate the default player under that name
    assert _side(dataclasses.replace(settings, warm_start="random"), "player").warm_start == "random"  # plays both


def test_the_same_resume_again_after_it_stopped_part_way_is_not_another_run(tmp_path: Path) -> None:
    first = run_folder(tmp_path, "p", TINY, timesteps=128, eval_rounds=0)
    branch = tmp_path / "branch"
    branch.mkdir()
    # what the first try left: its config, written when the run starts, names the checkpoint it resumed
    (branch / "config.json").write_text(json.dumps({"resumed_from": str(first / "model.zip"), "timesteps": 128}))
    settings = dataclasses.replace(TINY, resume=str(first / "model.zip"), out=str(branch), timesteps=64)
    Trainer(settings, "player", branch)  # accepted; another checkpoint into that folder is not:
    other = run_folder(tmp_path, "q", TINY, timesteps=128, eval_rounds=0)
    with pytest.raises(TrainingError, match="holds another run"):
        Trainer(dataclasses.replace(settings, resume=str(other / "model.zip")), "player", branch)


def test_a_resumed_dqn_records_the_learning_start_it_keeps(tmp_path: Path) -> None:
    dqn = dataclasses.replace(SB3_TINY, algo="dqn", eval_rounds=0, batch_size=32)
    first = run_folder(tmp_path, "d1", dqn, timesteps=2000)
    train(dataclasses.replace(dqn, resume=str(first / "model.zip"), out=str(tmp_path / "d2"), timesteps=300,
                              batch_size=None))
    from agents.checkpoint import load_model

    config = json.loads((tmp_path / "d2" / "config.json").read_text())
    assert config["hyperparameters"]["learning_starts"] == load_model(tmp_path / "d2" / "model.zip", "dqn").learning_starts
