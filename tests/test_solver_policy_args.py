"""Bad arguments to the solver's policy evaluators and to ``RoleSplit`` are refused by name, with the
messages their siblings use (an audit found ``evaluate_player_policy`` and ``banker_outcomes``
skipping the checks ``solve`` and ``banker_best_response`` make: a ZeroDivisionError for stake 0,
an EV for a stake of 11 or 2.5, an AttributeError for ``banker_rule=17``; and ``RoleSplit`` taking
a spec string or None and crashing at the first decision of that role)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_policy
from agents.scripted import BankerThreshold, RoleSplit, ThresholdPlayer
from pontoon_env import solver
from pontoon_env.game.rules import make_rules
from pontoon_tools.ev_table import play_rounds

STICK_16 = solver.threshold_policy(16)
EVERY_VALUE = range(1, 11)


# ---------------------------------------------------------------------------- evaluate_player_policy


@pytest.mark.parametrize("stake, message", [
    (0, r"stake: expected an integer in 1..10, got 0"),  # was a ZeroDivisionError
    (11, r"stake: expected an integer in 1..10, got 11"),  # was an EV for a stake pagat never takes
    (2.5, r"stake: expected an integer in 1..10, got 2.5 \(float\)"),  # was an EV
    (True, r"stake: expected an integer in 1..10, got True \(bool\)"),  # was the EV of one chip
    ("3", r"stake: expected an integer in 1..10, got '3' \(str\)"),  # was a raw TypeError
])
def test_evaluate_player_policy_refuses_a_bad_stake_as_solve_does(stake: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        solver.evaluate_player_policy("pagat", None, STICK_16, stake=stake)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):  # the sibling, word for word
        solver.solve("pagat", stake=stake)  # type: ignore[arg-type]


def test_evaluate_player_policy_refuses_a_banker_rule_that_is_not_one() -> None:
    message = r"banker_rule: expected a BankerRule \(or None for the rules' default\), got 17"
    with pytest.raises(TypeError, match=message):  # was AttributeError: 'int' object has no attribute 'draws'
        solver.evaluate_player_policy("pagat", 17, STICK_16)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=message):
        solver.solve("pagat", 17)  # type: ignore[arg-type]


@pytest.mark.parametrize("policy_fn", [None, "stick_at_16", 16, solver.Decision])
def test_evaluate_player_policy_refuses_a_policy_that_is_not_one(policy_fn: object) -> None:
    # None evaluated the *optimal* policy (solve's EV) instead of a fixed one; the others raised
    # a raw TypeError at the first decision
    with pytest.raises(TypeError, match=r"policy_fn: expected a PolicyFn \(a callable on a Decision"):
        solver.evaluate_player_policy("pagat", None, policy_fn)  # type: ignore[arg-type]


def test_evaluate_player_policy_points_a_solution_to_as_policy() -> None:
    solution = solver.solve("pagat")
    message = r"policy_fn: expected a PolicyFn .* got a Solution: pass solution.as_policy\(\)"
    with pytest.raises(TypeError, match=message):
        solver.evaluate_player_policy("pagat", None, solution)  # type: ignore[arg-type]
    exact = solver.evaluate_player_policy("pagat", None, solution.as_policy())
    assert exact == pytest.approx(solution.ev, abs=1e-12)


@pytest.mark.parametrize("chips, message", [
    (2.5, r"stake_choice\[1\]: expected an integer in 1..10, got 2.5 \(float\)"),  # was truncated to 2
    (True, r"stake_choice\[1\]: expected an integer in 1..10, got True \(bool\)"),  # was one chip
    ("3", r"stake_choice\[1\]: expected an integer in 1..10, got '3' \(str\)"),  # was a raw TypeError
    (0, r"stake_choice\[1\]: expected an integer in 1..10, got 0"),
    (11, r"stake_choice\[1\]: expected an integer in 1..10, got 11"),
])
def test_a_bad_stake_choice_is_refused_by_both_evaluators(chips: object, message: str) -> None:
    choice = dict.fromkeys(EVERY_VALUE, chips)
    with pytest.raises(ValueError, match=message):
        solver.evaluate_player_policy("pagat", None, STICK_16, stake_choice=choice)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=message):
        solver.banker_best_response("pagat", None, STICK_16, stake_choice=choice)  # type: ignore[arg-type]


def test_one_bad_stake_among_good_ones_is_named() -> None:
    choice = {value: 2 for value in EVERY_VALUE} | {10: 7.5}
    with pytest.raises(ValueError, match=r"stake_choice\[10\]: expected an integer in 1..10, got 7.5 \(float\)"):
        solver.evaluate_player_policy("pagat", None, STICK_16, stake_choice=choice)  # type: ignore[arg-type]
    missing = r"stake_choice: expected a stake for every first-card value 1..10, missing \[1\]"
    with pytest.raises(ValueError, match=missing):
        solver.evaluate_player_policy("pagat", None, STICK_16, stake_choice={v: 2 for v in range(2, 11)})
    not_a_mapping = r"stake_choice: expected a mapping of first-card value \(1..10\) to stake, got list"
    with pytest.raises(TypeError, match=not_a_mapping):
        solver.evaluate_player_policy("pagat", None, STICK_16, stake_choice=[2] * 10)  # type: ignore[arg-type]


def test_good_arguments_still_give_the_same_evs() -> None:
    """The checks change no answer: numpy integers are whole chips, a flat stake choice is that
    stake, and None is the rules' default banker rule and minimum stake."""
    default = solver.evaluate_player_policy("pagat", None, STICK_16)
    rule = solver.default_banker_rule("pagat")
    assert solver.evaluate_player_policy("pagat", rule, STICK_16, stake=1) == default
    at_three = solver.evaluate_player_policy("pagat", None, STICK_16, stake=np.int64(3))
    flat = solver.evaluate_player_policy("pagat", None, STICK_16,
                                         stake_choice=dict.fromkeys(EVERY_VALUE, np.int64(3)))
    assert flat == pytest.approx(3 * at_three, abs=1e-12)  # chips per round / min_stake
    at_ten = solver.evaluate_player_policy("pagat", None, STICK_16, stake=10)
    assert at_ten == pytest.approx(default, abs=1e-12)


# ---------------------------------------------------------------- banker_outcomes, banker_best_response


def test_banker_outcomes_refuses_a_banker_rule_that_is_not_one() -> None:
    message = r"banker_rule: expected a BankerRule \(or None for the rules' default\), got 17"
    with pytest.raises(TypeError, match=message):
        solver.banker_outcomes("pagat", 17)  # type: ignore[arg-type]  # was an AttributeError
    default = solver.banker_outcomes("pagat")
    assert default == solver.banker_outcomes("pagat", solver.default_banker_rule("pagat"))
    assert sum(solver.banker_outcomes("pagat").values()) == pytest.approx(1.0)


@pytest.mark.parametrize("policy", ["threshold", 16])
def test_banker_best_response_refuses_a_policy_that_is_not_one(policy: object) -> None:
    message = r"policy: expected a PolicyFn .*, a Solution, or None for the optimal policy"
    with pytest.raises(TypeError, match=message):
        solver.banker_best_response("pagat", None, policy)  # type: ignore[arg-type]  # was a raw TypeError


def test_banker_best_response_still_takes_a_function_a_solution_or_none() -> None:
    solution = solver.solve("pagat")
    by_none = solver.banker_best_response("pagat")
    by_solution = solver.banker_best_response("pagat", None, solution)
    by_function = solver.banker_best_response("pagat", None, solution.as_policy())
    assert by_none.banker_ev == pytest.approx(by_solution.banker_ev, abs=1e-12)
    assert by_function.banker_ev == pytest.approx(by_solution.banker_ev, abs=1e-12)


# ---------------------------------------------------------------------------- RoleSplit


@pytest.mark.parametrize("player, banker, name, given", [
    ("threshold", "banker_smart", "player", r"'threshold' \(str\)"),
    (ThresholdPlayer(), None, "banker", r"None \(NoneType\)"),
    (None, BankerThreshold(), "player", r"None \(NoneType\)"),
    (ThresholdPlayer(), "banker_smart", "banker", r"'banker_smart' \(str\)"),
    (ThresholdPlayer, BankerThreshold(), "player", r"<class 'agents.scripted.ThresholdPlayer'> \(type\)"),
    (ThresholdPlayer(), 42, "banker", r"42 \(int\)"),
])
def test_role_split_refuses_anything_but_two_policies(
    player: object, banker: object, name: str, given: str
) -> None:
    # each of these was accepted and crashed at the first decision of its role
    message = rf"{name}: expected a policy \(an object with act\(view, legal, rng\)\), got {given}"
    with pytest.raises(TypeError, match=message):
        RoleSplit(player, banker)


def test_role_split_tells_how_to_build_a_policy_from_a_spec() -> None:
    with pytest.raises(TypeError, match=r"build the policy with agents.registry.make_policy\(spec, rules\)"):
        RoleSplit("threshold", "banker_smart")


def test_role_split_from_the_audit_is_refused_before_the_round() -> None:
    rules = make_rules("pagat")
    with pytest.raises(TypeError, match="player: expected a policy"):  # was AttributeError: 'str' ... 'act'
        play_rounds(rules, [RoleSplit("threshold", "banker_smart"), make_policy("threshold", rules)],
                    num_rounds=5, seed=0)


def test_role_split_of_built_policies_plays_both_roles() -> None:
    rules = make_rules("pagat")
    split = RoleSplit(make_policy("threshold", rules), make_policy("banker_smart", rules))
    results = play_rounds(rules, [split, make_policy("threshold", rules)], num_rounds=20, seed=0)
    assert results.shape == (20, 2)
    assert (results.sum(axis=1) == 0).all()  # chips only change hands (pagat has no kitty)
    swapped = play_rounds(rules, [make_policy("banker_smart", rules), split], num_rounds=20, seed=0,
                          fixed_banker=False)
    assert swapped.shape == (20, 2)
