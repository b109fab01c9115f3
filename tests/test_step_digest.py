"""Pinned step streams: ``Pontoon-v0`` gives the same observations, masks, rewards, ends and infos
for fixed seeds and actions as when these digests were recorded.

The single environment's step path is tuned for speed (cached hand encodings, byte-packed
observations, shortcuts in the engine and the scripted opponents); this test holds every such
change to bit-for-bit the same behaviour. A deliberate change of behaviour re-records the digests
(``python tests/test_step_digest.py`` prints them).
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401 - registers the ids

STEPS = 250


def _feed(digest: Any, value: object) -> None:
    if isinstance(value, np.ndarray):
        digest.update(f"nd{value.dtype}{value.shape}".encode())
        digest.update(value.tobytes())
    elif isinstance(value, dict):
        for key, item in value.items():
            digest.update(f"k{key!r}".encode())
            _feed(digest, item)
    elif isinstance(value, (list, tuple)):
        digest.update(f"{type(value).__name__}{len(value)}".encode())
        for item in value:
            _feed(digest, item)
    else:
        digest.update(f"{type(value).__name__}:{value!r}".encode())


def stream_digest(
    preset: str, players: int, steps: int = STEPS, seed: int = 3, env_id: str = "Pontoon-v0"
) -> str:
    """sha256 of (obs, mask, reward, terminated, truncated, info) over ``steps`` random legal steps
    (an occasional illegal id, an occasional reseeded reset), with the seat's view of each round."""
    env = gym.make(env_id, rules=preset, num_players=players, info_level="seat")
    rng = np.random.default_rng(seed)
    digest = hashlib.sha256()
    obs, info = env.reset(seed=seed)
    _feed(digest, (obs, info))
    for step in range(steps):
        mask = env.unwrapped.action_masks()
        legal = np.flatnonzero(mask)
        if rng.random() < 0.02:  # now and then an illegal id (or a legal one by chance)
            action = int(rng.integers(len(mask)))
        else:
            action = int(legal[int(rng.integers(len(legal)))])
        result = env.step(action)
        _feed(digest, (action, *result))
        if result[2] or result[3]:
            obs, info = env.reset(seed=seed + step) if step % 5 == 0 else env.reset()
            _feed(digest, (obs, info))
    env.close()
    return digest.hexdigest()


CASES: dict[tuple[str, int], str] = {
    # (preset, players): recorded with the code before the step path was tuned
    ("pagat", 1): "29c345146790dc0ecefd9b9bd304cad8b98da496703249fd3a61505aa4c7d1ac",
    ("pagat", 4): "e963bc0149551b11327fd21aa07f0133e9d8c8fd8f821308817b901fabb6d5c2",
    ("pagat", 9): "add5c2275949e97333de9e84cba5eadaa1d92fc44766927e5e4c731ed8e608cc",
    ("casino", 1): "a8c4c76f785e81007005fc4fdcbd213e35030310ac65796b36f1343d4c7a4173",
    ("casino", 4): "dcd901913901cd3acc83898818efcd3f8f9e532bd6a12eb1ebd8cdb7b8a74cfa",
    ("casino", 9): "c2f4e9f06a32e724003d01ad1ae0bbf18fd43fa96af4f7a87a7730f529283bea",
    ("shoot", 1): "8abbe31cddbc3db673bc2b11bc079b4ccbeee72625ecc5055110ccbdfd60f254",
    ("shoot", 4): "bafd6128e91a63d78ffd8ba8b2c2af485e50c3d56016e000cbc0ab25787bd744",
    ("shoot", 9): "ec8bac291aac1634864d8f806e36fb906976fe4414f359b0477648553a289e50",
    ("pontoon_2011", 1): "1db30b1399b875222cdb12132be4f7b7c767b24e8926eac8ec1c7e3230300853",
    ("pontoon_2011", 4): "f4d86a51b49c3b156f125e94b4af5ab57905a2d3584e2e0ee2eb5549f420442f",
    ("pontoon_2011", 9): "024695026d4110d8a5027ffe5832dc447f9877e392e4ed0a36e917a2de0e971e",
}


BANKER_CASES: dict[tuple[str, int], str] = {
    # (preset, players): the banker learner's stream; the same digests come from commit 40353a8,
    # before the step path was tuned
    ("pagat", 1): "180fff34ba7d51975d69384c1b27d3e3f20c667d32da6c3cc6a476bfb27b4f69",
    ("pagat", 4): "d5d6d0bed266a748bb1c18d398c650d9c033614a52c25c637210f8ec1b441fe2",
    ("shoot", 1): "bd000855eff649030735989ad8caf93c1934c8124798fff9e99b6988b96dbf23",
    ("shoot", 4): "e4e30473f34d4d0bb83b2b3de9bd4109f889e9826cae69a4758af601df3e83e3",
    ("pontoon_2011", 1): "71dc1e7bf2be468c71ff27338e2512250f22f49d3a9427a103d82751f824119a",
    ("pontoon_2011", 4): "83ca48c83e3b27cdc6f1f929a55170b33b688f8c9f5e7ec31e3a981e84fc12a9",
}


@pytest.mark.parametrize("preset, players", sorted(CASES))
def test_step_stream_unchanged(preset: str, players: int) -> None:
    assert stream_digest(preset, players) == CASES[(preset, players)]


@pytest.mark.parametrize("preset, players", sorted(BANKER_CASES))
def test_banker_step_stream_unchanged(preset: str, players: int) -> None:
    assert stream_digest(preset, players, env_id="PontoonBanker-v0") == BANKER_CASES[(preset, players)]


if __name__ == "__main__":
    for preset in ("pagat", "casino", "shoot", "pontoon_2011"):
        for players in (1, 4, 9):
            print(f'        ("{preset}", {players}): "{stream_digest(preset, players)}",')
    print("banker")
    for preset in ("pagat", "shoot", "pontoon_2011"):
        for players in (1, 4):
            banker = stream_digest(preset, players, env_id="PontoonBanker-v0")
            print(f'        ("{preset}", {players}): "{banker}",')
