"""A trained model in a seat: a checkpoint played through the :class:`Policy` interface.

:class:`ModelPolicy` loads a checkpoint through :mod:`agents.checkpoint` (model file, run config,
compatibility with the table) and encodes a seat's view with the same
:class:`~pontoon_env.encoding.ObservationEncoder` and :class:`~pontoon_env.encoding.ActionTable` as
the environments, so a model trained as a Gymnasium learner plays at any table it fits; at a table
it does not fit (other rules, another table size or action layout) it is refused with one message
naming every difference (:func:`agents.checkpoint.check_compatible`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import action_levels as config_levels
from agents.checkpoint import (
    PLAY_IGNORED_OPTIONS,
    ROLES,
    CheckpointError,
    check_compatible,
    config_path,
    load_model,
    read_config,
    table_config,
    table_rules,
)
from pontoon_env.encoding import ActionLevels, ActionTable, ObservationEncoder
from pontoon_env.game.actions import Action, LegalAction
from pontoon_env.game.checks import require_bool, require_choice, require_int
from pontoon_env.game.engine import MAX_PLAYERS
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import RulesSpec, resolve_rules
from pontoon_env.game.runner import BANKER_PHASES

__all__ = ["CheckpointError", "ModelPolicy", "load_checkpoint"]

_fork_guarded = False


def single_threaded_after_fork() -> None:
    """Make every process forked from this one run torch on one thread (registered once).

    A model loaded here and then a fork (``gym.make_vec(..., vectorization_mode="async")`` builds
    one table in the parent, then forks its workers) left each worker's first inference waiting
    for OpenMP threads of the parent that a child does not have: it hung for ever. One thread in
    the child is what torch's own DataLoader workers get, and a seat's one observation at a time
    gains nothing from more."""
    global _fork_guarded
    if _fork_guarded:
        return
    import os

    import torch

    os.register_at_fork(after_in_child=lambda: torch.set_num_threads(1))
    _fork_guarded = True


def load_checkpoint(
    path: str | Path, rules: RulesSpec | None = None, num_players: int | None = None, *, role: str | None = None
) -> tuple[Any, dict[str, Any]]:
    """Load a model checkpoint and its run config (required: without it nothing says what table the
    model fits, and a model of other rules or the other role would play unchecked).

    Args:
        path: the ``.zip`` written by training (the suffix may be left out), or a run directory.
        rules: when given, the rules of the table the model is about to play at; with
            ``num_players`` (default: the config's) the checkpoint must fit that table.
        role: when given, the role of the seat it is to play (``"player"`` or ``"banker"``): a
            checkpoint trained for the other role is refused.

    Raises:
        CheckpointError: missing or corrupt file, a missing, unreadable or empty config, or a table (or
            role) it does not fit.
    """
    if num_players is not None:
        num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
    if role is not None:
        require_choice("role", role, ROLES)
    model_path, config = read_config(path)
    found = config_path(model_path)
    if found is not None and not config:
        # A config file that records nothing: without this the model was loaded unchecked (any
        # rules, any table, any role), as if no config were there at all.
        raise CheckpointError(
            f"run config {str(found)!r} of checkpoint {str(path)!r} is empty: it records none of the rules, "
            "table size, role and action layout the model was trained for, so whether it fits this table cannot "
            "be checked (train.py writes them into every config)"
        )
    if rules is not None and config:
        players = num_players if num_players is not None else config.get("num_players")
        check_fits(path, config, rules, None if players is None else int(players), role=role)
    elif role is not None and config:
        check_compatible(path, config, {"role": role})
    model = load_model(model_path, config.get("algo"))
    obs_size = config.get("obs_size")
    shape = _obs_shape(getattr(model, "observation_space", None))
    if obs_size is not None and shape is not None and shape != int(obs_size):
        raise CheckpointError(
            f"checkpoint {str(path)!r}: the model observes {shape} values but its config says {obs_size}"
        )
    return model, config


def check_fits(
    label: str | Path, config: Mapping[str, Any], rules: RulesSpec, num_players: int | None, role: str | None = None
) -> None:
    """Refuse a checkpoint whose config does not fit a table of ``rules`` and ``num_players``
    players (without a size, only the rules are compared), or, with ``role``, a seat of that role;
    who holds the bank and how the pack is shuffled between rounds
    (:data:`~agents.checkpoint.PLAY_IGNORED_OPTIONS`) do not matter to a model that plays."""
    if num_players is None:
        # Without a size only the rules can be compared, and the deck count depends on the size.
        expected: dict[str, Any] = {"rules": dataclasses.asdict(resolve_rules(rules))}
        expected["rules"].pop("decks")
        if role is not None:
            expected["role"] = role
        found = dict(config)
        if "rules" in config:
            found["rules"] = {k: v for k, v in dict(config["rules"]).items() if k != "decks"}
        check_compatible(label, found, expected, ignore=PLAY_IGNORED_OPTIONS)
        return
    expected = table_config(rules, num_players, config_levels(config), role=role)
    check_compatible(label, config, expected, ignore=PLAY_IGNORED_OPTIONS)


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
        rules: the rules of the table (a checkpoint trained for other rules is refused).
        num_players: player seats at the table; ``None`` takes the checkpoint's (or, for a model
            object, reads it from the view when first acting).
        action_levels: action levels overriding those of the checkpoint's config.
        deterministic: ``True``: the model's most likely (or highest-valued) action; ``False``:
            one drawn with the seat's ``rng`` (from the policy's probabilities, or epsilon-greedy
            at the model's exploration rate for DQN), so a seeded match replays exactly (SB3's
            own sampling reads torch's global generator).
        role: the role of the seat it is to play (``"player"`` or ``"banker"``), when known: a
            checkpoint trained for the other role is refused here. Whether given or not, a model
            whose config records its role refuses a decision of the other role when asked for one
            (an environment's ``opponents={"banker": <player model>}``).

    Raises:
        CheckpointError: a missing or corrupt checkpoint, or one that does not fit this table
            (other rules, table size, action layout or role: one message names every difference),
            or a model whose observation or action size does not fit.
        ValueError: ``num_players``, ``deterministic`` or ``role`` of the wrong kind (naming it).
    """

    def __init__(
        self,
        model_or_path: Any,
        rules: RulesSpec,
        num_players: int | None = None,
        *,
        deterministic: bool = True,
        name: str | None = None,
        action_levels: ActionLevels | None = None,
        role: str | None = None,
    ) -> None:
        # A truthy string ("no") would sample; "1", True or 1.0 would pass for a table size.
        deterministic = require_bool("deterministic", deterministic)
        if num_players is not None:
            num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
        if role is not None:
            require_choice("role", role, ROLES)
        self.given_rules = resolve_rules(rules)
        if isinstance(model_or_path, (str, Path)):
            single_threaded_after_fork()
            self.model, self.config = load_checkpoint(model_or_path, self.given_rules, num_players, role=role)
            self.name = name or Path(model_or_path).stem
        else:
            if not callable(getattr(model_or_path, "predict", None)):
                raise TypeError(
                    f"ModelPolicy: expected a model with predict() or a checkpoint path, "
                    f"got {model_or_path!r}"
                )
            self.model, self.config = model_or_path, {}
            self.name = name or type(model_or_path).__name__
        self.levels = ActionLevels.parse(action_levels) if action_levels is not None else config_levels(self.config)
        self.deterministic = deterministic
        self.num_players = num_players if num_players is not None else self.config.get("num_players")
        self.role: str | None = role if role is not None else self.config.get("role")
        """The role the model plays (its config's, or the one given): a decision of the other role is refused."""
        self._dict_obs = hasattr(getattr(self.model, "observation_space", None), "spaces")
        self._maskable = "action_masks" in _predict_parameters(self.model)
        self._fast_mode: bool | None = None  # masked_mode_supported, decided on the first prediction
        self._encoder: ObservationEncoder | None = None
        self._fit(int(self.num_players) + 1 if self.num_players is not None else None)

    def _fit(self, num_seats: int | None) -> None:
        """Size the action table and the encoder for a table of ``num_seats`` seats.

        Both follow the rules the table really plays (a second deck above seven players, as in
        the environment the model was trained in), so the model sees what it saw in training.
        """
        self.rules = table_rules(self.given_rules, num_seats - 1) if num_seats is not None else self.given_rules
        self.table = ActionTable(self.rules, self.levels)
        n_actions = getattr(getattr(self.model, "action_space", None), "n", None)
        if n_actions is not None and int(n_actions) != self.table.n:
            raise CheckpointError(
                f"model {self.name!r} chooses among {int(n_actions)} actions but this table has "
                f"{self.table.n} "
                "(different action levels?)"
            )
        if num_seats is None:
            return
        encoder = ObservationEncoder(self.rules, num_seats)
        expected = _obs_shape(getattr(self.model, "observation_space", None))
        if expected is not None and expected != encoder.size:
            raise CheckpointError(
                f"model {self.name!r} observes {expected} values, but a {self.rules.preset!r} table with "
                f"{num_seats - 1} player{'' if num_seats == 2 else 's'} gives {encoder.size} "
                "(trained for another table size or preset?)"
            )
        self._encoder = encoder

    def _encoder_for(self, num_seats: int) -> ObservationEncoder:
        if self._encoder is None or self._encoder.num_seats != num_seats:
            self._fit(num_seats)
        assert self._encoder is not None
        return self._encoder

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        if self.role is not None and (view.phase in BANKER_PHASES) != (self.role == "banker"):
            # A seat whose role is known only when it acts (an environment's opponents): the
            # model never learnt the other role's decisions, as evaluate.py says when seating it.
            asked = "banker" if view.phase in BANKER_PHASES else "player"
            raise CheckpointError(
                f"model {self.name!r} was trained for the {self.role} role but is asked for a {asked} decision "
                f"({view.phase.name}) in seat {view.seat}: role: expected {asked!r}, found {self.role!r}; seat a "
                f"{asked} model or policy there (agents.scripted.RoleSplit combines one of each role for a seat "
                "that plays both)"
            )
        encoder = self._encoder_for(len(view.balances))
        vector = encoder.encode(view)
        mask = self.table.mask(legal)
        if not mask.any():
            raise ValueError(f"model policy {self.name!r}: no legal action to choose from")
        return self.table.decode(int(self.legal_ids(vector[None], mask[None], [rng])[0]), legal)

    def legal_ids(self, obs: np.ndarray, masks: np.ndarray, rngs: Sequence[Any] | None = None) -> np.ndarray:
        """:meth:`predict_ids` with every illegal pick replaced by the legal id the model rates
        highest (:meth:`act` for one view, the batched evaluator for all waiting tables). A
        stochastic policy (``deterministic=False``) draws each row's id from ``rngs[i]`` instead
        (:meth:`sample_ids`), where it can read the model's scores."""
        if not self.deterministic and rngs is not None:
            sampled = self.sample_ids(obs, masks, rngs)
            if sampled is not None:
                return sampled
        ids = self.predict_ids(obs, masks)
        n = masks.shape[1]
        bad = np.flatnonzero((ids < 0) | (ids >= n) | ~masks[np.arange(ids.size), np.clip(ids, 0, n - 1)])
        for i in bad:
            single: Any = {"observation": obs[i], "action_mask": masks[i].astype(np.int8)} if self._dict_obs else obs[i]
            ids[i] = self._best_legal(single, masks[i])
        return ids

    def predict_ids(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The ids the model picks for a batch (``obs`` ``float32 [k, obs_size]``, ``masks`` ``bool
        [k, n_actions]``); a model that cannot mask may pick an illegal id (:meth:`act` and the
        batched evaluator replace it). One ``predict`` for the batch, or, for a deterministic
        MaskablePPO on flat observations, :func:`masked_mode` (the same ids without the
        distribution objects ``predict`` builds)."""
        if self._fast_mode is None:  # the model's kind does not change; whether to sample may
            self._fast_mode = not self._dict_obs and masked_mode_supported(self.model)
        if self._fast_mode and self.deterministic:
            return masked_mode(self.model.policy, obs, masks)
        batch: Any = {"observation": obs, "action_mask": masks.astype(np.int8)} if self._dict_obs else obs
        if self._maskable:
            chosen, _ = self.model.predict(batch, action_masks=masks, deterministic=self.deterministic)
        else:
            chosen, _ = self.model.predict(batch, deterministic=self.deterministic)
        return np.asarray(chosen, dtype=np.int64).reshape(-1)

    def sample_ids(self, obs: np.ndarray, masks: np.ndarray, rngs: Sequence[Any]) -> np.ndarray | None:
        """One legal id per row drawn with ``rngs[i]`` (one ``integers`` draw each, which numpy's
        generators and the batched engine's streams both offer): from the policy's probabilities
        renormalised over the legal ids, or for a DQN epsilon-greedy at its ``exploration_rate``.
        ``None`` for a model whose scores cannot be read (it then samples as ``predict`` does)."""
        batch: Any = {"observation": obs, "action_mask": masks.astype(np.int8)} if self._dict_obs else obs
        scores, kind = _batch_scores(self.model, batch)
        if scores is None or scores.shape != masks.shape:
            return None
        ids = np.empty(masks.shape[0], dtype=np.int64)
        epsilon = float(getattr(self.model, "exploration_rate", 0.0) or 0.0)
        for i in range(masks.shape[0]):
            legal = np.flatnonzero(masks[i])
            u = int(rngs[i].integers(0, 2**53)) / 2**53
            if kind == "q":
                explore = u < epsilon
                if explore:  # the same draw, rescaled, picks the random legal id
                    ids[i] = legal[min(int(u / epsilon * legal.size), legal.size - 1)]
                else:
                    ids[i] = legal[int(np.argmax(scores[i, legal]))]
                continue
            weights = np.cumsum(scores[i, legal].astype(np.float64))
            if weights[-1] <= 0:
                ids[i] = legal[min(int(u * legal.size), legal.size - 1)]
            else:
                ids[i] = legal[min(int(np.searchsorted(weights, u * weights[-1], side="right")), legal.size - 1)]
        return ids

    def _best_legal(self, obs: Any, mask: np.ndarray) -> int:
        """The legal id the model rates highest (probabilities or Q-values), else the first legal id."""
        scores = _action_scores(self.model, obs)
        if scores is None or scores.shape[-1] != mask.shape[0]:
            return int(np.flatnonzero(mask)[0])
        return int(np.argmax(np.where(mask, scores, -np.inf)))


def masked_mode_supported(model: Any) -> bool:
    """Whether :func:`masked_mode` gives ``model.predict(..., deterministic=True)``'s ids: a
    MaskablePPO policy with a masked categorical head on a flat (``Box``) observation."""
    try:
        from gymnasium import spaces
        from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
        from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    except ImportError:
        return False
    policy = getattr(model, "policy", None)
    return (
        isinstance(policy, MaskableActorCriticPolicy)
        and isinstance(policy.action_dist, MaskableCategoricalDistribution)
        and isinstance(policy.observation_space, spaces.Box)
    )


def masked_mode(policy: Any, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The deterministic ids of a MaskablePPO ``policy`` (see :func:`masked_mode_supported`) for a
    batch, without the argument validation of two ``torch.distributions`` objects per call (with the
    statistics gathering it was about a fifth of a model's batched evaluation, ``bench/batched.py``):
    the actor's logits, then :func:`masked_argmax`."""
    import torch
    from stable_baselines3.common.policies import BaseModel

    policy.set_training_mode(False)
    with torch.no_grad():
        tensor = torch.as_tensor(obs, device=policy.device).reshape((-1, *policy.observation_space.shape))
        features = BaseModel.extract_features(policy, tensor, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
        allowed = torch.as_tensor(masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
        return masked_argmax(logits, allowed).cpu().numpy().astype(np.int64)


TIE_MARGIN = 1e-3
"""Relative gap between a row's two best legal logits below which :func:`masked_argmax` takes
the distribution's own path (float32 rounding in it moves a logit by far less: about 1e-6 of its size)."""


def masked_argmax(logits: Any, allowed: Any) -> Any:
    """The mode of MaskablePPO's masked categorical for each row, as its ``predict`` finds it.

    ``predict`` normalises the logits, masks them with -1e8, normalises again, takes the softmax and
    its first maximum (:func:`_masked_mode_exact`); every step is monotonic, so the best legal logit
    wins unless rounding ties it with the next. The plain argmax over the legal logits is taken
    where the two best are apart by more than :data:`TIE_MARGIN` of their size, and the exact path
    for the few other rows (exact and near ties, no legal id): the ids are those of ``predict``
    (two ``logsumexp`` and a softmax over every batch were about a tenth of a model's batched
    evaluation, ``docs/batched.md``)."""
    import torch

    never = torch.tensor(float("-inf"), dtype=logits.dtype, device=logits.device)
    legal = torch.where(allowed, logits, never)
    top = torch.topk(legal, k=min(2, legal.shape[-1]), dim=-1)
    chosen = top.indices[:, 0].clone()
    if legal.shape[-1] < 2:
        return chosen
    best, second = top.values[:, 0], top.values[:, 1]
    clear = torch.isfinite(best) & ((best - second) > TIE_MARGIN * torch.clamp(best.abs(), min=1.0))
    unclear = torch.nonzero(~clear).flatten()
    if unclear.numel():
        chosen[unclear] = _masked_mode_exact(logits[unclear], allowed[unclear])
    return chosen


def _masked_mode_exact(logits: Any, allowed: Any) -> Any:
    """MaskablePPO's deterministic pick by the operations of its ``predict`` in their order
    (logits normalised, masked with -1e8, normalised again, softmax, first maximum)."""
    import torch

    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    logits = torch.where(allowed, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    return torch.argmax(torch.softmax(logits, dim=-1), dim=1)


def _predict_parameters(model: Any) -> set[str]:
    import inspect

    try:
        return set(inspect.signature(model.predict).parameters)
    except (TypeError, ValueError):
        return set()


def _batch_scores(model: Any, batch: Any) -> tuple[np.ndarray | None, str]:
    """A batch's per-action scores, ``[k, n]``, and their kind: ``"probs"`` (a policy's action
    probabilities) or ``"q"`` (a DQN's Q-values); ``(None, "")`` where they cannot be read."""
    policy = getattr(model, "policy", None)
    if policy is None or not hasattr(policy, "obs_to_tensor"):
        return None, ""
    import torch

    tensor, _ = policy.obs_to_tensor(batch)
    with torch.no_grad():
        if hasattr(policy, "q_net"):
            return policy.q_net(tensor).cpu().numpy(), "q"
        if hasattr(policy, "get_distribution"):
            return policy.get_distribution(tensor).distribution.probs.cpu().numpy(), "probs"
    return None, ""


def _action_scores(model: Any, obs: Any) -> np.ndarray | None:
    """Per-action scores of an SB3 model for one observation (:func:`_batch_scores`, flattened)."""
    try:
        scores, _ = _batch_scores(model, obs)
    except Exception:  # scores are a fallback only; the first legal id is always valid
        return None
    return None if scores is None else scores.reshape(-1)
    return None
