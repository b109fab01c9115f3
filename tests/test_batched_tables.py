"""The batched engine's generated rule tables, its one re-expressed rule, its streams and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon_env import IllegalActionError, RulesError, make_rules
from pontoon_env.batched import BatchedEngine, CounterGenerator, NotNativeError, deal_orders
from pontoon_env.batched import kernel as kn
from pontoon_env.batched import tables as tb
from pontoon_env.game import legality
from pontoon_env.game.hands import HandStat


@settings(max_examples=300, deadline=None)
@given(
    mode=st.sampled_from(["pagat", "initial"]),
    initial=st.integers(1, 40),
    last_buy=st.integers(0, 80),
)
def test_buy_limits_is_the_legality_formula(mode, initial, last_buy):
    rules = make_rules("pagat", buy_limits=mode)
    stat = HandStat(12, False, 3, initial=initial, last_buy=last_buy, buys=1 if last_buy else 0)
    code = tb.BUY_PAGAT if mode == "pagat" else tb.BUY_INITIAL
    assert tuple(kn.buy_limits(code, initial, last_buy)) == legality.buy_limits(stat, rules)


@pytest.mark.parametrize("preset", tb.NATIVE_PRESETS)
@settings(max_examples=200, deadline=None)
@given(
    total=st.integers(2, 30), soft=st.booleans(), n=st.integers(1, 5), twisted=st.booleans(),
    doubled=st.booleans(), buys=st.integers(0, 3), pair=st.booleans(), held=st.integers(1, 4),
    initial=st.integers(1, 10),
)
def test_move_table_lists_the_legal_moves_of_any_stat(preset, total, soft, n, twisted, doubled, buys, pair, held,
                                                      initial):
    """The table drops the chips (free chips are unlimited natively); the kinds must still agree."""
    rules = make_rules(preset)
    rt = tb.build(rules)
    stat = HandStat(total, soft, n, False, twisted, buys, initial if buys else 0, doubled, initial, initial * (1 + buys))
    expected = [option.kind for option in legality.player_moves(stat, rules, pair=pair, hands_held=held)]
    bits = rt.moves[total, int(soft), n, int(twisted), int(doubled), int(buys > 0), int(pair), held]
    assert [kind for bit, kind in enumerate(tb.MOVE_ORDER) if bits & (1 << bit)] == expected


def test_deal_orders_are_full_packs_keyed_by_seed_and_round():
    a = deal_orders(7, 100, 3, 2)
    assert a.shape == (3, 104)
    assert all(sorted(row) == sorted(list(range(52)) * 2) for row in a.tolist())
    assert np.array_equal(deal_orders(7, 101, 1, 2)[0], a[1])  # a round's order does not depend on the others
    assert not np.array_equal(deal_orders(8, 100, 1, 2)[0], a[0])
    with pytest.raises(ValueError, match="seed"):
        deal_orders(-1, 0, 1, 1)


def test_counter_generator_is_reproducible_and_in_range():
    one, two = CounterGenerator(5), CounterGenerator(5)
    draws = [one.integers(3, 9) for _ in range(200)]
    assert draws == [two.integers(3, 9) for _ in range(200)]
    assert set(draws) == set(range(3, 9))
    values = list(range(20))
    one.shuffle(values)
    assert sorted(values) == list(range(20)) and values != list(range(20))


@settings(max_examples=200, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), capacity=st.integers(1, 104), data=st.data())
def test_ring_shuffle_is_the_fisher_yates_of_bounded_draws(seed, capacity, data):
    """``shuffle_ring`` keeps its stream in a local and draws inline, and shuffles a pack where it
    lies in the engine's ring: held here to an independent Fisher-Yates over
    ``values[:n]`` laid out from index 0 that takes each draw from ``rng.bounded`` (the
    definition of a draw), leaving the stream in the same state."""
    from pontoon_env.batched import rng

    n = data.draw(st.integers(0, capacity))
    head = data.draw(st.integers(0, capacity - 1))
    ring = np.full(capacity, -1, dtype=np.int64)
    for v in range(n):
        ring[(head + v) % capacity] = 100 + v
    state = np.array([rng.stream_seed(seed, rng.STREAM_DECK, 0, 0)], dtype=np.uint64)
    expected_state = state.copy()
    expected = [100 + v for v in range(n)]
    for k in range(n - 1, 0, -1):
        j = rng.bounded(expected_state, 0, k + 1)
        expected[k], expected[j] = expected[j], expected[k]
    rng.shuffle_ring(state, 0, ring, head, n, capacity)
    assert [int(ring[(head + v) % capacity]) for v in range(n)] == expected
    assert state[0] == expected_state[0]
    assert all(ring[(head + v) % capacity] == -1 for v in range(n, capacity))  # the free slots untouched
    linear = np.arange(100, 100 + n, dtype=np.int64)
    state[0] = rng.stream_seed(seed, rng.STREAM_DECK, 0, 0)
    rng.shuffle_in_place(state, 0, linear, n)
    assert linear.tolist() == expected and state[0] == expected_state[0]


def test_non_native_rules_are_refused_naming_the_option():
    with pytest.raises(NotNativeError, match="shoot"):
        BatchedEngine("shoot", 2, 1)
    with pytest.raises(NotNativeError, match="vingt_un_1800"):
        BatchedEngine("vingt_un_1800", 2, 1)
    with pytest.raises(NotNativeError, match="bankroll"):
        BatchedEngine(make_rules("pagat", bankroll=100), 2, 1)
    with pytest.raises(RulesError, match="unknown preset"):
        BatchedEngine("pagot", 2, 1)
    with pytest.raises(ValueError, match="num_players"):
        BatchedEngine("pagat", 10, 1)


def test_bad_actions_name_the_table_and_the_value():
    engine = BatchedEngine("pagat", 2, 3, seed=1)
    engine.new_round()
    engine.play()
    with pytest.raises(TypeError, match=r"shape \(3,\)"):
        engine.apply_ids(None, np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="dtype"):
        engine.apply_ids(None, np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match=r"actions\[1\] \(table 1\): id 99"):
        engine.apply_ids(None, np.array([0, 99, 0]))
    stick = engine.table.index("stick")  # every table is at a stake decision: sticking is illegal
    with pytest.raises(IllegalActionError, match=r"table 0: action \d+ \(stick\) is not legal now; legal: 0=stake"):
        engine.apply_ids(None, np.array([stick, stick, stick]))
    with pytest.raises(RuntimeError, match="table 0 is still playing"):
        engine.new_round()
