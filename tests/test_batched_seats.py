"""Vectorised scripted seats make the same decisions as the Python policies they stand for.

The batched engine plays whole rounds with every seat native; the same tables are replayed on
PontoonGame with the Python policy objects (``agents``) deciding from ``observe(game, seat)``, on
the same packs and, for random seats, the same streams (CounterGenerator). Every seat's result in
every round and the pack after it must agree, so a single differing decision fails the test.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_policy
from pontoon_env.batched import BatchedEngine, CounterGenerator
from pontoon_env.batched import tables as tb
from pontoon_env.batched.parity import _first_round, _pack_order
from pontoon_env.game.observation import observe
from pontoon_env.game.policy import RandomPolicy


def replay(preset, specs, tables=40, rounds=15, seed=0, **options):
    from pontoon_env import make_rules

    rules = make_rules(preset, **options)
    policies = [RandomPolicy() if spec == "random" else make_policy(spec, rules) for spec in specs]
    engine = BatchedEngine(rules, len(specs) - 1, tables, seed=seed, policies=policies)
    assert not engine.external_policies, "every seat of this test is native"
    games = _first_round(engine)
    S = engine.num_seats
    rngs = [[CounterGenerator(engine.state.seat_rng[t * S + s]) for s in range(S)] for t in range(tables)]
    compared = 0
    for _ in range(rounds):
        engine.new_round()
        need = engine.play()
        assert (engine.is_over()).all(), need
        results = engine.results()
        for t, game in enumerate(games):
            game.new_round()
            while not game.is_round_over:
                seat = game.current_seat
                game.apply(policies[seat].act(observe(game, seat), game.legal_actions(), rngs[t][seat]))
            assert results[t].tolist() == game.ledger.results(S), f"table {t}, round {game.round_index}"
            assert _pack_order(engine, t) == list(game.pack.cards)
            compared += 1
    return compared


@pytest.mark.parametrize(
    "preset, specs",
    [
        ("pagat", ["banker_threshold", "threshold", "threshold:stick=17,buy=0", "threshold:amount=min,bet=max"]),
        ("pagat", ["banker_threshold:stand=16", "threshold:soft=18,split=all", "threshold:bet=3,buy=13"]),
        ("casino", ["casino_dealer", "threshold:double=9/10/11", "threshold:split=all,stick=15"]),
        ("pontoon_1939", ["banker_threshold:double_ace=true", "threshold", "threshold:bet=max,buy=14"]),
        ("pontoon_2011", ["banker_threshold:stand=18", "threshold:split=aces", "threshold:amount=min"]),
        ("pagat", ["random", "random", "threshold", "random"]),
        ("pontoon_2011", ["threshold", "banker_threshold", "random"]),  # roles swap when the bank passes
    ],
)
def test_scripted_seats_decide_as_the_python_policies(preset, specs):
    assert replay(preset, specs) == 40 * 15


@pytest.mark.parametrize("preset", ["pagat", "casino"])
def test_optimal_seat_is_the_solver_lookup(preset):
    specs = ["casino_dealer" if preset == "casino" else "banker_threshold", "optimal", "optimal", "threshold"]
    assert replay(preset, specs, tables=30, rounds=10) == 300


def test_non_native_policies_stay_external():
    engine = BatchedEngine("pagat", 2, 2, policies=["banker_smart", "threshold", None])
    assert sorted(engine.external_policies) == [0]
    assert (engine.seat_pol[:, 0] == -1).all() and (engine.seat_pol[:, 2] == -1).all()
    assert tb.native_problem(engine.rules) is None
    engine.new_round()
    assert (engine.play() == 2).all()  # the stake of seat 2 (external) is awaited
    assert np.array_equal(engine.current_seats(), [2, 2])


def test_the_optimal_table_keeps_every_move_as_it_grows() -> None:
    # The compiled code reads the optimal moves from an open-addressing table that Python fills
    # and doubles: every key put must read back (through get and through the row the compiled lookup reads),
    # keys that collide in the low bits included, and an unknown key must read as missing.
    from pontoon_env.batched import kernel as kn
    from pontoon_env.batched.policies import OptimalTable

    table = OptimalTable()
    rng = np.random.default_rng(3)
    keys = {(int(a), int(b), int(c), int(d)) for a, b, c, d in rng.integers(0, 1 << 36, size=(3000, 4))}
    keys |= {(i * table.INITIAL_ROWS, 0, 0, 0) for i in range(50)}  # same low bits of the first part
    moves = {key: index % 6 for index, key in enumerate(sorted(keys))}
    for key, move in moves.items():
        table.put(key, move)
    assert len(table) == len(moves) and len(table.moves) >= 2 * len(moves)
    assert all(table.get(key) == move for key, move in moves.items())
    assert table.get((5, 5, 5, 5)) is None
    for key in list(moves)[:20]:  # the row the compiled lookup reads (the same function)
        assert table.moves[kn.optimal_row(table.moves, *key), kn.OPT_KEY_WIDTH] == moves[key]
    table.put(next(iter(moves)), 5)  # a key put again keeps one row
    assert len(table) == len(moves)
    with pytest.raises(ValueError, match="optimal table key"):
        table.put((-1, 0, 0, 0), 0)


@pytest.mark.parametrize("preset", ["pagat", "casino"])
def test_play_round_is_new_round_then_play(preset: str) -> None:
    """play_round deals and plays in one pass: the same tables, round after round, as new_round
    followed by play (with the optimal player's lookups, with and without stacked packs)."""
    specs = (["banker_threshold"] if preset == "pagat" else ["casino_dealer"]) + ["threshold", "optimal", "random"]
    one = BatchedEngine(preset, 3, 64, seed=5, policies=specs)
    two = BatchedEngine(preset, 3, 64, seed=5, policies=specs)
    rng = np.random.default_rng(0)
    for round_index in range(6):
        orders = None
        if round_index % 3 == 2:
            orders = np.stack([rng.permutation(one.state.pack.shape[1]) % 52 for _ in range(64)])
        one.new_round(orders=orders)
        need_one = one.play()
        need_two = two.play_round(orders=orders)
        assert np.array_equal(need_one, need_two)
        for a, b in zip(one.state, two.state):
            assert np.array_equal(a, b)
    two.state.phase[3] = 1  # a table still playing its round
    with pytest.raises(RuntimeError, match="play_round: table 3 is still playing its round"):
        two.play_round()
