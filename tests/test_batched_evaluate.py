"""Batched evaluation equals the reference evaluation round by round on the same seed."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_policy
from pontoon_env import make_rules
from pontoon_env.batched.evaluate import FIELDS, batched_match, reference_match
from pontoon_env.game.policy import RandomPolicy


@pytest.mark.parametrize(
    "preset, specs, banker_seat",
    [
        ("pagat", ["banker_threshold", "threshold", "random", "threshold:stick=17,buy=0"], 0),
        ("casino", ["threshold", "casino_dealer", "threshold:double=on"], 1),
        ("pontoon_1939", ["banker_threshold:double_ace=true", "threshold:bet=max", "random"], 0),
        ("pontoon_2011", ["banker_smart", "threshold", "threshold:amount=min"], 0),  # banker_smart: a callback
    ],
)
def test_batched_match_equals_the_reference_round_by_round(preset, specs, banker_seat):
    rules = make_rules(preset)
    policies = [RandomPolicy() if spec == "random" else make_policy(spec, rules) for spec in specs]
    rounds = 300 if "banker_smart" not in specs else 80
    reference = reference_match(rules, len(specs) - 1, policies, rounds, seed=9, banker_seat=banker_seat)
    batched = batched_match(rules, len(specs) - 1, policies, rounds, seed=9, banker_seat=banker_seat, batch=128)
    for name in FIELDS:
        assert np.array_equal(getattr(batched, name), getattr(reference, name)), name
    assert batched.net.sum(axis=1).tolist() == [0] * rounds  # chips are conserved
    other = batched_match(rules, len(specs) - 1, policies, rounds, seed=10, banker_seat=banker_seat, batch=128)
    assert not np.array_equal(other.net, batched.net)


def test_a_callback_seat_beside_the_optimal_player_whose_table_fills_on_demand():
    """The optimal player's lookup table is filled when a key is first met (a "miss"); the tables
    resumed after a miss must not hide the others from the callback loop (a banker model beside
    the optimal player once crashed on that)."""
    rules = make_rules("pagat", stick_min=14)  # an option no other test uses: a fresh optimal table
    policies = [make_policy("banker_smart", rules), make_policy("optimal", rules)]
    reference = reference_match(rules, 1, policies, 60, seed=3)
    batched = batched_match(rules, 1, policies, 60, seed=3, batch=64)
    for name in FIELDS:
        assert np.array_equal(getattr(batched, name), getattr(reference, name)), name
