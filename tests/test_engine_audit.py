"""Defects an audit of the game API found (messages of malformed actions), and the stacked deal
under a brûlet pinned as docs/decisions.md E31 says."""

from __future__ import annotations

import pytest

from pontoon_env import Action, ActionKind, IllegalActionError, PontoonGame
from pontoon_env.game.cards import card_name


def _after_stake() -> PontoonGame:
    game = PontoonGame("pagat", num_players=1, seed=0, banker=0)
    game.new_round(deck=["9S", "7H", "KD", "8C"])
    game.apply(Action(ActionKind.STAKE, 2))
    return game


def test_an_amount_on_a_kind_that_takes_none_is_named() -> None:
    # "action twist is not legal ...: the amount must be in 0..0; legal now: stick, twist, ..."
    game = _after_stake()
    with pytest.raises(IllegalActionError, match=r"action twist:5 is not legal .*: twist takes no amount, got 5;"):
        game.apply(Action(ActionKind.TWIST, 5))
    with pytest.raises(IllegalActionError, match=r"action buy:9 .*the amount must be in 2\.\.4, got 9;"):
        game.apply(Action(ActionKind.BUY, 9))
    game.apply(Action(ActionKind.TWIST))  # the refusals changed nothing


def test_a_malformed_action_prints() -> None:
    assert str(Action(99)) == "99"  # AttributeError: 'int' object has no attribute 'name'
    assert str(Action(ActionKind.TWIST)) == "twist" and str(Action(ActionKind.STAKE, 3)) == "stake:3"


def test_a_stacked_deal_under_a_brulet_is_fixed_by_its_bottom_card() -> None:
    # E31: deck[0] is the brûlet's top card; a bottom card making no natural with it keeps the deal.
    for seed in range(30):
        game = PontoonGame("vingt_un_1850", num_players=1, seed=seed, banker=0)
        game.new_round(deck=["AS", "9H", "KD", "9C"], bottom=["2C"])
        assert card_name(game.players[0].hands[0].cards[0]) == "AS"
        assert card_name(game.banker_hands[0].cards[0]) == "9H"
    # and a stacked pair burns the first listed card: the deal starts at the second
    game = PontoonGame("vingt_un_1850", num_players=1, seed=0, banker=0)
    game.new_round(deck=["AS", "9H", "KD", "9C"], bottom=["KH"])
    assert card_name(game.players[0].hands[0].cards[0]) == "9H"


@pytest.mark.parametrize(("change", "message"), [
    ({"twisted": "no"}, "twisted: expected True or False, got 'no'"),  # truthy: it answered twist, not buy_max
    ({"hands": 0}, "hands: expected an integer >= 1, got 0"),
    ({"last_buy": -1}, "last_buy: expected an integer >= 0, got -1"),
    ({"stake": 0}, "stake: expected an integer >= 1, got 0"),
    ({"split_hand": "no"}, "split_hand: expected True or False"),
    ({"cards": None}, "cards: expected the hand's card codes"),
])
def test_scripted_move_checks_its_arguments_by_name(change: dict, message: str) -> None:
    from pontoon_env.solver import scripted_move, solve

    solution = solve("pagat")
    ace, six = 0, 20  # card codes: an ace and a six (soft 17)
    args = {"cards": [ace, six], "twisted": False, "last_buy": 0, "initial_stake": 1, "hands": 1,
            "legal": ["stick", "twist", "buy_min", "buy_max"]}
    assert scripted_move(solution, **args) == "buy_max"
    with pytest.raises(ValueError, match=message):
        scripted_move(solution, **{**args, **change})
    with pytest.raises(TypeError, match="solution: expected a Solution from solve"):
        scripted_move("pagat", **args)  # type: ignore[arg-type]


@pytest.mark.parametrize("double_on", [[[1]], {True}, {1.0}])
def test_a_banker_rules_double_values_are_card_values(double_on: object) -> None:
    from pontoon_env.solver import BankerRule

    with pytest.raises(ValueError, match="BankerRule.double_on: expected a set of card values 1..10"):
        BankerRule(double_on=double_on)  # type: ignore[arg-type]


@pytest.mark.parametrize("stick_at", ["16", 16.5])
def test_threshold_policy_takes_a_whole_total(stick_at: object) -> None:
    from pontoon_env.solver import threshold_policy

    with pytest.raises(ValueError, match="stick_at: expected an integer in 0..22"):
        threshold_policy(stick_at)  # type: ignore[arg-type]
