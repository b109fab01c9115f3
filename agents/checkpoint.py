"""Checkpoints: one place that finds, reads, checks and loads a trained model and its run config.

Training (``train.py``) saves a Stable-Baselines3 model as ``model.zip`` (or ``step_<N>.zip``) and a
JSON run config beside it (``<stem>.json`` first, else ``config.json`` in the same folder) holding
:meth:`pontoon_env.envs.gymnasium_env.PontoonEnv.checkpoint_config`: the rules, the table size, the
role, the observation and action sizes, the action names and levels (``"action_levels"``), plus the
training settings. Training (resume), :class:`agents.model.ModelPolicy` and the evaluation all go
through :func:`find_checkpoint`, :func:`read_config`, :func:`check_compatible` and
:func:`load_model`, so they agree on where a config lives and what makes a checkpoint fit a table:
:func:`table_config` describes a table the way a checkpoint's config does, and
:func:`check_compatible` compares the two and names every difference.

:func:`env_kwargs` gives the ``gymnasium.make`` arguments that rebuild the table a model was
trained at, so ``gym.make("Pontoon-v0", **env_kwargs(config))`` always fits the model (the recipe
with Stable-Baselines3's ``evaluate_policy`` is in docs/training.md).
"""

from __future__ import annotations

import dataclasses
import json
import zipfile
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

from pontoon_env.encoding import LEVEL_FIELDS, ActionLevels, ActionTable, ObservationEncoder
from pontoon_env.game.checks import require_choice, require_int
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.game.rules import Rules, RulesSpec, resolve_rules

MODEL_FILE = "model.zip"
CONFIG_FILE = "config.json"
ROLES = ("player", "banker")
"""The roles a checkpoint is trained for (its config's ``"role"``)."""
COMPATIBILITY_KEYS = ("role", "num_players", "obs_size", "n_actions", "action_names")
"""Config entries that must match for a model to play (or resume training) at a table."""
BANK_MOVEMENT_OPTIONS = ("bank_passing", "bank_sale", "bank_take_over_optional", "first_banker")
"""Rules options that only decide who holds the bank *between* rounds. The environment sets them
itself (it keeps the bank in one seat unless asked to rotate it) and the evaluation plays every
round on a fresh table with a fixed banker, so a model fits a table whatever they are: playing a
model compares the rules without them (resuming its training compares them too)."""
PACK_OPTIONS = ("pack", "cut_card_fraction", "shuffle_after_pontoon")
"""Rules options that only decide how the pack is gathered and shuffled *between* rounds. They
change which cards come, never what a seat sees or may do, and the evaluation deals every round
from a fresh pack: a model trained on a casino shoe plays at a carried-over pack and back."""
PLAY_IGNORED_OPTIONS = BANK_MOVEMENT_OPTIONS + PACK_OPTIONS
"""What :func:`check_compatible` leaves out when a model is only to play (both kinds above)."""
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
    # The ".zip" left out is appended, never put in place of another suffix: "model.v2" means
    # "model.v2.zip" (with_suffix gave "model.zip", another model) and "model.pt" is no model.
    zipped = model_path.with_name(model_path.name + ".zip")
    if not model_path.exists() and not model_path.name.lower().endswith(".zip") and zipped.exists():
        model_path = zipped
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
                "action layout are unknown; train.py writes one into every run directory, and a model saved by "
                "hand gets one from agents.checkpoint.save_checkpoint(model, path, "
                "{**env.unwrapped.checkpoint_config(), 'algo': ...}) with the env it was trained on"
            )
        return model_path, {}
    try:
        config = json.loads(found.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise CheckpointError(f"run config {str(found)!r} of {str(path)!r} is unreadable: {error}") from error
    if not isinstance(config, dict):
        raise CheckpointError(f"run config {str(found)!r} of {str(path)!r}: expected a JSON object")
    _check_values(found, path, config)
    legacy = {_LEGACY_LEVEL_KEYS[key]: config.pop(key) for key in list(config) if key in _LEGACY_LEVEL_KEYS}
    if legacy and "action_levels" not in config:
        config["action_levels"] = legacy
    saved = config.get("rules")
    if saved is not None and not isinstance(saved, Mapping):
        # A config edited by hand may name a preset ("pagat") or carry something else: every
        # reader compares options, so give it the full option dict the table plays, or say what
        # is wrong with it (dict("pagat") would fail with a message about sequences).
        rules = config_rules(config, str(path))
        seats = config.get("num_players")
        try:
            played = table_rules(rules, seats) if isinstance(seats, int) else rules
        except ValueError as error:  # a table size the engine refuses
            raise CheckpointError(f"run config {str(found)!r} of {str(path)!r}: {error}") from error
        config["rules"] = dataclasses.asdict(played)
    return model_path, config


def _check_values(found: Path, path: str | Path, config: Mapping[str, Any]) -> None:
    """Refuse a config (edited by hand) whose table entries are of the wrong kind, naming the file,
    the key, what was expected and what was found; every reader of the config then takes them as
    they are (``"algo": 5`` gave an AttributeError inside the loader, ``"num_players": -1`` an error
    without the file's name)."""
    where = f"run config {str(found)!r} of {str(path)!r}"

    def wrong(key: str, expected: str, value: Any) -> CheckpointError:
        return CheckpointError(f"{where}: {key!r}: expected {expected}, found {value!r} ({type(value).__name__})")

    algo = config.get("algo")
    if algo is not None and not isinstance(algo, str):
        raise wrong("algo", "the name of the algorithm (such as 'maskable_ppo')", algo)
    try:  # the game's argument checks, their message prefixed with the file
        if config.get("role") is not None:
            require_choice("role", config["role"], ROLES)
        if "num_players" in config:
            require_int("num_players", config["num_players"], 1, MAX_PLAYERS)
        for key in ("obs_size", "n_actions"):
            if key in config:
                require_int(key, config[key], 1)
    except ValueError as error:
        raise CheckpointError(f"{where}: {error}") from error
    if config.get("action_levels") is not None:
        try:
            ActionLevels.parse(config["action_levels"])
        except (TypeError, ValueError) as error:  # its message names the entry, what it expects and got
            raise CheckpointError(f"{where}: {error}") from error


def read_run_config(path: str | Path) -> dict[str, Any] | None:
    """The run config of a saved policy of any kind, or ``None`` when there is none to read.

    A Stable-Baselines3 model (``.zip`` or a run directory holding ``model.zip``) is read with
    :func:`read_config`; any other run directory with a ``config.json`` (a ``train_rllib.py`` run)
    gives that file. A missing path, or an unreadable config, gives ``None``: loading the policy
    then reports what is wrong.
    """
    folder = Path(path)
    try:
        return read_config(path, required=False)[1] or None
    except CheckpointError:
        pass
    candidate = folder / CONFIG_FILE
    if folder.is_dir() and candidate.is_file():
        try:
            config = json.loads(candidate.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        return config if isinstance(config, dict) else None
    return None


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


def check_compatible(
    label: str | Path,
    found: Mapping[str, Any],
    expected: Mapping[str, Any],
    ignore: Collection[str] = (),
) -> None:
    """Refuse a checkpoint trained for other rules, another table or another action layout.

    ``expected`` is the config of the table it is to play at (:func:`table_config`) or of the run
    it is to resume; only the keys it holds are compared. ``ignore`` names rules options left out
    of the comparison (:data:`PLAY_IGNORED_OPTIONS` when a model is only to play).

    Raises:
        CheckpointError: naming the checkpoint, each differing setting, what was expected and what
            the checkpoint holds.
    """
    missing = [key for key in ("rules", *COMPATIBILITY_KEYS) if key in expected and key not in found]
    if missing:
        # Without them the checkpoint cannot be checked against the table: it would be accepted
        # unchecked (and fail later, if at all, inside the network with a shape error).
        raise CheckpointError(f"checkpoint {str(label)!r}: its config does not record {', '.join(missing)}, so whether "
                              "it fits this table cannot be checked (train.py writes them into every config)")
    differences = []
    headline = f"checkpoint {str(label)!r} does not fit this table"
    if "rules" in expected and "rules" in found:
        trained_rules, wanted_rules = dict(found["rules"]), dict(expected["rules"])
        options = [option for option in sorted((set(trained_rules) | set(wanted_rules)) - set(ignore))
                   if trained_rules.get(option) != wanted_rules.get(option)]
        trained_preset, wanted_preset = trained_rules.get("preset"), wanted_rules.get("preset")
        if trained_preset != wanted_preset:
            # Another preset differs in many options: name the presets, then the options in one line.
            headline = (f"checkpoint {str(label)!r} was trained for preset {trained_preset!r}, but the table plays "
                        f"{wanted_preset!r}, so it does not fit")
            others = [option for option in options if option != "preset"]
            differences.append(f"rules option 'preset': expected {wanted_preset!r}, found {trained_preset!r}"
                               + (f" ({len(others)} more options differ: {', '.join(others)})" if others else ""))
        else:
            differences += [f"rules option {option!r}: expected {wanted_rules.get(option)!r}, "
                            f"found {trained_rules.get(option)!r}" for option in options]
    for key in (*COMPATIBILITY_KEYS, *(key for key in expected if key not in COMPATIBILITY_KEYS and key != "rules")):
        if key in expected and key in found and found[key] != expected[key]:
            wanted, got = expected[key], found[key]
            if key == "action_names":
                wanted, got = f"{len(wanted)} names {wanted}", f"{len(got)} names {got}"
            differences.append(f"{key}: expected {wanted!r}, found {got!r}")
    if differences:
        rules = expected.get("rules", {})
        table = [f"preset {rules.get('preset')!r}"] if rules else []
        if expected.get("num_players") is not None:
            players = int(expected["num_players"])
            table.append(f"{players} player{'' if players == 1 else 's'}")
        if expected.get("role") is not None:
            table.append(f"role {expected['role']!r}")
        where = f" (this table: {', '.join(table)})" if table else ""
        raise CheckpointError(f"{headline}{where}:\n  - " + "\n  - ".join(differences))


def config_file_for(model_path: str | Path) -> Path:
    """Where the run config of a model file goes: ``config.json`` beside a run's ``model.zip``,
    ``<stem>.json`` beside any other model file (``checkpoints/step_N.json``), as
    :func:`config_path` looks for them."""
    model_path = Path(model_path)
    return model_path.parent / CONFIG_FILE if model_path.name == MODEL_FILE else model_path.with_suffix(".json")


def save_checkpoint(model: Any, path: str | Path, config: Mapping[str, Any]) -> Path:
    """Save a model and its run config where :func:`read_config` will find them; return the model file."""
    model_path = Path(path)
    model_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(model_path))
    config_file_for(model_path).write_text(json.dumps(config, indent=2, default=_jsonable) + "\n")
    return model_path


def _jsonable(value: Any) -> Any:
    """numpy numbers as Python numbers, anything else as its text (configs stay plain JSON)."""
    for method in ("tolist", "item"):  # numpy arrays and numbers
        convert = getattr(value, method, None)
        if callable(convert):
            return convert()
    return str(value)


def table_rules(rules: RulesSpec, num_players: int) -> Rules:
    """The rules a table of ``num_players`` really plays: the engine adds a second deck above seven
    players (D18), and a checkpoint's config records the rules after that change."""
    return PontoonGame(resolve_rules(rules), num_players, seed=0, banker=0).rules


def action_levels(config: Mapping[str, Any]) -> ActionLevels:
    """The action levels a checkpoint was trained with (the defaults when its config has none)."""
    return ActionLevels.parse(config.get("action_levels"))


def table_config(
    rules: RulesSpec, num_players: int, levels: ActionLevels | None = None, role: str | None = None
) -> dict[str, Any]:
    """A table described as a checkpoint's config describes the table it was trained at: the rules
    it really plays, its size, the observation and action sizes and the action names (and the
    role of the seat, when given). :func:`check_compatible` compares the two."""
    played = table_rules(rules, num_players)
    table = ActionTable(played, levels)
    config: dict[str, Any] = {
        "rules": dataclasses.asdict(played),
        "num_players": int(num_players),
        "obs_size": ObservationEncoder(played, num_players + 1).size,
        "n_actions": table.n,
        "action_names": list(table.names),
    }
    if role is not None:
        config["role"] = role
    return config


def config_opponent(spec: Any) -> str:
    """An opponent as a run config records it (``"opponents"``, which :func:`env_kwargs` gives
    back): a saved policy (a checkpoint file or a run folder) by its absolute path, so the table is
    rebuilt from any folder (a relative ``run/model.zip`` named another file, or none, elsewhere);
    a registry spec (``threshold:stick=16``) as it was given."""
    from agents.registry import REGISTRY  # the registry imports the scripted policies: only when asked

    text = str(spec)
    if not text.strip() or text.partition(":")[0].strip().lower() in REGISTRY:
        return text  # make_policy reads a registry name first, whatever the folder holds
    path = Path(text).expanduser()
    return str(path.resolve()) if path.exists() else text


def env_kwargs(config: Mapping[str, Any]) -> dict[str, Any]:
    """The ``gymnasium.make("Pontoon-v0", ...)`` arguments of the table a checkpoint was trained at:
    its rules, size, role, action levels and observation form, and the opponents, learner seat and
    episode it was trained with (where its config records them). A checkpoint opponent is recorded
    by its absolute path (:func:`config_opponent`); a config written before that holds the path as
    it was typed, relative to the folder training ran in."""
    kwargs: dict[str, Any] = {
        "rules": dict(config["rules"]),
        "num_players": int(config["num_players"]),
        "role": config.get("role", "player"),
        "action_levels": action_levels(config),
    }
    for key in ("dict_observation", "episode", "learner_seat"):
        if config.get(key) is not None:
            kwargs[key] = config[key]
    if kwargs.get("episode") == "session" and config.get("session_rounds") is not None:
        kwargs["session_rounds"] = int(config["session_rounds"])
    opponents = config.get("opponents")
    if isinstance(opponents, Mapping) and opponents:  # train.py writes "registry defaults" otherwise
        kwargs["opponents"] = dict(opponents)
    return kwargs


def _archive_problem(model_path: Path) -> str:
    """What is wrong with a model archive, or ``""``. ``zipfile.is_zipfile`` is not enough: a
    model holds zip-format torch files, so half an archive still "is" a zip (the inner one's)."""
    try:
        with zipfile.ZipFile(model_path) as archive:
            if "data" not in archive.namelist():
                return "no Stable-Baselines3 'data' entry"
            broken = archive.testzip()
            if broken is not None:
                return f"entry {broken!r} fails its checksum"
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as error:
        return f"{type(error).__name__}: {error}"
    return ""


def load_model(path: str | Path, algo: str | None = None, *, env: Any = None, **load_kwargs: Any) -> Any:
    """Load a Stable-Baselines3 model: with the config's ``algo``, else trying MaskablePPO, PPO, A2C, DQN.

    ``env`` and ``load_kwargs`` (``tensorboard_log`` ...) go to the loader's ``load``: training
    resumes a model with its new environments this way.

    Raises:
        CheckpointError: stable-baselines3 missing, or a file no loader accepts (truncated, corrupt,
            not a model), with each loader's complaint.
    """
    model_path = find_checkpoint(path)
    problem = _archive_problem(model_path)
    if problem:
        raise CheckpointError(
            f"checkpoint {str(model_path)!r} is not a readable model archive ({problem}: truncated or corrupt?); "
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
    named = [loader for loader in loaders if loader.__name__.lower() == wanted]
    # A config that names the algorithm leaves one loader to try, so a failure (a truncated
    # archive, an environment that does not fit) gets that loader's complaint alone.
    for loader in named or loaders:
        try:
            return loader.load(str(model_path), env=env, device="cpu", **load_kwargs)
        except Exception as error:  # each loader rejects the others' checkpoints in its own way
            errors.append(f"{loader.__name__}: {type(error).__name__}: {error}")
    tried = f" as {named[0].__name__} (its config's algo {algo!r})" if named else ""
    raise CheckpointError(f"could not load model {str(model_path)!r}{tried}: " + "; ".join(errors))
