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


class _SecondLegalId:
    """A policy that chooses by action id in its own layout (as a trained model does): the second
    legal id, or the only one (with two stake levels that is the maximum stake, with four it is 4)."""

    def __init__(self, rules, levels):
        from pontoon_env.encoding import ActionTable

        self.table = ActionTable(rules, levels)
        self.name = "last-legal-id"

    @staticmethod
    def _pick(mask):
        legal = np.flatnonzero(mask)
        return int(legal[min(1, legal.size - 1)])

    def act_batch(self, obs, masks):
        return np.array([self._pick(mask) for mask in masks])

    def act(self, view, legal, rng):
        return self.table.decode(self._pick(self.table.mask(legal)), legal)


def test_a_model_with_its_own_stake_levels_plays_its_layout_on_the_batched_engine():
    """A model trained with two stake levels has fewer ids: the batched engine must use its layout."""
    from pontoon_env.game.engine import PontoonGame
    from pontoon_tools.evaluation import play_match

    rules = PontoonGame(make_rules("pagat"), 1, seed=0, banker=0).rules
    policy = _SecondLegalId(rules, {"stake": ("min", "max")})
    assert policy.table.n != _SecondLegalId(rules, None).table.n
    policies = [make_policy("banker_threshold", rules), policy]
    reference = play_match(rules, 1, policies, 200, seed=4, engine="reference")
    batched = play_match(rules, 1, policies, 200, seed=4, engine="batched")
    assert np.array_equal(batched.net, reference.net)


def test_the_optimal_player_plays_on_after_the_banker_doubles_on_both_engines():
    # The optimal player's solution is solved against a banker who never doubles; after a banker's
    # double it reads a second solution (agents.optimal.OptimalPlayer.solution_for). It used to
    # raise "no branch with banker_doubled=True" at the first doubled round, on both engines.
    rules = make_rules("pontoon_1939")
    policies = [make_policy("banker_threshold:double_ace=true", rules), make_policy("optimal", rules)]
    batched = batched_match(rules, 1, policies, 600, seed=3)
    reference = reference_match(rules, 1, policies, 600, seed=3)
    for name in FIELDS:
        np.testing.assert_array_equal(getattr(batched, name), getattr(reference, name), err_msg=name)
    # the optimal player stakes the minimum or the maximum, so a doubled round shows twice one of them
    doubled = np.isin(reference.initial[:, 1], [2 * rules.min_stake, 2 * rules.max_stake])
    assert doubled.sum() > 5


class _PythonRandom(RandomPolicy):
    """RandomPolicy's play through a class the batched engine does not know: a callback seat."""

    name = "python-random"


def test_a_python_policy_that_draws_gets_the_same_stream_on_both_engines():
    """A callback seat's generator was rebuilt from the stored stream at every decision, so each
    decision of a round made the same draw on the batched engine (444 of 500 rounds differed)."""
    rules = make_rules("pagat")
    policies = [RandomPolicy(), _PythonRandom(), _PythonRandom()]
    reference = reference_match(rules, 2, policies, 300, seed=3)
    batched = batched_match(rules, 2, policies, 300, seed=3, batch=64)
    for name in FIELDS:
        assert np.array_equal(getattr(batched, name), getattr(reference, name)), name


def test_a_sampling_model_draws_from_the_seat_stream_not_torchs_global_generator(tmp_path):
    """ModelPolicy(deterministic=False) sampled through SB3's predict, from torch's global state:
    the same match seed gave other results after torch.manual_seed, and the two engines differed."""
    import torch

    from agents.model import ModelPolicy
    from pontoon_tools.training import Trainer, TrainSettings

    settings = TrainSettings(timesteps=64, seats=1, n_envs=2, n_steps=32, batch_size=32, n_epochs=1, eval_rounds=0,
                             progress=False, net_arch=[8], warm_start="none", out=str(tmp_path / "run"))
    path = Trainer(settings, "player", tmp_path / "run").run()
    rules = make_rules("pagat")
    results = []
    for engine, torch_seed in [(reference_match, 1), (reference_match, 2), (batched_match, 3)]:
        torch.manual_seed(torch_seed)  # unrelated global state
        policies = [make_policy("banker_threshold", rules), ModelPolicy(path, rules, deterministic=False)]
        results.append(engine(rules, 1, policies, 300, seed=7).net)
    assert np.array_equal(results[0], results[1]) and np.array_equal(results[0], results[2])
    greedy = reference_match(rules, 1, [make_policy("banker_threshold", rules), ModelPolicy(path, rules)], 300, seed=7)
    assert not np.array_equal(greedy.net, results[0])  # it does sample
