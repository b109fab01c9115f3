"""Defects an audit of the Gymnasium environment found: each test failed on the code before its fix."""

from __future__ import annotations

import copy
import json
import pickle

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from pontoon_env.envs.gymnasium_env import PontoonEnv


def _play(env: gym.Env, steps: int, info: dict) -> list[object]:
    """``steps`` steps of the last legal id; what each step returned, as comparable values."""
    trace: list[object] = []
    for _ in range(steps):
        observation, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        trace.append((observation.tobytes(), reward, info["seat"]))
        if terminated or truncated:
            observation, info = env.reset()
            trace.append((observation.tobytes(), info["seat"]))
    return trace


def test_a_refused_reset_leaves_the_random_streams_alone() -> None:
    # super().reset(seed=99) ran before the deck was checked: the refused call reseeded the env,
    # and every later episode's learner seat changed.
    def run(refused: bool) -> list[object]:
        env = PontoonEnv(num_players=4)
        _, info = env.reset(seed=0)
        if refused:
            with pytest.raises(ValueError, match="deck"):
                env.reset(seed=99, options={"deck": ["ZZ"]})
        return _play(env, 40, info)

    assert run(True) == run(False)


@pytest.mark.parametrize("options", ["deck", 5, [("deck", ["AS"])]])
def test_reset_options_that_are_no_dict_are_refused_by_name(options: object) -> None:
    env = PontoonEnv()
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"reset options: expected a dict such as \{'deck'"):
        env.reset(options=options)  # type: ignore[arg-type]
    env.reset()  # still usable


@pytest.mark.parametrize("copier", [copy.deepcopy, lambda env: pickle.loads(pickle.dumps(env))])
def test_a_copied_env_plays_on_exactly_as_the_original(copier) -> None:
    # The encoder's struct packers made deepcopy and pickle fail ("cannot pickle '_struct.Struct'").
    env = gym.make("Pontoon-v0", rules="shoot", num_players=3)
    _, info = env.reset(seed=0)
    _play(env, 7, info)
    info = {"action_mask": env.unwrapped.action_masks()}
    twin = copier(env)
    assert _play(twin, 40, dict(info)) == _play(env, 40, dict(info))


def test_a_numpy_seat_is_kept_as_an_int() -> None:
    env = PontoonEnv(num_players=3, learner_seat=np.int64(2))
    _, info = env.reset(seed=0)
    assert type(info["seat"]) is int
    json.dumps({key: value for key, value in info.items() if key != "action_mask"})
    # a numpy seat as an opponents key is a seat, not "got np.int64(1)"
    PontoonEnv(num_players=2, opponents={np.int64(1): "random"}).reset(seed=0)


def test_a_closed_env_offers_no_legal_action() -> None:
    env = PontoonEnv()
    env.reset(seed=0)
    env.close()
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
