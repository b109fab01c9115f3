"""A Ray RLlib checkpoint (``train_rllib.py``) as a :class:`agents.base.Policy` in any seat.

``train_rllib.py`` trains a banker policy and player policies at once and saves a run folder::

    runs/<name>/config.json        rules, table size, action layout, policies, versions
    runs/<name>/checkpoint/        the RLlib algorithm checkpoint (with a copy of config.json)
    runs/<name>/checkpoints/iter_N/  periodic checkpoints, each with its config.json

Any of ``runs/<name>``, ``runs/<name>/checkpoint`` or ``runs/<name>/checkpoints/iter_N`` names a
checkpoint (:func:`is_rllib_checkpoint`). :func:`load_rllib_policy` reads only the RLModules
(no Ray cluster is started) and returns an :class:`RLlibPolicy`, which decides with the banker
module whenever its seat banks and with the player module otherwise, so one checkpoint can sit
in every seat of a table, like an SB3 ``model.zip`` through :class:`agents.model.ModelPolicy`.
The view is encoded by the same :class:`~pontoon_env.encoding.ObservationEncoder` and the legal
actions by the same :class:`~pontoon_env.encoding.ActionTable` (with the run's levels) as in
training, so the module sees exactly what it saw there.

This module imports Ray only when a checkpoint is loaded: :func:`is_rllib_checkpoint` works
without it, and loading without it raises
:class:`~agents.rllib_support.RayMissingError` naming the extra to install.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.rllib_roles import agent_id, module_for_agent
from pontoon_env.encoding import ActionTable, ObservationEncoder
from pontoon_env.game.actions import Action, LegalAction
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import Rules, make_rules, resolve_rules

CONFIG_NAME = "config.json"
CHECKPOINT_DIR = "checkpoint"
RLLIB_MARKER = "rllib_checkpoint.json"
"""The file RLlib writes at the top of every algorithm checkpoint."""
MODULE_DIR = ("learner_group", "learner", "rl_module")
"""Where an algorithm checkpoint keeps its RLModules, one folder per module id."""
EXPECTED = (
    "a train_rllib.py run folder (config.json and checkpoint/) or an RLlib checkpoint folder "
    "(rllib_checkpoint.json and config.json)"
)


class RLlibCheckpointError(ValueError):
    """An RLlib checkpoint that is missing, unreadable, or made for another preset, table size, rules
    options or action layout."""


def _checkpoint_dir(path: str | Path) -> Path | None:
    """The algorithm checkpoint folder ``path`` names (a run folder or the checkpoint itself), if any."""
    folder = Path(path)
    if (folder / RLLIB_MARKER).is_file():
        return folder
    if (folder / CHECKPOINT_DIR / RLLIB_MARKER).is_file():
        return folder / CHECKPOINT_DIR
    return None


def is_rllib_checkpoint(path: str | Path) -> bool:
    """True when ``path`` is a ``train_rllib.py`` run folder or an RLlib checkpoint folder.

    Cheap and Ray-free (it only looks for files), so a policy registry can ask it about every
    spec before trying the SB3 loader.
    """
    try:
        return _checkpoint_dir(path) is not None
    except (OSError, TypeError, ValueError):
        return False


REQUIRED_KEYS = ("rules", "num_players", "modules")
"""What every reader of an RLlib run config indexes (loading in a seat, ``--resume``)."""


def read_rllib_config(path: str | Path) -> dict[str, Any]:
    """The run config of an RLlib checkpoint (``config.json`` in the checkpoint, else beside it).

    Raises:
        RLlibCheckpointError: no checkpoint at ``path``, or no readable RLlib run config.
    """
    checkpoint = _checkpoint_dir(path)
    if checkpoint is None:
        state = "does not exist" if not Path(path).exists() else "is not an RLlib checkpoint"
        raise RLlibCheckpointError(f"RLlib checkpoint {str(path)!r} {state}: expected {EXPECTED}")
    for candidate in (checkpoint / CONFIG_NAME, checkpoint.parent / CONFIG_NAME):
        if candidate.is_file():
            try:
                config = json.loads(candidate.read_text())
            except (OSError, json.JSONDecodeError) as error:
                raise RLlibCheckpointError(f"run config {str(candidate)!r} is unreadable: {error}") from error
            if config.get("backend") != "rllib":
                raise RLlibCheckpointError(
                    f"run config {str(candidate)!r}: expected backend 'rllib' (written by train_rllib.py), "
                    f"got {config.get('backend')!r}"
                )
            # Loading and resuming index these keys; without them the error would be a bare KeyError.
            missing = [key for key in REQUIRED_KEYS if key not in config]
            if missing:
                raise RLlibCheckpointError(
                    f"run config {str(candidate)!r}: expected the keys {list(REQUIRED_KEYS)} (written by "
                    f"train_rllib.py), got none for {missing}"
                )
            return config
    raise RLlibCheckpointError(
        f"RLlib checkpoint {str(path)!r} has no {CONFIG_NAME} (inside or beside it): expected {EXPECTED}"
    )


def check_compatible(config: Mapping[str, Any], rules: Rules, num_players: int | None, label: str) -> None:
    """Refuse a checkpoint trained for another preset, table size, rules options or action layout than
    this table's.

    The rules options are compared as a ``.zip`` model's are (:func:`agents.model.check_fits`):
    every option but those that only decide who holds the bank and how the pack is gathered between
    rounds (:data:`agents.checkpoint.PLAY_IGNORED_OPTIONS`), so a checkpoint trained with
    ``stick_min=15`` is not played, under its name, at a table of ``stick_min=16``.

    Raises:
        RLlibCheckpointError: naming what the checkpoint was trained for and what the table is.
    """
    trained = (config.get("rules") or {}).get("preset")
    if trained is not None and trained != rules.preset:
        raise RLlibCheckpointError(
            f"RLlib checkpoint {label!r} was trained for preset {trained!r}, but the table plays "
            f"{rules.preset!r}; train for this preset or choose another checkpoint"
        )
    trained_players = config.get("num_players")
    if num_players is not None and trained_players is not None and int(trained_players) != int(num_players):
        raise RLlibCheckpointError(
            f"RLlib checkpoint {label!r} was trained at a table of {trained_players} players, but this table has "
            f"{num_players}; its observation covers exactly {trained_players} other seats"
        )
    _check_rules_options(config, rules, num_players, label)
    names = ActionTable(rules, config.get("action_levels")).names
    saved = config.get("action_names")
    if saved is not None and list(saved) != list(names):
        raise RLlibCheckpointError(
            f"RLlib checkpoint {label!r} chooses among {len(saved)} actions {saved[:6]}..., but this table's action "
            f"layout with its levels is {len(names)} actions {names[:6]}... (other rules options or levels?)"
        )
    players = int(num_players if num_players is not None else trained_players)
    size = ObservationEncoder(rules, players + 1).size
    if config.get("obs_size") is not None and int(config["obs_size"]) != size:
        raise RLlibCheckpointError(
            f"RLlib checkpoint {label!r} observes {config['obs_size']} values, but a {rules.preset!r} table of "
            f"{players} players gives {size} (other rules options?)"
        )


def _check_rules_options(config: Mapping[str, Any], rules: Rules, num_players: int | None, label: str) -> None:
    """Refuse a checkpoint whose saved rules differ from the table's in any option that matters to
    a policy that plays, through the check a ``.zip`` model goes through
    (:func:`agents.model.check_fits`, :func:`agents.checkpoint.check_compatible`): one message
    names the checkpoint and, for each option, the table's value and the checkpoint's.

    The preset and the table size are checked before (with their own messages); the action layout
    and observation size after. Ray-free: a refusal comes before any module is loaded.

    Raises:
        RLlibCheckpointError: the message of :func:`agents.checkpoint.check_compatible`.
    """
    from agents.checkpoint import PLAY_IGNORED_OPTIONS, CheckpointError, table_rules
    from agents.checkpoint import check_compatible as check_table
    from agents.model import check_fits

    saved = config.get("rules")
    if not isinstance(saved, Mapping):
        return  # nothing to compare (the preset check above has read what there is)
    try:
        if num_players is None:
            # Without a size only the rules are compared, without the deck count (it follows the size).
            check_fits(label, {"rules": dict(saved)}, rules, None)
        else:
            # Only the rules (and the size, already found equal, for the message's "this table"):
            # the action layout and observation size are checked after this, with their own messages.
            players = int(num_players)
            expected = {"rules": dataclasses.asdict(table_rules(rules, players)), "num_players": players}
            found = {"rules": dict(saved), "num_players": players}
            check_table(label, found, expected, ignore=PLAY_IGNORED_OPTIONS)
    except CheckpointError as error:
        raise RLlibCheckpointError(str(error)) from None


def module_for_view(view: SeatView, policies: str) -> str:
    """The module that decides for ``view``'s seat now: the banker's, else the (shared or seat's) player's
    (:func:`agents.rllib_roles.module_for_agent`, the mapping training uses)."""
    return module_for_agent(agent_id("banker" if view.is_banker else "player", view.seat), policies)


class RLlibPolicy:
    """RLlib PPO modules (a banker module and player modules) playing through the :class:`Policy` interface.

    Args:
        modules: RLModule id → module, as :func:`load_rllib_policy` or a live algorithm gives them.
        rules: the rules of the table.
        num_players: player seats at the table (fixes the observation size).
        policies: ``"shared"`` (one player module) or ``"per_seat"`` (``player_seat_<k>``).
        action_levels: the action levels used in training (a dict such as ``{"stake": [1, 5, 10]}``).
        deterministic: take the most likely legal action (default), else sample with ``rng``.
        name: the label in reports.

    Raises:
        RLlibCheckpointError: a module is missing for a role, or a module's action count does not
            fit the action table.
    """

    role = "any"

    def __init__(
        self,
        modules: Mapping[str, Any],
        rules: Rules | str,
        num_players: int,
        *,
        policies: str = "shared",
        deterministic: bool = True,
        name: str = "rllib",
        action_levels: Mapping[str, Any] | None = None,
    ) -> None:
        import torch

        self._torch = torch
        self.rules = make_rules(rules) if isinstance(rules, str) else rules
        self.num_players = int(num_players)
        self.policies = policies
        self.deterministic = deterministic
        self.name = name
        self.table = ActionTable(self.rules, action_levels)
        self.encoder = ObservationEncoder(self.rules, self.num_players + 1)
        self.modules = dict(modules)
        needed = {"banker"} | (
            {"player"} if policies == "shared" else {f"player_seat_{s}" for s in range(self.num_players + 1)}
        )
        missing = sorted(needed - set(self.modules))
        if missing:
            raise RLlibCheckpointError(
                f"RLlib policy {name!r} ({policies} policies): expected modules {sorted(needed)}, missing {missing}"
            )
        for module_id, module in self.modules.items():
            n = getattr(getattr(module, "action_space", None), "n", None)
            if n is not None and int(n) != self.table.n:
                raise RLlibCheckpointError(
                    f"RLlib module {module_id!r} of {name!r} chooses among {int(n)} actions but this table has "
                    f"{self.table.n} (another action layout)"
                )
            if hasattr(module, "eval"):
                module.eval()

    def action_logits(self, view: SeatView, mask: np.ndarray) -> np.ndarray:
        """The masked logits of the module deciding for ``view`` (illegal ids near RLlib's FLOAT_MIN)."""
        torch = self._torch
        module = self.modules[module_for_view(view, self.policies)]
        obs = {
            "observations": torch.from_numpy(self.encoder.encode(view)[None, :]),
            "action_mask": torch.from_numpy(mask.astype(np.float32)[None, :]),
        }
        with torch.no_grad():
            out = module.forward_inference({"obs": obs})
        return out["action_dist_inputs"][0].cpu().numpy()

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        if len(view.balances) != self.encoder.num_seats:
            raise RLlibCheckpointError(
                f"RLlib policy {self.name!r} was trained at a table of {self.num_players} players, but this table has "
                f"{len(view.balances) - 1}; its observation covers exactly {self.num_players} other seats"
            )
        mask = self.table.mask(legal)
        if not mask.any():
            raise ValueError(f"RLlib policy {self.name!r}: no legal action to choose from")
        logits = np.where(mask, self.action_logits(view, mask).astype(np.float64), -np.inf)
        if self.deterministic:
            index = int(np.argmax(logits))
        else:
            probs = np.exp(logits - logits.max())
            index = int(rng.choice(self.table.n, p=probs / probs.sum()))
        return self.table.decode(index, legal)


def load_modules(checkpoint: Path, module_ids: Sequence[str]) -> dict[str, Any]:
    """Load RLModules from an algorithm checkpoint (Ray imported here; no cluster started).

    Raises:
        RayMissingError: Ray RLlib is not installed.
        RLlibCheckpointError: a module folder is missing or does not load.
    """
    import logging

    from agents.rllib_support import require_ray

    require_ray()
    import agents.rllib_module  # noqa: F401 - the module class the checkpoint names
    from ray.rllib.core.rl_module.rl_module import RLModule

    # RLlib 2.60 logs a deprecation warning from its own constructor for every module it loads.
    rllib_logger = logging.getLogger("ray._common.deprecation")
    level = rllib_logger.level
    rllib_logger.setLevel(logging.ERROR)
    try:
        return _load_each(checkpoint, module_ids, RLModule)
    finally:
        rllib_logger.setLevel(level)


def _load_each(checkpoint: Path, module_ids: Sequence[str], rl_module_class: Any) -> dict[str, Any]:
    """Each module folder of ``checkpoint`` through ``rl_module_class.from_checkpoint``."""
    modules: dict[str, Any] = {}
    for module_id in module_ids:
        folder = checkpoint.joinpath(*MODULE_DIR, module_id)
        if not folder.is_dir():
            raise RLlibCheckpointError(
                f"RLlib checkpoint {str(checkpoint)!r} has no module {module_id!r} (expected {str(folder)!r})"
            )
        try:
            modules[module_id] = rl_module_class.from_checkpoint(str(folder.resolve()))  # RLlib needs it absolute
        except Exception as error:  # RLlib raises many kinds for a damaged or foreign checkpoint
            raise RLlibCheckpointError(
                f"RLlib checkpoint {str(checkpoint)!r}: module {module_id!r} does not load: {error}"
            ) from error
    return modules


def load_rllib_policy(
    path: str | Path,
    rules: Rules | str | None = None,
    num_players: int | None = None,
    *,
    deterministic: bool = True,
) -> RLlibPolicy:
    """A checkpoint of ``train_rllib.py`` as a :class:`RLlibPolicy` for a table of ``rules`` and ``num_players``.

    Args:
        path: a run folder, its ``checkpoint/``, or a periodic ``checkpoints/iter_N``.
        rules: the table's rules (default: the checkpoint's); another preset is refused.
        num_players: the table's player seats (default: the checkpoint's); another size is refused.
        deterministic: the most likely legal action (default) or a sample from the policy.

    Raises:
        RLlibCheckpointError: missing or unreadable checkpoint, other preset, table size or action layout.
        RayMissingError: Ray RLlib is not installed (``pip install 'pontoon-env[rllib]'``).
    """
    config = read_rllib_config(path)
    checkpoint = _checkpoint_dir(path)
    assert checkpoint is not None  # read_rllib_config checked it
    if rules is None:
        rules = resolve_rules(config["rules"])
    rules = make_rules(rules) if isinstance(rules, str) else rules
    check_compatible(config, rules, num_players, str(path))
    players = int(num_players if num_players is not None else config["num_players"])
    modules = load_modules(checkpoint, config["modules"])
    label = Path(path).name if Path(path).name not in (CHECKPOINT_DIR, "") else Path(path).resolve().parent.name
    return RLlibPolicy(
        modules,
        rules,
        players,
        policies=config.get("policies", "shared"),
        deterministic=deterministic,
        name=f"rllib:{label}",
        action_levels=config.get("action_levels"),
    )


def policy_from_spec(spec: str, rules: Rules | str, num_players: int | None = None) -> RLlibPolicy | None:
    """The registry hook: the policy of ``spec`` when it names an RLlib checkpoint, else ``None``.

    :func:`agents.registry.make_policy` calls this before trying a ``.zip`` path, so every
    ``--player`` / ``--banker`` / ``--policies`` spec of ``evaluate.py``, the EV tables and
    terminal play accepts a ``train_rllib.py`` run folder or checkpoint folder.

    Raises:
        RLlibCheckpointError: the checkpoint does not fit this table (preset, size, action layout).
        RayMissingError: Ray RLlib is not installed.
    """
    if not isinstance(spec, str) or not is_rllib_checkpoint(spec.strip()):
        return None
    return load_rllib_policy(spec.strip(), rules, num_players)
