"""docs/rules.md §6 (Vingt-Un 1800, D11) and §7 (Vingt-Un 1850, D12).

1800 stakes are fixed and placed before the deal, so the first decision is a player's turn.
1850 stakes come on the first card, then the dealer's double decision. Most 1850 tests turn the
brûlet off, since a brûlet would take the top card of a stacked pack.
"""

from __future__ import annotations

from helpers import codes, deal, hand, hands, kinds, legal, nets, new_game, play, reasons

from pontoon_env import Action, ActionKind, Phase

STAKE = 2

# ----------------------------------------------------------------------------- Vingt-Un 1800


def round_1800(player: list[str], dealer: list[str], script: list, **overrides):
    deck = [player[0], dealer[0], player[1], dealer[1], *player[2:], *dealer[2:]]
    return deal("vingt_un_1800", deck, script, min_stake=STAKE, **overrides)


def test_1800_fixed_equal_stake_before_the_deal():
    game = deal("vingt_un_1800", [], [], players=3, min_stake=STAKE)
    assert game.phase == Phase.PLAYER_TURN  # nobody chose a stake
    assert [hand(game, seat).stake for seat in (1, 2, 3)] == [STAKE] * 3


def test_1800_no_buying_no_splitting_no_minimum_to_stand():
    game = round_1800(["8S", "8H"], ["10C", "9C"], [])
    assert kinds(game) == {"stick", "twist"}
    game = round_1800(["2S", "3H"], ["10C", "9C"], [])
    assert "stick" in kinds(game)  # a total of 5 may stand


def test_1800_no_five_card_trick_a_hand_draws_on_past_five_cards():
    game = round_1800(["2S", "3S", "2H", "3H", "4S", "AD"], ["10C", "9C"], ["twist", "twist", "twist"])
    assert len(hand(game, 1).cards) == 5 and "twist" in kinds(game)
    play(game, ["twist", "stick", "stand"])
    assert game.round_report()["hands"][0]["hand_class"] == "total" and game.seat_result(1) == -STAKE


def test_1800_player_draws_privately_face_down():
    game = round_1800(["2S", "3S", "4S"], ["10C", "9C"], ["twist"])
    assert hand(game, 1).public == [False, False, False]


def test_1800_bust_pays_the_stake_at_once_and_throws_in_face_down():
    game = round_1800(["10S", "6S", "KS"], ["10C", "9C"], ["twist"])
    assert reasons(game) == [(1, 0, STAKE, "bust")]
    assert hand(game, 1).public == [False, False, False]
    assert game.pack.discards[:3] == list(codes(["10S", "6S", "KS"]))  # to the used pile


def test_1800_dealer_draws_as_he_likes():
    game = round_1800(["10S", "9S"], ["10C", "2C"], ["stick"])
    assert game.phase == Phase.BANKER_TURN and kinds(game) == {"stand", "draw"}


def test_1800_first_natural_paid_two_by_everyone():
    game = deal(
        "vingt_un_1800", ["AS", "10H", "10D", "10C", "KS", "9H", "8D", "7C"], [], players=3, min_stake=STAKE
    )
    assert reasons(game) == [(0, 1, 4, "natural"), (2, 1, 4, "natural"), (3, 1, 4, "natural")]
    assert game.current_seat == 2  # the natural takes no further part
    play(game, ["stick", "stick", "stand"])
    assert nets(game) == {0: -4 - 2 - 2, 1: 12, 2: -4 + 2, 3: -4 + 2}
    assert hand(game, 1).payout == 12


def test_1800_other_natural_holders_pay_nothing():
    game = deal(
        "vingt_un_1800", ["AS", "AH", "10D", "10C", "KS", "QH", "8D", "7C"], [], players=3, min_stake=STAKE
    )
    assert reasons(game) == [(0, 1, 4, "natural"), (3, 1, 4, "natural")]
    play(game, ["stick", "stand"])
    assert nets(game) == {0: -4 - 2, 1: 8, 2: 0, 3: -4 + 2}


def test_1800_natural_holder_becomes_next_dealer_who_shuffles():
    game = deal(
        "vingt_un_1800",
        ["10S", "AH", "10C", "9S", "KH", "8C"],
        ["stick", "stand"],
        players=2,
        min_stake=STAKE,
    )
    assert game.phase == Phase.ROUND_OVER
    assert game.banker == 2
    assert len(game.pack) == 52 and game.pack.discards == []


def test_1800_dealer_natural_takes_two_from_every_player():
    game = deal("vingt_un_1800", ["10S", "9S", "AC", "9H", "8H", "KC"], [], players=2, min_stake=STAKE)
    assert game.phase == Phase.ROUND_OVER
    assert nets(game) == {0: 8, 1: -4, 2: -4}
    assert game.banker == 0


def test_1800_dealer_natural_with_a_player_natural_counts_as_the_dealers_21():
    """The player's natural is first in rotation: the others pay it 2, the dealer nothing; the
    dealer's natural then settles as a dealer 21 against the hands still standing."""
    game = deal("vingt_un_1800", ["AS", "10H", "AC", "KS", "9H", "KC"], [], players=2, min_stake=STAKE)
    assert reasons(game) == [(2, 1, 4, "natural")]
    play(game, ["stick"])
    assert game.phase == Phase.ROUND_OVER
    assert nets(game) == {0: 4, 1: 4, 2: -8}
    assert game.banker == 1


def test_1800_dealer_21_takes_two_from_standing_hands():
    assert round_1800(["10S", "9S"], ["5C", "6C", "KC"], ["stick", "draw"]).seat_result(1) == -2 * STAKE


def test_1800_dealer_21_stands_off_with_a_player_21():
    assert round_1800(["7S", "4S", "KS"], ["5C", "6C", "KC"], ["twist", "draw"]).seat_result(1) == 0


def test_1800_player_21_paid_two_when_the_dealer_has_none():
    assert round_1800(["7S", "4S", "KS"], ["10C", "8C"], ["twist", "stand"]).seat_result(1) == 2 * STAKE


def test_1800_dealer_pays_one_to_a_higher_total():
    assert round_1800(["10S", "9S"], ["10C", "8C"], ["stick", "stand"]).seat_result(1) == STAKE


def test_1800_dealer_receives_one_from_a_lower_total():
    assert round_1800(["10S", "7S"], ["10C", "8C"], ["stick", "stand"]).seat_result(1) == -STAKE


def test_1800_ties_are_stand_offs():
    game = round_1800(["10S", "8S"], ["10C", "8C"], ["stick", "stand"])
    assert game.seat_result(1) == 0 and game.ledger == []


def test_1800_dealer_bust_pays_every_standing_hand_one():
    assert round_1800(["10S", "2S"], ["10C", "6C", "KC"], ["stick", "draw"]).seat_result(1) == STAKE


def test_1800_dealer_bust_pays_two_to_a_21():
    assert round_1800(["7S", "4S", "KS"], ["10C", "6C", "QC"], ["twist", "draw"]).seat_result(1) == 2 * STAKE


def test_1800_pack_dealt_on_without_shuffling():
    game = round_1800(["10S", "9S"], ["10C", "8C"], ["stick", "stand"])
    assert sorted(game.pack.discards) == sorted(codes(["10S", "9S", "10C", "8C"]))
    top = game.pack.cards[:2]
    game.new_round()
    assert [hand(game, 1).cards[0], game.banker_hands[0].cards[0]] == list(top)


def _play_simply(game) -> None:
    """Players twist under 15 and stand otherwise; the dealer draws under 17."""
    if game.phase == Phase.PLAYER_TURN:
        player = game.players[game._turn]
        total = player.hands[player.active].total()
        game.apply(Action(ActionKind.TWIST if total < 15 else ActionKind.STICK))
    else:
        total = game.banker_hands[game._banker_active].total()
        game.apply(Action(ActionKind.DRAW if total < 17 else ActionKind.STAND))


def test_1800_used_cards_shuffled_in_when_the_pack_is_used_up():
    game = new_game("vingt_un_1800", players=7, seed=1)
    for _ in range(60):
        used = len(game.pack.discards)
        game.new_round()
        if len(game.pack.discards) < used:
            return  # the pack ran out during the deal and the used cards were shuffled in
        while not game.is_round_over:
            used = len(game.pack.discards)
            _play_simply(game)
            assert game.card_count() == 52
            if not game.is_round_over and len(game.pack.discards) < used:
                return  # the pack ran out mid-round and the used cards were shuffled in
    raise AssertionError("the pack was never used up in 60 rounds")


# ----------------------------------------------------------------------------- Vingt-Un 1850


def round_1850(player: list[str], dealer: list[str], script: list, stake: int = STAKE, **overrides):
    overrides.setdefault("brulet", False)
    deck = [player[0], dealer[0], player[1], dealer[1], *player[2:], *dealer[2:]]
    return deal("vingt_un_1850", deck, [("stake", stake), "no_double", *script], **overrides)


def test_1850_players_look_and_stake_on_the_first_card():
    game = deal("vingt_un_1850", ["9S", "10C"], [], brulet=False)
    assert game.phase == Phase.STAKE and legal(game) == {"stake": (1, 10)}
    assert len(hand(game, 1).cards) == 1 and len(game.banker_hands[0].cards) == 1


def test_1850_banker_double():
    game = deal(
        "vingt_un_1850",
        ["10S", "10H", "10C", "9S", "7H", "8C"],
        [("stake", 3), ("stake", 4)],
        players=2,
        brulet=False,
    )
    assert game.phase == Phase.BANKER_DOUBLE and game.current_seat == 0
    assert len(game.banker_hands[0].cards) == 1  # he has seen his first card only
    assert legal(game) == {"double_stakes": (0, 0), "no_double": (0, 0)}
    play(game, ["double_stakes"])
    assert [hand(game, 1).stake, hand(game, 2).stake] == [6, 8]
    play(game, ["stick", "stick", "stand"])  # 19 and 17 against 18
    assert nets(game) == {0: -6 + 8, 1: 6, 2: -8}


def test_1850_banker_may_leave_the_stakes_alone():
    game = round_1850(["10S", "9S"], ["10C", "8C"], ["stick", "stand"], stake=3)
    assert hand(game, 1).stake == 3 and game.seat_result(1) == 3


def test_1850_dealer_natural_collects_two_from_every_player():
    game = deal(
        "vingt_un_1850",
        ["10S", "9S", "AC", "9H", "8H", "KC"],
        [("stake", 1), ("stake", 2), "no_double"],
        players=2,
        brulet=False,
    )
    assert game.phase == Phase.ROUND_OVER
    assert nets(game) == {0: 6, 1: -2, 2: -4}


def test_1850_dealer_natural_stands_off_a_player_natural():
    """D12."""
    game = round_1850(["AS", "KS"], ["AC", "KC"], [])
    assert game.phase == Phase.ROUND_OVER and game.ledger == []


def test_1850_player_natural_settled_with_the_dealer_only_wins_two():
    game = deal(
        "vingt_un_1850",
        ["AS", "10H", "10C", "KS", "9H", "8C"],
        [("stake", 3), ("stake", 1), "no_double"],
        players=2,
        brulet=False,
    )
    assert reasons(game) == [(0, 1, 6, "natural")]  # paid at once, by the dealer alone
    play(game, ["stick", "stand"])
    assert nets(game) == {0: -6 - 1, 1: 6, 2: 1}


def test_1850_player_pair_goes_on_both_and_a_third_card_of_the_rank_a_third_hand():
    assert "split" not in kinds(round_1850(["KS", "QS"], ["10C", "9C"], []))
    game = round_1850(["8S", "8H", "8D", "2C", "3C", "4C"], ["10C", "9C"], ["split"])
    assert hands(game, 1)[0].cards == list(codes(["8S", "8D"])) and "split" in kinds(game)
    play(game, ["split"])
    assert len(hands(game, 1)) == 3 and "split" not in kinds(game)


def test_1850_dealer_may_split_a_pair_and_each_hand_settles_against_every_player_hand():
    game = round_1850(["10S", "9S"], ["8C", "8D", "KC", "3C", "KH"], ["stick"])
    assert kinds(game) == {"stand", "draw", "banker_split"}
    play(game, ["banker_split"])
    assert [h.cards for h in game.banker_hands] == [list(codes(["8C", "KC"])), list(codes(["8D", "3C"]))]
    play(game, ["stand", "draw"])  # 18, then 8 + 3 + K = 21 by drawing
    assert game.phase == Phase.ROUND_OVER
    # 19 beats 18 (+1) and pays the drawn 21 double (-2), each at the hand's stake.
    assert game.seat_result(1) == (1 - 2) * STAKE


def test_1850_dealer_third_card_of_the_rank_a_third_hand():
    game = round_1850(["10S", "9S"], ["8C", "8D", "8H", "3C", "2C", "4C"], ["stick", "banker_split"])
    assert "banker_split" in kinds(game)
    play(game, ["banker_split"])
    assert len(game.banker_hands) == 3 and "banker_split" not in kinds(game)


def test_1850_overdrawn_hand_pays_at_once():
    game = round_1850(["10S", "6S", "KS"], ["10C", "9C"], ["twist"])
    assert reasons(game) == [(1, 0, STAKE, "bust")] and hand(game, 1).public == [False, False, False]


def test_1850_higher_total_receives_one():
    assert round_1850(["10S", "9S"], ["10C", "8C"], ["stick", "stand"]).seat_result(1) == STAKE


def test_1850_equal_total_pays_the_dealer_one():
    assert round_1850(["10S", "8S"], ["10C", "8C"], ["stick", "stand"]).seat_result(1) == -STAKE


def test_1850_lower_total_pays_the_dealer_one():
    assert round_1850(["10S", "7S"], ["10C", "8C"], ["stick", "stand"]).seat_result(1) == -STAKE


def test_1850_player_21_receives_two():
    assert round_1850(["7S", "4S", "KS"], ["10C", "8C"], ["twist", "stand"]).seat_result(1) == 2 * STAKE


def test_1850_dealer_21_by_drawing_takes_two():
    assert round_1850(["10S", "9S"], ["5C", "6C", "KC"], ["stick", "draw"]).seat_result(1) == -2 * STAKE


def test_1850_dealer_21_by_drawing_stands_off_with_a_21():
    assert round_1850(["7S", "4S", "KS"], ["5C", "6C", "KC"], ["twist", "draw"]).seat_result(1) == 0


def test_1850_dealer_bust_pays_one():
    assert round_1850(["10S", "2S"], ["10C", "6C", "KC"], ["stick", "draw"]).seat_result(1) == STAKE


def test_1850_dealer_bust_pays_two_to_a_21():
    assert round_1850(["7S", "4S", "KS"], ["10C", "6C", "QC"], ["twist", "draw"]).seat_result(1) == 2 * STAKE


PLAIN_ROUND = ["10S", "9S", "8S", "10C", "9H", "8H", "7H", "9C"]  # three players stick, no natural
NATURAL_AT_SEAT_2 = ["10S", "AS", "8S", "10C", "9H", "KS", "7H", "9C"]


def _two_rounds(**overrides):
    game = new_game("vingt_un_1850", players=3, brulet=False, **overrides)
    game.new_round(deck=PLAIN_ROUND)
    play(game, [("stake", 1)] * 3 + ["no_double", "stick", "stick", "stick", "stand"])
    assert game.banker == 0 and game.dealer_rounds == 1
    game.new_round(deck=NATURAL_AT_SEAT_2)
    play(game, [("stake", 1)] * 3 + ["no_double", "stick", "stick", "stand"])
    assert game.phase == Phase.ROUND_OVER
    return game


def test_1850_deal_passes_clockwise_after_a_natural():
    assert _two_rounds().banker == 1


def test_1850_old_mode_deal_passes_to_the_naturals_holder():
    assert _two_rounds(old_mode=True).banker == 2


def test_1850_misericorde():
    """A natural in a new dealer's first round does not pass the deal."""
    game = deal(
        "vingt_un_1850",
        NATURAL_AT_SEAT_2,
        [("stake", 1)] * 3 + ["no_double", "stick", "stick", "stand"],
        players=3,
        brulet=False,
    )
    assert game.banker == 0
    game = deal(
        "vingt_un_1850",
        NATURAL_AT_SEAT_2,
        [("stake", 1)] * 3 + ["no_double", "stick", "stick", "stand"],
        players=3,
        brulet=False,
        misericorde=False,
    )
    assert game.banker == 1


def test_1850_brulet_dealer_takes_pool():
    game = new_game("vingt_un_1850", players=2)
    game.new_round(deck=["AS", "10S", "9S", "10C", "9H", "8H", "7C"], bottom=["KD"])
    assert reasons(game) == [
        (1, "pool", 1, "brulet_ante"),
        (2, "pool", 1, "brulet_ante"),
        ("pool", 0, 2, "brulet"),
    ]
    assert game.pool == 0 and sorted(game.pack.discards) == sorted(codes(["AS", "KD"]))
    # The deal starts under the brûlet's top card.
    assert [hand(game, 1).cards, hand(game, 2).cards, game.banker_hands[0].cards] == [
        [c] for c in codes(["10S", "9S", "10C"])
    ]
    assert game.card_count() == 52
    game = new_game("vingt_un_1850", players=2)
    game.new_round(deck=["10S", "9S", "10C", "9H"], bottom=["AD"])  # a ten on top, an ace underneath
    assert game.pool == 0 and ("pool", 0, 2, "brulet") in reasons(game)


def test_1850_brulet_unclaimed_pool_stays_for_the_next_dealer():
    game = new_game("vingt_un_1850", players=2)
    game.new_round(deck=["9S", "8S", "10C", "9H", "8H", "7C"], bottom=["KD"])
    assert game.pool == 2 and reasons(game) == [(1, "pool", 1, "brulet_ante"), (2, "pool", 1, "brulet_ante")]
    play(game, [("stake", 1), ("stake", 1), "no_double", "stick", "stick", "stand"])
    # The same dealer's second round: no ante, no brûlet; the pool waits.
    game.new_round(deck=["9S", "AS", "7S", "10C", "KH", "10D"], bottom=["KD"])
    assert game.pool == 2 and not any(t.reason.startswith("brulet") for t in game.ledger)
    play(game, [("stake", 1), ("stake", 1), "no_double", "stick", "stand"])
    assert game.banker == 1  # the natural (the dealer's second round) passed the deal
    # The next dealer's first round: antes again, and the brûlet takes the whole pool.
    game.new_round(deck=["AS", "9S", "8S", "10C"], bottom=["KD"])
    assert game.pool == 0
    assert reasons(game) == [
        (2, "pool", 1, "brulet_ante"),
        (0, "pool", 1, "brulet_ante"),
        ("pool", 1, 4, "brulet"),
    ]
