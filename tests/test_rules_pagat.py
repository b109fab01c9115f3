"""docs/rules.md §1–§3 (preset ``pagat``), §9b (selling the bank) and decisions D1–D5, D16–D18.

Every test stacks the pack. With one player, seat 0 deals and seat 1 plays; the deck lists the
player's first card, the banker's first card, the player's second card, the banker's second card,
then the draws in the order they happen.
"""

from __future__ import annotations

import pytest
from helpers import codes, deal, hand, hands, kinds, legal, nets, new_game, play, reasons

from pontoon_env import Action, ActionKind, IllegalActionError, Phase, PontoonGame, make_rules

STAKE = 4

# ----------------------------------------------------------------------------- the settlement table

# Player hands: (first card, second card, draws, script after the stake).
PLAYER = {
    "pontoon": ("AS", "KS", [], []),
    "five_card_trick": ("2S", "3S", ["4S", "2D", "3D"], ["twist", "twist", "twist"]),  # 14 in five cards
    "21": ("7S", "4S", ["KS"], ["twist"]),  # 21 in three cards
    "19": ("10S", "9S", [], ["stick"]),
    "18": ("10S", "8S", [], ["stick"]),
    "17": ("10S", "7S", [], ["stick"]),
}
# Banker hands: (first card, second card, draws, script).
BANKER = {
    "bust": ("10C", "6C", ["KC"], ["draw"]),
    "five_card_trick": ("2C", "3C", ["2H", "3H", "4C"], ["draw", "draw", "draw"]),  # 14 in five cards
    "21": ("5C", "6C", ["KC"], ["draw"]),
    "18": ("10C", "8C", [], ["stand"]),
}


def settle(player: str, banker: str, preset: str = "pagat", stake: int = STAKE, **overrides) -> PontoonGame:
    """Play one round of ``player``'s hand against ``banker``'s and return the finished game."""
    p1, p2, p_draws, p_script = PLAYER[player]
    b1, b2, b_draws, b_script = BANKER[banker]
    extra = ["no_double"] if make_rules(preset, **overrides).banker_double else []
    game = deal(
        preset,
        [p1, b1, p2, b2, *p_draws, *b_draws],
        [("stake", stake), *extra, *p_script, *b_script],
        **overrides,
    )
    assert game.phase == Phase.ROUND_OVER
    return game


def player_net(player: str, banker: str, **overrides) -> int:
    game = settle(player, banker, **overrides)
    assert game.seat_result(1) == -game.seat_result(0)
    return game.seat_result(1)


def test_pagat_banker_bust_pays_pontoon_double():
    assert player_net("pontoon", "bust") == 2 * STAKE


def test_pagat_banker_bust_pays_five_card_trick_double():
    assert player_net("five_card_trick", "bust") == 2 * STAKE


def test_pagat_banker_bust_pays_twenty_one_single():
    assert player_net("21", "bust") == STAKE


def test_pagat_banker_bust_pays_total_single():
    assert player_net("17", "bust") == STAKE


def test_pagat_bust_pays_double_option_off_pays_pontoon_and_five_card_trick_single():
    """D2 with ``bust_pays_double=False``."""
    assert player_net("pontoon", "bust", bust_pays_double=False) == STAKE
    assert player_net("five_card_trick", "bust", bust_pays_double=False) == STAKE


def test_pagat_banker_five_card_trick_pays_pontoon_double():
    assert player_net("pontoon", "five_card_trick") == 2 * STAKE


def test_pagat_banker_five_card_trick_takes_double_from_five_card_trick():
    assert player_net("five_card_trick", "five_card_trick") == -2 * STAKE


def test_pagat_banker_five_card_trick_takes_double_from_twenty_one():
    assert player_net("21", "five_card_trick") == -2 * STAKE


def test_pagat_banker_five_card_trick_takes_double_from_total():
    assert player_net("19", "five_card_trick") == -2 * STAKE


def test_pagat_banker_twenty_one_pays_pontoon_double():
    assert player_net("pontoon", "21") == 2 * STAKE


def test_pagat_banker_twenty_one_pays_five_card_trick_double():
    assert player_net("five_card_trick", "21") == 2 * STAKE


def test_pagat_banker_twenty_one_takes_single_from_twenty_one():
    assert player_net("21", "21") == -STAKE


def test_pagat_banker_twenty_one_takes_single_from_total():
    assert player_net("19", "21") == -STAKE


def test_pagat_banker_total_pays_pontoon_double():
    assert player_net("pontoon", "18") == 2 * STAKE


def test_pagat_banker_total_pays_five_card_trick_double():
    assert player_net("five_card_trick", "18") == 2 * STAKE


def test_pagat_banker_total_pays_twenty_one_single():
    assert player_net("21", "18") == STAKE


def test_pagat_banker_total_wins_one_if_player_total_higher():
    assert player_net("19", "18") == STAKE


def test_pagat_banker_total_tie_goes_to_banker():
    assert player_net("18", "18") == -STAKE


def test_pagat_banker_total_takes_one_from_lower_total():
    assert player_net("17", "18") == -STAKE


def test_pagat_five_card_hand_totalling_21_is_a_five_card_trick():
    """Within a class nothing differs: a five-card 21 is a five-card trick, paid 2 against a 21."""
    game = deal(
        "pagat",
        ["2S", "5C", "3S", "6C", "4S", "2D", "10D", "KC"],
        [("stake", 3), "twist", "twist", "twist", "draw"],
    )
    assert hand(game, 1).total() == 21 and len(hand(game, 1).cards) == 5
    assert game.round_report()["hands"][0]["hand_class"] == "five_card_trick"
    assert game.seat_result(1) == 6


def test_pagat_settlement_multiplies_the_current_stake_after_buys():
    """ "Player wins k" is k times the hand's current stake, buys included."""
    game = deal("pagat", ["10S", "10C", "5S", "8C", "3S"], [("stake", 4), ("buy", 6), "stick", "stand"])
    assert hand(game, 1).stake == 10 and hand(game, 1).total() == 18
    # 18 against 18: the tie goes to the banker, who takes the whole current stake.
    assert nets(game) == {0: 10, 1: -10}


def test_pagat_payment_goes_through_the_ledger_between_player_and_banker():
    game = settle("19", "18")
    assert reasons(game) == [(0, 1, STAKE, "settlement")]
    assert game.balances == [-STAKE, STAKE]


# ----------------------------------------------------------------------------- the deal


def test_pagat_first_card_to_each_player_from_bankers_left_then_banker_face_down():
    game = new_game("pagat", players=3, banker=2)  # players sit 3, 0, 1 in turn
    game.new_round(deck=["2S", "3S", "4S", "5S"])
    assert game.player_order() == [3, 0, 1]
    assert [hand(game, seat).cards for seat in (3, 0, 1)] == [[c] for c in codes(["2S", "3S", "4S"])]
    assert game.banker_hands[0].cards == list(codes(["5S"]))
    assert all(not h.public[0] for h in [hand(game, 3), hand(game, 0), hand(game, 1), game.banker_hands[0]])


def test_pagat_stakes_placed_on_the_first_card_in_turn_from_bankers_left():
    game = new_game("pagat", players=3, banker=2)
    game.new_round()
    order = []
    while game.phase == Phase.STAKE:
        order.append(game.current_seat)
        assert all(len(h.cards) == 1 for p in game.players for h in p.hands)
        game.apply(Action(ActionKind.STAKE, 1))
    assert order == [3, 0, 1]


def test_pagat_initial_stake_between_min_and_max():
    game = deal("pagat", min_stake=2, max_stake=8)
    assert legal(game) == {"stake": (2, 8)}
    for amount in (1, 9, 0):
        with pytest.raises(IllegalActionError, match="stake"):
            game.apply(Action(ActionKind.STAKE, amount))
    play(game, [("stake", 8)])
    assert hand(game, 1).stake == 8 and hand(game, 1).initial == 8


def test_pagat_second_card_dealt_to_every_hand_after_the_stakes():
    game = deal("pagat", ["2S", "3S", "4S", "5S", "6S", "7S"], [("stake", 1), ("stake", 1)], players=2)
    assert hand(game, 1).cards == list(codes(["2S", "5S"]))
    assert hand(game, 2).cards == list(codes(["3S", "6S"]))
    assert game.banker_hands[0].cards == list(codes(["4S", "7S"]))


def test_pagat_banker_pontoon_takes_double_from_every_player():
    game = deal(
        "pagat",
        ["9S", "8S", "7S", "AD", "10H", "9H", "8H", "KD"],
        [("stake", 1), ("stake", 2), ("stake", 3)],
        players=3,
    )
    assert game.phase == Phase.ROUND_OVER  # revealed at once: the round ends
    assert nets(game) == {0: 12, 1: -2, 2: -4, 3: -6}
    assert all(t.reason == "banker_natural" for t in game.ledger)
    assert game.banker_hands[0].public == [True, True]


def test_pagat_banker_pontoon_takes_double_from_a_player_pontoon_too():
    game = deal("pagat", ["AS", "AD", "KS", "KD"], [("stake", 5)])
    assert game.phase == Phase.ROUND_OVER
    assert nets(game) == {0: 10, 1: -10}


# ----------------------------------------------------------------------------- the player's turn


def test_pagat_player_pontoon_declared_ten_face_down_ace_face_up_and_turn_ends():
    game = deal("pagat", ["KS", "10C", "AS", "8C"], [("stake", 2)])
    assert game.phase == Phase.BANKER_TURN  # the player had no decision to make
    assert hand(game, 1).public == [False, True]
    assert hand(game, 1).declared


def test_pagat_split_pair_of_same_rank_one_card_to_each_hand():
    """D1: each split hand receives one more card, face down; split cards are face up."""
    game = deal("pagat", ["8S", "10C", "8H", "9C", "3D", "4D"], [("stake", 3)])
    assert "split" in kinds(game)
    play(game, ["split"])
    first, second = hands(game, 1)
    assert first.cards == list(codes(["8S", "3D"])) and second.cards == list(codes(["8H", "4D"]))
    assert first.public == [True, False] and second.public == [True, False]
    assert first.stake == second.stake == 3 and first.split and second.split


def test_pagat_split_ten_value_cards_only_if_identical():
    assert "split" not in kinds(deal("pagat", ["KS", "10C", "JS", "9C"], [("stake", 1)]))
    assert "split" not in kinds(deal("pagat", ["10S", "10C", "KS", "9C"], [("stake", 1)]))
    assert "split" in kinds(deal("pagat", ["10S", "9C", "10H", "8C"], [("stake", 1)]))
    assert "split" in kinds(deal("pagat", ["QS", "9C", "QH", "8C"], [("stake", 1)]))


def test_pagat_resplit_up_to_four_hands():
    game = deal(
        "pagat",
        ["8S", "10C", "8H", "9C", "8D", "8C", "8S", "8H", "8D", "8C"],
        [("stake", 2), "split", "split", "split"],
        decks=2,
    )
    assert [h.cards for h in hands(game, 1)] == [
        list(codes(pair)) for pair in (["8S", "8D"], ["8S", "8C"], ["8D", "8H"], ["8H", "8C"])
    ]
    assert [h.stake for h in hands(game, 1)] == [2, 2, 2, 2]
    assert "split" not in kinds(game)  # four hands at most, although a pair of eights is showing


def test_pagat_split_hands_played_one_after_another():
    game = deal("pagat", ["8S", "10C", "8H", "9C", "KD", "QD"], [("stake", 1), "split"])
    assert hands(game, 1)[0].cards == list(codes(["8S", "KD"]))
    assert game.players[0].active == 0
    play(game, ["stick"])
    assert game.players[0].active == 1 and game.phase == Phase.PLAYER_TURN
    play(game, ["stick"])
    assert game.phase == Phase.BANKER_TURN


def test_pagat_no_split_after_buying_or_twisting():
    game = deal("pagat", ["3S", "10C", "3H", "9C", "2D"], [("stake", 1), "twist"])
    assert "split" not in kinds(game)


def test_split_aces_only_variation():
    assert "split" not in kinds(
        deal("pagat", ["8S", "10C", "8H", "9C"], [("stake", 1)], split_aces_only=True)
    )
    assert "split" in kinds(deal("pagat", ["AS", "10C", "AH", "9C"], [("stake", 1)], split_aces_only=True))


def test_pagat_first_buy_between_one_and_two_times_initial():
    game = deal("pagat", ["5S", "10C", "4S", "9C"], [("stake", 5)])
    assert legal(game)["buy"] == (5, 10)
    for amount in (4, 11):
        with pytest.raises(IllegalActionError, match=r"buy:.*the amount must be in 5\.\.10"):
            game.apply(Action(ActionKind.BUY, amount))


def test_pagat_later_buy_between_initial_and_previous_buy():
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H", "3H", "4D"], [("stake", 5), ("buy", 8)])
    assert legal(game)["buy"] == (5, 8)
    play(game, [("buy", 6)])
    assert legal(game)["buy"] == (5, 6)
    assert hand(game, 1).stake == 5 + 8 + 6


def test_pagat_buying_every_card_at_the_maximum_stakes_seven_times_initial():
    game = deal(
        "pagat",
        ["2S", "10C", "3S", "8C", "2H", "3H", "4D"],
        [("stake", 2), ("buy", 4), ("buy", 4), ("buy", 4)],
    )
    assert hand(game, 1).stake == 14 == 7 * 2
    assert len(hand(game, 1).cards) == 5 and game.phase == Phase.BANKER_TURN


def test_pagat_bought_card_face_down_twisted_card_face_up():
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H", "3H"], [("stake", 1), ("buy", 1), "twist"])
    assert hand(game, 1).public == [False, False, False, True]
    assert hand(game, 1).stake == 2  # the twist left the stake unchanged


def test_no_buy_after_twist():
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H"], [("stake", 1), "twist"])
    assert "buy" not in kinds(game) and "twist" in kinds(game)
    with pytest.raises(IllegalActionError, match="no buying after a twist"):
        game.apply(Action(ActionKind.BUY, 1))


def test_buy_then_twist_allowed():
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H", "3H"], [("stake", 1), ("buy", 2)])
    assert {"buy", "twist"} <= kinds(game)
    play(game, ["twist"])
    assert len(hand(game, 1).cards) == 4


def test_pagat_stick_only_at_fifteen_or_more():
    game = deal("pagat", ["10S", "10C", "4S", "9C", "AD"], [("stake", 1)])
    assert "stick" not in kinds(game)  # 14
    with pytest.raises(IllegalActionError, match="sticking needs a total of at least 15, the hand has 14"):
        game.apply(Action(ActionKind.STICK))
    play(game, ["twist"])  # 15
    assert "stick" in kinds(game)


def test_stick_min_16_variation():
    game = deal("pagat", ["10S", "10C", "5S", "9C"], [("stake", 1)], stick_min=16)
    assert "stick" not in kinds(game)
    assert "stick" in kinds(deal("pagat", ["10S", "10C", "6S", "9C"], [("stake", 1)], stick_min=16))


def test_soft_total_counts_for_stick_minimum():
    """D17: A+4 is a soft 15 and may stick."""
    assert "stick" in kinds(deal("pagat", ["AS", "10C", "4S", "9C"], [("stake", 1)]))


def test_pagat_twenty_one_must_stick():
    game = deal("pagat", ["7S", "10C", "4S", "9C", "KS"], [("stake", 1), "twist"])
    assert game.phase == Phase.BANKER_TURN  # the 21 ended the turn


def test_no_buy_or_twist_at_exactly_21():
    """D4: buying (and twisting) only under 21; a soft 21 of three cards stops too."""
    game = deal("pagat", ["AS", "10C", "5S", "9C", "5H", "2D"], [("stake", 1), ("buy", 1)], players=1)
    assert hand(game, 1).total() == 21
    assert game.phase == Phase.BANKER_TURN


def test_pagat_five_card_hand_stops_drawing():
    game = deal(
        "pagat", ["2S", "10C", "3S", "9C", "2H", "3H", "4D"], [("stake", 1), "twist", "twist", "twist"]
    )
    assert len(hand(game, 1).cards) == 5 and game.phase == Phase.BANKER_TURN


def test_bust_loses_stake_at_once():
    game = deal(
        "pagat",
        ["10S", "2S", "10C", "6S", "4S", "9C", "KS"],
        [("stake", 2), ("stake", 3), ("buy", 3)],
        players=2,
    )
    # Seat 1 busted on the bought king while seat 2 has still to play: the banker has the stake.
    assert game.phase == Phase.PLAYER_TURN and game.current_seat == 2
    assert reasons(game) == [(1, 0, 5, "bust")]
    assert hand(game, 1).bust and hand(game, 1).settled


def test_bust_cards_go_to_bottom_of_pack_at_once():
    game = deal(
        "pagat",
        ["10S", "2S", "10C", "6S", "4S", "9C", "KS"],
        [("stake", 2), ("stake", 3), "twist"],
        players=2,
    )
    assert game.pack.cards[-3:] == codes(["10S", "6S", "KS"])
    assert game.card_count() == 52


def test_bust_hand_thrown_in_face_up():
    game = deal("pagat", ["10S", "10C", "6S", "9C", "KS"], [("stake", 2), ("buy", 2)])
    assert hand(game, 1).public == [True, True, True]


def test_bust_loses_even_when_the_banker_busts_later():
    game = deal(
        "pagat",
        ["10S", "9S", "10C", "8S", "6S", "6C", "KS", "KH"],
        [("stake", 2), ("stake", 1), "twist", "stick", "draw"],
        players=2,
    )
    assert game.phase == Phase.ROUND_OVER and game.banker_hands[0].total() > 21
    assert nets(game) == {0: 2 - 1, 1: -2, 2: 1}


# ----------------------------------------------------------------------------- the banker's turn


def test_pagat_banker_turns_up_both_cards_and_draws_freely():
    game = deal("pagat", ["10S", "10C", "9S", "2C"], [("stake", 1), "stick"])
    assert game.phase == Phase.BANKER_TURN and game.current_seat == 0
    assert game.banker_hands[0].public == [True, True]
    assert kinds(game) == {"stand", "draw"}  # no minimum, no obligation: he may stand on 12
    play(game, ["stand"])
    assert nets(game) == {0: -1, 1: 1}


def test_pagat_banker_draws_face_up_and_stops_at_21():
    game = deal("pagat", ["10S", "10C", "9S", "2C", "9C"], [("stake", 1), "stick", "draw"])
    assert game.banker_hands[0].public == [True, True, True]
    assert game.phase == Phase.ROUND_OVER


def test_pagat_banker_stops_at_bust():
    game = deal("pagat", ["10S", "10C", "9S", "6C", "KC"], [("stake", 1), "stick", "draw"])
    assert game.phase == Phase.ROUND_OVER and game.banker_hands[0].total() == 26
    assert nets(game) == {0: -1, 1: 1}


def test_pagat_banker_stops_at_five_cards():
    game = deal(
        "pagat", ["10S", "2C", "9S", "3C", "2H", "3H", "4C"], [("stake", 1), "stick", "draw", "draw", "draw"]
    )
    assert len(game.banker_hands[0].cards) == 5 and game.phase == Phase.ROUND_OVER


def test_banker_does_not_play_when_every_hand_has_bust():
    game = deal("pagat", ["10S", "10C", "6S", "9C", "KS"], [("stake", 2), "twist"])
    assert game.phase == Phase.ROUND_OVER
    assert len(game.banker_hands[0].cards) == 2


# ----------------------------------------------------------------------------- end of the round


def test_pack_carries_over_unshuffled_without_pontoon():
    game = deal(
        "pagat",
        ["10S", "9S", "10C", "6S", "8H", "9C", "KS"],
        [("stake", 1), ("stake", 1), "twist", "stick", "stand"],
        players=2,
    )
    assert game.phase == Phase.ROUND_OVER
    # Busts went under the pack at once, then every other card in turn order, banker last.
    assert game.pack.cards[-7:] == codes(["10S", "6S", "KS", "9S", "8H", "10C", "9C"])
    top = game.pack.cards[:6]
    game.new_round()
    assert [hand(game, 1).cards[0], hand(game, 2).cards[0], game.banker_hands[0].cards[0]] == list(top[:3])
    assert game.card_count() == 52


def test_shuffle_after_pontoon():
    game = deal("pagat", ["AS", "10C", "KS", "9C"], [("stake", 1), "stand"])
    assert game.phase == Phase.ROUND_OVER
    used = codes(["AS", "KS", "10C", "9C"])
    assert game.pack.cards[-4:] != used
    assert sorted(game.pack.cards) == list(range(52))
    assert game.seen == [0] * 13  # the shuffle wipes the public memory of seen cards


def test_shuffle_after_banker_pontoon():
    game = deal("pagat", ["9S", "AC", "8S", "KC"], [("stake", 1)])
    assert game.phase == Phase.ROUND_OVER
    assert game.pack.cards[-4:] != codes(["9S", "8S", "AC", "KC"])


def test_bank_passes_to_pontoon_holder():
    game = deal("pagat", ["AS", "10C", "KS", "9C"], [("stake", 1), "stand"])
    assert game.banker == 1
    game.new_round()
    assert game.player_order() == [0]


def test_bank_passes_to_nearest_pontoon_on_bankers_left():
    # Banker in seat 2; players in turn 3, 0, 1. Seats 0 and 1 make pontoons; seat 0 is nearer.
    game = deal(
        "pagat",
        ["9S", "AS", "AH", "10C", "8S", "KS", "KH", "9C"],
        [("stake", 1)] * 3 + ["stick", "stand"],
        players=3,
        banker=2,
    )
    assert game.phase == Phase.ROUND_OVER
    assert game.banker == 0


def test_split_pontoon_never_passes_bank():
    game = deal("pagat", ["AS", "10C", "AH", "9C", "KS", "QH"], [("stake", 1), "split", "stand"])
    assert [h.total() for h in hands(game, 1)] == [21, 21]
    assert game.banker == 0


def test_split_pontoon_ranks_and_pays_as_pontoon_by_default():
    """D3: a split ace + ten is paid as a pontoon (2) against the banker's 21."""
    game = deal("pagat", ["AS", "5C", "AH", "6C", "KS", "8D", "KC"], [("stake", 1), "split", "stick", "draw"])
    assert game.banker_hands[0].total() == 21
    assert [h.payout for h in hands(game, 1)] == [2, -1]


def test_split_pontoon_option_21_ranks_as_21():
    game = deal(
        "pagat",
        ["AS", "5C", "AH", "6C", "KS", "8D", "KC"],
        [("stake", 1), "split", "stick", "draw"],
        split_pontoon="21",
    )
    assert [h.payout for h in hands(game, 1)] == [-1, -1]


def test_bank_does_not_pass_when_banker_had_pontoon():
    """D16 (and §3: not in a round the banker's pontoon ended)."""
    game = deal("pagat", ["AS", "AC", "KS", "KC"], [("stake", 1)])
    assert game.banker == 0


def test_more_than_seven_players_use_two_decks():
    """D18."""
    assert PontoonGame("pagat", num_players=7, seed=0, banker=0).rules.decks == 1
    game = PontoonGame("pagat", num_players=8, seed=0, banker=0)
    assert game.rules.decks == 2 and game.card_count() == 104


# ----------------------------------------------------------------------------- §9b selling the bank


def test_bank_sale_banker_may_keep_the_bank():
    game = deal("pagat", ["10S", "10C", "9S", "8C"], bank_sale=True)
    assert game.phase == Phase.BANK_SALE and game.current_seat == 0
    assert legal(game) == {"keep_bank": (0, 0), "sell_bank": (0, 200)}
    play(game, ["keep_bank"])
    assert game.phase == Phase.STAKE and game.banker == 0


def test_bank_sale_highest_bid_at_or_above_reserve_buys_and_pays_old_banker():
    game = deal(
        "pagat", ["10S", "9S", "8S", "10C", "9C", "8C", "7D"], [("sell_bank", 10)], players=3, bank_sale=True
    )
    assert game.phase == Phase.BANK_BID and game.current_seat == 1
    assert legal(game) == {"pass": (0, 0), "bid": (10, 200)}
    play(game, [("bid", 10)])
    assert game.current_seat == 2 and legal(game)["bid"] == (11, 200)  # each bid must beat the last
    play(game, [("bid", 15), "pass"])
    assert game.banker == 2
    assert reasons(game) == [(2, 0, 15, "bank_sale")]
    assert game.phase == Phase.STAKE and game.player_order() == [3, 0, 1]


def test_bank_sale_bid_below_reserve_is_illegal_and_no_bid_keeps_the_bank():
    game = deal("pagat", [], [("sell_bank", 30)], players=2, bank_sale=True)
    with pytest.raises(IllegalActionError, match="bid"):
        game.apply(Action(ActionKind.BID, 29))
    play(game, ["pass", "pass"])
    assert game.banker == 0 and game.ledger == [] and game.phase == Phase.STAKE


# ----------------------------------------------------------------------------- options and memory


def test_buy_limits_option_initial_in_pagat():
    """D5's alternative: each buy from 1 chip up to the initial stake."""
    game = deal("pagat", ["2S", "10C", "3S", "9C", "2H"], [("stake", 4)], buy_limits="initial")
    assert legal(game)["buy"] == (1, 4)


def test_split_cards_are_face_up_and_counted_once_in_the_seen_memory():
    game = deal("pagat", ["8S", "10C", "8H", "9C", "8D", "2D", "3C", "4C"], [("stake", 1), "split"])
    assert game.seen[7] == 2  # the two split eights; the 8D came face down
    play(game, ["split"])  # re-split: the 8S was showing already, the 8D turns up
    assert game.seen[7] == 3
    assert [h.public[0] for h in hands(game, 1)] == [True, True, True]


def test_shuffle_after_split_pontoon():
    """A split ace + ten is a pontoon for the shuffle (it never passes the bank, though)."""
    game = deal("pagat", ["AS", "10C", "AH", "9C", "KS", "9D"], [("stake", 1), "split", "stick", "stand"])
    assert game.banker == 0
    assert game.pack.cards[-6:] != codes(["AS", "KS", "AH", "9D", "10C", "9C"])


def test_seen_memory_restarts_when_a_carried_over_pack_comes_round_again():
    game = new_game("pagat", players=5, seed=7, shuffle_after_pontoon=False)  # the pack never shuffles
    for _ in range(20):
        game.new_round()
        while not game.is_round_over:
            options = game.legal_actions()
            kinds_now = {o.kind for o in options}
            for kind in (ActionKind.STAKE, ActionKind.STICK, ActionKind.STAND, ActionKind.TWIST):
                if kind in kinds_now:
                    amount = next(o.min_amount for o in options if o.kind == kind)
                    game.apply(Action(kind, amount))
                    break
        assert all(count <= 4 for count in game.seen)
