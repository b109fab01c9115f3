"""Parity of the batched engine with PontoonGame: same packs, same actions, same everything.

Each native preset is played for 20,000 random rounds in lockstep with the reference engine
(:func:`pontoon_env.batched.parity.lockstep`): at every decision the seat to act, the legal
actions with their amounts and the action mask must agree, the acting seat's observation must be
the same float32 vector and its seat view the same (at every 8th table), and after every round
every seat's ledger result, the balances, the next banker and the pack, card by card. The pack
carries over between rounds (shuffles after pontoons, cut-card and deal-on packs on the same
streams). ``python -m pontoon_env.batched.parity --rounds 1000000`` is the benchmark mode.
"""

from __future__ import annotations

import pytest

from pontoon_env.batched.parity import lockstep

# (players, tables, rounds per table, rule options): 20,000 rounds per preset in all.
PAGAT = [
    (1, 200, 30, {}),
    (4, 200, 20, {"stick_min": 16, "split_aces_only": True, "bust_pays_double": False}),
    (6, 100, 30, {"split_pontoon": "21", "buy_limits": "initial", "draw_on_soft_21": True}),
    (9, 100, 30, {"bank_passing": "none", "pack": "cut_card", "decks": 2, "dealer_five_card_trick": False}),
    (3, 200, 20, {"pack": "deal_on", "bank_passing": "rotate_on_natural", "five_card_trick": False,
                  "dealer_five_card_trick": False}),
]
OTHERS = [
    (1, 200, 35, {}),
    (4, 200, 30, {}),
    (7, 100, 35, {"bank_passing": "pontoon"}),
    (9, 100, 35, {}),
]


def _run(preset, table):
    total = 0
    for players, tables, rounds, options in table:
        counts = lockstep(preset, players, tables, rounds, seed=players, rule_options=options, observe_every=8)
        assert counts["rounds"] == tables * rounds
        assert counts["observations"] > 0
        total += counts["rounds"]
    return total


def test_pagat_with_its_options_matches_the_reference():
    assert _run("pagat", PAGAT) == 20_000


@pytest.mark.parametrize("preset", ["casino", "pontoon_1939", "pontoon_2011"])
def test_other_native_presets_match_the_reference(preset):
    assert _run(preset, OTHERS) == 20_000


def test_a_difference_is_caught(monkeypatch):
    """The harness is not vacuous: a one-chip change to one settlement cell is found."""
    from pontoon_env.batched import tables as tb

    build = tb.build

    def broken(rules):
        rt = build(rules)
        rt.payout[1, 18, 0, 1, 17] += 1  # a player 18 against a banker 17 wins one stake more
        return rt

    monkeypatch.setattr(tb, "build", broken)
    with pytest.raises(AssertionError, match="seat results"):
        lockstep("pagat", 4, 50, 20, seed=1, check_observations=False)
