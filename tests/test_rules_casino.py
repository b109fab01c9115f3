"""docs/rules.md §5: the online-casino Pontoon (preset ``casino``) and decisions D8–D10.

The bet comes before any card, so a script starts with the stake; the deck lists the player's
first card, the dealer's first, the player's second, the dealer's second, then the draws.
"""

from __future__ import annotations

import pytest
from helpers import codes, deal, hand, hands, kinds, legal, nets, play

from pontoon_env import Action, ActionKind, IllegalActionError, Phase

STAKE = 3


def dealer_round(
    player: list[str], dealer: list[str], player_script: list, dealer_draws: int = 0, **overrides
):
    """Player cards (2 + draws) against dealer cards (2 + draws), playing ``player_script``."""
    deck = [player[0], dealer[0], player[1], dealer[1], *player[2:], *dealer[2:]]
    game = deal("casino", deck, [("stake", STAKE), *player_script], **overrides)
    while game.phase == Phase.BANKER_TURN:  # the dealer's fixed rule leaves one legal action
        (only,) = game.legal_actions()
        game.apply(Action(only.kind))
    assert game.phase == Phase.ROUND_OVER
    return game


def test_casino_bet_placed_before_any_card():
    game = deal("casino", [], [])
    assert game.phase == Phase.STAKE and legal(game) == {"stake": (1, 10)}
    assert hand(game, 1).cards == [] and game.banker_hands[0].cards == []
    play(game, [("stake", 4)])
    assert len(hand(game, 1).cards) == 2 and len(game.banker_hands[0].cards) == 2


def test_casino_dealer_cards_stay_face_down_during_the_players_turns():
    game = deal("casino", ["10S", "10C", "5S", "9C"], [("stake", STAKE)])
    assert game.phase == Phase.PLAYER_TURN
    assert game.banker_hands[0].public == [False, False]


def test_casino_dealer_peeks_pontoon_and_every_player_loses_one():
    game = deal("casino", ["10S", "9S", "AC", "5S", "9H", "KC"], [("stake", 2), ("stake", 5)], players=2)
    assert game.phase == Phase.ROUND_OVER
    assert nets(game) == {0: 7, 1: -2, 2: -5}
    assert game.banker_hands[0].public == [True, True]


def test_casino_dealer_pontoon_takes_one_from_a_player_pontoon_too():
    game = deal("casino", ["AS", "AC", "KS", "KC"], [("stake", 2)])
    assert nets(game) == {0: 2, 1: -2}


def test_casino_hit_and_stand_only_at_fifteen_or_more():
    game = deal("casino", ["10S", "10C", "4S", "9C", "AD"], [("stake", STAKE)])
    assert kinds(game) == {"twist", "double"}  # no buying, no stand on 14
    play(game, ["twist"])
    assert "stick" in kinds(game)


def test_casino_double_once_per_hand_doubles_the_stake_with_one_card_and_hitting_goes_on():
    game = deal("casino", ["2S", "10C", "3S", "9C", "4S", "2D"], [("stake", STAKE), "double"])
    assert hand(game, 1).stake == 2 * STAKE and hand(game, 1).cards == list(codes(["2S", "3S", "4S"]))
    assert "double" not in kinds(game) and "twist" in kinds(game)  # once per hand, hitting goes on
    play(game, ["twist"])
    assert len(hand(game, 1).cards) == 4


def test_casino_double_on_two_three_or_four_cards():
    game = deal("casino", ["2S", "10C", "3S", "9C", "2H", "3H", "2D"], [("stake", STAKE)])
    assert "double" in kinds(game)  # two cards
    play(game, ["twist"])
    assert "double" in kinds(game)  # three cards
    play(game, ["twist"])
    assert "double" in kinds(game)  # four cards
    play(game, ["double"])
    assert len(hand(game, 1).cards) == 5 and hand(game, 1).stake == 2 * STAKE
    assert game.phase == Phase.BANKER_TURN  # five cards stop


def test_casino_no_stand_on_a_double_of_a_made_hand_without_its_card():
    game = deal("casino", ["10S", "10C", "9S", "9C", "KH"], [("stake", STAKE), "double"])
    assert hand(game, 1).bust and game.seat_result(1) == -2 * STAKE


def test_casino_split_cards_of_same_value():
    game = deal("casino", ["QS", "10C", "KH", "9C", "5D", "6D"], [("stake", STAKE)])
    assert "split" in kinds(game)
    play(game, ["split"])
    assert [h.cards for h in hands(game, 1)] == [list(codes(["QS", "5D"])), list(codes(["KH", "6D"]))]
    assert [h.stake for h in hands(game, 1)] == [STAKE, STAKE]


def test_casino_split_up_to_three_hands():
    """D10."""
    game = deal(
        "casino", ["8S", "10C", "8H", "9C", "8D", "2D", "8C", "3C"], [("stake", STAKE), "split", "split"]
    )
    assert len(hands(game, 1)) == 3
    assert hands(game, 1)[0].cards == list(codes(["8S", "8C"]))
    assert "split" not in kinds(game)


def test_casino_double_after_split():
    game = deal("casino", ["8S", "10C", "8H", "9C", "3D", "2D", "KD"], [("stake", STAKE), "split"])
    assert "double" in kinds(game)
    play(game, ["double"])
    first, second = hands(game, 1)
    assert (
        first.stake == 2 * STAKE and first.cards == list(codes(["8S", "3D", "KD"])) and second.stake == STAKE
    )


def test_casino_pontoon_after_split_counts_as_pontoon():
    game = dealer_round(["AS", "AH", "KS", "9D"], ["10C", "10D"], ["split", "stick"])
    assert [h.payout for h in hands(game, 1)] == [2 * STAKE, -STAKE]


def test_casino_dealer_hits_soft_17():
    game = deal("casino", ["10S", "AC", "9S", "6C"], [("stake", STAKE), "stick"])
    assert game.phase == Phase.BANKER_TURN and kinds(game) == {"draw"}


def test_casino_dealer_hits_16_and_below():
    game = deal("casino", ["10S", "10C", "9S", "6C"], [("stake", STAKE), "stick"])
    assert kinds(game) == {"draw"}


def test_casino_dealer_stands_on_hard_17():
    game = deal("casino", ["10S", "10C", "9S", "7C"], [("stake", STAKE), "stick"])
    assert kinds(game) == {"stand"}
    with pytest.raises(IllegalActionError, match="draw"):
        game.apply(Action(ActionKind.DRAW))


def test_casino_dealer_stands_on_hard_17_holding_an_ace():
    game = deal("casino", ["10S", "AC", "9S", "6C", "KC"], [("stake", STAKE), "stick", "draw"])
    assert game.banker_hands[0].total() == 17 and kinds(game) == {"stand"}


def test_casino_dealer_stands_on_soft_18():
    game = deal("casino", ["10S", "AC", "9S", "7C"], [("stake", STAKE), "stick"])
    assert kinds(game) == {"stand"}


def test_casino_dealer_stops_at_five_cards():
    game = dealer_round(["10S", "9S"], ["2C", "2D", "3C", "3D", "4C"], ["stick"])
    assert len(game.banker_hands[0].cards) == 5 and game.banker_hands[0].total() == 14
    assert nets(game) == {0: STAKE, 1: -STAKE}  # the dealer's five-card trick beats 19


def test_casino_player_pontoon_paid_two_to_one():
    game = dealer_round(["AS", "KS"], ["10C", "9C"], [])
    assert nets(game) == {0: -2 * STAKE, 1: 2 * STAKE}


def test_casino_player_five_card_trick_paid_two_to_one():
    game = dealer_round(["2S", "3S", "2H", "3H", "4S"], ["10C", "9C"], ["twist", "twist", "twist"])
    assert game.seat_result(1) == 2 * STAKE


def test_casino_player_five_card_trick_paid_two_to_one_when_dealer_busts():
    game = dealer_round(["2S", "3S", "2H", "3H", "4S"], ["10C", "6C", "KC"], ["twist", "twist", "twist"])
    assert game.seat_result(1) == 2 * STAKE


def test_casino_higher_total_paid_one_to_one():
    game = dealer_round(["10S", "9S"], ["10C", "8C"], ["stick"])
    assert game.seat_result(1) == STAKE


def test_casino_twenty_one_paid_one_to_one():
    game = dealer_round(["7S", "4S", "KS"], ["10C", "8C"], ["twist"])
    assert game.seat_result(1) == STAKE


def test_casino_dealer_bust_pays_one_to_one():
    game = dealer_round(["10S", "9S"], ["10C", "6C", "KC"], ["stick"])
    assert game.seat_result(1) == STAKE


def test_casino_ties_go_to_the_dealer():
    game = dealer_round(["10S", "8S"], ["10C", "8C"], ["stick"])
    assert game.seat_result(1) == -STAKE
    game = dealer_round(["7S", "4S", "KS"], ["5C", "6C", "KC"], ["twist"])  # 21 against 21
    assert game.seat_result(1) == -STAKE


def test_casino_lower_total_loses_one():
    game = dealer_round(["10S", "7S"], ["10C", "8C"], ["stick"])
    assert game.seat_result(1) == -STAKE


def test_casino_dealer_five_card_trick_beats_everything_but_a_pontoon():
    game = dealer_round(["7S", "4S", "KS"], ["2C", "2D", "3C", "3D", "4C"], ["twist"])
    assert game.seat_result(1) == -STAKE  # a 21 loses 1:1
    game = dealer_round(["2S", "3S", "2H", "3H", "4S"], ["2C", "2D", "3C", "3D", "4C"], ["twist"] * 3)
    assert game.seat_result(1) == -STAKE  # five-card trick against five-card trick: the tie to the dealer
    game = dealer_round(["AS", "KS"], ["2C", "2D", "3C", "3D", "4C"], [])
    assert game.seat_result(1) == 2 * STAKE


def test_casino_dealer_five_card_trick_option_off():
    """D9 with ``dealer_five_card_trick=False``: no five-card trick and no stop at five cards; the
    dealer draws on by his rule and his cards count as their total."""
    game = dealer_round(
        ["10S", "9S"], ["2C", "2D", "3C", "3D", "4C", "4D"], ["stick"], dealer_five_card_trick=False
    )
    assert len(game.banker_hands[0].cards) == 6 and game.banker_hands[0].total() == 18
    assert game.seat_result(1) == STAKE


def test_casino_doubled_hand_settles_on_the_doubled_stake():
    game = dealer_round(["5S", "6S", "9D"], ["10C", "8C"], ["double", "stick"])
    assert hand(game, 1).stake == 2 * STAKE and game.seat_result(1) == 2 * STAKE


def test_casino_plays_with_eight_decks():
    """D8."""
    game = deal("casino")
    assert game.rules.decks == 8 and game.card_count() == 8 * 52


def test_casino_shoe_reshuffled_every_round():
    game = dealer_round(["10S", "9S"], ["10C", "8C"], ["stick"])
    assert len(game.pack) == 8 * 52 and game.pack.discards == []
    assert game.pack.cards[:4] != codes(["10S", "10C", "9S", "8C"])


def test_casino_cut_card_option_reshuffles_only_past_the_cut_card():
    game = dealer_round(
        ["10S", "9S"], ["10C", "8C"], ["stick"], pack="cut_card", decks=1, cut_card_fraction=0.1
    )
    assert len(game.pack) == 48 and sorted(game.pack.discards) == sorted(codes(["10S", "9S", "10C", "8C"]))
    game = dealer_round(
        ["2S", "3S", "2H", "3H", "4S"],
        ["10C", "8C"],
        ["twist"] * 3,
        pack="cut_card",
        decks=1,
        cut_card_fraction=0.1,
    )
    assert len(game.pack) == 52 and game.pack.discards == []  # 7 cards dealt: past 10 % of the pack
