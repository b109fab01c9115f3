"""Checkpoints: one place that finds, reads, checks and loads a trained model and its run config.

Training (``train.py``) saves a Stable-Baselines3 model as ``model.zip`` (or ``step_<N>.zip``) and a
JSON run config beside it (``<stem>.json`` first, else ``config.json`` in the same folder) holding
:meth:`pontoon_env.envs.gymnasium_env.PontoonEnv.checkpoint_config`: the rules, the table size, the
role, the observation and action sizes, the action names and levels (``"action_levels"``), plus the
training settings. Training (resume), :class:`agents.model.ModelPolicy` and the evaluation all go
through :func:`find_checkpoint`, :func:`read_config`, :func:`check_compatible` and
:func:`load_model`, so they agree on where a config lives and what makes a checkpoint fit a table.

:func:`env_kwargs` gives the ``gymnasium.make`` arguments that rebuild the table a model was
trained at, so ``gym.make("Pontoon-v0", **env_kwargs(config))`` always fits the model.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pontoon_env.encoding import LEVEL_FIELDS
from pontoon_env.game.rules import Rules, resolve_rules

MODEL_FILE = "model.zip"
CONFIG_FILE = "config.json"
COMPATIBILITY_KEYS = ("role", "num_players", "obs_size", "n_actions", "action_names")
"""Config entries that must match for a model to play (or resume training) at a table."""
_LEGACY_LEVEL_KEYS = {f"{name}_levels": name for name in LEVEL_FIELDS}
_LEGACY_LEVEL_KEYS["sale_levels"] = "sale"


class CheckpointError(ValueError):
    """A checkpoint that is missing, unreadable, corrupt, or trained for other rules or another table."""


def find_checkpoint(path: str | Path) -> Path:
    """The model file of ``path``: a ``.zip`` (the suffix may be left out) or a run directory.

    Raises:
        CheckpointError: nothing there.
    """
    model_path = Path(path)
    if model_path.is_dir():
        model_path = model_path / MODEL_FILE
    if not model_path.exists() and model_path.with_suffix(".zip").exists():
        model_path = model_path.with_suffix(".zip")
    if not model_path.is_file():
        raise CheckpointError(
            f"checkpoint {str(path)!r} does not exist (expected a model .zip written by train.py, or its run "
            f"directory holding {MODEL_FILE})"
        )
    return model_path


def config_path(path: str | Path) -> Path | None:
    """The run config saved beside a model file, if any (``<stem>.json``, then ``config.json``)."""
    model_path = Path(path)
    for candidate in (model_path.with_suffix(".json"), model_path.parent / CONFIG_FILE):
        if candidate.is_file():
            return candidate
    return None


def read_config(path: str | Path, required: bool = True) -> tuple[Path, dict[str, Any]]:
    """Find a checkpoint and read its run config.

    Returns ``(model file, config)``; older configs' per-kind level keys (``stake_levels`` ...)
    are read into ``"action_levels"``.

    Raises:
        CheckpointError: no model file; no config beside it (when ``required``); unreadable JSON.
    """
    model_path = find_checkpoint(path)
    found = config_path(model_path)
    if found is None:
        if required:
            raise CheckpointError(
                f"checkpoint {str(model_path)!r} has no {CONFIG_FILE} beside it, so its rules, table size and "
                "action layout are unknown; train.py writes one into every run directory"
            )
        return model_path, {}
    try:
        config = json.loads(found.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise CheckpointError(f"run config {str(found)!r} of {str(path)!r} is unreadable: {error}") from error
    if not isinstance(config, dict):
        raise CheckpointError(f"run config {str(found)!r} of {str(path)!r}: expected a JSON object")
    legacy = {_LEGACY_LEVEL_KEYS[key]: config.pop(key) for key in list(config) if key in _LEGACY_LEVEL_KEYS}
    if legacy and "action_levels" not in config:
        config["action_levels"] = legacy
    return model_path, config


def config_rules(config: Mapping[str, Any], label: str) -> Rules | None:
    """The rules a checkpoint was trained under (``None`` if its config does not say).

    Raises:
        CheckpointError: the saved rules are not a valid rule set.
    """
    saved = config.get("rules")
    if saved is None:
        return None
    try:
        return resolve_rules(saved)
    except ValueError as error:
        raise CheckpointError(f"checkpoint {label!r}: its saved rules are invalid: {error}") from error


def check_compatible(label: str | Path, found: Mapping[str, Any], expected: Mapping[str, Any]) -> None:
    """Refuse a checkpoint trained for other rules, another table or another action layout.

    ``expected`` is the config of the table it is to play at (or the run it is to resume); only
    the keys it holds are compared.

    Raises:
        CheckpointError: naming the checkpoint, each differing setting, what was expected and what
            the checkpoint holds.
    """
    differences = []
    if "rules" in expected and "rules" in found:
        trained_rules, wanted_rules = dict(found["rules"]), dict(expected["rules"])
        for option in sorted(set(trained_rules) | set(wanted_rules)):
            if trained_rules.get(option) != wanted_rules.get(option):
                differences.append(
                    f"rules option {option!r}: expected {wanted_rules.get(option)!r}, found {trained_rules.get(option)!r}"
                )
    for key in (*COMPATIBILITY_KEYS, *(key for key in expected if key not in COMPATIBILITY_KEYS and key != "rules")):
        if key in expected and key in found and found[key] != expected[key]:
            wanted, got = expected[key], found[key]
            if key == "action_names":
                wanted, got = f"{len(wanted)} names {wanted}", f"{len(got)} names {got}"
            differences.append(f"{key}: expected {wanted!r}, found {got!r}")
    if differences:
        rules = expected.get("rules", {})
        raise CheckpointError(
            f"checkpoint {str(label)!r} does not fit this table (preset {rules.get('preset')!r}, "
            f"{expected.get('num_players')} players, role {expected.get('role')!r}):\n  - " + "\n  - ".join(differences)
        )


def env_kwargs(config: Mapping[str, Any]) -> dict[str, Any]:
    """The ``gymnasium.make("Pontoon-v0", ...)`` arguments of the table a checkpoint was trained at."""
    kwargs: dict[str, Any] = {
        "rules": dict(config["rules"]),
        "num_players": int(config["num_players"]),
        "role": config.get("role", "player"),
    }
    for key in ("action_levels", "dict_observation", "episode"):
        if config.get(key) is not None:
            kwargs[key] = config[key]
    return kwargs


def load_model(path: str | Path, algo: str | None = None) -> Any:
    """Load a Stable-Baselines3 model: the config's ``algo`` first, then MaskablePPO, PPO, A2C, DQN.

    Raises:
        CheckpointError: stable-baselines3 missing, or a file no loader accepts (truncated, corrupt,
            not a model), with each loader's complaint.
    """
    model_path = find_checkpoint(path)
    if not zipfile.is_zipfile(model_path):
        raise CheckpointError(
            f"checkpoint {str(model_path)!r} is not a readable model archive (truncated or corrupt?); "
            "train again or pick another checkpoint"
        )
    errors = []
    loaders: list[Any] = []
    try:
        from sb3_contrib import MaskablePPO

        loaders.append(MaskablePPO)
    except ImportError:
        pass
    try:
        from stable_baselines3 import A2C, DQN, PPO

        loaders += [PPO, A2C, DQN]
    except ImportError as error:
        raise CheckpointError(
            f"loading {str(model_path)!r} needs stable-baselines3 (pip install 'pontoon-env[train]'): {error}"
        ) from error
    wanted = (algo or "").replace("_", "").lower()  # train.py writes "maskable_ppo", "ppo", "dqn"
    loaders.sort(key=lambda loader: loader.__name__.lower() != wanted)  # stable: the named one first
    for loader in loaders:
        try:
            return loader.load(str(model_path), device="cpu")
        except Exception as error:  # each loader rejects the others' checkpoints in its own way
            errors.append(f"{loader.__name__}: {type(error).__name__}: {error}")
    raise CheckpointError(f"could not load model {str(model_path)!r}: " + "; ".join(errors))
