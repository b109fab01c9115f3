"""The PPO ``RLModule`` that applies the legal-action mask (RLlib's new API stack).

Most Pontoon action ids are illegal at any moment (a banker never stakes, a player never draws as
banker), so an unmasked policy spends its samples on moves the table refuses. This module takes
the environment's ``{"observations", "action_mask"}`` dict, runs RLlib's default PPO encoder and
heads on the observation vector only, and adds ``log(mask)`` (clamped to RLlib's ``FLOAT_MIN``)
to the logits: an illegal id has probability zero in sampling, in the greedy choice and in the
PPO loss, whose log-probabilities and entropy then only cover legal moves.

It follows the masking example shipped with RLlib, with one change: no method mutates the batch
it is given (the example relies on ``compute_values`` having rewritten the batch before
``_forward_train``), so the order in which RLlib's connectors and learner call it does not matter.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym

from agents.rllib_support import require_ray

require_ray()

import torch  # noqa: E402 - after the clear Ray/torch check
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

OBS_KEY = "observations"
MASK_KEY = "action_mask"


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over ``observations``, with ``action_mask`` applied to the logits.

    Args:
        observation_space: a ``Dict`` space with an ``"observations"`` Box and an ``"action_mask"``
            Box of shape ``(action_space.n,)`` (what :class:`~pontoon_tools.rllib.env.PontoonMultiAgentEnv` gives).
        Every other argument is :class:`DefaultPPOTorchRLModule`'s.

    Raises:
        ValueError: the observation space is not such a dict.
    """

    def __init__(self, *args: Any, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not isinstance(observation_space, gym.spaces.Dict) or set(observation_space.spaces) != {
            OBS_KEY,
            MASK_KEY,
        }:
            raise ValueError(
                "MaskedPPOTorchRLModule: observation_space must be a Dict with keys "
                f"{OBS_KEY!r} and {MASK_KEY!r}, got {observation_space!r}"
            )
        self._space_with_mask = observation_space
        # The default catalog builds the encoder for the observation vector alone.
        super().__init__(*args, observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        super().setup()
        # Built for the vector; from here on the module states the space it really takes.
        self.observation_space = self._space_with_mask

    @staticmethod
    def _split(batch: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
        """``(mask, batch with the vector as OBS)``; the caller's batch is left as it is."""
        obs = batch[Columns.OBS]
        if not isinstance(obs, dict) or MASK_KEY not in obs or OBS_KEY not in obs:
            raise ValueError(
                f"MaskedPPOTorchRLModule: expected observations as a dict with {OBS_KEY!r} and {MASK_KEY!r}, "
                f"got {type(obs).__name__} {sorted(obs) if isinstance(obs, dict) else ''}"
            )
        inner = dict(batch)
        inner[Columns.OBS] = obs[OBS_KEY]
        return obs[MASK_KEY], inner

    @staticmethod
    def _masked(out: dict[str, Any], mask: Any) -> dict[str, Any]:
        out[Columns.ACTION_DIST_INPUTS] = out[Columns.ACTION_DIST_INPUTS] + torch.clamp(
            torch.log(mask), min=FLOAT_MIN
        )
        return out

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._masked(super()._forward(inner, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask, inner = self._split(batch)
        return self._masked(super()._forward_train(inner, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any | None = None) -> Any:
        if embeddings is None:
            _, batch = self._split(batch)
        return super().compute_values(batch, embeddings)
