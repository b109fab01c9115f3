"""Bad ``train_rllib.py`` settings refused up front, and run-to-run reproducibility of the PPO config.

The checks here need no Ray (they run in ``.venv`` too) unless a test skips itself without it.
"""

from __future__ import annotations


import pytest

from pontoon_tools.rllib.trainer import RLlibSettings, RLlibTrainingError, fits_batch
from test_rllib_errors import load_script  # the checkout's scripts as modules, one loader for both files


train_rllib = load_script("train_rllib")

SMALL = ["--seats", "3", "--train-batch-size", "128", "--minibatch-size", "64", "--num-epochs", "1",
         "--num-env-runners", "0", "--num-envs-per-env-runner", "2", "--num-cpus", "2", "--net-arch", "16",
         "--no-progress", "--timesteps", "128"]


def refused(tmp_path, capsys, argv, message, out=None):
    """``argv`` exits 2 with one error line holding ``message``, and makes no run folder."""
    out = out if out is not None else tmp_path / "run"
    assert train_rllib.main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert message in err, err
    assert not (tmp_path / "run").exists()
    return err


def test_policies_are_a_list_in_a_fixed_order():
    pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed")
    from pontoon_tools.rllib.trainer import build_config

    settings = RLlibSettings(seats=3, policies="per_seat", num_env_runners=0)
    config = build_config(settings)
    # A set would iterate in PYTHONHASHSEED order; the modules must be built in one order every run.
    assert isinstance(config.policies, (list, tuple, dict)), type(config.policies)
    assert list(config.policies) == ["banker", "player_seat_0", "player_seat_1", "player_seat_2", "player_seat_3"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--num-env-runners", "3", "--num-cpus", "2"],
         "--num-env-runners: expected 0..2 (--num-cpus 2) for a local run, got 3"),
        (["--seed", "5000000000"], "--seed: expected an integer in 0..4294967295"),
        (["--seed", "-1"], "--seed: expected an integer in 0..4294967295, got -1"),
        (["--eval-seed", "-1"], "--eval-seed: expected an integer in 0..4294967295, got -1"),
        (["--seed", "4294967295"], "(the eval seed defaults to seed + 10000)"),
        (["--max-iterations", "0"], "--max-iterations: expected an integer >= 1, got 0"),
        (["--max-iterations", "-3"], "--max-iterations: expected an integer >= 1, got -3"),
        (["--lr", "inf"], "--lr: expected a finite number > 0, got inf"),
        (["--lr", "nan"], "--lr: expected a finite number > 0, got nan"),
        (["--ent-coef", "inf"], "--ent-coef: expected a finite number >= 0, got inf"),
    ],
)
def test_bad_numbers_are_refused_before_ray_starts(tmp_path, capsys, argv, message):
    refused(tmp_path, capsys, [*SMALL, *argv], message)


def test_more_env_runners_than_local_cores_is_refused_by_default(tmp_path, capsys, monkeypatch):
    import os

    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    refused(tmp_path, capsys, ["--num-env-runners", "3"],
            "--num-env-runners: expected 0..2 (--num-cpus 2) for a local run, got 3")


def test_a_seed_at_the_top_of_the_range_is_accepted_with_an_eval_seed():
    RLlibSettings(seed=2**32 - 1, eval_seed=0).validate()
    RLlibSettings(seed=0, eval_seed=2**32 - 1).validate()


def test_an_out_path_on_or_under_a_file_is_refused(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    err = refused(tmp_path, capsys, SMALL, "--out: expected a folder (new or existing)", out=blocker)
    assert str(blocker) in err
    err = refused(tmp_path, capsys, SMALL, "--out: expected a folder (new or existing)", out=blocker / "run")
    assert f"({blocker} is a file)" in err
    assert blocker.read_text() == "x"


def test_a_batch_rllib_cannot_assemble_is_refused_with_values_that_work(tmp_path, capsys):
    err = refused(tmp_path, capsys, ["--train-batch-size", "300", "--minibatch-size", "100"],
                  "--train-batch-size: expected a multiple (within 10%) of --rollout-fragment-length (32)")
    assert "got 300" in err and "--rollout-fragment-length 38" in err and "--train-batch-size 256" in err
    # the suggested values pass RLlib's rule
    assert fits_batch(300, 38, 8, 1) and fits_batch(256, 32, 8, 1) and not fits_batch(300, 32, 8, 1)
    RLlibSettings(train_batch_size=300, minibatch_size=100, rollout_fragment_length=38).validate()


def test_summary_json_is_strict_json_with_a_one_round_eval(tmp_path, capsys, monkeypatch):
    """A one-round eval has no CI (NaN): summary.json and the printed summary hold null, not NaN."""
    import json

    from pontoon_tools.rllib import trainer

    class FakeAlgo:
        def stop(self):
            pass

    class FakeConfig:
        def build_algo(self):
            return FakeAlgo()

    summary = {"run": str(tmp_path / "run"), "eval": {"player_ev": 0.5, "player_ci95": float("nan")}}
    # No Ray: the trainer's Ray steps are replaced, the summary of a one-round eval is what the loop returns.
    monkeypatch.setattr(trainer, "preflight", lambda settings: None)
    monkeypatch.setattr(trainer, "connect", lambda settings: (None, False))
    monkeypatch.setattr(trainer, "build_config", lambda settings: FakeConfig())
    monkeypatch.setattr(trainer, "_train_loop", lambda *args: summary)
    assert train_rllib.main([*SMALL, "--eval-rounds", "1", "--out", str(tmp_path / "run")]) == 0
    printed = capsys.readouterr().out
    strict = lambda text: json.loads(text, parse_constant=lambda name: pytest.fail(f"non-JSON {name}"))  # noqa: E731
    assert strict((tmp_path / "run" / "summary.json").read_text())["eval"]["player_ci95"] is None
    assert strict(printed[printed.index("{"):])["eval"]["player_ci95"] is None  # after the "saved ..." line


@pytest.mark.parametrize("key", ["modules", "rules", "num_players"])
def test_a_run_config_without_a_needed_key_is_refused_naming_the_file(tmp_path, key):
    import json

    from agents.rllib_policy import RLlibCheckpointError, read_rllib_config
    from pontoon_tools.rllib.trainer import run_config

    config = run_config(RLlibSettings(seats=3))
    del config[key]
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint" / "rllib_checkpoint.json").write_text("{}")
    (tmp_path / "config.json").write_text(json.dumps(config))
    with pytest.raises(RLlibCheckpointError, match=rf"config.json.*expected the keys .*got none for \['{key}'\]"):
        read_rllib_config(tmp_path)


def fake_run(folder, **settings):
    """A run folder as train_rllib.py writes it, with a (tiny, readable) weights file per module."""
    import json
    import pickle

    from pontoon_tools.rllib.trainer import run_config

    config = run_config(RLlibSettings(seats=3, **settings))
    for module in config["modules"]:
        state = folder / "checkpoint" / "learner_group" / "learner" / "rl_module" / module
        state.mkdir(parents=True)
        (state / "module_state.pkl").write_bytes(pickle.dumps({"weights": [0.0]}))
    (folder / "checkpoint" / "rllib_checkpoint.json").write_text("{}")
    (folder / "config.json").write_text(json.dumps(config))
    return folder


def test_resume_refuses_a_missing_module_folder(tmp_path, capsys):
    import shutil

    run = fake_run(tmp_path / "old", net_arch=[16])
    shutil.rmtree(run / "checkpoint" / "learner_group" / "learner" / "rl_module" / "player")
    refused(tmp_path, capsys, [*SMALL, "--resume", str(run)], "expected module 'player' (listed in its config.json)")


def test_resume_refuses_a_truncated_module_file(tmp_path, capsys):
    run = fake_run(tmp_path / "old", net_arch=[16])
    state = run / "checkpoint" / "learner_group" / "learner" / "rl_module" / "banker" / "module_state.pkl"
    state.write_bytes(state.read_bytes()[:5])
    refused(tmp_path, capsys, [*SMALL, "--resume", str(run)], "module 'banker' file")


def test_resume_refuses_another_net_arch(tmp_path, capsys):
    run = fake_run(tmp_path / "old", net_arch=[16])
    refused(tmp_path, capsys, [*SMALL, "--net-arch", "32", "--resume", str(run)],
            "--net-arch: expected the checkpoint's 16 with --resume")


def test_resume_takes_the_checkpoints_net_arch_when_the_flag_is_left_out(tmp_path, capsys, monkeypatch):
    from pontoon_tools.rllib import trainer

    run = fake_run(tmp_path / "old", net_arch=[16])
    built = []

    class FakeAlgo:
        def restore_from_path(self, path):
            pass

        def stop(self):
            pass

    class FakeConfig:
        def build_algo(self):
            return FakeAlgo()

    # No Ray: record the settings the PPO config would be built from.
    monkeypatch.setattr(trainer, "preflight", lambda settings: None)
    monkeypatch.setattr(trainer, "connect", lambda settings: (None, False))
    monkeypatch.setattr(trainer, "build_config", lambda settings: built.append(settings) or FakeConfig())
    monkeypatch.setattr(trainer, "_train_loop", lambda *args: {"eval": None})
    default_arch = [arg for arg in SMALL if arg not in ("--net-arch", "16")]
    assert train_rllib.main([*default_arch, "--resume", str(run), "--out", str(tmp_path / "new")]) == 0
    assert built[0].net_arch == [16]
    assert "using the checkpoint's --net-arch 16" in capsys.readouterr().out


def test_resume_refuses_other_rules_options_naming_them(tmp_path, capsys):
    run = fake_run(tmp_path / "old", net_arch=[16])
    err = refused(tmp_path, capsys, [*SMALL, "--option", "stick_min=12", "--resume", str(run)],
                  "expected the checkpoint's rules options, got other values for stick_min (checkpoint ")
    assert "this run 12)" in err
