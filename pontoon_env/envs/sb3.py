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
        venv: the vector environment; or ``None`` and ``num_envs`` (default 1) / ``**kwargs`` to
            build one (not both: a ``venv`` with other ``num_envs`` or any ``**kwargs`` is refused).
        legalize_penalty: replace illegal ids by the first legal one at this cost (``None``: pass
            them on, the env's ``illegal_action`` applies).
        seed: the seed of the first ``reset``.

    Raises:
        ValueError: ``venv`` together with a different ``num_envs`` or with environment arguments.
    """

    def __init__(self, venv: PontoonVectorEnv | None = None, *, num_envs: int | None = None,
                 legalize_penalty: float | None = None, seed: int | None = None, **kwargs: Any) -> None:
        if venv is not None:
            if kwargs:
                raise ValueError(f"venv is given, so the environment arguments {sorted(kwargs)} would be "
                                 "ignored; give venv alone, or num_envs and the arguments without venv")
            if num_envs is not None and num_envs != venv.num_envs:
                raise ValueError(f"num_envs={num_envs!r} with a venv of {venv.num_envs} envs; give venv "
                                 "alone, or num_envs and the environment arguments without venv")
        else:
            venv = PontoonVectorEnv(num_envs=1 if num_envs is None else num_envs, **kwargs)
        self.venv = venv
        super().__init__(self.venv.num_envs, self.venv.single_observation_space, self.venv.single_action_space)
        self.legalize_penalty = None if legalize_penalty is None else require_finite("legalize_penalty", legalize_penalty)
        self._seed = seed
        self._actions: np.ndarray | None = None
        self._empty = [{} for _ in range(self.num_envs)]

    def reset(self) -> Any:
        """Reset every env, with the seed of ``seed``/the constructor and the options of
        :meth:`set_options` (both used once, as SB3's ``DummyVecEnv`` does). The options go to the
        vector env's ``reset`` (the native one refuses any; the reference fallback passes them to
        each table's), so they must be the same for every env: the tables are one env.
        ``reset_infos`` gets each env's entries of the reset's ``info``.

        Raises:
            ValueError: options that differ between envs, or that the vector env refuses.
        """
        given = [dict(options) for options in self._options]
        if any(options != given[0] for options in given):
            raise ValueError("set_options: the envs are one batched env, reset together; give every env "
                             f"the same options (or one dict), got {given!r}")
        obs, info = self.venv.reset(seed=self._seed, **({"options": given[0]} if given[0] else {}))
        self._seed = None
        self._reset_options()
        self.reset_infos = _info_rows(info, self.num_envs)
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Keep ``actions`` (one integer id per env; the shape and dtype are checked here, the range
        and legality by the vector env, or by the legalizing where ``legalize_penalty`` is set).
        Actions refused here are not kept: no step is pending after a failed call."""
        self._actions = None
        self._actions = integer_rows("actions", actions, self.num_envs).astype(np.int64)

    def step_wait(self) -> tuple[Any, np.ndarray, np.ndarray, list[dict[str, Any]]]:
        """Step with the actions of the last :meth:`step_async` (used once).

        Raises:
            RuntimeError: no actions pending (no ``step_async`` since the last ``step_wait``, or it failed).
        """
        if self._actions is None:
            raise RuntimeError("step_wait: no actions pending; call step_async(actions) first (a step_async "
                               "that raised keeps none)")
        actions, self._actions = self._actions, None
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

    def _sub_envs(self) -> Sequence[Any] | None:
        """The single envs of the reference fallback (a ``SyncVectorEnv``), which the attribute and
        method calls reach one by one as SB3's ``DummyVecEnv`` does; ``None`` for the native env,
        whose tables are one object."""
        return None if isinstance(self.venv, PontoonVectorEnv) else self.venv.envs

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None, **method_kwargs: Any) -> list[Any]:
        if method_name == "action_masks":
            masks = self.venv.action_masks()
            return [masks[i] for i in self._indices(indices)]
        envs = self._sub_envs()
        if envs is not None:
            return [envs[i].get_wrapper_attr(method_name)(*method_args, **method_kwargs) for i in self._indices(indices)]
        rows = self._every_env(f"env_method({method_name!r})", indices)
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result for _ in rows]

    def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
        envs = self._sub_envs()
        if envs is not None:  # the envs' attributes, not the SyncVectorEnv's (it has no num_players ...)
            return [envs[i].get_wrapper_attr(attr_name) for i in self._indices(indices)]
        value = getattr(self.venv, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        envs = self._sub_envs()
        if envs is not None:  # setting it on the SyncVectorEnv changed no env
            for i in self._indices(indices):
                envs[i].set_wrapper_attr(attr_name, value)
            return
        self._every_env(f"set_attr({attr_name!r})", indices)
        setattr(self.venv, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        envs = self._sub_envs()
        if envs is not None:
            try:
                envs[0].get_wrapper_attr(attr_name)
            except AttributeError:
                return False
            return True
        return hasattr(self.venv, attr_name)

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def seed(self, seed: int | None = None) -> Sequence[None | int]:
        """Seed the next ``reset`` (``None``: a random seed, as SB3's ``VecEnv.seed`` draws). Returns
        the seed each env is seeded from. The reference fallback seeds env ``i`` with ``seed + i``
        (SB3's convention); the native vector env seeds every table from the one ``seed`` (table
        ``i`` from ``(seed, i)``), so each entry is ``seed`` itself, not ``seed + i``."""
        if seed is None:
            seed = int(np.random.randint(0, np.iinfo(np.uint32).max, dtype=np.uint32))
        self._seed = seed
        if isinstance(self.venv, PontoonVectorEnv):
            return [seed for _ in range(self.num_envs)]
        return [seed + i for i in range(self.num_envs)]

    def close(self) -> None:
        self.venv.close()

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None for _ in range(self.num_envs)]


def _info_rows(info: dict[str, Any], num_envs: int) -> list[dict[str, Any]]:
    """A vector env's ``info`` (arrays of length ``num_envs``, a key's ``_key`` mask where it has
    one) as one dict per env, as SB3's ``DummyVecEnv`` keeps its envs' reset infos."""
    rows: list[dict[str, Any]] = [{} for _ in range(num_envs)]
    for key, values in info.items():
        if key.startswith("_") and key[1:] in info:
            continue
        present = info.get(f"_{key}")
        if isinstance(values, dict):
            for i, row in enumerate(_info_rows(values, num_envs)):
                if present is None or present[i]:
                    rows[i][key] = row
            continue
        for i in range(num_envs):
            if present is None or present[i]:
                rows[i][key] = values[i]
    return rows
