"""The ecosystem's checkers pass on the environments exactly as users make them, with the defaults.

Gymnasium's ``check_env`` and SB3's ``check_env`` step random actions from the action space,
masked-out ids included: with the default ``illegal_action="penalty"`` an illegal id ends the
episode with a penalty (as PettingZoo's ``TerminateIllegalWrapper`` and pgx do) instead of
raising, so both checkers pass, for every preset and both roles, without a warning.
"""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import pontoon_env  # noqa: F401  (registers the ids)
from pontoon_env.game.rules import PRESETS


@pytest.mark.parametrize("env_id", ["Pontoon-v0", "PontoonBanker-v0"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_both_checkers_pass_with_the_defaults_and_no_warning(preset, env_id, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gymnasium_check_env(gym.make(env_id, rules=preset).unwrapped)
        sb3_check_env(gym.make(env_id, rules=preset), warn=True)
    capsys.readouterr()  # the render check prints the "human" board
    assert [str(warning.message) for warning in caught] == []


def test_the_checkers_first_random_illegal_id_ends_the_episode_not_the_program():
    env = gym.make("Pontoon-v0")
    env.reset(seed=0)
    stand = env.unwrapped.action_names.index("stand")  # never legal for a player
    _, reward, terminated, truncated, info = env.step(stand)
    assert (reward, terminated, truncated) == (-1.0, True, False) and "not legal" in info["illegal_action"]
