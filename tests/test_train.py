"""Tests of training: every role and algorithm runs and saves a reloadable model, resume, clear errors."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from agents.checkpoint import check_compatible, read_config
from pontoon_tools.training import (
    LegalizeActions,
    Trainer,
    TrainingError,
    TrainSettings,
    train,
)

ROOT = Path(__file__).resolve().parent.parent

# Tiny runs: two environments, 64 steps each per update, two updates; a short evaluation. The
# Stable-Baselines3 algorithms are named where a test is about their machinery (progress bar, rollouts).
TINY = TrainSettings(timesteps=256, seats=2, n_envs=2, n_steps=64, batch_size=64, n_epochs=2, eval_rounds=40,
                     eval_freq=128, progress=False, net_arch=[16, 16], warm_start_rounds=30, warm_start_epochs=2)
SB3_TINY = dataclasses.replace(TINY, algo="maskable_ppo")


def _settings(tmp_path: Path, **changes) -> TrainSettings:
    return dataclasses.replace(TINY, out=str(tmp_path / "run"), **changes)


@pytest.mark.parametrize("role", ["player", "banker"])
@pytest.mark.parametrize("algo", ["lean_ppo", "maskable_ppo", "ppo", "dqn"])
def test_short_run_saves_a_loadable_model_and_config(tmp_path: Path, role: str, algo: str) -> None:
    settings = _settings(tmp_path, role=role, algo=algo)
    trainer = Trainer(settings, role, Path(settings.out))
    model_path = trainer.run()
    config = json.loads((model_path.parent / "config.json").read_text())
    assert config["role"] == role and config["algo"] == algo
    assert config["num_players"] == 2 and config["rules"]["preset"] == "pagat"
    assert config["timesteps"] >= 256
    assert config["obs_size"] == trainer.env_config["obs_size"] and config["n_actions"] == len(config["action_names"])
    assert "torch" in config["versions"] and config["action_levels"]["stake"] and config["action_levels"]["buy"]
    # Reinforcement learning alone: no role imitates anything unless asked.
    assert config["warm_start"] is None
    # The learning curve has a point at the start and at the end, each with an EV and its interval.
    history = json.loads((model_path.parent / "eval_history.json").read_text())
    assert history[0]["timesteps"] == 0 and history[-1]["timesteps"] >= 256
    key = next(k for k in history[-1] if k.endswith("/ev"))
    assert history[-1][key + "_ci_low"] <= history[-1][key] <= history[-1][key + "_ci_high"]
    assert (model_path.parent / "eval_history.csv").is_file()
    assert list((model_path.parent / "checkpoints").glob("step_*.zip"))
    assert list((model_path.parent / "tb").rglob("events.out.tfevents.*"))

    # Reloaded, the model chooses the same actions as the one in memory on the same observations.
    from agents.model import ModelPolicy, load_checkpoint

    loaded, loaded_config = load_checkpoint(model_path)
    assert loaded_config["algo"] == algo
    env = gym.make("Pontoon-v0", **trainer.kwargs)
    observations = [env.reset(seed=seed)[0] for seed in range(32)]
    batch = np.stack(observations)
    expected, _ = trainer.model.predict(batch, deterministic=True)
    got, _ = loaded.predict(batch, deterministic=True)
    assert np.array_equal(expected, got)
    # And it plays a table through the Policy interface (ModelPolicy reads config.json).
    from pontoon_tools.evaluation import load_policy, play_match

    policy = load_policy(str(model_path), trainer.rules, 2)
    assert isinstance(policy, ModelPolicy)
    table = [load_policy("banker_threshold", trainer.rules), load_policy("threshold", trainer.rules),
             load_policy("threshold", trainer.rules)]
    table[0 if role == "banker" else 1] = policy
    result = play_match(trainer.rules, 2, table, 20, seed=0)
    assert result.rounds == 20


def test_role_defaults_fill_only_what_was_not_given() -> None:
    player = TrainSettings().for_role("player")
    assert (player.seats, player.ent_coef, player.ent_coef_final, player.warm_start) == (1, 0.1, 0.0, None)
    assert player.out == "runs/pagat-player"
    banker = TrainSettings(role="banker").for_role("banker")
    assert (banker.seats, banker.warm_start, banker.out) == (2, None, "runs/pagat-banker")
    assert TrainSettings(role="banker", warm_start="banker_threshold").for_role("banker").warm_start == "banker_threshold"
    assert TrainSettings(role="banker", algo="dqn").for_role("banker").warm_start is None
    assert TrainSettings(role="banker", warm_start="none").for_role("banker").warm_start is None
    given = TrainSettings(seats=3, ent_coef=0.02, warm_start="threshold", out="x").for_role("player")
    assert (given.seats, given.ent_coef, given.warm_start, given.out) == (3, 0.02, "threshold", "x")
    assert TrainSettings(role="both").for_role("banker").seats == 1


def test_algorithm_defaults_fill_only_what_was_not_given() -> None:
    from pontoon_tools.training import ALGO_DEFAULTS

    lean = TrainSettings().for_role("player")
    assert lean.algo == "lean_ppo"
    assert {name: getattr(lean, name) for name in ALGO_DEFAULTS["lean_ppo"]} == ALGO_DEFAULTS["lean_ppo"]
    sb3 = TrainSettings(algo="maskable_ppo").for_role("player")
    assert {name: getattr(sb3, name) for name in ALGO_DEFAULTS["sb3"]} == ALGO_DEFAULTS["sb3"]
    given = TrainSettings(algo="ppo", n_envs=3, learning_rate=1e-2).for_role("player")
    assert (given.n_envs, given.learning_rate, given.n_steps) == (3, 1e-2, ALGO_DEFAULTS["sb3"]["n_steps"])


def test_the_per_chip_signals_follow_the_rules_buying_unless_given() -> None:
    def signals(**kwargs: Any) -> tuple[bool | None, bool | None]:
        filled = TrainSettings(**kwargs).for_role("player")
        return filled.stake_expected, filled.draw_expected

    assert signals() == (True, False)  # pagat: buys from the initial stake up
    assert signals(rules="pontoon_1939") == (True, False)  # a buy from one chip
    assert signals(rules="pontoon_2011") == (True, False)
    assert signals(rules="casino") == (False, True)  # no buying: the settings of before
    # keyed on the rule, not on the preset's name
    assert signals(options={"allow_buy": False, "buy_limits": "none"}) == (False, True)
    # what a user gives wins, each signal on its own
    assert signals(draw_expected=True) == (True, True)
    assert signals(stake_expected=False) == (False, False)
    assert signals(rules="casino", stake_expected=True) == (True, True)


def test_imitation_learns_the_teacher() -> None:
    import torch
    from sb3_contrib import MaskablePPO

    from agents.scripted import ThresholdPlayer
    from pontoon_tools.training import imitate, imitation_data

    torch.set_num_threads(1)
    kwargs = {"rules": "pagat", "num_players": 1, "role": "player"}
    data = imitation_data(kwargs, ThresholdPlayer(), rounds=400, seed=0, gamma=1.0)
    assert len(data["obs"]) == len(data["actions"]) == len(data["returns"]) > 800
    assert data["masks"][np.arange(len(data["actions"])), data["actions"]].all()  # the teacher's ids are legal
    model = MaskablePPO("MlpPolicy", gym.make("Pontoon-v0", **kwargs), seed=0, device="cpu")
    before = imitate(model, data, epochs=0, smoothing=0.1, reward_scale=1.0, masked=True, seed=0)
    after = imitate(model, data, epochs=30, smoothing=0.1, reward_scale=float(np.std(data["returns"])),
                    masked=True, seed=0, batch_size=64, learning_rate=3e-3)
    assert after["agreement"] > 0.95 > before["agreement"]


def test_legalize_actions_replaces_an_illegal_id_and_penalises_it() -> None:
    env = LegalizeActions(gym.make("Pontoon-v0", rules="pagat", num_players=1, learner_seat=1), penalty=1.5)
    env.reset(seed=0)
    names = env.unwrapped.action_names
    mask = env.action_masks()
    illegal = next(i for i, legal in enumerate(mask) if not legal)
    first_legal = int(np.flatnonzero(mask)[0])
    twin = gym.make("Pontoon-v0", rules="pagat", num_players=1, learner_seat=1)
    twin.reset(seed=0)
    _, reward, terminated, _, info = env.step(illegal)
    _, twin_reward, twin_terminated, _, _ = twin.step(first_legal)
    assert info["illegal_action"] is True
    assert reward == pytest.approx(twin_reward - 1.5) and terminated == twin_terminated
    assert names[first_legal].startswith("stake")  # the first legal id of the stake decision


def test_resume_continues_the_same_run(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    first = Trainer(settings, "player", Path(settings.out))
    path = first.run()
    network = json.loads((path.parent / "config.json").read_text())["hyperparameters"]["policy_kwargs"]
    assert network["features_extractor_kwargs"]["spec"]  # the default network has the feature layer
    resumed = dataclasses.replace(settings, resume=str(path))
    summary = train(resumed)
    config = json.loads((path.parent / "config.json").read_text())
    assert config["timesteps"] >= 512 and config["resumed_from"] == str(path)
    # The resumed run records the network it trains (it recorded empty feature arguments).
    assert config["hyperparameters"]["policy_kwargs"] == network
    history = json.loads((path.parent / "eval_history.json").read_text())
    assert [point["timesteps"] for point in history] == sorted(point["timesteps"] for point in history)
    assert history[-1]["timesteps"] >= 512 and len(history) > len(first.history)
    assert summary["model"] == str(path)
    # The network keeps its shape: another --net-arch is refused (it was ignored, and recorded as
    # applied); left at its default, the config records the checkpoint's.
    with pytest.raises(ValueError, match=r"--net-arch: expected the checkpoint's \[16, 16\] when resuming"):
        train(dataclasses.replace(resumed, net_arch=[32]))
    default_arch = TrainSettings().net_arch
    train(dataclasses.replace(resumed, net_arch=default_arch, timesteps=64))
    assert json.loads((path.parent / "config.json").read_text())["settings"]["net_arch"] == [16, 16]


def test_resume_from_a_missing_checkpoint_names_the_path(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "model.zip"
    with pytest.raises(ValueError, match="nowhere.*does not exist"):
        train(_settings(tmp_path, resume=str(missing)))


def test_resume_an_incompatible_checkpoint_says_what_differs(tmp_path: Path) -> None:
    settings = _settings(tmp_path, timesteps=64, eval_rounds=0)
    path = Trainer(settings, "player", Path(settings.out)).run()
    # Another table size: the observation size differs.
    with pytest.raises(ValueError) as error:
        train(dataclasses.replace(settings, seats=3, resume=str(path), out=str(tmp_path / "other")))
    message = str(error.value)
    assert str(path) in message and "obs_size" in message and "num_players: expected 3, found 2" in message
    # Another preset: the rules differ, option by option.
    with pytest.raises(ValueError) as error:
        train(dataclasses.replace(settings, rules="pontoon_2011", resume=str(path), out=str(tmp_path / "other2")))
    assert "'preset': expected 'pontoon_2011', found 'pagat'" in str(error.value)
    # Another algorithm.
    with pytest.raises(ValueError, match="algo: expected 'ppo', found 'lean_ppo'"):
        train(dataclasses.replace(settings, algo="ppo", resume=str(path), out=str(tmp_path / "other3")))


def test_check_compatible_accepts_the_same_config(tmp_path: Path) -> None:
    config = {"rules": {"preset": "pagat", "stick_min": 15}, "num_players": 2, "role": "player", "obs_size": 10}
    check_compatible(tmp_path / "model.zip", config, dict(config))


def test_read_config_needs_a_config_beside_the_model(tmp_path: Path) -> None:
    (tmp_path / "model.zip").write_bytes(b"not a model")
    with pytest.raises(ValueError, match="no config.json"):
        read_config(tmp_path / "model.zip")


def test_both_roles_alternate_and_keep_every_generation(tmp_path: Path) -> None:
    settings = _settings(tmp_path, role="both", generations=2, timesteps=128, eval_rounds=20, eval_freq=128,
                         both_rounds=200)
    summary = train(settings)
    out = Path(settings.out)
    for generation in (1, 2):
        for role in ("player", "banker"):
            config = json.loads((out / f"gen_{generation:02d}" / role / "config.json").read_text())
            assert config["role"] == role
            assert (out / f"gen_{generation:02d}" / role / "model.zip").is_file()
    # Generation 2's player trained against generation 1's banker, and continued its own weights.
    player2 = json.loads((out / "gen_02" / "player" / "config.json").read_text())
    assert player2["opponents"]["banker"].endswith("gen_01/banker/model.zip")
    assert player2["resumed_from"].endswith("gen_01/player/model.zip")
    banker1 = json.loads((out / "gen_01" / "banker" / "config.json").read_text())
    assert banker1["opponents"]["players"].endswith("gen_01/player/model.zip")
    assert len(summary["generations"]) == 2
    assert (out / "generations.json").is_file() and (out / "player" / "model.zip").is_file()


def test_bad_options_are_refused_before_training(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="stick_minimum"):
        train(_settings(tmp_path, options={"stick_minimum": 16}))
    with pytest.raises(TrainingError, match="two players policies"):
        train(_settings(tmp_path, opponents=["threshold", "random"]))


def test_train_cli_help_documents_the_options() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "train.py"), "--help"], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    for option in ("--rules", "--option", "--role", "--algo", "--timesteps", "--seed", "--seats", "--opponents",
                   "--episode", "--out", "--generations", "--resume", "--eval-freq", "--eval-rounds",
                   "maskable_ppo", "Illegal actions"):
        assert option in result.stdout, option


def test_train_cli_reports_a_missing_checkpoint(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "train.py"), "--resume", str(tmp_path / "missing.zip"), "--timesteps", "64",
         "--out", str(tmp_path / "run"), "--no-progress"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 2
    assert "missing.zip" in result.stderr and "does not exist" in result.stderr


# ------------------------------------------------------------------ what a new user hits first


def _train_main(argv: list[str]) -> int:
    import importlib.util

    spec = importlib.util.spec_from_file_location("train_script", ROOT / "train.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv)


TINY_ARGS = ["--timesteps", "64", "--seats", "2", "--n-envs", "2", "--n-steps", "32", "--batch-size", "32",
             "--n-epochs", "1", "--eval-rounds", "0", "--net-arch", "8", "--no-progress"]


def test_resume_a_truncated_model_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = _settings(tmp_path, timesteps=64, eval_rounds=0, net_arch=[8])  # TINY_ARGS' network
    path = Trainer(settings, "player", Path(settings.out)).run()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])  # an interrupted copy
    out = tmp_path / "resumed"
    assert _train_main(["--resume", str(path), "--out", str(out), *TINY_ARGS]) == 2
    err = capsys.readouterr().err
    assert "train.py: error:" in err and str(path) in err and "not a readable model archive" in err
    assert "Traceback" not in err
    assert not out.exists()  # refused before the run folder was made
    # An archive that opens but holds no model: the loader named by the config says why, once.
    import zipfile

    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", "{}")
    assert _train_main(["--resume", str(path), "--out", str(out), *TINY_ARGS]) == 2
    err = capsys.readouterr().err
    assert "could not load model" in err and "as MaskablePPO" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize("argv", [
    ["--opponents", "thresold"],
    ["--warm-start", "thresold"],
    ["--role", "banker", "--opponents", "thresold"],
    ["--role", "both", "--opponents", "thresold"],
], ids=["opponent", "warm-start", "banker-opponent", "both"])
def test_a_misspelt_policy_is_refused_before_the_run_folder_is_made(
        tmp_path: Path, argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert _train_main([*argv, "--out", str(out), *TINY_ARGS]) == 2
    err = capsys.readouterr().err
    assert "'thresold'" in err and "expected one of" in err and "threshold" in err
    assert not out.exists()


def test_bad_settings_name_the_flag_and_leave_no_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    assert _train_main(["--timesteps", "0", "--out", str(out)]) == 2
    assert "--timesteps: expected a positive number of steps, got 0" in capsys.readouterr().err
    assert _train_main(["--learner-seat", "3", "--seats", "2", "--out", str(out)]) == 2
    assert "--learner-seat: expected a player seat 1..2, got 3" in capsys.readouterr().err
    assert not out.exists()


def test_the_progress_bar_counts_the_steps_really_taken(tmp_path: Path, monkeypatch) -> None:
    from pontoon_tools import training

    bars = []

    def recorded(total: int):
        bar = original(total)
        bars.append(bar)
        return bar

    original = training.progress_bar
    monkeypatch.setattr(training, "progress_bar", recorded)
    # 300 steps in rollouts of 2 x 64 = 128 decisions: three rollouts, 384 steps (SB3's loop).
    settings = _settings(tmp_path, timesteps=300, n_steps=64, eval_rounds=0, progress=True, algo="maskable_ppo")
    trainer = Trainer(settings, "player", Path(settings.out))
    trainer.run()
    assert trainer.model.num_timesteps == 384 == training.planned_timesteps(trainer.model, 300)
    assert len(bars) == 1 and bars[0].pbar.total == 384 and bars[0].pbar.n == 384
    config = json.loads((Path(settings.out) / "config.json").read_text())
    assert config["timesteps"] == 384 and config["settings"]["timesteps"] == 300


def test_the_start_message_counts_players_in_words(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = _settings(tmp_path, seats=1, timesteps=64, eval_rounds=0)
    Trainer(settings, "player", Path(settings.out)).run()
    err = capsys.readouterr().err
    assert "on 'pagat', 1 player, 64 steps (128: whole rollouts)" in err and "1 players" not in err
    Trainer(dataclasses.replace(settings, algo="maskable_ppo"), "player", Path(settings.out)).run()
    err = capsys.readouterr().err
    assert "(maskable_ppo) on 'pagat', 1 player, 64 steps (128: whole rollouts)" in err


def test_every_checkpoint_has_its_own_config_and_resumes(tmp_path: Path) -> None:
    settings = _settings(tmp_path, timesteps=256, eval_rounds=0, checkpoint_freq=128)
    path = Trainer(settings, "player", Path(settings.out)).run()
    steps = sorted((path.parent / "checkpoints").glob("step_*.zip"))
    assert len(steps) >= 2
    from pontoon_tools.evaluation import checkpoint_config

    for step in steps:
        found, config = read_config(step)
        assert found == step and config["timesteps"] == int(step.stem.split("_")[1])  # its own step count
        assert checkpoint_config(str(step)) == config  # evaluation reads the same file (it ignored step_N.json)
    # Resuming a periodic checkpoint goes through the same module (config + model file).
    summary = train(dataclasses.replace(settings, resume=str(steps[0]), out=str(tmp_path / "resumed"), timesteps=64))
    assert json.loads((tmp_path / "resumed" / "config.json").read_text())["resumed_from"] == str(steps[0])
    assert summary["model"] == str(tmp_path / "resumed" / "model.zip")
    # Without --out a periodic checkpoint resumes in its run directory, not inside checkpoints/.
    summary = train(dataclasses.replace(settings, resume=str(steps[-1]), out=None, timesteps=64))
    assert summary["model"] == str(path.parent / "model.zip")
    assert not (path.parent / "checkpoints" / "model.zip").exists()


def test_a_config_that_lacks_what_fits_a_table_is_refused_not_trusted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A config without its rules, table size or observation size cannot be checked against the
    table: resuming or evaluating it is refused by name (both went ahead unchecked)."""
    from agents.checkpoint import CheckpointError
    from agents.model import check_fits

    settings = _settings(tmp_path, timesteps=64, eval_rounds=0, net_arch=[8])  # TINY_ARGS' network
    path = Trainer(settings, "player", Path(settings.out)).run()
    config_file = path.parent / "config.json"
    complete = json.loads(config_file.read_text())
    for key in ("rules", "num_players", "obs_size", "action_names"):
        config = {k: v for k, v in complete.items() if k != key}
        for players in (2, None) if key == "rules" else (2,):  # without a size only the rules are compared
            with pytest.raises(CheckpointError, match=f"its config does not record {key}, so whether it fits"):
                check_fits(path, config, "pagat", players)
    config_file.write_text(json.dumps({k: v for k, v in complete.items() if k != "rules"}))
    out = tmp_path / "resumed"
    assert _train_main(["--resume", str(path), "--out", str(out), *TINY_ARGS]) == 2
    assert "its config does not record rules" in capsys.readouterr().err
    assert not out.exists()


def test_a_resumed_lean_run_draws_new_streams_not_the_first_parts_again(tmp_path: Path, monkeypatch) -> None:
    """The lean PPO seeded its deals and sampling from --seed alone, so a resumed run replayed the
    first part's deals and noise; now they are keyed by the seed and the step it resumes at."""
    import pontoon_tools.training as training

    seeds: list[int] = []
    original = training.lean_config

    def spy(settings, seed, role="player"):
        seeds.append(seed)
        return original(settings, seed, role)

    monkeypatch.setattr(training, "lean_config", spy)
    settings = _settings(tmp_path, timesteps=64, eval_rounds=0, net_arch=[8])
    path = Trainer(settings, "player", Path(settings.out)).run()
    first_part = json.loads((path.parent / "config.json").read_text())["timesteps"]
    train(dataclasses.replace(settings, resume=str(path), timesteps=64))
    assert seeds[0] == settings.seed and seeds[1] == training.resumed_seed(settings.seed, first_part) != seeds[0]
