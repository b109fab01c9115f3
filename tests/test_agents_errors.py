"""Bad input to the policy registry, the agents and the solver is refused by name (an audit found
each of these accepted, or failing later inside with an AttributeError or a ZeroDivisionError)."""

from __future__ import annotations

import pytest

from agents.banker_response import BankerBestResponse
from agents.banker_smart import BankerSmart
from agents.optimal import OptimalPlayer
from agents.registry import PolicySpecError, make_policy
from agents.scripted import ThresholdPlayer
from pontoon_env import solver
from pontoon_env.game.rules import RulesError


def test_the_registry_takes_the_rules_the_engine_takes_and_refuses_the_rest() -> None:
    # a dict of options, as the engine and the envs take them (banker_smart built from one crashed at its first decision)
    assert make_policy("banker_smart", {"preset": "pagat"}).rules.preset == "pagat"
    assert make_policy("optimal", {"preset": "pagat"}).rules.preset == "pagat"
    for rules in (None, 42):
        with pytest.raises(PolicySpecError, match="rules: expected a preset name, a Rules or a dict of options"):
            make_policy("threshold", rules)


@pytest.mark.parametrize("spec, message", [
    ("banker_smart:margin=nan", "parameter 'margin' expects a finite number, got 'nan'"),
    ("banker_smart:shoot_weight=inf", "parameter 'shoot_weight' expects a finite number"),
    ("threshold:stick=15,stick=18", "parameter 'stick' is given twice"),
    ("threshold:stick=15,stick_at=18", "parameter 'stick_at' is given twice"),
    ("banker_smart:double_ace=true,double_on_ace=false", "parameter 'double_on_ace' is given twice"),
    ("threshold:double=1", "parameter 'double' expects 'on' \\(10/11\\), 'off'"),
    ("", "got an empty spec"),
    ("agents", "a folder that holds no model.zip"),
    ("optimal:stand=17.zip", "parameter 'stand' expects an integer"),
])
def test_bad_specs_are_refused_by_name(spec: str, message: str) -> None:
    with pytest.raises(PolicySpecError, match=message):
        make_policy(spec, "pagat")


def test_optimal_is_solved_only_against_a_banker_the_rules_allow() -> None:
    # Under casino the dealer's rule is fixed: stand=12 was solved against a banker who cannot exist (EV +2.77).
    with pytest.raises(PolicySpecError, match="'casino' dealer's rule is fixed"):
        make_policy("optimal:stand=12", "casino")
    assert make_policy("optimal:stand=12", "pagat").stand == 12
    with pytest.raises(ValueError, match="stand: expected an integer in 2..22, got 17.5"):
        OptimalPlayer("pagat", stand=17.5)


def test_agents_constructors_check_their_numbers_and_players() -> None:
    with pytest.raises(ValueError, match="margin: expected a finite number, got nan"):
        BankerSmart(margin=float("nan"))
    with pytest.raises(ValueError, match="margin: expected a finite number, got True"):
        BankerSmart(margin=True)
    with pytest.raises(RulesError, match="rules: expected a preset name"):
        BankerSmart(rules=123)
    with pytest.raises(ValueError, match="the solver leaves shoot bets out"):
        BankerBestResponse("shoot", player=ThresholdPlayer(shoot="modest"))


def test_the_solver_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match=r"stake: expected an integer in 1..10, got 0"):
        solver.solve("pagat", stake=0)  # was a ZeroDivisionError
    with pytest.raises(ValueError, match=r"stake: expected an integer in 1..10, got 11"):
        solver.solve("pagat", stake=11)
    with pytest.raises(TypeError, match="banker_rule: expected a BankerRule"):
        solver.solve("pagat", 17)
    assert solver.solve({"preset": "pagat"}).rules.preset == "pagat"
    assert solver.default_banker_rule("casino").hit_soft
    for kwargs, message in [({"stand_on": 17.5}, "stand_on: expected an integer"),
                            ({"stand_on": "17"}, "stand_on: expected an integer"),
                            ({"hit_soft": "no"}, "hit_soft: expected True or False"),
                            ({"double_on": 1}, "double_on: expected a set of card values")]:
        with pytest.raises(ValueError, match=message):
            solver.BankerRule(**kwargs)
    solution = solver.solve("pagat")
    with pytest.raises(ValueError, match=r"legal: expected moves among .* got \['fly'\]"):
        solver.scripted_move(solution, [0, 1], False, 0, 1, 1, ["fly", "stick"])
    with pytest.raises(ValueError, match="cards: expected the hand's card codes"):
        solver.scripted_move(solution, [], False, 0, 1, 1, ["stick", "twist"])
    with pytest.raises(ValueError, match="first_card: expected a card code 0..51"):
        solver.scripted_stake(solution, 60)
    with pytest.raises(ValueError, match="after: expected 'buy_max', 'buy_min' or 'twist'"):
        solver.strategy_chart(solution, after="bogus")
    state = solver.HandState(12, False, 2, False, 1, 0, False, False)
    with pytest.raises(ValueError, match="initial_stake: expected an integer >= 1, got 0"):
        solution.action_values(state, initial_stake=0)
    with pytest.raises(ValueError, match="pair_value: expected a card value 1"):
        solution.action_values(state, pair_value=11)


def test_spec_parameters_ignore_case_as_names_do_and_numbers_are_plain_digits() -> None:
    """Policy names and true/false ignored case but parameter names and choices did not
    ('Stick=16', 'amount=MAX' refused), while int() took '1_6' and '+16'."""
    policy = make_policy("Threshold:Stick=16,amount=MAX,split=Aces,double=OFF", "pagat")
    assert (policy.stick_at, policy.buy_amount, policy.split_ranks, policy.double_on) == (16, "max", {0}, frozenset())
    for spec in ("threshold:stick=1_6", "threshold:stick=+16", "threshold:stick=\uff11\uff16", "threshold:amount=\uff13",
                 "threshold:double=+10/11"):
        with pytest.raises(PolicySpecError, match="expects"):
            make_policy(spec, "pagat")
