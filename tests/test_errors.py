"""Bad input gets one clear error (which parameter, what was expected, what was given) and leaves
the state as it was: the findings a new user hit first, each pinned by a test."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401
from agents.registry import PolicySpecError
from pontoon_env import Action, ActionKind, DeckError, IllegalActionError, PontoonGame, RulesError
from pontoon_env.envs.pettingzoo_env import env as pettingzoo_env
from pontoon_env.game.rules import resolve_rules


def test_pettingzoo_bad_actions_name_the_value_and_the_range():
    table = pettingzoo_env(rules="pagat", num_players=2)
    table.reset(seed=0)
    agent = table.agent_selection
    with pytest.raises(ValueError, match=rf"action of agent {agent}: id 99 is out of range 0\.\.31"):
        table.step(99)
    with pytest.raises(TypeError, match=r"expected an integer id in 0\.\.31.*got 'stick'"):
        table.step("stick")
    table.step(int(np.flatnonzero(table.observe(agent)["action_mask"])[0]))  # still playable


def test_pettingzoo_penalty_mode_ends_the_episode_for_an_illegal_id():
    table = pettingzoo_env(rules="pagat", num_players=2, illegal_action="penalty", illegal_penalty=-5.0)
    table.reset(seed=0)
    agent = table.agent_selection
    table.step(table.unwrapped.action_names.index("stand"))
    assert all(table.terminations.values())
    assert table.rewards[agent] == -5.0 and "not legal" in table.infos[agent]["illegal_action"]


def test_an_unknown_action_kind_is_an_illegal_action_naming_it():
    game = PontoonGame("pagat", 1, seed=0, banker=0)
    game.new_round()
    with pytest.raises(IllegalActionError, match=r"kind must be a pontoon_env.ActionKind .*got 99"):
        game.apply(Action(99, 0))  # type: ignore[arg-type]
    game.apply(Action(ActionKind.STAKE, 1))  # the state was left as it was


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (5, r"deck: expected a list of cards such as \['AS', '10H', 'KD'\], got int 5"),
        ("AS KD", r"deck: expected a list of cards .*got str 'AS KD'"),
        (["AS", "XX"], r"deck\[1\]: unknown card 'XX'"),
        (["AS", "AS"], r"deck: holds 2 copies of AS, but a pack of 1 deck\(s\) holds at most 1"),
    ],
)
def test_malformed_decks_name_the_deck_and_change_nothing(deck, message):
    game = PontoonGame("pagat", 1, seed=0, banker=0)
    before = game.pack.cards
    with pytest.raises(DeckError, match=message):
        game.new_round(deck=deck)
    assert game.pack.cards == before and game.is_round_over
    game.new_round()


@pytest.mark.parametrize("value", [True, 1.0, "2", 0, 10])
def test_num_players_must_be_an_integer_in_range(value):
    with pytest.raises(ValueError, match=r"num_players: expected an integer in 1\.\.9"):
        PontoonGame("pagat", num_players=value)


def test_a_misspelt_preset_in_a_rules_dict_is_refused_not_built_on_defaults():
    with pytest.raises(RulesError, match=r"unknown preset 'casion'"):
        resolve_rules({"preset": "casion", "decks": 2})
    with pytest.raises(RulesError, match=r"unknown preset 'casion'"):
        gym.make("Pontoon-v0", rules={"preset": "casion", "decks": 2})
    assert resolve_rules({"preset": "casino", "decks": 2}).settlement == "casino"


def test_a_reset_with_a_bad_deck_keeps_the_running_episode():
    env = gym.make("Pontoon-v0", rules="pagat", num_players=2)
    obs, info = env.reset(seed=0)
    with pytest.raises(DeckError, match="deck"):
        env.reset(options={"deck": ["AS", "AS"]})
    mask = env.unwrapped.action_masks()
    assert mask.any() and np.array_equal(mask, info["action_mask"])
    env.step(int(np.flatnonzero(mask)[0]))  # the episode goes on


def test_a_misspelt_opponent_fails_when_the_env_is_made():
    with pytest.raises(PolicySpecError, match="threshhold"):
        gym.make("Pontoon-v0", opponents="threshhold")


def test_record_video_writes_a_file(tmp_path):
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gym.make("Pontoon-v0", render_mode="rgb_array"), str(tmp_path / "videos"), episode_trigger=lambda _: True,
        disable_logger=True,
    )
    _, info = env.reset(seed=0)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        done = terminated or truncated
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert videos and videos[0].stat().st_size > 0
