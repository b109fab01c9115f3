"""Batched evaluation: ``play_match`` on the batched engine, per round equal to the reference path.

A match of ``rounds`` independent rounds (a fresh table per round, the bank fixed at
``banker_seat``) is defined by two counter-based streams per round: the pack order
(:func:`~pontoon_env.batched.rng.deal_orders`) and each seat's random stream
(:func:`~pontoon_env.batched.rng.seat_stream_seed`). :func:`reference_match` plays it on
:class:`~pontoon_env.PontoonGame` (``new_round(deck=order)``, seat generators
:class:`~pontoon_env.batched.rng.CounterGenerator`), :func:`batched_match` on the batched engine,
:data:`MATCH_BATCH` rounds at a time, with scripted seats native and every other seat (a trained model above
all) asked once per step for all waiting tables (:mod:`pontoon_env.batched.callbacks`). Both
return a :class:`MatchArrays` with the arrays of ``pontoon_tools.evaluation.MatchResult``; on the
same seed they are equal round by round (``tests/test_batched_evaluate.py``), so paired
comparisons stay exact whichever path played.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.batched.callbacks import decide_batch
from pontoon_env.batched.engine import BatchedEngine, NotNativeError, native_rules
from pontoon_env.batched.rng import CounterGenerator, deal_orders, seat_seeds, seat_stream_seed
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.hands import HandClass
from pontoon_env.game.observation import observe
from pontoon_env.game.rules import Rules, RulesSpec, resolve_rules

FIELDS = ("net", "staked", "initial", "hands", "busts", "pontoons", "tricks")
MATCH_BATCH = 2048
"""Rounds :func:`batched_match` plays at a time (one table each). Fewer tables keep more of their
state in the caches between the steps of a batch, more spread the model's and Python's per-call
cost: on one pinned core (2026-12-06, 400,000 rounds of ``bench/batched.py``'s model, alternated,
three sets) 2,048 gave 125,223-137,220 rounds/s against 109,763-125,409 for 4,096 and 121,322-
144,859 for 1,024. A round's result does not depend on it (each round has its own streams)."""


class MatchArrays(NamedTuple):
    """Per-round, per-seat arrays ``[rounds, seats]`` (as ``MatchResult``) and the wall time."""

    net: np.ndarray
    staked: np.ndarray
    initial: np.ndarray
    hands: np.ndarray
    busts: np.ndarray
    pontoons: np.ndarray
    tricks: np.ndarray
    wall_s: float


def _empty(rounds: int, seats: int) -> dict[str, np.ndarray]:
    return {name: np.zeros((rounds, seats), dtype=np.int64) for name in FIELDS}


def reference_match(rules: RulesSpec, num_players: int, policies: Sequence[Any], rounds: int, seed: int = 0, *,
                    banker_seat: int = 0, first_round: int = 0) -> MatchArrays:
    """The match on the reference engine, round ``i`` dealt from ``deal_orders(seed, i, 1, decks)``.

    This is the loop of ``pontoon_tools.evaluation.play_match`` with the shared streams.
    """
    rules = resolve_rules(rules)
    started = time.perf_counter()
    seats = num_players + 1
    arrays = _empty(rounds, seats)
    game_rules = PontoonGame(rules, num_players, seed=0, banker=banker_seat).rules
    for index in range(rounds):
        r = first_round + index
        game = PontoonGame(rules, num_players, seed=0, banker=banker_seat)
        rngs = [CounterGenerator(seat_stream_seed(seed, r, seat)) for seat in range(seats)]
        game.new_round(deck=deal_orders(seed, r, 1, game_rules.decks)[0].tolist())
        while not game.is_round_over:
            seat = game.current_seat
            game.apply(policies[seat].act(observe(game, seat), game.legal_actions(), rngs[seat]))
        _record_reference(game, index, arrays)
    return MatchArrays(**arrays, wall_s=time.perf_counter() - started)


def _record_reference(game: PontoonGame, index: int, arrays: dict[str, np.ndarray]) -> None:
    """pontoon_tools.evaluation._record_round."""
    arrays["net"][index] = game.ledger.results(game.num_seats)
    for player in game.players:
        for hand in player.hands:
            hand_class = game.hand_result(hand).hand_class
            arrays["hands"][index, player.seat] += 1
            arrays["staked"][index, player.seat] += hand.stake
            arrays["busts"][index, player.seat] += hand_class == HandClass.BUST
            arrays["pontoons"][index, player.seat] += hand_class == HandClass.PONTOON
            arrays["tricks"][index, player.seat] += hand_class == HandClass.FIVE_CARD_TRICK
        if player.hands:
            arrays["initial"][index, player.seat] = player.hands[0].initial
    banker = game.banker_seat_of_round
    for hand in game.banker_hands:
        hand_class = game.banker_result(hand).hand_class
        arrays["hands"][index, banker] += 1
        arrays["busts"][index, banker] += hand_class == HandClass.BUST
        arrays["pontoons"][index, banker] += hand_class == HandClass.PONTOON
        arrays["tricks"][index, banker] += hand_class == HandClass.FIVE_CARD_TRICK


def _action_tables(policies: Sequence[Any]) -> dict[tuple[str, ...], Any]:
    """The action tables of the policies that choose by action id (trained models), by layout."""
    from pontoon_env.encoding import ActionTable

    tables = [getattr(p, "table", None) for p in policies]
    return {tuple(t.names): t for t in tables if isinstance(t, ActionTable)}


def layout_problem(policies: Sequence[Any]) -> str | None:
    """Why the batched engine cannot seat these policies together (``None`` if it can): its masks
    and ids follow one action layout, so models trained with different stake or buy levels need the
    reference path."""
    layouts = _action_tables(policies)
    if len(layouts) > 1:
        return f"models with {len(layouts)} different action layouts ({sorted(len(k) for k in layouts)} ids)"
    return None


def batched_match(rules: RulesSpec, num_players: int, policies: Sequence[Any], rounds: int, seed: int = 0, *,
                  banker_seat: int = 0, first_round: int = 0, batch: int = MATCH_BATCH,
                  engine: BatchedEngine | None = None) -> MatchArrays:
    """The match on the batched engine (see the module docstring); same inputs as
    :func:`reference_match` (``policies``: objects or registry specs, one per seat).

    Raises:
        NotNativeError: rules the batched engine does not play (use :func:`reference_match`).
    """
    started = time.perf_counter()
    rules = native_rules(rules, num_players)
    seats = num_players + 1
    if len(policies) != seats:
        raise ValueError(f"policies: expected {seats} (one per seat, banker included), got {len(policies)}")
    if not 0 <= banker_seat < seats:
        raise ValueError(f"banker_seat: expected 0..{num_players}, got {banker_seat}")
    problem = layout_problem(policies)
    if problem is not None:
        raise NotNativeError(f"policies: {problem}; play the match on the reference engine")
    layouts = _action_tables(policies)
    # The engine's masks and ids follow the models' action layout (their stake and buy levels).
    levels = next(iter(layouts.values())).levels if layouts else None
    size = max(1, min(batch, rounds))
    if engine is None or engine.num_tables != size or (levels is not None and engine.table.levels != levels):
        engine = BatchedEngine(rules, num_players, size, seed=seed, policies=list(policies), action_levels=levels)
    arrays = _empty(rounds, seats)
    st = engine.state
    for start in range(0, rounds, size):
        count = min(size, rounds - start)
        idx = np.arange(count, dtype=np.int64)
        engine.reset(idx)
        st.banker[idx] = banker_seat
        st.round_banker[idx] = banker_seat
        st.seat_rng.reshape(size, seats)[:count] = seat_seeds(seed, first_round + start, count, seats)
        need = engine.play_round(idx, deal_orders(seed, first_round + start, count, rules.decks))
        _play_out(engine, idx, need)
        _record(engine, count, start, arrays)
    return MatchArrays(**arrays, wall_s=time.perf_counter() - started)


def _play_out(engine: BatchedEngine, idx: np.ndarray, need: np.ndarray) -> None:
    """Play the rounds dealt at ``idx`` out (``need``: what each waits for, as :meth:`BatchedEngine.play`
    returns it): native seats inside the kernel, external ones one call per step for all waiting tables."""
    while (need == kn.NEED_CALLBACK).any():
        waiting = idx[need == kn.NEED_CALLBACK]
        seats = engine.current_seats(waiting)
        for seat in np.unique(seats):
            tables = waiting[seats == seat]
            policy = engine.external_policies.get(int(seat))
            if policy is None:
                raise RuntimeError(f"table {int(tables[0])}: seat {int(seat)} has no policy")
            rngs = _SeatStreams(engine, int(seat))
            kinds, amounts = decide_batch(engine, policy, tables, np.full(tables.size, seat), rngs)  # type: ignore[arg-type]
            engine._apply_legal(tables, kinds, amounts)  # decide_batch checked each against the legal actions
        need = engine.play(idx)


class _SeatStreams:
    """``table -> CounterGenerator`` on ``seat``'s stream at that table, made only when a policy asks
    for one (a model or a batched policy never does; making one per table per step was a third of
    a model's evaluation time)."""

    def __init__(self, engine: BatchedEngine, seat: int) -> None:
        self.engine, self.seat = engine, seat

    def __getitem__(self, t: int) -> CounterGenerator:
        # On the stream itself (a one-element view), so that a policy's draws advance it: a copy
        # gave every decision of a round the same draw, where the reference path's advance.
        i = int(t) * self.engine.num_seats + self.seat
        return CounterGenerator.on(self.engine.state.seat_rng[i:i + 1])


def _record(engine: BatchedEngine, count: int, start: int, arrays: dict[str, np.ndarray]) -> None:
    """The per-hand statistics of ``_record_round`` for the first ``count`` tables (where
    :func:`batched_match` plays) into rows ``start...`` of ``arrays``: one compiled pass
    (:func:`~pontoon_env.batched.kernel.record_rounds`, classes from the rule tables)."""
    kn.record_rounds(engine.state, engine.rules_flat, engine.cfg, np.int64(count), np.int64(start),
                     *(arrays[name] for name in FIELDS))


def match(rules: Rules, num_players: int, policies: Sequence[Any], rounds: int, seed: int = 0, *,
          banker_seat: int = 0) -> MatchArrays:
    """The batched path where the rules are native, else the reference path (same results)."""
    from pontoon_env.batched.tables import native_problem

    resolved = PontoonGame(rules, num_players, seed=0, banker=banker_seat).rules
    if native_problem(resolved) is None:
        return batched_match(rules, num_players, policies, rounds, seed, banker_seat=banker_seat)
    return reference_match(rules, num_players, policies, rounds, seed, banker_seat=banker_seat)
