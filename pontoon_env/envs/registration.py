"""Register the Gymnasium ids: ``Pontoon-v0`` (a player seat) and ``PontoonBanker-v0`` (the banker).

Importing :mod:`pontoon_env` runs :func:`register_envs`, so ``gymnasium.make("Pontoon-v0")`` works
after ``import pontoon_env``. Registering twice is harmless (a re-import keeps the first entry).
"""

from __future__ import annotations

import gymnasium as gym

ENV_IDS: dict[str, dict[str, str]] = {
    "Pontoon-v0": {"role": "player"},
    "PontoonBanker-v0": {"role": "banker"},
}
"""Each registered id with the keyword arguments it fixes."""


def register_envs() -> None:
    """Register every id of :data:`ENV_IDS` that Gymnasium does not know yet."""
    for env_id, kwargs in ENV_IDS.items():
        if env_id not in gym.registry:
            gym.register(id=env_id, entry_point="pontoon_env.envs.gymnasium_env:PontoonEnv", kwargs=dict(kwargs))
