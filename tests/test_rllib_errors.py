"""The RLlib path's checks that need no Ray: agent ids, checkpoint detection, bad input messages.

These run in both virtual environments: in ``.venv`` (no Ray) they also show that a missing Ray
gives one sentence naming the extra; in ``.venv-rllib`` Ray is hidden from the import system.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import sys
import time
from pathlib import Path

import pytest

from agents.rllib_policy import (
    RLlibCheckpointError,
    check_compatible,
    is_rllib_checkpoint,
    load_rllib_policy,
    module_for_view,
    policy_from_spec,
    read_rllib_config,
)
from pontoon_env import make_rules
from pontoon_tools.rllib import RayMissingError, require_ray
from agents.rllib_roles import agent_id, module_for_agent, module_ids, parse_agent_id
from pontoon_tools.rllib.trainer import RLlibSettings, RLlibTrainingError, preflight, run_config


def load_script(name: str):
    """A top-level script of the checkout (``train_rllib.py``, ``evaluate.py``) as a module."""
    path = Path(__file__).resolve().parents[1] / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


train_rllib = load_script("train_rllib")


@pytest.fixture
def no_ray(monkeypatch):
    """Make ``import ray`` fail as it does where Ray is not installed."""
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    for name in list(sys.modules):
        if name == "ray" or name.startswith("ray."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(builtins, "__import__", fake_import)


def fake_checkpoint(folder, **changes):
    """A run folder that looks like train_rllib.py's (config.json + checkpoint/rllib_checkpoint.json)."""
    config = run_config(RLlibSettings(seats=3))
    config.update(changes)
    (folder / "checkpoint").mkdir(parents=True)
    (folder / "checkpoint" / "rllib_checkpoint.json").write_text("{}")
    (folder / "config.json").write_text(json.dumps(config))
    return folder


# ------------------------------------------------------------------------------ agent ids


def test_agent_ids_carry_the_role_and_map_to_role_policies():
    assert agent_id("banker", 2) == "banker_2" and parse_agent_id("player_3") == ("player", 3)
    assert module_for_agent("banker_2") == "banker" and module_for_agent("player_0") == "player"
    assert module_for_agent("banker_2", "per_seat") == "banker"
    assert module_for_agent("player_3", "per_seat") == "player_seat_3"
    assert module_ids("shared", 3) == ["banker", "player"]
    assert module_ids("per_seat", 2) == ["banker", "player_seat_0", "player_seat_1", "player_seat_2"]
    with pytest.raises(ValueError, match="expected 'banker_<seat>' or 'player_<seat>', got 'seat_1'"):
        parse_agent_id("seat_1")
    with pytest.raises(ValueError, match="policies: expected one of"):
        module_for_agent("player_1", "per_role")


def test_the_policy_adapter_picks_the_module_by_what_the_seat_sees():
    class View:
        def __init__(self, seat, is_banker):
            self.seat, self.is_banker = seat, is_banker

    assert module_for_view(View(2, True), "shared") == "banker"
    assert module_for_view(View(2, False), "shared") == "player"
    assert module_for_view(View(2, False), "per_seat") == "player_seat_2"


# ------------------------------------------------------------------------------ checkpoints


def test_checkpoint_detection_needs_no_ray(tmp_path, no_ray):
    run = fake_checkpoint(tmp_path / "run")
    assert is_rllib_checkpoint(run) and is_rllib_checkpoint(run / "checkpoint")
    assert not is_rllib_checkpoint(tmp_path) and not is_rllib_checkpoint(tmp_path / "missing")
    assert not is_rllib_checkpoint("runs/pagat-player/model.zip")
    assert policy_from_spec("threshold", "pagat") is None
    assert read_rllib_config(run)["modules"] == ["banker", "player"]


def test_missing_or_foreign_checkpoints_say_what_was_expected(tmp_path):
    with pytest.raises(RLlibCheckpointError, match=r"does not exist: expected a train_rllib.py run folder"):
        load_rllib_policy(tmp_path / "missing", "pagat", 3)
    with pytest.raises(RLlibCheckpointError, match=r"is not an RLlib checkpoint: expected .*rllib_checkpoint.json"):
        load_rllib_policy(tmp_path, "pagat", 3)
    sb3 = fake_checkpoint(tmp_path / "sb3", backend=None)
    with pytest.raises(RLlibCheckpointError, match=r"expected backend 'rllib' \(written by train_rllib.py\), got None"):
        load_rllib_policy(sb3, "pagat", 3)
    bare = tmp_path / "bare"
    (bare / "checkpoint").mkdir(parents=True)
    (bare / "checkpoint" / "rllib_checkpoint.json").write_text("{}")
    with pytest.raises(RLlibCheckpointError, match=r"has no config.json \(inside or beside it\)"):
        load_rllib_policy(bare, "pagat", 3)


def test_mismatched_checkpoints_name_preset_table_size_and_action_layout(tmp_path):
    config = read_rllib_config(fake_checkpoint(tmp_path / "run"))
    pagat = make_rules("pagat")
    check_compatible(config, pagat, 3, "run")  # the table it was trained for
    with pytest.raises(RLlibCheckpointError, match=r"trained for preset 'pagat', but the table plays 'casino'"):
        check_compatible(config, make_rules("casino"), 3, "run")
    with pytest.raises(RLlibCheckpointError, match=r"trained at a table of 3 players, but this table has 5"):
        check_compatible(config, pagat, 5, "run")
    with pytest.raises(RLlibCheckpointError, match=r"chooses among 32 actions .* this table's action layout .* 31"):
        check_compatible({**config, "action_levels": {"stake": [1, 10, 5]}}, pagat, 3, "run")
    with pytest.raises(RLlibCheckpointError, match=r"observes 5 values, but a 'pagat' table of 3 players gives"):
        check_compatible({**config, "obs_size": 5}, pagat, 3, "run")
    # The same checks stand before any Ray import in the loader.
    with pytest.raises(RLlibCheckpointError, match="trained for preset 'pagat'"):
        load_rllib_policy(tmp_path / "run", "shoot", 3)


def test_loading_without_ray_names_the_extra(tmp_path, no_ray):
    run = fake_checkpoint(tmp_path / "run")
    with pytest.raises(RayMissingError, match=r"pip install 'pontoon-env\[rllib\]'"):
        load_rllib_policy(run, "pagat", 3)
    with pytest.raises(RayMissingError, match=r"Ray RLlib 2\.60\.0 with torch is required"):
        require_ray()


# ------------------------------------------------------------------------------ the command


def test_training_without_ray_is_one_clear_line(tmp_path, no_ray, capsys):
    assert train_rllib.main(["--out", str(tmp_path / "run"), "--timesteps", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("train_rllib.py: error: Ray RLlib 2.60.0 with torch is required")
    assert "pip install 'pontoon-env[rllib]'" in err[0]
    assert not (tmp_path / "run").exists()  # nothing written before the check


def test_an_unreachable_address_fails_in_seconds_naming_it(tmp_path, capsys):
    started = time.perf_counter()
    assert train_rllib.main(["--address", "127.0.0.1:1", "--out", str(tmp_path / "run")]) == 2
    err = capsys.readouterr().err
    assert time.perf_counter() - started < 10
    assert "--address '127.0.0.1:1': no Ray head node answers there" in err
    assert "expected the address printed by `ray start --head`" in err
    assert not (tmp_path / "run").exists()
    with pytest.raises(RLlibTrainingError, match=r"--address: expected host:port .* got 'head-node'"):
        preflight(RLlibSettings(address="head-node"))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "0"], "--seats: expected an integer in 1..9, got 0"),
        (["--num-env-runners", "-1"], "--num-env-runners: expected an integer >= 0"),
        (["--num-envs-per-env-runner", "0"], "--num-envs-per-env-runner: expected an integer >= 1, got 0"),
        (["--minibatch-size", "9000"], "--minibatch-size: expected an integer in 1..--train-batch-size (4000)"),
        (["--net-arch", "64,x"], "--net-arch: expected comma-separated integers"),
        (["--option", "stick_min"], "--option: expected key=value"),
        (["--rules", "poker"], "poker"),
        (["--address", "127.0.0.1:1", "--num-cpus", "2"], "--num-cpus (2) sizes a local Ray instance"),
    ],
)
def test_bad_settings_are_refused_before_ray_starts(tmp_path, capsys, argv, message):
    assert train_rllib.main([*argv, "--out", str(tmp_path / "run")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


def test_resume_from_a_mismatched_checkpoint_is_refused(tmp_path, capsys):
    run = fake_checkpoint(tmp_path / "old", num_players=4)
    assert train_rllib.main(["--resume", str(run), "--seats", "3", "--out", str(tmp_path / "new")]) == 2
    assert "the checkpoint has num_players=4, this run has 3" in capsys.readouterr().err
    assert train_rllib.main(["--resume", str(tmp_path / "nothing"), "--out", str(tmp_path / "new")]) == 2
    assert "--resume: RLlib checkpoint" in capsys.readouterr().err


def test_train_py_can_forward_to_the_rllib_command(capsys):
    from pontoon_tools.rllib.cli import main

    assert main(["--seats", "0"], prog="train.py --backend rllib") == 2
    assert capsys.readouterr().err.startswith("train.py --backend rllib: error: --seats: expected an integer in 1..9")
