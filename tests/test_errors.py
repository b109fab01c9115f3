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
        ({"AS", "KD"}, r"deck: expected a list of cards .*got set"),  # no order to deal in
        ({"AS": 1}, r"deck: expected a list of cards .*got dict"),
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


def test_a_bottom_given_as_an_array_is_stacked_like_a_deck():
    game = PontoonGame("pagat", 2, seed=3, banker=0)
    game.new_round(bottom=np.array([0]))  # AS: an array of one card used to be skipped as falsy
    assert game.pack.cards[-1] == 0
    other = PontoonGame("pagat", 2, seed=3, banker=0)
    other.new_round(bottom=np.array([0, 4]))  # numpy refused the truth value of two cards
    assert list(other.pack.cards[-2:]) == [0, 4]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rng": np.random.RandomState(0)}, r"rng: expected a numpy.random.Generator .*got RandomState"),
        ({"rng": 42}, r"rng: expected a numpy.random.Generator .*got int"),
        ({"seed": -1}, r"seed: expected an integer >= 0, got -1"),
        ({"seed": 1.5}, r"seed: expected an integer >= 0, got 1.5"),
        ({"seed": True}, r"seed: expected an integer >= 0, got True"),
        ({"seed": 1, "rng": np.random.default_rng(1)}, r"seed and rng: give one of them"),
    ],
)
def test_the_random_stream_is_checked_when_the_table_is_made(kwargs, message):
    with pytest.raises(ValueError, match=message):
        PontoonGame("pagat", 2, banker=0, **kwargs)


def test_a_seats_result_and_view_need_a_seat_of_the_table():
    from pontoon_env.game.observation import observe

    game = PontoonGame("pagat", 2, seed=0, banker=0)
    game.new_round()
    for seat in (99, -1, None, "kitty", True, 1.0):
        with pytest.raises(ValueError, match=r"seat: expected an integer in 0\.\.2"):
            game.seat_result(seat)
        with pytest.raises(ValueError, match=r"seat: expected an integer in 0\.\.2"):
            observe(game, seat)
    assert game.seat_result(np.int64(1)) == 0 and observe(game, np.int64(1)).seat == 1


def test_an_action_kind_or_amount_must_be_a_plain_integer():
    from pontoon_env.game.actions import Phase

    game = PontoonGame("pagat", 2, seed=1, banker=0)
    game.new_round()
    assert game.phase == Phase.STAKE
    for kind in (False, 0.0, np.float64(0), Phase.STAKE):  # STAKE is 0; Phase members are ints too
        with pytest.raises(IllegalActionError, match=r"kind must be a pontoon_env.ActionKind"):
            game.apply(Action(kind, 2))
    with pytest.raises(IllegalActionError, match="amounts are whole chips"):
        game.apply(Action(ActionKind.STAKE, Phase.ROUND_OVER))
    assert game.phase == Phase.STAKE and game.players[0].hands[0].stake == 0

    class Chips(int):
        pass

    game.apply(Action(np.int64(0), Chips(2)))  # a numpy kind and an int subclass are their values
    stake = game.players[0].hands[0].stake
    assert stake == 2 and type(stake) is int


@pytest.mark.parametrize(
    ("preset", "options", "message"),
    [
        ("pagat", {"bankroll": 3, "min_stake": 5}, r"a finite bankroll must cover the minimum stake"),
        ("vingt_un_1850", {"split": "none", "max_split_hands": 1}, r"a dealer's split needs max_split_hands >= 2"),
        ("vingt_un_1850", {"dealer_rule": "hit_soft_17"}, r"fixed drawing rule never chooses to split"),
    ],
)
def test_options_that_could_never_act_are_refused(preset, options, message):
    with pytest.raises(RulesError, match=message):
        pontoon_env.make_rules(preset, **options)


def test_a_custom_rule_set_takes_numpy_values_as_a_preset_does():
    import dataclasses

    options = dataclasses.asdict(pontoon_env.make_rules("pagat"))
    options.update(preset="my_custom", decks=np.int64(2), stick_min=np.int64(16))
    rules = resolve_rules(options)
    assert rules.decks == 2 and type(rules.decks) is int and rules.stick_min == 16


def test_a_stacked_deal_survives_a_new_dealers_shuffle():
    # 1800 deals on without shuffling; a sold bank's new dealer shuffles before the deal, which
    # used to throw the stacked order away.
    rules = pontoon_env.make_rules("vingt_un_1800", bank_sale=True)
    game = PontoonGame(rules, 2, seed=0, banker=0)
    game.new_round(deck=["2S", "3S", "4S", "5S", "6S", "7S"])
    game.apply(Action(ActionKind.SELL_BANK, 0))
    game.apply(Action(ActionKind.BID, 0))
    game.apply(Action(ActionKind.PASS))
    assert game.banker == 1
    dealt = [card for player in game.players for hand in player.hands for card in hand.cards]
    dealt += game.banker_hands[0].cards
    assert sorted(dealt) == sorted(pontoon_env.game.cards.parse_cards(["2S", "3S", "4S", "5S", "6S", "7S"], 1))
