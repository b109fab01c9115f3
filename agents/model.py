"""A trained model in a seat: a checkpoint played through the :class:`Policy` interface.

:class:`ModelPolicy` loads a checkpoint through :mod:`agents.checkpoint` (model file, run config,
compatibility with the table) and encodes a seat's view with the same
:class:`~pontoon_env.encoding.ObservationEncoder` and :class:`~pontoon_env.encoding.ActionTable` as
the environments, so a model trained as a Gymnasium learner plays at any table it fits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError, config_rules, load_model, read_config
from pontoon_env.encoding import ActionLevels, ActionTable, Level, ObservationEncoder
from pontoon_env.game.actions import Action, LegalAction
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import Rules, RulesSpec, resolve_rules

__all__ = ["CheckpointError", "ModelPolicy", "load_checkpoint"]


def load_checkpoint(path: str | Path, rules: RulesSpec | None = None) -> tuple[Any, dict[str, Any]]:
    """Load a model checkpoint and its run config (``{}`` when none was saved beside it).

    Args:
        path: the ``.zip`` written by training (the suffix may be left out), or a run directory.
        rules: when given, the rules the model is about to play: a checkpoint trained for another
            preset is refused.

    Raises:
        CheckpointError: missing or corrupt file, unreadable config, or a preset / size mismatch.
    """
    model_path, config = read_config(path, required=False)
    if rules is not None:
        check_preset(config, resolve_rules(rules), str(path))
    model = load_model(model_path, config.get("algo"))
    obs_size = config.get("obs_size")
    shape = _obs_shape(getattr(model, "observation_space", None))
    if obs_size is not None and shape is not None and shape != int(obs_size):
        raise CheckpointError(
            f"checkpoint {str(path)!r}: the model observes {shape} values but its config says {obs_size}"
        )
    return model, config


def check_preset(config: Mapping[str, Any], rules: Rules, label: str) -> None:
    """Refuse a checkpoint whose config names another preset than ``rules``."""
    trained = config_rules(config, label)
    if trained is not None and trained.preset != rules.preset:
        raise CheckpointError(
            f"checkpoint {label!r} was trained for preset {trained.preset!r}, but the table plays {rules.preset!r}; "
            "train a model for this preset or choose another checkpoint"
        )


def _obs_shape(space: Any) -> int | None:
    """Size of the flat observation a model expects (the ``"observation"`` part of a Dict space)."""
    if space is None:
        return None
    if hasattr(space, "spaces") and "observation" in getattr(space, "spaces", {}):
        space = space.spaces["observation"]
    shape = getattr(space, "shape", None)
    return int(np.prod(shape)) if shape else None


class ModelPolicy:
    """A trained model as a :class:`agents.base.Policy`.

    The view is encoded with :class:`ObservationEncoder`, the legal actions become a mask over
    :class:`ActionTable`, and the model picks an id: ``predict(obs, action_masks=mask)`` for a
    ``MaskablePPO`` model; for other models, ``predict(obs)`` and, if that id is not legal, the
    legal id the policy rates highest (action probabilities, or Q-values for DQN).

    Args:
        model_or_path: a loaded model (anything with ``predict``) or a checkpoint path.
        rules: the rules of the table (a checkpoint for another preset is refused).
        num_players: player seats at the table; ``None`` reads it from the view when first acting.
        action_levels: action levels overriding those of the checkpoint's config.
        deterministic: pass ``deterministic`` to ``predict``.

    Raises:
        CheckpointError: a missing or mismatched checkpoint, or a model whose observation or
            action size does not fit this table.
    """

    def __init__(
        self,
        model_or_path: Any,
        rules: RulesSpec,
        num_players: int | None = None,
        *,
        deterministic: bool = True,
        name: str | None = None,
        action_levels: ActionLevels | Mapping[str, Sequence[Level] | None] | None = None,
    ) -> None:
        self.rules = resolve_rules(rules)
        if isinstance(model_or_path, (str, Path)):
            self.model, self.config = load_checkpoint(model_or_path, self.rules)
            self.name = name or Path(model_or_path).stem
        else:
            if not callable(getattr(model_or_path, "predict", None)):
                raise TypeError(
                    f"ModelPolicy: expected a model with predict() or a checkpoint path, "
                    f"got {model_or_path!r}"
                )
            self.model, self.config = model_or_path, {}
            self.name = name or type(model_or_path).__name__
        levels = action_levels if action_levels is not None else self.config.get("action_levels")
        self.table = ActionTable(self.rules, levels)
        self.deterministic = deterministic
        self.num_players = num_players if num_players is not None else self.config.get("num_players")
        self._encoder: ObservationEncoder | None = None
        self._dict_obs = hasattr(getattr(self.model, "observation_space", None), "spaces")
        n_actions = getattr(getattr(self.model, "action_space", None), "n", None)
        if n_actions is not None and int(n_actions) != self.table.n:
            raise CheckpointError(
                f"model {self.name!r} chooses among {int(n_actions)} actions but this table has "
                f"{self.table.n} "
                "(different action levels?)"
            )
        self._maskable = "action_masks" in _predict_parameters(self.model)
        if self.num_players is not None:
            self._encoder_for(int(self.num_players) + 1)

    def _encoder_for(self, num_seats: int) -> ObservationEncoder:
        if self._encoder is None or self._encoder.num_seats != num_seats:
            encoder = ObservationEncoder(self.rules, num_seats)
            expected = _obs_shape(getattr(self.model, "observation_space", None))
            if expected is not None and expected != encoder.size:
                raise CheckpointError(
                    f"model {self.name!r} observes {expected} values, but a {self.rules.preset!r} table with "
                    f"{num_seats - 1} players gives {encoder.size} "
                    "(trained for another table size or preset?)"
                )
            self._encoder = encoder
        return self._encoder

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        encoder = self._encoder_for(len(view.balances))
        vector = encoder.encode(view)
        mask = self.table.mask(legal)
        if not mask.any():
            raise ValueError(f"model policy {self.name!r}: no legal action to choose from")
        obs: Any = {"observation": vector, "action_mask": mask.astype(np.int8)} if self._dict_obs else vector
        if self._maskable:
            chosen, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        else:
            chosen, _ = self.model.predict(obs, deterministic=self.deterministic)
        index = int(np.asarray(chosen).reshape(-1)[0])
        if not (0 <= index < self.table.n and mask[index]):
            index = self._best_legal(obs, mask)
        return self.table.decode(index, legal)

    def _best_legal(self, obs: Any, mask: np.ndarray) -> int:
        """The legal id the model rates highest (probabilities or Q-values), else the first legal id."""
        scores = _action_scores(self.model, obs)
        if scores is None or scores.shape[-1] != mask.shape[0]:
            return int(np.flatnonzero(mask)[0])
        return int(np.argmax(np.where(mask, scores, -np.inf)))


def _predict_parameters(model: Any) -> set[str]:
    import inspect

    try:
        return set(inspect.signature(model.predict).parameters)
    except (TypeError, ValueError):
        return set()


def _action_scores(model: Any, obs: Any) -> np.ndarray | None:
    """Per-action scores of an SB3 model: the policy's probabilities, or a DQN's Q-values."""
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "obs_to_tensor"):
        return None
    try:
        import torch

        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if hasattr(policy, "get_distribution"):
                distribution = policy.get_distribution(tensor).distribution
                return distribution.probs.cpu().numpy().reshape(-1)
            if hasattr(policy, "q_net"):
                return policy.q_net(tensor).cpu().numpy().reshape(-1)
    except Exception:  # scores are a fallback only; the first legal id is always valid
        return None
    return None
