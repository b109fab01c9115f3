"""Stacked-deck scenarios for the newer rules (D19-D22) and for every per-preset behaviour that is
now a typed option, each changed on its own on a preset that does not normally have it.

Each deck lists the first card of every player from the banker's left, the banker's first card,
then the second cards in the same order, then the draws (see ``tests/helpers.py``).
"""

from __future__ import annotations

import pytest
from helpers import deal, hand, hands, kinds, legal, nets, play, reasons

from pontoon_env import Action, ActionKind, Phase, make_rules
from pontoon_env.game.cards import parse_card

STAKE = 3


# ----------------------------------------------------------------------------- D19: soft 21


def casino_round(player: list[str], dealer: list[str], script: list, **overrides):
    deck = [player[0], dealer[0], player[1], dealer[1], *player[2:], *dealer[2:]]
    return deal("casino", deck, [("stake", STAKE), *script], **overrides)


def finish_dealer(game):
    while game.phase == Phase.BANKER_TURN:
        (only,) = game.legal_actions()
        game.apply(Action(only.kind))
    return game


def test_casino_soft_21_may_still_hit_or_double():
    """D19: A+5 then 5 is a soft 21 of three cards: hit, double and stand are all open."""
    game = casino_round(["AS", "5S", "5H", "10D"], ["10C", "7C"], ["twist"])
    assert hand(game, 1).total() == 21 and not hand(game, 1).done
    assert kinds(game) == {"stick", "twist", "double"}
    play(game, ["twist"])  # a ten: the aces count 1, a hard 21 of four cards, which must stand
    assert hand(game, 1).total() == 21 and hand(game, 1).done
    finish_dealer(game)
    assert nets(game) == {0: -STAKE, 1: STAKE}  # a 21 beats the dealer's 17


def test_casino_soft_21_double_takes_a_card_and_cannot_bust():
    game = casino_round(["AS", "5S", "5H", "9D"], ["10C", "7C"], ["twist", "double"])
    assert hand(game, 1).stake == 2 * STAKE and hand(game, 1).total() == 20
    play(game, ["stick"])
    finish_dealer(game)
    assert nets(game) == {0: -2 * STAKE, 1: 2 * STAKE}


def test_casino_hard_21_and_two_card_21_stand_at_once():
    game = casino_round(["10S", "5S", "6H"], ["10C", "7C"], ["twist"])
    assert hand(game, 1).total() == 21 and hand(game, 1).done  # hard 21
    game = casino_round(["AS", "KS"], ["10C", "7C"], [])
    assert hand(game, 1).declared  # a natural stops


def test_draw_on_soft_21_off_makes_the_casino_soft_21_stand():
    game = casino_round(["AS", "5S", "5H"], ["10C", "7C"], ["twist"], draw_on_soft_21=False)
    assert hand(game, 1).done


def test_pagat_soft_21_must_stick_but_the_option_lets_it_twist_never_buy():
    game = deal("pagat", ["AS", "10C", "5S", "9C", "5H"], [("stake", 2), "twist"])
    assert hand(game, 1).total() == 21 and hand(game, 1).done  # "a 21 must stick"
    game = deal("pagat", ["AS", "10C", "5S", "9C", "5H"], [("stake", 2), "twist"], draw_on_soft_21=True)
    assert kinds(game) == {"stick", "twist"}  # D4: never a buy at 21
    game = deal("pagat", ["AS", "10C", "5S", "9C", "5H"], [("stake", 2), ("buy", 2)], draw_on_soft_21=True)
    assert kinds(game) == {"stick", "twist"}  # a bought soft 21 may twist on, not buy again


# ----------------------------------------------------------------------------- D21: 1850 split natural


def round_1850(player: list[str], dealer: list[str], script: list, **overrides):
    overrides.setdefault("brulet", False)
    deck = [player[0], dealer[0], player[1], dealer[1], *player[2:], *dealer[2:]]
    return deal("vingt_un_1850", deck, [("stake", STAKE), "no_double", *script], **overrides)


def test_1850_split_ace_and_ten_is_a_21_paid_two():
    game = round_1850(["AS", "AH", "KD", "9C"], ["10C", "7C"], ["split", "stick", "stand"])
    first, second = hands(game, 1)
    assert first.cards == [parse_card("AS"), parse_card("KD")]
    report = game.round_report()["hands"]
    assert [entry["hand_class"] for entry in report] == ["twenty_one", "total"]
    assert (first.payout, second.payout) == (2 * STAKE, STAKE)  # a 21 receives 2; 20 beats 17


def test_1850_split_ace_and_ten_stands_off_against_a_drawn_dealer_21():
    game = round_1850(["AS", "AH", "KD", "9C", "4H"], ["10C", "7C"], ["split", "stick", "draw"])
    first, second = hands(game, 1)
    assert game.banker_hands[0].total() == 21
    assert (first.payout, second.payout) == (0, -2 * STAKE)  # the 21 stands off; the 20 pays 2


# ----------------------------------------------------------------------------- options one by one


def test_banker_looks_at_turn_on_pagat():
    game = deal("pagat", ["9S", "7H", "KD", "8C"], [("stake", 2)], banker_looks="at_turn")
    assert game.banker_cards_known_to_banker == 0
    game = deal("pagat", ["9S", "7H", "KD", "8C"], [("stake", 2)])
    assert game.banker_cards_known_to_banker == 2


def test_natural_shown_both_on_pagat():
    game = deal("pagat", ["AS", "7H", "KD", "8C"], [("stake", 2)])
    assert hand(game, 1).declared and hand(game, 1).public == [True, False]  # the ace only
    game = deal("pagat", ["AS", "7H", "KD", "8C"], [("stake", 2)], natural_shown="both")
    assert hand(game, 1).public == [True, True]


def test_twist_face_down_on_pagat():
    game = deal("pagat", ["9S", "7H", "3D", "8C", "2H"], [("stake", 2), "twist"], twist_face_up=False)
    assert hand(game, 1).public == [False, False, False]
    game = deal("pagat", ["9S", "7H", "3D", "8C", "2H"], [("stake", 2), "twist"])
    assert hand(game, 1).public == [False, False, True]


def test_banker_natural_waits_for_his_turn_when_not_shown_at_the_deal():
    deck = ["9S", "AH", "KD", "KC"]
    game = deal("pagat", deck, [("stake", 2)])
    assert game.phase == Phase.ROUND_OVER and nets(game) == {0: 4, 1: -4}  # at the deal, loses 2
    game = deal("pagat", deck, [("stake", 2)], banker_natural_at_deal=False)
    assert game.phase == Phase.PLAYER_TURN  # the player plays on, not knowing
    play(game, ["stick"])  # 19; the banker's natural stops his turn at once
    assert game.phase == Phase.ROUND_OVER and nets(game) == {0: 4, 1: -4}  # settled by the table


def test_banker_natural_wins_and_natural_vs_natural_on_pagat():
    game = deal("pagat", ["9S", "AH", "KD", "KC"], [("stake", 2)], banker_natural_wins=3)
    assert nets(game) == {0: 6, 1: -6}
    game = deal("pagat", ["AS", "AH", "KD", "KC"], [("stake", 2)])
    assert nets(game) == {0: 4, 1: -4}  # E12: a player's pontoon pays too
    game = deal("pagat", ["AS", "AH", "KD", "KC"], [("stake", 2)], natural_vs_natural="stand_off")
    assert nets(game) == {0: 0, 1: 0}


def test_natural_paid_at_deal_on_pagat():
    game = deal("pagat", ["AS", "7H", "KD", "8C"], [("stake", 2)], natural_paid_at_deal=3)
    assert reasons(game) == [(0, 1, 6, "natural")]  # paid at once
    assert game.phase == Phase.ROUND_OVER  # nothing left for the banker to play for
    assert nets(game) == {0: -6, 1: 6}  # and not paid again at settlement


def test_natural_paid_by_all_on_pagat():
    game = deal(
        "pagat",
        ["AS", "9C", "7H", "KD", "9D", "8C"],
        [("stake", 2), ("stake", 3)],
        players=2,
        natural_paid_at_deal=2,
        natural_paid_by_all=True,
    )
    assert reasons(game) == [(0, 1, 4, "natural"), (2, 1, 4, "natural")]


# ----------------------------------------------------------------------------- banker_smart and D9


def test_banker_smart_draws_past_five_cards_when_the_dealer_has_no_five_card_trick():
    """The belief's stop rule is legality's: without the dealer's five-card trick a five-card 11
    may draw a sixth card and then decide again, so drawing is worth more than drawing once and
    standing (the copy this replaced stopped every sixth card)."""
    from agents.banker_smart import BankerSmart
    from pontoon_env.game import legality
    from pontoon_env.game.cards import VALUE_PROBABILITY
    from pontoon_env.game.hands import HandStat
    from pontoon_env.game.observation import observe

    game = deal(
        "pagat",
        ["10S", "2C", "5S", "2D", "6H", "2H", "2S", "3C"],
        [("stake", 2), "twist", "draw", "draw", "draw"],
        decks=2,
        dealer_five_card_trick=False,
    )
    banker = game.banker_hands[0]
    assert len(banker.cards) == 5 and banker.total() == 11 and game.phase == Phase.BANKER_TURN
    smart = BankerSmart(game.rules)
    view = observe(game, 0)
    stand, draw = smart.values(view, banker.cards)
    exposure = smart.exposure(view)
    once = sum(
        probability * smart.utility(exposure, legality.banker_result(HandStat(11 + value, False, 6), game.rules))
        for value, probability in VALUE_PROBABILITY.items()
    )
    assert draw > once + 1e-9 and draw > stand


@pytest.mark.parametrize("option", ["banker_looks", "natural_shown", "twist_face_up", "banker_natural_at_deal",
                                    "banker_natural_wins", "natural_vs_natural", "natural_paid_at_deal",
                                    "natural_paid_by_all", "draw_on_soft_21"])
def test_every_new_option_is_in_the_presets_table(option):
    from pontoon_tools.docs import presets_markdown

    assert f"| `{option}` |" in presets_markdown()


def test_without_the_five_card_trick_a_hand_buys_on_and_max_buy_total_bounds_it():
    """With five_card_trick=False a hand under 21 buys past its fifth card; Rules.max_buy_total
    (the bound the properties test holds every hand to) assumed three buys and was passed."""
    game = deal("pagat", ["AS", "9H", "AH", "7C", "AD", "AC", "2S", "2H", "2D", "2C", "3S"],
                [("stake", 10)], five_card_trick=False)
    for _ in range(7):
        play(game, [("buy", legal(game)["buy"][1])])  # each the most it may (20: twice the stake)
    assert len(hand(game, 1).cards) == 9 and hand(game, 1).stake == 150
    assert game.rules.max_buy_total == 190  # eleven cards from one deck: nine buys of 20 on 10
    assert make_rules("pagat").max_buy_total == 70 and make_rules("pagat", buy_limits="initial").max_buy_total == 40
