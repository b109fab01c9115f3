"""docs/rules.md §4: Shoot Pontoon's kitty and shoot bets (and D7).

The round opens with the banker's kitty decision, then the first cards, the stakes, the shoot
bets in turn, the second cards and the players' turns.
"""

from __future__ import annotations

import pytest
from helpers import chips, deal, hand, hands, kinds, legal, nets, play, reasons

from pontoon_env import Action, ActionKind, IllegalActionError, Phase

KITTY = 10


def test_shoot_banker_puts_up_kitty_between_min_and_max_stake():
    game = deal("shoot", min_stake=2, max_stake=12)
    assert game.phase == Phase.KITTY and game.current_seat == 0
    assert legal(game) == {"kitty": (2, 12)}
    with pytest.raises(IllegalActionError, match="kitty"):
        game.apply(Action(ActionKind.KITTY, 1))
    play(game, [("kitty", 7)])
    assert game.kitty == 7 and game.balances[0] == -7
    assert reasons(game) == [(0, "kitty", 7, "kitty")]
    assert game.phase == Phase.STAKE


def test_shoot_bets_placed_in_turn_after_the_stakes_within_the_kitty():
    game = deal("shoot", [], [("kitty", KITTY), ("stake", 2), ("stake", 3)], players=2)
    assert game.phase == Phase.SHOOT_BET and game.current_seat == 1
    assert all(len(h.cards) == 1 for p in game.players for h in p.hands)  # before the second card
    assert legal(game) == {"no_shoot": (0, 0), "shoot": (1, KITTY)}
    play(game, [("shoot", 6)])
    assert game.current_seat == 2 and legal(game) == {"no_shoot": (0, 0), "shoot": (1, KITTY - 6)}
    with pytest.raises(IllegalActionError, match="shoot"):
        game.apply(Action(ActionKind.SHOOT, KITTY - 5))


def test_shoot_bets_may_total_exactly_the_kitty():
    """D7: the total of the shoot bets may equal the kitty; a whole-kitty bet leaves no room."""
    game = deal(
        "shoot",
        ["10S", "10H", "10C", "9S", "9H", "9C"],
        [("kitty", KITTY), ("stake", 1), ("stake", 1), ("shoot", KITTY)],
        players=2,
    )
    assert game.phase == Phase.PLAYER_TURN  # seat 2 had no room left, so no shoot decision
    assert hand(game, 1).shoot == KITTY and hand(game, 2).shoot == 0


def test_shoot_banker_pontoon_sends_every_shoot_bet_to_kitty():
    game = deal(
        "shoot",
        ["10S", "10H", "AC", "9S", "9H", "KC"],
        [("kitty", KITTY), ("stake", 2), ("stake", 3), ("shoot", 4), ("shoot", 5)],
        players=2,
    )
    assert game.phase == Phase.ROUND_OVER
    assert game.kitty == KITTY + 9
    assert chips(game) == {0: -KITTY + 2 * 2 + 2 * 3, 1: -4 - 4, 2: -6 - 5}
    # D22: the kitty is the banker's, so the shoot bets it took are his result too.
    assert nets(game) == {0: 2 * 2 + 2 * 3 + 4 + 5, 1: -4 - 4, 2: -6 - 5}
    assert game.total_chips == 0


def test_shoot_fourth_card_bet_even_without_a_first_one():
    game = deal(
        "shoot", ["2S", "10C", "3S", "9C", "4S", "5S", "6S"], [("kitty", KITTY), ("stake", 1), "no_shoot"]
    )
    assert "shoot" not in kinds(game)  # two cards: not before the third card
    play(game, ["twist"])
    assert legal(game)["shoot"] == (1, KITTY)
    play(game, [("shoot", 3)])
    assert hand(game, 1).shoot == 3
    assert "stick" not in kinds(game) and "shoot" not in kinds(game)  # the bet is on the 4th card
    play(game, ["twist"])
    assert len(hand(game, 1).cards) == 4 and "shoot" not in kinds(game)  # only for the 4th card


def test_shoot_fourth_card_bet_before_a_bought_card_too():
    game = deal(
        "shoot",
        ["2S", "10C", "3S", "9C", "4S", "5S"],
        [("kitty", KITTY), ("stake", 1), ("shoot", 2), ("buy", 1)],
    )
    assert legal(game)["shoot"] == (1, KITTY - 2)
    play(game, [("shoot", 8), ("buy", 1)])
    assert hand(game, 1).shoot == 10 and hand(game, 1).stake == 3


def test_shoot_after_split_first_bet_covers_first_hand_only():
    game = deal(
        "shoot",
        ["8S", "10C", "8H", "9C", "KS", "QH"],
        [("kitty", KITTY), ("stake", 2), ("shoot", 3), "split"],
    )
    first, second = hands(game, 1)
    assert first.shoot == 3 and second.shoot == 0
    assert "shoot" not in kinds(game)  # the first hand keeps the first bet
    play(game, ["stick"])
    assert legal(game)["shoot"] == (1, KITTY - 3)  # the second hand may have its own
    play(game, [("shoot", 4), "stick", "stand"])
    assert second.shoot == 4
    # Both hands (18) lose to the banker's 19: both shoot bets go to the kitty.
    assert game.kitty == KITTY + 7


def test_shoot_bust_shoot_bet_goes_to_kitty_at_once():
    game = deal(
        "shoot",
        ["10S", "2H", "10C", "6S", "3H", "9C", "KS", "4H"],
        [("kitty", KITTY), ("stake", 1), ("stake", 1), ("shoot", 6), ("shoot", 4), "twist"],
        players=2,
    )
    assert hand(game, 1).bust
    assert reasons(game)[-2:] == [(1, 0, 1, "bust"), (1, "kitty", 6, "shoot_loss")]
    assert game.kitty == KITTY + 6
    # The freed room: seat 2 (2+3, one card to come) may now shoot up to 16 - 4 outstanding.
    play(game, ["twist"])
    assert legal(game)["shoot"] == (1, KITTY + 6 - 4)


def test_shoot_winning_hand_paid_its_shoot_bet_from_the_kitty():
    game = deal(
        "shoot", ["10S", "10C", "9S", "8C"], [("kitty", KITTY), ("stake", 2), ("shoot", 5), "stick", "stand"]
    )
    assert game.kitty == KITTY - 5
    assert ("kitty", 1, 5, "shoot_win") in reasons(game) and (0, 1, 2, "settlement") in reasons(game)
    assert chips(game) == {0: -KITTY - 2, 1: 2 + 5}
    assert nets(game) == {0: -2 - 5, 1: 2 + 5}  # D22: the shoot bet was paid from his kitty


def test_shoot_pontoon_paid_its_shoot_bet_one_to_one():
    game = deal("shoot", ["AS", "10C", "KS", "8C"], [("kitty", KITTY), ("stake", 2), ("shoot", 5), "stand"])
    assert (0, 1, 4, "settlement") in reasons(game) and ("kitty", 1, 5, "shoot_win") in reasons(game)
    # The pontoon takes the bank, so the old banker takes back what is left of the kitty.
    assert reasons(game)[-1] == ("kitty", 0, KITTY - 5, "kitty_return")
    assert chips(game) == nets(game) == {0: -4 - 5, 1: 4 + 5}


def test_shoot_tie_adds_shoot_bet_to_kitty():
    game = deal(
        "shoot", ["10S", "10C", "8S", "8C"], [("kitty", KITTY), ("stake", 2), ("shoot", 5), "stick", "stand"]
    )
    assert game.kitty == KITTY + 5
    assert chips(game) == {0: -KITTY + 2, 1: -2 - 5}
    assert nets(game) == {0: 2 + 5, 1: -2 - 5}  # D22: the shoot bet went into his kitty


def test_shoot_losing_hand_adds_shoot_bet_to_kitty():
    game = deal(
        "shoot", ["10S", "10C", "7S", "8C"], [("kitty", KITTY), ("stake", 2), ("shoot", 5), "stick", "stand"]
    )
    assert game.kitty == KITTY + 5


def test_shoot_banker_may_add_to_the_kitty_between_deals():
    game = deal(
        "shoot", ["10S", "10C", "7S", "8C"], [("kitty", KITTY), ("stake", 2), "no_shoot", "stick", "stand"]
    )
    game.new_round()
    assert game.phase == Phase.KITTY and legal(game) == {"kitty": (0, 10)}
    play(game, [("kitty", 0)])
    assert game.kitty == KITTY and game.phase == Phase.STAKE


def test_shoot_empty_kitty_must_be_renewed():
    game = deal(
        "shoot", ["10S", "10C", "9S", "8C"], [("kitty", 3), ("stake", 2), ("shoot", 3), "stick", "stand"]
    )
    assert game.kitty == 0
    game.new_round()
    assert legal(game) == {"kitty": (1, 10)}  # a new kitty, not an addition of nothing


def test_shoot_empty_kitty_new_kitty_or_sale_of_the_bank():
    game = deal(
        "shoot",
        ["10S", "10C", "9S", "8C"],
        ["keep_bank", ("kitty", 3), ("stake", 2), ("shoot", 3), "stick", "stand"],
        bank_sale=True,
    )
    assert game.kitty == 0
    game.new_round()
    assert game.phase == Phase.BANK_SALE
    play(game, [("sell_bank", 5), ("bid", 5)])
    assert game.banker == 1
    # The new banker puts up a new kitty.
    assert game.phase == Phase.KITTY and game.current_seat == 1 and legal(game) == {"kitty": (1, 10)}


def test_shoot_old_banker_keeps_the_kitty_when_the_bank_changes_hands():
    game = deal("shoot", ["AS", "10C", "KS", "8C"], [("kitty", KITTY), ("stake", 2), "no_shoot", "stand"])
    assert game.banker == 1
    assert ("kitty", 0, KITTY, "kitty_return") in reasons(game)
    assert game.kitty == 0 and nets(game) == chips(game) == {0: -4, 1: 4}
    game.new_round()
    assert game.current_seat == 1 and legal(game) == {"kitty": (1, 10)}


@pytest.mark.parametrize("by_all", [False, True])
def test_a_natural_paid_at_the_deal_wins_its_shoot_bet_from_the_kitty_at_once(by_all):
    """§4: a hand that beats the banker is paid its shoot bets 1:1 from the kitty. With the natural
    paid at the deal (an option on Shoot), the hand is settled then, and so is its shoot bet: it
    was never settled, and held room in the kitty all round."""
    game = deal(
        "shoot",
        ["AS", "9S", "9H", "KD", "7C", "7H"],  # seat 1 A K (a pontoon), seat 2 9 7, the banker 9 7
        [("kitty", KITTY), ("stake", 2), ("stake", 3), ("shoot", 4), ("shoot", 5)],
        players=2,
        natural_paid_at_deal=2,
        natural_paid_by_all=by_all,
    )
    assert game.phase == Phase.PLAYER_TURN and game.current_seat == 2
    others = [(2, 1, 4, "natural")] if by_all else []  # the other player pays the natural too
    assert reasons(game) == [(0, "kitty", KITTY, "kitty"), (0, 1, 4, "natural"), ("kitty", 1, 4, "shoot_win"), *others]
    assert game.kitty == KITTY - 4 and game.shoot_room == 1  # seat 2's 5 stays open, seat 1's is closed
    play(game, [("stick", 0), ("stand", 0)])  # 16 against the banker's 16: the banker wins ties
    assert game.phase == Phase.ROUND_OVER
    assert [r for r in reasons(game) if r[3].startswith("shoot")] == [("kitty", 1, 4, "shoot_win"),
                                                                        (2, "kitty", 5, "shoot_loss")]
    assert sum(nets(game).values()) == 0
