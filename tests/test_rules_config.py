"""Rules options (docs/rules.md preamble, §2, §10): validation, presets, overrides and the table set-up."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers import deal, hand, legal, new_game, play

from pontoon_env import Action, ActionKind, Phase, PontoonGame, Rules, RulesError, make_rules
from pontoon_env.game.cards import CARD_RANK, Pack
from pontoon_env.game.rules import OPTION_NAMES, PRESETS, resolve_rules

# ----------------------------------------------------------------------------- validation


def test_unknown_option_names_the_option_and_the_expected_ones():
    with pytest.raises(RulesError) as error:
        make_rules("pagat", stik_min=16)
    message = str(error.value)
    assert "'stik_min'" in message and "'stick_min'" in message and "pagat" in message


def test_unknown_preset_names_it_and_the_presets():
    with pytest.raises(RulesError, match=r"unknown preset 'blackjack'.*'casino'.*'pagat'"):
        make_rules("blackjack")


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("decks", 9, "[1, 8]"),
        ("decks", 0, "[1, 8]"),
        ("stick_min", 22, "[0, 21]"),
        ("max_split_hands", 5, "[1, 4]"),
        ("five_card_trick_pays", 3, "[1, 2]"),
        ("no_buy_fifth_at_or_below", 21, "[0, 20]"),
        ("cut_card_fraction", 0.99, "[0.1, 0.95]"),
        ("min_stake", 0, "[1, 1000000]"),
        ("ante", -1, "[0, 1000000]"),
        ("bankroll", -5, "[0, 1000000000000]"),
    ],
)
def test_out_of_range_option_names_the_option_the_range_and_the_value(option, value, expected):
    with pytest.raises(RulesError) as error:
        make_rules("pagat", **{option: value})
    message = str(error.value)
    assert f"'{option}'" in message and expected in message and f"got {value!r}" in message


@pytest.mark.parametrize(
    ("option", "value", "expected"),
    [
        ("split", "pairs", "['none', 'rank', 'value']"),
        ("settlement", "blackjack", "'pagat'"),
        ("split_pontoon", 21, "['pontoon', '21']"),
        ("stick_min", "16", "an integer"),
        ("decks", 2.0, "an integer"),
        ("decks", True, "an integer"),
        ("shoot", 1, "True or False"),
        ("cut_card_fraction", "half", "a number"),
    ],
)
def test_wrong_type_option_names_the_option_the_expected_values_and_the_value(option, value, expected):
    with pytest.raises(RulesError) as error:
        make_rules("pagat", **{option: value})
    message = str(error.value)
    assert f"'{option}'" in message and expected in message and f"got {value!r}" in message


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("pagat", {"min_stake": 5, "max_stake": 2}),
        ("pagat", {"buy_limits": "none"}),
        ("casino", {"allow_buy": True}),
        ("pagat", {"split": "none", "split_aces_only": True}),
        ("pagat", {"max_split_hands": 1}),
        ("vingt_un_1800", {"banker_double": True}),
        ("casino", {"banker_double": True}),
        ("pontoon_2011", {"banker_double": True}),  # the banker may not look before his turn (§9)
        ("pagat", {"banker_looks": "at_turn", "banker_double": True}),
        ("casino", {"shoot": True}),
        ("pagat", {"dealer_may_split": True}),
        ("pagat", {"brulet": True}),
        ("vingt_un_1850", {"five_card_trick": True}),
    ],
)
def test_contradictory_options_name_every_option_involved(preset, overrides):
    with pytest.raises(RulesError, match="contradictory options") as error:
        make_rules(preset, **overrides)
    message = str(error.value)
    for option in overrides:
        assert f"{option}=" in message


def test_rules_cannot_be_built_invalid_directly_or_by_replace():
    with pytest.raises(RulesError, match="decks"):
        Rules(decks=0)
    with pytest.raises(RulesError, match="stick_min"):
        make_rules("pagat").replace(stick_min=30)


# ----------------------------------------------------------------------------- presets


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_presets_overridable_option_by_option(preset):
    base = make_rules(preset)
    assert base.preset == preset
    changes = {
        "stick_min": 17,
        "max_stake": 20,
        "decks": 3,
        "reveal_busts": not base.reveal_busts,
        "bank_sale": not base.bank_sale,
        "bankroll": 100,
    }
    for option, value in changes.items():
        changed = make_rules(preset, **{option: value})
        assert getattr(changed, option) == value
        differing = {name for name in OPTION_NAMES if getattr(changed, name) != getattr(base, name)}
        assert differing == {option}
    assert make_rules(base) == base and make_rules(base, decks=2).decks == 2


def test_preset_pagat_matches_rules_section_3():
    rules = make_rules("pagat")
    assert (rules.stick_min, rules.split, rules.max_split_hands, rules.buy_limits) == (15, "rank", 4, "pagat")
    assert (rules.pack, rules.shuffle_after_pontoon, rules.bank_passing, rules.split_pontoon) == (
        "carry_over",
        True,
        "pontoon",
        "pontoon",
    )
    assert not rules.banker_double and not rules.stake_before_deal and rules.bust_pays_double


def test_preset_shoot_is_pagat_with_the_kitty():
    shoot, pagat = make_rules("shoot"), make_rules("pagat")
    assert shoot.shoot and dataclasses.replace(shoot, shoot=False, preset="pagat") == pagat


def test_preset_casino_matches_rules_section_5():
    rules = make_rules("casino")
    assert (rules.decks, rules.split, rules.max_split_hands, rules.dealer_rule) == (
        8,
        "value",
        3,
        "hit_soft_17",
    )
    assert rules.stake_before_deal and rules.double_allowed and not rules.allow_buy
    assert rules.pack == "fresh_each_round" and rules.dealer_five_card_trick and rules.stick_min == 15


def test_preset_vingt_un_1800_matches_rules_section_6():
    rules = make_rules("vingt_un_1800")
    assert rules.fixed_stake and rules.stake_before_deal and not rules.allow_buy and rules.split == "none"
    assert not rules.five_card_trick and rules.stick_min == 0 and rules.pack == "deal_on"
    assert rules.bank_passing == "natural_holder" and rules.first_banker == "first_ace"


def test_preset_vingt_un_1850_matches_rules_section_7():
    rules = make_rules("vingt_un_1850")
    assert rules.banker_double and rules.dealer_may_split and rules.brulet and rules.misericorde
    assert rules.bank_passing == "rotate_on_natural" and not rules.old_mode and rules.max_split_hands == 3


def test_preset_pontoon_1939_matches_rules_section_8():
    rules = make_rules("pontoon_1939")
    assert rules.banker_double and rules.buy_limits == "initial" and rules.stick_min == 0
    assert rules.split_pontoon == "21" and rules.first_banker == "high_card"


def test_preset_pontoon_2011_matches_rules_section_9():
    rules = make_rules("pontoon_2011")
    assert not rules.banker_double and rules.stick_min == 16 and rules.split_aces_only
    assert rules.no_buy_fifth_at_or_below == 11 and rules.five_card_trick_pays == 1
    assert not rules.reveal_busts and rules.bank_take_over_optional and rules.first_banker == "first_jack"


# ----------------------------------------------------------------------------- the table (§2)


def test_table_seats_a_banker_and_one_to_nine_players():
    for players in (1, 9):
        assert PontoonGame("pagat", num_players=players, seed=0).num_seats == players + 1
    for bad in (0, 10, "3"):
        with pytest.raises(ValueError, match="num_players"):
            PontoonGame("pagat", num_players=bad, seed=0)
    with pytest.raises(ValueError, match="banker"):
        PontoonGame("pagat", num_players=2, seed=0, banker=3)


def _first_banker_order(seed: int) -> list[int]:
    """The seeded card order the game uses to choose its first banker."""
    rng = np.random.default_rng(seed)
    Pack(1, rng)
    return rng.permutation(52).tolist()


@pytest.mark.parametrize("seed", range(6))
def test_first_banker_highest_card_cut(seed):
    game = PontoonGame("pagat", num_players=4, seed=seed)
    cuts = _first_banker_order(seed)[:5]
    strength = [(CARD_RANK[card] - 1) % 13 for card in cuts]  # aces high
    assert strength[game.banker] == max(strength)


@pytest.mark.parametrize("seed", range(6))
def test_2011_first_banker_is_the_first_player_dealt_a_jack(seed):
    game = PontoonGame("pontoon_2011", num_players=4, seed=seed)
    order = _first_banker_order(seed)
    first = next(index for index, card in enumerate(order) if CARD_RANK[card] == 10)
    assert game.banker == first % 5


@pytest.mark.parametrize("seed", range(6))
def test_1800_first_dealer_is_the_first_player_dealt_an_ace(seed):
    game = PontoonGame("vingt_un_1800", num_players=4, seed=seed)
    order = _first_banker_order(seed)
    first = next(index for index, card in enumerate(order) if CARD_RANK[card] == 0)
    assert game.banker == first % 5


def test_first_banker_is_seeded():
    for preset in PRESETS:
        bankers = {PontoonGame(preset, num_players=5, seed=seed).banker for seed in range(30)}
        assert len(bankers) > 1  # drawn, not fixed
        assert all(
            PontoonGame(preset, num_players=5, seed=s).banker
            == PontoonGame(preset, num_players=5, seed=s).banker
            for s in range(5)
        )


def test_player_who_cannot_cover_the_minimum_stake_sits_out():
    game = deal("pagat", ["10S", "9S", "10C", "6S", "9H", "7C"], [], players=2, bankroll=3, min_stake=2)
    assert legal(game) == {"stake": (2, 3)}  # at most what the seat can cover
    play(game, [("stake", 3), ("stake", 2), "stick", "stick", "stand"])  # 16 and 18 against 17
    assert game.balances == [3 + 3 - 2, 0, 3 + 2] and game.total_chips == 9
    game.new_round()
    assert [p.sitting_out for p in game.players] == [True, False]
    assert game.current_seat == 2 and legal(game) == {"stake": (2, 5)}
    play(game, [("stake", 2)])
    assert game.players[0].hands == [] and len(hand(game, 2).cards) == 2


def test_new_round_while_a_round_is_running_is_refused():
    game = new_game("pagat")
    game.new_round()
    with pytest.raises(RuntimeError, match="STAKE"):
        game.new_round()


def test_apply_refuses_a_non_action():
    game = new_game("pagat")
    game.new_round()
    with pytest.raises(TypeError, match="Action"):
        game.apply("stake")  # type: ignore[arg-type]


def test_action_after_the_round_is_over_is_illegal():
    from pontoon_env import IllegalActionError

    game = deal("pagat", ["10S", "10C", "9S", "8C"], [("stake", 1), "stick", "stand"])
    with pytest.raises(IllegalActionError, match="round is over"):
        game.apply(Action(ActionKind.STICK))


def test_amounts_are_whole_chips():
    """§2: stakes are whole chips; numpy integers are accepted as chips."""
    import numpy as np

    from pontoon_env import IllegalActionError

    game = deal("pagat", ["10S", "10C", "9S", "8C"])
    for bad in (2.5, True, "3", None):
        with pytest.raises(IllegalActionError, match="whole chips"):
            game.apply(Action(ActionKind.STAKE, bad))  # type: ignore[arg-type]
    assert game.phase == Phase.STAKE
    game.apply(Action(ActionKind.STAKE, np.int64(3)))
    assert type(hand(game, 1).stake) is int and hand(game, 1).stake == 3


def test_what_is_no_rule_set_is_a_rules_error_and_numpy_values_are_plain_values():
    # They raised TypeError ("unhashable type") or a bare ValueError about sequences.
    for build, message in ((lambda: make_rules({"preset": "pagat"}), "preset: expected a preset name or a Rules"),
                           (lambda: make_rules(["pagat"]), "preset: expected a preset name or a Rules"),
                           (lambda: resolve_rules({"preset": ["pagat"]}), "'preset' is a preset name"),
                           (lambda: resolve_rules("pagat", "decks"), "rule_options: expected a dict of options")):
        with pytest.raises(RulesError, match=message):
            build()
    import numpy as np

    assert make_rules("pagat", decks=np.int64(2), shoot=np.bool_(False)).decks == 2
