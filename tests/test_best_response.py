"""The solver's view of a scripted player, and the exact banker best response as a seat policy."""

from __future__ import annotations

import numpy as np
import pytest

from agents.banker_response import BankerBestResponse
from agents.registry import make_policy
from agents.scripted import BankerThreshold, ThresholdPlayer
from pontoon_env import ActionKind, Phase, PontoonGame, make_rules
from pontoon_env.game.observation import observe
from pontoon_env.game.runner import play_round
from pontoon_env.solver import BankerRule, Decision, banker_best_response, solve

_MOVE = {ActionKind.STICK: "stick", ActionKind.TWIST: "twist", ActionKind.SPLIT: "split", ActionKind.DOUBLE: "double"}


def _symbolic(game: PontoonGame, legal) -> tuple[Decision, dict[str, object]]:
    """The solver's Decision for the engine's player decision now, and each symbolic move's action."""
    player = game.players[game._turn]
    hand = player.hands[player.active]
    total, soft = hand.total_soft()
    moves: dict[str, object] = {}
    for option in legal:
        if option.kind == ActionKind.BUY:
            if option.min_amount < option.max_amount:
                moves["buy_min"] = (ActionKind.BUY, option.min_amount)
            moves["buy_max"] = (ActionKind.BUY, option.max_amount)
        elif option.kind in _MOVE:
            moves[_MOVE[option.kind]] = (option.kind, 0)
    pair_value = 0
    if "split" in moves:
        pair_value = min(hand.cards[0] // 4 + 1, 10)
    decision = Decision(
        total, soft, len(hand.cards), tuple(moves), pair_value=pair_value, twisted=hand.twisted, stake=hand.stake,
        initial_stake=hand.initial, last_buy=hand.last_buy, doubled=hand.doubled, split_hand=hand.split,
    )
    return decision, moves


@pytest.mark.parametrize("preset", ["pagat", "casino", "pontoon_2011", "pontoon_1939"])
@pytest.mark.parametrize("spec", ["threshold", "threshold:stick=17,buy=13,amount=min", "threshold:stick=15,buy=0"])
def test_the_solver_form_of_a_threshold_player_makes_its_decisions(preset, spec):
    rules = make_rules(preset)
    player = make_policy(spec, rules)
    assert isinstance(player, ThresholdPlayer)
    policy, choice = player.solver_policy(), player.stake_choice(rules)
    rng = np.random.default_rng(0)
    checked = 0
    for index in range(300):
        game = PontoonGame(rules, 1, rng=np.random.default_rng([1, index]), banker=0)
        game.new_round()
        while not game.is_round_over:
            legal = game.legal_actions()
            action = (player if game.current_seat == 1 else BankerThreshold()).act(observe(game, game.current_seat), legal, rng)
            if game.phase == Phase.STAKE:
                first = game.players[0].hands[0].cards
                value = min(first[0] // 4 + 1, 10) if first else 1
                assert action.amount == choice[value]
            elif game.phase == Phase.PLAYER_TURN:
                decision, moves = _symbolic(game, legal)
                assert moves[policy(decision)] == (action.kind, action.amount), decision
                checked += 1
            game.apply(action)
    assert checked > 300


def test_a_uniform_stake_choice_is_the_fixed_stake_response():
    rule = BankerRule(17, double_on=frozenset())
    fixed = banker_best_response("pagat", rule, stake=2)
    chosen = banker_best_response("pagat", rule, stake_choice=dict.fromkeys(range(1, 11), 2))
    assert chosen.banker_ev == pytest.approx(2 * fixed.banker_ev)  # per min_stake (1 chip), not per 2-chip stake
    assert chosen._draws == fixed._draws


def test_the_optimal_players_stake_choice_is_the_solvers():
    rule = BankerRule(17, double_on=frozenset())
    solution = solve("pagat", rule)
    choice = {value: (10 if move == "stake_max" else 1) for value, move in solution.stake_choice.items()}
    response = banker_best_response("pagat", rule, solution, stake_choice=choice)
    assert -response.fixed_rule_banker_ev == pytest.approx(solution.ev_stake_choice)
    assert response.banker_ev > response.fixed_rule_banker_ev


@pytest.mark.parametrize("player_spec", ["threshold", "optimal"])
def test_the_best_response_keeps_more_than_the_threshold_banker_on_the_same_deals(player_spec):
    rules = make_rules("pagat")
    player = make_policy(player_spec, rules)
    response = make_policy(f"banker_best_response:player={player_spec}", rules, num_players=1)
    assert isinstance(response, BankerBestResponse)
    differences = []
    for index in range(4000):
        results = []
        for banker in (response, BankerThreshold()):
            game = PontoonGame(rules, 1, rng=np.random.default_rng([2, index]), banker=0)
            results.append(play_round(game, [banker, player], np.random.default_rng([3, index]))[0])
        differences.append(results[0] - results[1])
    mean = float(np.mean(differences))
    half_width = 1.96 * float(np.std(differences)) / np.sqrt(len(differences))
    assert mean - half_width > 0, (mean, half_width)


def test_the_best_response_answers_one_player_only():
    rules = make_rules("pagat")
    response = BankerBestResponse(rules)
    game = PontoonGame(rules, 2, seed=0, banker=0)
    with pytest.raises(ValueError, match="answers one player"):
        play_round(game, [response, ThresholdPlayer(), ThresholdPlayer()], np.random.default_rng(0))


def test_a_table_too_large_for_the_best_response_is_refused_when_it_is_made():
    import gymnasium as gym

    import pontoon_env  # noqa: F401  (registers the ids)
    from agents.registry import PolicySpecError

    with pytest.raises(PolicySpecError, match="at most 1 player seat; num_players is 2"):
        make_policy("banker_best_response", make_rules("pagat"), num_players=2)
    with pytest.raises(ValueError, match="banker_best_response"):
        gym.make("Pontoon-v0", num_players=2, opponents={"banker": "banker_best_response:player=threshold"})
    env = gym.make("Pontoon-v0", num_players=1, opponents={"banker": "banker_best_response:player=threshold"})
    assert env.reset(seed=0)[1]["action_mask"].any()


def test_with_fixed_stakes_the_threshold_player_is_modelled_at_the_minimum_stake() -> None:
    """stake_choice ignored fixed_stake, so banker_best_response was solved against 10-chip stakes
    on an ace or a ten the engine never lets a player put up (banker EV -0.045 instead of +0.19)."""
    from agents.registry import make_policy
    from agents.scripted import ThresholdPlayer
    from pontoon_env import solver
    from pontoon_env.game.rules import make_rules

    rules = make_rules("pagat", fixed_stake=True)
    assert set(ThresholdPlayer().stake_choice(rules).values()) == {rules.min_stake}
    response = make_policy("banker_best_response", rules, num_players=1).response
    right = solver.banker_best_response(rules, solver.BankerRule(17, double_on=frozenset()),
                                        ThresholdPlayer().solver_policy(),
                                        stake_choice=dict.fromkeys(range(1, 11), rules.min_stake))
    assert response.banker_ev == pytest.approx(right.banker_ev) and response.banker_ev > 0.1
