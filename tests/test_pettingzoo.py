"""The PettingZoo AEC environment: API and seed tests, rewards against the ledger, shared encodings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from pontoon_env import PRESETS, IllegalActionError
from pontoon_env.encoding import ActionTable, ObservationEncoder
from pontoon_env.game.observation import observe
from pontoon_env.envs.pettingzoo_env import env as make_env
from pontoon_env.envs.pettingzoo_env import raw_env
from helpers import random_legal

# api_test warns about any dict observation of an environment missing from its own list of
# classic games; the action mask has to travel in the observation, so these two are expected.
EXPECTED_API_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_api_and_seed_tests(preset, capsys):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make_env(rules=preset, num_players=3, num_rounds=2), num_cycles=300)
        seed_test(lambda: make_env(rules=preset, num_players=3, num_rounds=2), num_cycles=300)
    unexpected = {str(warning.message) for warning in caught} - set(EXPECTED_API_WARNINGS)
    assert not unexpected


def play(environment, rng: np.random.Generator, seed: int) -> dict[str, float]:
    """Random legal actions to the end; the total reward of each agent."""
    environment.reset(seed=seed)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        obs, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        action = None if terminated or truncated else random_legal(obs["action_mask"], rng)
        environment.step(action)
    return totals


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rewards_sum_to_each_seats_chips(preset):
    environment = raw_env(rules=preset, num_players=3, num_rounds=4)
    rng = np.random.default_rng(0)
    for seed in range(3):
        totals = play(environment, rng, seed)
        game = environment.game
        start = game.rules.bankroll
        for seat, agent in enumerate(environment.possible_agents):
            # D22: a seat's result is its chips plus the kitty it owns (the banker's; an old
            # banker took his back when the bank passed).
            owned = game.kitty if seat == game.banker else 0
            assert totals[agent] * game.rules.min_stake == pytest.approx(game.balances[seat] - start + owned)
        # Chips are conserved: what the seats lost together went to the brûlet pool.
        assert sum(totals.values()) * game.rules.min_stake == pytest.approx(-game.pool)
        assert game.round_index >= 4


def test_every_seat_is_an_agent_and_the_banker_is_marked():
    environment = raw_env(rules="pagat", num_players=3)
    environment.reset(seed=1)
    assert environment.possible_agents == ["seat_0", "seat_1", "seat_2", "seat_3"]
    game = environment.game
    encoder = environment.encoder
    is_banker = next(row.slice for row in encoder.index_table() if row.name == "table.is_banker")
    for seat, agent in enumerate(environment.possible_agents):
        vector = environment.observe(agent)["observation"]
        assert vector[is_banker][0] == float(seat == game.banker)
        # the very encoder and view filter of the Gymnasium environment
        np.testing.assert_array_equal(vector, ObservationEncoder(game.rules, 4).encode(observe(game, seat)))


def test_only_the_agent_to_move_has_legal_actions():
    environment = raw_env(rules="shoot", num_players=2)
    environment.reset(seed=2)
    table = ActionTable(environment.rules)
    mover = environment.agent_selection
    assert mover == f"seat_{environment.game.banker}"  # the banker puts up the kitty first
    for agent in environment.agents:
        mask = environment.observe(agent)["action_mask"]
        assert mask.dtype == np.int8
        if agent == mover:
            assert np.array_equal(mask.astype(bool), table.mask(environment.game.legal_actions()))
        else:
            assert not mask.any()


def test_illegal_and_malformed_actions():
    environment = raw_env(rules="pagat", num_players=2)
    environment.reset(seed=0)
    agent = environment.agent_selection
    with pytest.raises(IllegalActionError, match=f"agent {agent}: action 17 \\(stand\\) is not legal"):
        environment.step(environment.action_names.index("stand"))
    with pytest.raises(TypeError, match="integer id"):
        environment.step(0.5)
    with pytest.raises(ValueError, match="num_rounds"):
        raw_env(num_rounds=0)
    with pytest.raises(ValueError, match="illegal_penalty: expected a finite number"):
        raw_env(illegal_penalty=float("inf"))


def test_stacked_deck_and_settlement_info():
    environment = raw_env(rules="pagat", num_players=1)
    environment.reset(seed=0, options={"deck": ["AS", "9H", "KD", "8C"]})  # the player holds a pontoon
    game = environment.game
    player = f"seat_{game.player_order()[0]}"
    assert environment.agent_selection == player
    environment.step(environment.action_names.index("stake:10"))
    while not all(environment.terminations.values()):
        environment.step(environment.action_names.index("stand"))  # the banker stands on 17
    assert environment.infos[player]["round_result"] == 20  # a pontoon wins double
    assert environment.rewards[player] == 20.0


def test_the_episode_ends_when_no_player_can_stake():
    # With 3 chips each, the player soon cannot cover the minimum stake: the table used to deal
    # on to nobody until it raised "no seat had a decision in 1000 rounds".
    from pontoon_env.envs.pettingzoo_env import env as table

    environment = table(rules="pagat", rule_options={"bankroll": 3}, num_players=1, num_rounds=50)
    environment.reset(seed=0)
    returns = dict.fromkeys(environment.possible_agents, 0.0)
    for agent in environment.agent_iter():
        observation, reward, termination, truncation, _ = environment.last()
        returns[agent] += reward
        done = termination or truncation
        environment.step(None if done else int(np.flatnonzero(observation["action_mask"])[-1]))
    game = environment.unwrapped.game
    assert game.round_index < 50
    assert all(game.balances[seat] < game.rules.min_stake for seat in range(2) if seat != game.banker)
    for seat, agent in enumerate(environment.possible_agents):
        assert returns[agent] * game.rules.min_stake == pytest.approx(game.balances[seat] - 3)


def test_reset_never_hands_out_a_table_where_nobody_can_act():
    # Vingt-Un naturals can settle the first deal at once, and with one chip the player may then
    # be unable to stake: reset() used to stop there with agent_selection "seat_-1".
    for seed in range(60):
        environment = raw_env(rules="vingt_un_1800", rule_options={"bankroll": 1}, num_players=1)
        environment.reset(seed=seed)
        assert environment.agent_selection in environment.possible_agents
        assert not environment.game.is_round_over
        assert environment.observe(environment.agent_selection)["action_mask"].any()


def test_a_refused_action_leaves_the_agents_reward_alone():
    environment = raw_env(rules="vingt_un_1800", num_players=1, num_rounds=3)
    environment.reset(seed=0)
    twist = environment.action_names.index("twist")
    for _ in range(3):
        environment.step(twist)
    agent = environment.agent_selection
    before = environment._cumulative_rewards[agent]
    assert before != 0
    with pytest.raises(IllegalActionError):
        environment.step(environment.action_names.index("stake:1"))
    assert environment.agent_selection == agent
    assert environment._cumulative_rewards[agent] == before


@pytest.mark.parametrize("preset", ["pagat", "vingt_un_1800", "shoot"])
def test_every_agent_reads_every_round_result_and_they_sum_to_its_rewards(preset):
    environment = raw_env(rules=preset, num_players=3, num_rounds=5)
    rng = np.random.default_rng(1)
    for seed in range(3):
        environment.reset(seed=seed)
        rewards = dict.fromkeys(environment.possible_agents, 0.0)
        reported = dict.fromkeys(environment.possible_agents, 0)
        rounds_read = dict.fromkeys(environment.possible_agents, 0)
        for agent in environment.agent_iter():
            observation, reward, terminated, truncated, info = environment.last()
            rewards[agent] += reward
            reported[agent] += sum(entry["round_result"] for entry in info.get("rounds", []))
            rounds_read[agent] += len(info.get("rounds", []))
            done = terminated or truncated
            environment.step(None if done else random_legal(observation["action_mask"], rng))
        played = environment.game.round_index
        for agent in environment.possible_agents:
            assert rounds_read[agent] == played  # counted and silent deals alike
            assert reported[agent] == pytest.approx(rewards[agent] * environment.rules.min_stake)


def test_a_refused_deck_does_not_move_the_seed_stream():
    def first_view(environment):
        agent = environment.agent_selection
        return agent, environment.observe(agent)["observation"]

    plain = raw_env()
    plain.reset(seed=1)
    plain.reset()
    refused = raw_env()
    refused.reset(seed=1)
    with pytest.raises(ValueError, match="deck"):
        refused.reset(seed=5, options={"deck": ["ZZ"]})
    refused.reset()
    (agent_a, view_a), (agent_b, view_b) = first_view(plain), first_view(refused)
    assert agent_a == agent_b
    np.testing.assert_array_equal(view_a, view_b)


def test_observe_names_the_agents_it_knows():
    environment = raw_env(num_players=2)
    environment.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent: expected one of \['seat_0', 'seat_1', 'seat_2'\], got 'seat_9'"):
        environment.observe("seat_9")


def test_a_stacked_deal_that_leaves_nobody_to_act_is_refused_not_replaced():
    environment = raw_env(rules="vingt_un_1800", rule_options={"bankroll": 1}, num_players=1)
    environment.reset(seed=3)
    table, agent = environment.game, environment.agent_selection
    with pytest.raises(ValueError, match="the stacked deal leaves no seat able to act"):
        environment.reset(seed=0, options={"deck": ["2C", "AS", "3C", "KS"]})
    assert environment.game is table and environment.agent_selection == agent  # the episode goes on
