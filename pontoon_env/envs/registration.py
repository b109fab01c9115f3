"""Register the Gymnasium ids: ``Pontoon-v0`` (a player seat) and ``PontoonBanker-v0`` (the banker).

Importing :mod:`pontoon_env` runs :func:`register_envs`, so ``gymnasium.make("Pontoon-v0")`` works
after ``import pontoon_env``. Registering twice is harmless (a re-import keeps the first entry).

Both ids also have a ``vector_entry_point``: ``gymnasium.make_vec("Pontoon-v0", num_envs=N)``
(``vectorization_mode`` ``None`` or ``"vector_entry_point"``) builds
:class:`~pontoon_env.envs.vector.PontoonVectorEnv` on the batched engine where it plays the rules,
else the single environment in a ``SyncVectorEnv`` (:func:`pontoon_env.envs.vector.make_vector_env`).
``vectorization_mode="sync"`` / ``"async"`` still give Gymnasium's own wrappers of the single env.
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
            gym.register(
                id=env_id,
                entry_point="pontoon_env.envs.gymnasium_env:PontoonEnv",
                vector_entry_point="pontoon_env.envs.vector:make_vector_env",
                kwargs=dict(kwargs),
            )
