"""docs/rules.md §8 (Pontoon 1939, D13, D14) and §9 (Pontoon 2011, D6, D15).

1939 stakes come on the first card, then the banker's double decision (``no_double`` in most
scripts). 2011 has no double. One player: the deck lists the player's first card, the banker's
first, the player's second, the banker's second, then the draws.
"""

from __future__ import annotations

import pytest
from helpers import codes, deal, hand, hands, kinds, legal, nets, play, reasons

from pontoon_env import Action, ActionKind, IllegalActionError, Phase

STAKE = 2

PLAYER = {
    "natural": ("AS", "KS", [], []),
    "five_card_trick": ("2S", "3S", ["4S", "2D", "3D"], ["twist", "twist", "twist"]),
    "21": ("7S", "4S", ["KS"], ["twist"]),
    "19": ("10S", "9S", [], ["stick"]),
    "18": ("10S", "8S", [], ["stick"]),
    "17": ("10S", "7S", [], ["stick"]),
}
BANKER = {
    "natural": ("AC", "KC", [], []),
    "bust": ("10C", "6C", ["KC"], ["draw"]),
    "five_card_trick": ("2C", "3C", ["2H", "3H", "4C"], ["draw", "draw", "draw"]),
    "21": ("5C", "6C", ["KC"], ["draw"]),
    "18": ("10C", "8C", [], ["stand"]),
}


def settle(preset: str, player: str, banker: str, **overrides):
    p1, p2, p_draws, p_script = PLAYER[player]
    b1, b2, b_draws, b_script = BANKER[banker]
    double = ["no_double"] if preset == "pontoon_1939" else []
    game = deal(
        preset,
        [p1, b1, p2, b2, *p_draws, *b_draws],
        [("stake", STAKE), *double, *p_script, *b_script],
        **overrides,
    )
    assert game.phase == Phase.ROUND_OVER
    return game


def net_1939(player: str, banker: str) -> int:
    return settle("pontoon_1939", player, banker).seat_result(1)


def net_2011(player: str, banker: str, **overrides) -> int:
    return settle("pontoon_2011", player, banker, **overrides).seat_result(1)


# ----------------------------------------------------------------------------- Pontoon 1939


def test_1939_banker_double():
    game = deal("pontoon_1939", ["10S", "10C", "9S", "8C", "AD"], [("stake", 3)])
    assert game.phase == Phase.BANKER_DOUBLE and game.current_seat == 0
    assert legal(game) == {"double_stakes": (0, 0), "no_double": (0, 0)}
    play(game, ["double_stakes"])
    assert hand(game, 1).stake == 6
    assert legal(game)["buy"] == (1, 6)  # the doubled stake is the initial stake for buying
    play(game, ["stick", "stand"])
    assert nets(game) == {0: -6, 1: 6}


def test_1939_natural_paid_three_at_once():
    game = deal(
        "pontoon_1939",
        ["AS", "10H", "10C", "KS", "9H", "8C"],
        [("stake", 2), ("stake", 1), "no_double"],
        players=2,
    )
    assert reasons(game) == [(0, 1, 6, "natural")]
    assert game.phase == Phase.PLAYER_TURN and game.current_seat == 2
    assert hand(game, 1).public == [True, True]  # shown
    play(game, ["stick", "stand"])
    assert nets(game) == {0: -6 - 1, 1: 6, 2: 1}


@pytest.mark.parametrize("banker", ["21", "five_card_trick", "bust", "18"])
def test_1939_natural_paid_already_whatever_the_banker_makes(banker):
    b1, b2, b_draws, b_script = BANKER[banker]
    game = deal(
        "pontoon_1939",
        ["AS", "10S", b1, "KS", "9S", b2, *b_draws],
        [("stake", STAKE), ("stake", 1), "no_double", "stick", *b_script],
        players=2,
    )
    assert game.phase == Phase.ROUND_OVER
    assert game.seat_result(1) == 3 * STAKE and reasons(game)[0] == (0, 1, 3 * STAKE, "natural")


def test_1939_natural_takes_the_bank_next_round_nearest_bankers_left():
    game = deal(
        "pontoon_1939",
        ["9S", "AS", "AH", "10C", "9H", "KS", "KH", "8C"],
        [("stake", 1)] * 3 + ["no_double", "stick", "stand"],
        players=3,
        banker=2,
    )
    assert game.banker == 0  # seats 0 and 1 hold naturals; 0 sits nearer the banker's (2) left


def test_1939_banker_natural_player_natural_pays_one():
    game = settle("pontoon_1939", "natural", "natural")
    assert reasons(game) == [(1, 0, STAKE, "settlement")]
    assert game.banker == 0  # D16


def test_1939_banker_natural_takes_two_from_21():
    assert net_1939("21", "natural") == -2 * STAKE


def test_1939_banker_natural_takes_two_from_five_card_trick():
    assert net_1939("five_card_trick", "natural") == -2 * STAKE


def test_1939_banker_natural_takes_three_from_other_hands():
    assert net_1939("19", "natural") == -3 * STAKE


def test_1939_banker_natural_players_still_play_their_hands():
    game = deal("pontoon_1939", ["10S", "AC", "4S", "KC"], [("stake", STAKE), "no_double"])
    assert game.phase == Phase.PLAYER_TURN
    assert "stick" in kinds(game)  # no minimum to stick: 14 may stand


def test_1939_banker_21_takes_one_from_21():
    assert net_1939("21", "21") == -STAKE


def test_1939_banker_21_takes_one_from_five_card_trick():
    """D13: the source's "12" read as 21."""
    assert net_1939("five_card_trick", "21") == -STAKE


def test_1939_banker_five_card_trick_takes_one_from_five_card_trick():
    assert net_1939("five_card_trick", "five_card_trick") == -STAKE


def test_1939_banker_five_card_trick_takes_one_from_21():
    assert net_1939("21", "five_card_trick") == -STAKE


def test_1939_banker_21_takes_two_from_other_hands():
    assert net_1939("19", "21") == -2 * STAKE


def test_1939_banker_five_card_trick_takes_two_from_other_hands():
    assert net_1939("19", "five_card_trick") == -2 * STAKE


def test_1939_banker_bust_pays_two_to_21_and_five_card_trick():
    """D14."""
    assert net_1939("21", "bust") == 2 * STAKE
    assert net_1939("five_card_trick", "bust") == 2 * STAKE


def test_1939_banker_bust_pays_one_to_other_hands():
    assert net_1939("17", "bust") == STAKE


def test_1939_banker_total_pays_two_to_21_and_five_card_trick():
    assert net_1939("21", "18") == 2 * STAKE
    assert net_1939("five_card_trick", "18") == 2 * STAKE


def test_1939_banker_total_pays_one_to_a_higher_total():
    assert net_1939("19", "18") == STAKE


def test_1939_banker_total_takes_one_from_an_equal_total():
    assert net_1939("18", "18") == -STAKE


def test_1939_banker_total_takes_one_from_a_lower_total():
    assert net_1939("17", "18") == -STAKE


def test_1939_buy_between_one_chip_and_the_initial_stake():
    game = deal("pontoon_1939", ["2S", "10C", "3S", "9C", "2H", "3H"], [("stake", 4), "no_double"])
    assert legal(game)["buy"] == (1, 4)
    play(game, [("buy", 4)])
    assert legal(game)["buy"] == (1, 4)  # each buy, not bounded by the previous one
    with pytest.raises(IllegalActionError, match="buy"):
        game.apply(Action(ActionKind.BUY, 5))
    play(game, [("buy", 1)])
    assert hand(game, 1).stake == 9 and hand(game, 1).public == [False, False, False, False]


def test_1939_twist_face_up_and_no_buy_after_twist():
    game = deal("pontoon_1939", ["2S", "10C", "3S", "9C", "2H"], [("stake", 4), "no_double", "twist"])
    assert hand(game, 1).public[-1] and "buy" not in kinds(game)


def test_1939_no_minimum_to_stick():
    assert "stick" in kinds(deal("pontoon_1939", ["2S", "10C", "3S", "9C"], [("stake", 1), "no_double"]))


def test_1939_five_cards_at_most():
    game = deal(
        "pontoon_1939",
        ["2S", "10C", "3S", "9C", "2H", "3H", "4D"],
        [("stake", 1), "no_double"] + ["twist"] * 3,
    )
    assert len(hand(game, 1).cards) == 5 and game.phase == Phase.BANKER_TURN


def test_1939_split_pairs_of_identical_rank():
    assert "split" in kinds(deal("pontoon_1939", ["8S", "10C", "8H", "9C"], [("stake", 1), "no_double"]))
    assert "split" not in kinds(deal("pontoon_1939", ["KS", "10C", "QH", "9C"], [("stake", 1), "no_double"]))


def test_1939_split_natural_counts_as_21_and_never_passes_the_bank():
    game = deal(
        "pontoon_1939",
        ["AS", "10C", "AH", "8C", "KS", "QH"],
        [("stake", STAKE), "no_double", "split", "stand"],
    )
    assert [h.total() for h in hands(game, 1)] == [21, 21]
    assert [r["hand_class"] for r in game.round_report()["hands"]] == ["twenty_one", "twenty_one"]
    assert [h.payout for h in hands(game, 1)] == [2 * STAKE, 2 * STAKE]  # 21 against 18 pays 2
    assert game.banker == 0


# ----------------------------------------------------------------------------- Pontoon 2011


def test_2011_banker_may_not_double():
    game = deal("pontoon_2011", ["10S", "10C", "9S", "8C"], [("stake", 3)])
    assert game.phase == Phase.PLAYER_TURN
    assert game.banker_hands[0].public == [False, False]


def test_2011_player_pontoon_declared_at_once_and_laid_face_up():
    game = deal("pontoon_2011", ["KS", "10C", "AS", "8C"], [("stake", 3)])
    assert game.phase == Phase.BANKER_TURN
    assert hand(game, 1).declared and hand(game, 1).public == [True, True]
    assert game.ledger == []  # paid at settlement, not at once


def test_2011_stick_only_at_16_or_more():
    assert "stick" not in kinds(deal("pontoon_2011", ["10S", "10C", "5S", "9C"], [("stake", 1)]))
    assert "stick" in kinds(deal("pontoon_2011", ["10S", "10C", "6S", "9C"], [("stake", 1)]))


def test_2011_buy_between_one_chip_and_the_initial_stake():
    game = deal("pontoon_2011", ["2S", "10C", "3S", "9C", "2H"], [("stake", 5)])
    assert legal(game)["buy"] == (1, 5)
    play(game, [("buy", 2)])
    assert legal(game)["buy"] == (1, 5)


def test_2011_no_fifth_card_buy_at_four_cards_totalling_eleven_or_less():
    """D6: 2 + 3 + 2 + 4 = 11 in four cards may twist its fifth card but not buy it."""
    game = deal(
        "pontoon_2011", ["2S", "10C", "3S", "9C", "2H", "4H", "5D"], [("stake", 2), ("buy", 1), ("buy", 1)]
    )
    assert hand(game, 1).total() == 11 and len(hand(game, 1).cards) == 4
    assert "buy" not in kinds(game) and "twist" in kinds(game)
    with pytest.raises(IllegalActionError, match="totalling 11 or less may not buy its fifth card"):
        game.apply(Action(ActionKind.BUY, 1))
    play(game, ["twist"])
    assert len(hand(game, 1).cards) == 5


def test_2011_fifth_card_buy_allowed_at_four_cards_totalling_twelve():
    game = deal("pontoon_2011", ["2S", "10C", "3S", "9C", "3H", "4H"], [("stake", 2), ("buy", 1), ("buy", 1)])
    assert hand(game, 1).total() == 12 and legal(game)["buy"] == (1, 2)


def test_pagat_has_no_fifth_card_buy_restriction():
    """D6: no restriction in ``pagat``."""
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H", "4H"], [("stake", 2), ("buy", 2), ("buy", 2)])
    assert hand(game, 1).total() == 11 and "buy" in kinds(game)


def test_2011_no_buy_after_twist():
    assert "buy" not in kinds(deal("pontoon_2011", ["2S", "10C", "3S", "9C", "2H"], [("stake", 2), "twist"]))


def test_2011_splits_aces_only():
    assert "split" not in kinds(deal("pontoon_2011", ["8S", "10C", "8H", "9C"], [("stake", 1)]))
    assert "split" in kinds(deal("pontoon_2011", ["AS", "10C", "AH", "9C"], [("stake", 1)]))


def test_2011_bust_handed_to_banker_face_down_and_under_the_pack():
    game = deal("pontoon_2011", ["10S", "10C", "6S", "9C", "KS"], [("stake", 2), ("buy", 2)])
    assert reasons(game) == [(1, 0, 4, "bust")]
    assert hand(game, 1).public == [False, False, False]
    assert game.pack.cards[-5:-2] == codes(["10S", "6S", "KS"])  # then the banker's cards


def test_2011_banker_pontoon_takes_every_remaining_stake_at_one():
    game = deal(
        "pontoon_2011",
        ["AS", "10H", "2D", "AC", "KS", "9H", "3D", "KC", "2H", "3H", "4H"],
        [("stake", 2), ("stake", 3), ("stake", 4), "stick", "twist", "twist", "twist"],
        players=3,
    )
    assert game.phase == Phase.ROUND_OVER  # the banker turns up his pontoon: nothing to draw
    assert nets(game) == {0: 9, 1: -2, 2: -3, 3: -4}  # pontoon, 19 and a five-card trick all pay 1
    assert game.banker == 0  # D16: the bank does not pass


def test_2011_banker_may_not_split():
    game = deal("pontoon_2011", ["10S", "8C", "9S", "8D"], [("stake", 1), "stick"])
    assert kinds(game) == {"stand", "draw"}


def test_2011_player_pontoon_wins_two():
    assert net_2011("natural", "18") == 2 * STAKE
    assert net_2011("natural", "five_card_trick") == 2 * STAKE


def test_2011_split_pontoon_wins_one():
    game = deal(
        "pontoon_2011", ["AS", "10C", "AH", "8C", "KS", "9D"], [("stake", STAKE), "split", "stick", "stand"]
    )
    assert [h.payout for h in hands(game, 1)] == [STAKE, STAKE]  # split pontoon 1, soft 20 beats 18
    assert game.banker == 0


def test_2011_five_card_trick_pays_one():
    """D15."""
    assert net_2011("five_card_trick", "18") == STAKE
    assert net_2011("five_card_trick", "bust") == STAKE


def test_2011_five_card_trick_pays_option_two():
    assert net_2011("five_card_trick", "18", five_card_trick_pays=2) == 2 * STAKE


def test_2011_banker_five_card_trick_beats_everything_but_a_pontoon():
    assert net_2011("21", "five_card_trick") == -STAKE
    assert net_2011("five_card_trick", "five_card_trick") == -STAKE
    assert net_2011("natural", "five_card_trick") == 2 * STAKE


def test_2011_banker_is_never_paid_double():
    assert net_2011("19", "five_card_trick") == -STAKE
    assert net_2011("19", "21") == -STAKE


def test_2011_ties_to_the_banker():
    assert net_2011("18", "18") == -STAKE
    assert net_2011("21", "21") == -STAKE


def test_2011_higher_total_and_21_paid_one():
    assert net_2011("19", "18") == STAKE
    assert net_2011("21", "18") == STAKE
    assert net_2011("17", "18") == -STAKE


def test_2011_banker_bust_pays_every_standing_hand():
    assert net_2011("17", "bust") == STAKE
    assert net_2011("21", "bust") == STAKE
    assert net_2011("natural", "bust") == 2 * STAKE


def test_2011_pontoon_winner_may_take_the_bank():
    game = settle("pontoon_2011", "natural", "18")
    assert game.banker == 0  # not yet: he is asked at the next deal
    game.new_round()
    assert game.phase == Phase.TAKE_BANK and game.current_seat == 1
    assert legal(game) == {"take_bank": (0, 0), "decline_bank": (0, 0)}
    play(game, ["take_bank"])
    assert game.banker == 1 and game.phase == Phase.STAKE and game.current_seat == 0


def test_2011_pontoon_winner_may_decline_and_the_next_in_position_is_asked():
    game = deal(
        "pontoon_2011",
        ["9S", "AS", "AH", "10C", "9H", "KS", "KH", "8C"],
        [("stake", 1)] * 3 + ["stick", "stand"],
        players=3,
        banker=2,
    )
    game.new_round()
    assert game.phase == Phase.TAKE_BANK and game.current_seat == 0
    play(game, ["decline_bank"])
    assert game.phase == Phase.TAKE_BANK and game.current_seat == 1
    play(game, ["decline_bank"])
    assert game.banker == 2 and game.phase == Phase.STAKE
