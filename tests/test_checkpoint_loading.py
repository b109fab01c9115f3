"""Loading a checkpoint checks it: where its opponents are, its config's entries, the role of the
seat it takes, the file a path names, and the arguments of the policy that plays it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from test_evaluate import tiny_models  # noqa: F401 - a player and a banker for two players, trained once

import pontoon_env  # noqa: F401 - registers the environments
from agents.banker_belief import BeliefTable
from agents.checkpoint import CheckpointError, config_opponent, env_kwargs, find_checkpoint, read_config
from agents.model import ModelPolicy, load_checkpoint
from agents.registry import PolicySpecError, make_policy
from pontoon_env.game.hands import HandClass, HandResult
from pontoon_env.game.observation import HIDDEN, HandView
from pontoon_env.game.rules import make_rules


def _rules(model: Path) -> dict:
    """The rules a tiny model was trained under (the table it fits)."""
    return read_config(model)[1]["rules"]


def _copy(model: Path, folder: Path, config: object) -> Path:
    """``model`` copied into ``folder`` as ``model.zip`` with ``config`` (edited) as its config.json."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(model, folder / "model.zip")
    (folder / "config.json").write_text(json.dumps(config))
    return folder / "model.zip"


def _play(env: gym.Env, steps: int) -> None:
    env.reset(seed=0)
    for _ in range(steps):
        action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            env.reset()


# -------------------------------------------------------------- 1. a checkpoint opponent's path


def test_a_checkpoint_opponent_is_recorded_by_its_absolute_path(tiny_models, tmp_path, monkeypatch) -> None:
    # Before: config.json kept "runs/player/model.zip" as typed, so from another folder the table
    # of env_kwargs(config) could not be built (PolicySpecError), or another file of that name loaded.
    import torch

    from pontoon_tools.training import Trainer, TrainSettings

    torch.set_num_threads(1)
    shutil.copytree(tiny_models["player"].parent, tmp_path / "runs" / "player")
    monkeypatch.chdir(tmp_path)
    settings = TrainSettings(role="banker", timesteps=64, seats=2, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                             eval_rounds=0, progress=False, net_arch=[8], warm_start="none",
                             opponents=["runs/player/model.zip"], out="runs/banker")
    Trainer(settings, "banker", Path("runs/banker")).run()
    config = json.loads((tmp_path / "runs" / "banker" / "config.json").read_text())
    recorded = config["opponents"]["players"]
    assert recorded == str((tmp_path / "runs" / "player" / "model.zip").resolve())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    env = gym.make("Pontoon-v0", **env_kwargs(read_config(tmp_path / "runs" / "banker")[1]))
    assert isinstance(env.unwrapped.opponents.policy(1, banker=False), ModelPolicy)
    _play(env, 20)


def test_scripted_opponents_stay_as_given_and_old_relative_configs_still_read(tiny_models, tmp_path) -> None:
    for spec in ("threshold:stick=16", "banker_threshold:stand=16", "random"):
        assert config_opponent(spec) == spec
    assert config_opponent(str(tiny_models["player"])) == str(tiny_models["player"].resolve())
    # A config written before keeps its path as typed: it is still read, and the path given back.
    found = read_config(tiny_models["banker"])[1]
    old = _copy(tiny_models["banker"], tmp_path / "old", {**found, "opponents": {"players": "runs/p/model.zip"}})
    assert env_kwargs(read_config(old)[1])["opponents"] == {"players": "runs/p/model.zip"}


# ------------------------------------------------------------------ 2. a config that records nothing


def test_an_empty_run_config_is_refused_naming_it(tiny_models, tmp_path) -> None:
    # Before: a config.json of {} was taken as "no config", and the model loaded for any rules,
    # any table size and any role.
    model = _copy(tiny_models["player"], tmp_path / "empty", {})
    with pytest.raises(CheckpointError, match=r"run config '.*empty/config\.json' of checkpoint .* is empty"):
        load_checkpoint(model, "casino", 5)
    with pytest.raises(CheckpointError, match="is empty"):
        load_checkpoint(model)
    with pytest.raises(PolicySpecError, match=r"empty/config\.json.*is empty"):
        make_policy(str(model), "pagat")


def test_a_model_without_a_run_config_is_refused_naming_what_is_missing(tiny_models, tmp_path) -> None:
    # Before: a model.zip copied away from its config.json loaded unchecked, and a pagat player
    # model played pontoon_2011 or sat in the bank through evaluate.py.
    bare = tmp_path / "bare" / "noconf.zip"
    bare.parent.mkdir()
    shutil.copy(tiny_models["player"], bare)
    with pytest.raises(CheckpointError, match=r"noconf\.zip' has no config\.json beside it.*save_checkpoint"):
        load_checkpoint(bare, "pontoon_2011", 1)
    with pytest.raises(CheckpointError, match="has no config.json beside it"):
        ModelPolicy(bare, "pagat", 2)
    with pytest.raises(PolicySpecError, match="has no config.json beside it"):
        make_policy(str(bare), "pagat")


# --------------------------------------------------------------- 3. a model in a seat of the other role


def test_a_model_of_the_other_role_is_refused_where_it_is_seated(tiny_models) -> None:
    # Before: both tables played on, a player model deciding for the banker and the reverse;
    # evaluate.py already refused them ("role: expected 'banker', found 'player'").
    player, banker = tiny_models["player"], tiny_models["banker"]
    rules = _rules(player)
    # The environment knows the role of its "banker" and "players" opponents: refused by gym.make.
    with pytest.raises(ValueError, match="role: expected 'banker', found 'player'"):
        gym.make("Pontoon-v0", rules=rules, num_players=2, opponents={"banker": str(player)})
    with pytest.raises(ValueError, match="role: expected 'player', found 'banker'"):
        gym.make("PontoonBanker-v0", rules=_rules(banker), num_players=2, opponents=str(banker))
    # A seat's own model may play both roles when the bank moves: refused at a decision of the other role.
    table = gym.make("Pontoon-v0", rules=rules, num_players=2, opponents={0: str(player)})
    with pytest.raises(CheckpointError, match="role: expected 'banker', found 'player'"):
        _play(table, 50)
    # Where the seat's role is known when the model is seated, it is refused there.
    with pytest.raises(CheckpointError, match="role: expected 'banker', found 'player'"):
        ModelPolicy(player, rules, 2, role="banker")
    with pytest.raises(PolicySpecError, match="role: expected 'player', found 'banker'"):
        make_policy(str(banker), _rules(banker), num_players=2, role="player")
    with pytest.raises(CheckpointError, match="role: expected 'banker', found 'player'"):
        load_checkpoint(player, role="banker")
    # In its own role it plays on.
    assert ModelPolicy(banker, _rules(banker), 2, role="banker").role == "banker"
    _play(gym.make("PontoonBanker-v0", rules=rules, num_players=2, opponents=str(player)), 50)


# --------------------------------------------------------------------- 5. the file a path names


def test_a_path_without_zip_gets_zip_appended_not_put_in_place_of_its_suffix(tmp_path) -> None:
    # Before: with_suffix(".zip") made "model.v2" load model.zip, and "model.pt" model.zip too.
    for name in ("model.zip", "model.v2.zip"):
        (tmp_path / name).write_bytes(b"a model")
    assert find_checkpoint(tmp_path / "model.v2") == tmp_path / "model.v2.zip"
    assert find_checkpoint(tmp_path / "model") == tmp_path / "model.zip"
    assert find_checkpoint(tmp_path / "model.zip") == tmp_path / "model.zip"
    assert find_checkpoint(tmp_path) == tmp_path / "model.zip"
    with pytest.raises(CheckpointError, match=r"'.*model\.pt' does not exist"):
        find_checkpoint(tmp_path / "model.pt")


# ------------------------------------------------------------------------ 7. configs edited by hand


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("algo", 5, r"'algo': expected the name of the algorithm .*found 5 \(int\)"),
        ("action_levels", {"stake": "x"}, r"action_levels\['stake'\]: expected a list of levels .*got 'x'"),
        ("num_players", -1, r"num_players: expected an integer in 1\.\.9, got -1"),
        ("num_players", "2", r"num_players: expected an integer in 1\.\.9, got '2' \(str\)"),
        ("num_players", 2.0, r"num_players: expected an integer in 1\.\.9, got 2\.0 \(float\)"),
        ("role", "dealer", r"role: expected one of \['player', 'banker'\], got 'dealer'"),
    ],
)
def test_a_hand_edited_config_is_refused_naming_the_file_and_the_key(tiny_models, tmp_path, key, value,
                                                                      message) -> None:
    # Before: "algo": 5 gave AttributeError ('int' object has no attribute 'replace') from the
    # loader; the others errors without the file's name, or (2.0) nothing at all.
    found = read_config(tiny_models["player"])[1]
    model = _copy(tiny_models["player"], tmp_path / "edited", {**found, key: value})
    where = r"run config '.*edited/config\.json' of '.*edited/model\.zip': "
    with pytest.raises(CheckpointError, match=where + message):
        load_checkpoint(model, found["rules"])
    with pytest.raises(PolicySpecError, match=where + message):
        make_policy(str(model), found["rules"])


def _belief(tmp_path: Path, **changes: object) -> Path:
    table = BeliefTable(make_rules("pagat"))
    table.add(HandView((HIDDEN, HIDDEN, 24), 1, 1, 0, 0, True, False, False, 0, True, False, False),
              HandResult(HandClass.TOTAL, 17))
    data = table.to_json()
    for key, value in changes.items():
        data[key] = value(data) if callable(value) else value
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "belief.json").write_text(json.dumps(data))
    return tmp_path


def test_a_hand_edited_belief_table_is_refused_naming_the_file_and_the_key(tmp_path) -> None:
    # Before: "options": [1] gave AttributeError ('list' object has no attribute 'items'), and a
    # negative count was read as it was.
    assert BeliefTable.load(_belief(tmp_path / "good") / "belief.json", "pagat").hands == 1
    folder = _belief(tmp_path / "options", options=[1])
    with pytest.raises(ValueError, match=r"options/belief\.json': 'options': expected a JSON object .*found \[1\] "
                                         r"\(list\)"):
        BeliefTable.load(folder / "belief.json")
    with pytest.raises(PolicySpecError, match="'options': expected a JSON object"):
        make_policy(str(folder), "pagat")

    def negative(data: dict) -> dict:
        return {name: [[key, [[row, -5] for row, _ in rows]] for key, rows in level]
                for name, level in data["counts"].items()}

    folder = _belief(tmp_path / "negative", counts=negative)
    with pytest.raises(ValueError, match=r"negative/belief\.json': 'counts' of level .* \(hands\): expected an "
                                         r"integer >= 0, got -5"):
        BeliefTable.load(folder / "belief.json")


# ------------------------------------------------------------------ 8. ModelPolicy's own arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"deterministic": "no"}, r"deterministic: expected True or False, got 'no' \(str\)"),
        ({"deterministic": 0}, r"deterministic: expected True or False, got 0 \(int\)"),
        ({"num_players": "2"}, r"num_players: expected an integer in 1\.\.9, got '2' \(str\)"),
        ({"num_players": True}, r"num_players: expected an integer in 1\.\.9, got True \(bool\)"),
        ({"num_players": 2.0}, r"num_players: expected an integer in 1\.\.9, got 2\.0 \(float\)"),
        ({"role": "dealer"}, r"role: expected one of \['player', 'banker'\], got 'dealer'"),
    ],
)
def test_model_policy_refuses_arguments_of_the_wrong_kind(tiny_models, kwargs, message) -> None:
    # Before: "no" was truthy (greedy play), and "2", True and 2.0 passed for a table size.
    with pytest.raises(ValueError, match=message):
        ModelPolicy(tiny_models["player"], _rules(tiny_models["player"]), **kwargs)


def test_model_policy_keeps_its_arguments_of_the_right_kind(tiny_models) -> None:
    policy = ModelPolicy(tiny_models["player"], _rules(tiny_models["player"]), np.int64(2), deterministic=False)
    assert policy.num_players == 2 and type(policy.num_players) is int and policy.deterministic is False


# ------------------------------------------------------------- 9. parameters after a checkpoint path


def test_a_checkpoint_with_parameters_is_refused_as_taking_none(tiny_models) -> None:
    # Before: "unknown policy '<path>'" of a file that is there.
    spec = f"{tiny_models['player']}:stick=16"
    with pytest.raises(PolicySpecError, match=r"is a model checkpoint, and a checkpoint takes no parameters "
                                              r"\(got 'stick=16'\)"):
        make_policy(spec, _rules(tiny_models["player"]))
    with pytest.raises(PolicySpecError, match="unknown policy 'no_such_policy'"):
        make_policy("no_such_policy:stick=16", "pagat")
