"""Human rendering shows every round settle, not only the episode's last.

A PettingZoo episode of several rounds, or a Gymnasium ``session`` episode, dealt the next round
before the step's render: a watcher in ``human`` mode never saw rounds 1..N-1 end.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from pontoon_env.envs.pettingzoo_env import env as pettingzoo_env
from helpers import random_legal


def _settled_frames(text: str) -> list[str]:
    return [frame for frame in text.split("Pontoon [") if "ROUND_OVER" in frame.split("\n", 1)[0]]


def test_a_pettingzoo_episode_of_three_rounds_shows_three_settled_tables(capsys: pytest.CaptureFixture[str]) -> None:
    table = pettingzoo_env(rules="pagat", num_players=1, num_rounds=3, render_mode="human")
    table.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in table.agent_iter():
        observation, _, terminated, truncated, info = table.last()
        if terminated or truncated:
            table.step(None)
            continue
        table.step(random_legal(observation["action_mask"], rng))
    assert len(_settled_frames(capsys.readouterr().out)) >= 3


def test_a_gymnasium_session_shows_each_round_settle(capsys: pytest.CaptureFixture[str]) -> None:
    env = gym.make("Pontoon-v0", episode="session", session_rounds=4, render_mode="human")
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    rounds = len(info.get("rounds", []))
    while True:
        _, _, terminated, truncated, info = env.step(random_legal(info["action_mask"], rng))
        rounds += len(info.get("rounds", []))
        if terminated or truncated:
            break
    assert rounds == 4
    assert len(_settled_frames(capsys.readouterr().out)) >= 4
