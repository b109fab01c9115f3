"""Stable-Baselines3 ``VecEnv`` over the native vector environment, for n_envs in the thousands.

:class:`PontoonSB3VecEnv` adapts :class:`~pontoon_env.envs.vector.PontoonVectorEnv` (one compiled
call per step for all tables) to SB3's ``VecEnv``: ``reset() -> obs``, ``step -> (obs, rewards,
dones, infos)`` with ``infos[i]["terminal_observation"]`` and ``"TimeLimit.truncated"`` where an
episode ended (it autoresets in the same step, as SB3 expects). sb3-contrib's ``MaskablePPO``
finds the masks through ``env_method("action_masks")`` (the vector env's batched masks, one row per
env). With ``legalize_penalty`` (for PPO or DQN, which cannot mask) an illegal id is replaced by
the first legal id and the step's reward lowered by the penalty, as
``pontoon_tools.training.LegalizeActions`` does for the single environment
(``infos[i]["illegal_action"]``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from pontoon_env.batched.engine import integer_rows
from pontoon_env.envs.vector import PontoonVectorEnv
from pontoon_env.game.checks import require_finite


class PontoonSB3VecEnv(VecEnv):
    """SB3 ``VecEnv`` over a :class:`PontoonVectorEnv` (see the module docstring).

    Args:
        venv: the vector environment; or ``None`` and ``num_envs`` / ``**kwargs`` to build one.
        legalize_penalty: replace illegal ids by the first legal one at this cost (``None``: pass
            them on, the env's ``illegal_action`` applies).
        seed: the seed of the first ``reset``.
    """

    def __init__(self, venv: PontoonVectorEnv | None = None, *, num_envs: int = 1,
                 legalize_penalty: float | None = None, seed: int | None = None, **kwargs: Any) -> None:
        self.venv = venv if venv is not None else PontoonVectorEnv(num_envs=num_envs, **kwargs)
        super().__init__(self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self.legalize_penalty = None if legalize_penalty is None else require_finite("legalize_penalty", legalize_penalty)
        self._seed = seed
        self._actions: np.ndarray | None = None
        self._empty = [{} for _ in range(self.num_envs)]

    def reset(self) -> Any:
        obs, _ = self.venv.reset(seed=self._seed)
        self._seed = None
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep ``actions`` (one integer id per env; the shape and dtype are checked here, the range
        and legality by the vector env, or by the legalizing where ``legalize_penalty`` is set)."""
        self._actions = integer_rows("actions", actions, self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        assert self._actions is not None, "step_async first"
        actions = self._actions
        illegal = None
        if self.legalize_penalty is not None:
            mask = self.venv.action_masks()
            rows = np.arange(self.num_envs)
            inside = (actions >= 0) & (actions < mask.shape[1])
            illegal = ~inside | ~mask[rows, np.clip(actions, 0, mask.shape[1] - 1)]
            actions = np.where(illegal, mask.argmax(axis=1), actions)
        obs, rewards, terminated, truncated, info = self.venv.step(actions)
        dones = terminated | truncated
        if illegal is not None:
            rewards = rewards - self.legalize_penalty * illegal
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)] if (dones.any() or illegal is not None) \
            else [dict() for _ in self._empty]
        if dones.any():
            final = info["final_obs"]
            for i in np.flatnonzero(dones):
                infos[i]["terminal_observation"] = (
                    {key: rows[i] for key, rows in final.items()} if isinstance(final, dict) else final[i])
                infos[i]["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
        if illegal is not None:
            for i in np.flatnonzero(illegal):
                infos[i]["illegal_action"] = True
        return obs, rewards.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        """Masks ``[num_envs, n_actions]`` (sb3-contrib reads them through :meth:`env_method`)."""
        return self.venv.action_masks()

    def _indices(self, indices: None | int | Iterable[int]) -> list[int]:
        if indices is None:
            return list(range(self.num_envs))
        rows = [indices] if isinstance(indices, (int, np.integer)) else list(indices)
        bad = [i for i in rows if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer))
               or not 0 <= i < self.num_envs]
        if bad:
            raise ValueError(f"indices: expected env indices in 0..{self.num_envs - 1}, got {bad}")
        return [int(i) for i in rows]

    def _every_env(self, what: str, indices: Any) -> list[int]:
        """The indices of a call that acts on the whole vector env: all of them, or refused (the
        tables are one batched env, not ``num_envs`` objects: ``env_method("reset", indices=[0])``
        reset every table)."""
        rows = self._indices(indices)
        if sorted(rows) != list(range(self.num_envs)):
            raise ValueError(f"indices: {what} acts on every env of the native vector env at once; "
                             f"give indices=None, got {indices!r}")
        return rows

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in self._indices(indices)]
        rows = self._every_env(f"env_method({method_name!r})", indices)
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        self._every_env(f"set_attr({attr_name!r})", indices)
        setattr(self.venv, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return hasattr(self.venv, attr_name)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        self._seed = seed
        return [seed for _ in range(self.num_envs)]

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]
