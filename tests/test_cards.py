"""Cards and hands (docs/rules.md §1): parsing, malformed decks, values, totals and hand classes."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import codes, new_game

from pontoon_env import DeckError, HandClass, Phase, card_name, classify, hand_total, parse_card
from pontoon_env.game.cards import CARD_VALUE, Pack, parse_cards
from pontoon_env.game.hands import is_natural


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("AS", 0),
        ("AH", 1),
        ("2S", 4),
        ("10H", 37),
        ("TH", 37),
        ("JC", 43),
        ("QS", 44),
        ("KD", 50),
        ("KC", 51),
        ("as", 0),
        (" qc ", 47),
        ("10d", 38),
    ],
)
def test_parse_card_strings(text, code):
    assert parse_card(text) == code


def test_parse_card_integer_codes():
    assert [parse_card(code) for code in range(52)] == list(range(52))
    assert parse_card(np.int64(7)) == 7


def test_card_names_round_trip():
    assert [parse_card(card_name(code)) for code in range(52)] == list(range(52))
    assert card_name(37) == "10H" and card_name(0) == "AS"


@pytest.mark.parametrize("bad", ["1H", "AX", "ZZ", "", "10", "11S", "KK", 52, -1, True, 3.0, None, "A S"])
def test_parse_card_rejects_unknown_cards_naming_them_and_the_accepted_forms(bad):
    with pytest.raises(DeckError) as error:
        parse_card(bad)
    message = str(error.value)
    assert repr(bad) in message or str(bad) in message
    assert "AS" in message or "0..51" in message


def test_malformed_deck_too_many_copies_rejected():
    with pytest.raises(DeckError, match=r"2 copies of AS.*1 deck"):
        parse_cards(["AS", "KD", "AS"], decks=1)
    assert parse_cards(["AS", "KD", "AS"], decks=2) == [0, 50, 0]
    with pytest.raises(DeckError, match="3 copies of KD"):
        parse_cards(["KD", 50, "kd"], decks=2)


def test_stacked_deck_with_unknown_card_rejected_by_the_game_and_state_unchanged():
    game = new_game("pagat")
    before = game.pack.cards
    with pytest.raises(DeckError, match="'XS'"):
        game.new_round(deck=["AS", "XS"])
    with pytest.raises(DeckError, match="copies of AS"):
        game.new_round(deck=["AS", "AS"])
    with pytest.raises(DeckError, match="copies of KD"):
        game.new_round(deck=["AS"], bottom=["KD", "KD"])
    assert game.phase == Phase.ROUND_OVER and game.pack.cards == before
    game.new_round(deck=["AS", "KD"])  # still usable


def test_stacked_deck_keeps_the_pack_whole():
    game = new_game("pagat")
    game.new_round(deck=["AS", "KD", "10H"], bottom=["2C"])
    assert game.pack.cards[-1] == parse_card("2C")
    assert sorted(
        game.pack.cards
        + tuple(c for p in game.players for h in p.hands for c in h.cards)
        + tuple(game.banker_hands[0].cards)
    ) == list(range(52))


def test_pack_draws_from_the_top_and_returns_to_the_bottom():
    pack = Pack(1, np.random.default_rng(0))
    pack.stack(codes(["AS", "2S"]), codes(["KC"]))
    assert pack.draw() == 0 and pack.draw() == 4
    pack.to_bottom([0, 4])
    assert pack.cards[-3:] == (51, 0, 4) and len(pack) == 52


def test_exhausted_pack_without_used_cards_raises():
    pack = Pack(1, np.random.default_rng(0))
    for _ in range(52):
        pack.draw()
    with pytest.raises(DeckError, match="exhausted"):
        pack.draw()


def test_exhausted_pack_shuffles_the_used_cards_back_in():
    pack = Pack(1, np.random.default_rng(0))
    drawn = [pack.draw() for _ in range(52)]
    pack.discard(drawn)
    assert sorted(pack.draw() for _ in range(52)) == list(range(52))


# ----------------------------------------------------------------------------- §1 definitions


def test_card_values_face_value_tens_for_courts_ace_one_or_eleven():
    assert [CARD_VALUE[parse_card(c)] for c in ["AS", "2S", "9H", "10D", "JC", "QS", "KH"]] == [
        1,
        2,
        9,
        10,
        10,
        10,
        10,
    ]


@pytest.mark.parametrize(
    ("cards", "total", "soft"),
    [
        (["AS", "6H"], 17, True),
        (["AS", "6H", "10D"], 17, False),
        (["AS", "AH"], 12, True),
        (["AS", "AH", "KD"], 12, False),
        (["AS", "KD"], 21, True),
        (["10S", "9H", "5D"], 24, False),
        (["AS", "4H"], 15, True),
    ],
)
def test_best_total_counts_an_ace_eleven_where_it_does_not_bust(cards, total, soft):
    assert hand_total(codes(cards)) == (total, soft)


def test_pontoon_is_ace_and_ten_value_card_as_first_two_cards():
    assert classify(codes(["AS", "KD"])).hand_class == HandClass.PONTOON
    assert classify(codes(["10S", "AD"])).hand_class == HandClass.PONTOON
    assert classify(codes(["AS", "5D", "5H"])).hand_class == HandClass.TWENTY_ONE
    assert classify(codes(["AS", "KD"]), split=True).hand_class == HandClass.PONTOON
    assert (
        classify(codes(["AS", "KD"]), split=True, split_pontoon_is_pontoon=False).hand_class
        == HandClass.TWENTY_ONE
    )



def test_is_natural_is_exactly_an_ace_and_a_ten_value_card_in_either_order():
    # An independent reading of the rule (on purpose: is_natural uses a look-up table).
    for first in range(52):
        for second in range(52):
            values = {CARD_VALUE[first], CARD_VALUE[second]}
            assert is_natural([first, second]) == (values == {1, 10}), (first, second)
    assert not is_natural(codes(["AS"])) and not is_natural(codes(["AS", "KD", "2C"]))

def test_five_card_trick_is_five_cards_totalling_21_or_less():
    assert classify(codes(["2S", "3S", "2H", "3H", "4D"])).hand_class == HandClass.FIVE_CARD_TRICK
    assert classify(codes(["2S", "3S", "2H", "4H", "10D"])).hand_class == HandClass.FIVE_CARD_TRICK
    assert classify(codes(["2S", "3S", "5H", "4H", "KD"])).hand_class == HandClass.BUST
    assert (
        classify(codes(["2S", "3S", "2H", "3H", "4D"]), five_card_trick=False).hand_class == HandClass.TOTAL
    )


def test_twenty_one_is_three_or_four_cards_totalling_exactly_21():
    assert classify(codes(["7S", "4S", "KD"])).hand_class == HandClass.TWENTY_ONE
    assert classify(codes(["7S", "4S", "5D", "5H"])).hand_class == HandClass.TWENTY_ONE


def test_hand_classes_rank_pontoon_five_card_trick_21_totals_bust():
    assert (
        HandClass.PONTOON
        > HandClass.FIVE_CARD_TRICK
        > HandClass.TWENTY_ONE
        > HandClass.TOTAL
        > HandClass.BUST
    )
