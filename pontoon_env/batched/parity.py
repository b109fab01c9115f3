"""Lockstep parity of the batched engine with the reference engine, decision by decision.

:func:`lockstep` plays ``tables`` batched tables and as many :class:`~pontoon_env.PontoonGame`
tables side by side for ``rounds`` rounds each, the pack carrying over between rounds as the
rules say. Both start from the same pack order and draw every shuffle and cut from the same
counter-based stream (the reference pack's generator is a
:class:`~pontoon_env.batched.rng.CounterGenerator`). At every decision it checks that the same seat
is to act with the same legal actions (kinds and amount ranges) and the same action-id mask, that
the acting seat's observation is the same float32 vector, then applies the same randomly chosen
action to both; at every round's end it checks every seat's ledger result, every seat's
observation and the pack, card by card. Any difference raises :class:`ParityError` naming the
table, the round and what differed.

Run as a script for the benchmark mode (a million rounds)::

    python -m pontoon_env.batched.parity --rules pagat --players 4 --rounds 1000000
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from pontoon_env.batched import tables as tb
from pontoon_env.batched.callbacks import seat_view
from pontoon_env.batched.engine import BatchedEngine, native_rules
from pontoon_env.batched.rng import CounterGenerator
from pontoon_env.encoding import ActionTable, ObservationEncoder
from pontoon_env.game.actions import Action, ActionKind
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.game.observation import observe


class ParityError(AssertionError):
    """The batched engine and the reference engine disagree (the message says where and how)."""


def _pack_order(engine: BatchedEngine, t: int) -> list[int]:
    st = engine.state
    size = int(engine.cfg[tb.C_PACK_SIZE])
    return [int(st.pack[t, (st.head[t] + i) % size]) for i in range(int(st.size[t]))]


def _first_round(engine: BatchedEngine) -> list[PontoonGame]:
    """One reference game per batched table, dealt its first round from the batched table's
    fresh pack (``new_round(deck=order)``), its pack then drawing from the same stream."""
    games = []
    for t in range(engine.num_tables):
        game = PontoonGame(engine.rules, engine.num_players, seed=0, banker=0)
        game.pack.rng = np.random.default_rng(0)  # stack() shuffles before it lays the order down
        game.pack.stack(_pack_order(engine, t))  # a full order: the pack is exactly it
        game.pack.rng = CounterGenerator(engine.state.rng[t])
        games.append(game)
    return games


def lockstep(
    rules: Any,
    num_players: int,
    tables: int,
    rounds: int,
    seed: int = 0,
    *,
    rule_options: Mapping[str, Any] | None = None,
    check_observations: bool = True,
    observe_every: int = 1,
) -> dict[str, int]:
    """Play both engines in lockstep (see the module docstring); returns what was compared.

    ``observe_every``: observations (and seat views) are compared at the tables whose index is a
    multiple of it (legal actions, masks, ledgers and packs at every table), to save time.

    Raises:
        ParityError: the first difference found.
    """
    from pontoon_env.game.rules import resolve_rules

    engine = BatchedEngine(resolve_rules(rules, rule_options), num_players, tables, seed=seed)
    games = _first_round(engine)
    table: ActionTable = engine.table
    encoder: ObservationEncoder = engine.encoder
    chooser = np.random.default_rng(seed + 7919)
    counts = {"rounds": 0, "decisions": 0, "observations": 0}
    everyone = np.arange(engine.num_seats)
    for round_number in range(rounds):
        engine.new_round()
        for game in games:
            game.new_round()
        live = np.arange(tables)
        while True:
            engine.play(live)
            over = engine.is_over(live)
            for t in live[over]:
                _check_round_end(engine, games[t], int(t), round_number, encoder, everyone,
                                 check_observations and t % observe_every == 0, counts)
            live = live[~over]
            if not live.size:
                break
            seats = engine.current_seats(live)
            n, kinds, lows, highs = engine.legal(live)
            mask, _ = engine.masks(live)
            watched = (live % observe_every == 0) if check_observations else np.zeros(live.size, dtype=bool)
            obs = engine.observe(live, seats) if watched.any() else None
            pick_kind = np.zeros(live.size, dtype=np.int64)
            pick_amount = np.zeros(live.size, dtype=np.int64)
            for i, t in enumerate(live):
                game = games[t]
                where = f"table {t}, round {round_number + 1}, phase {game.phase.name}"
                if game.current_seat != seats[i]:
                    raise ParityError(f"{where}: seat to act {seats[i]} (batched) vs {game.current_seat} (reference)")
                reference = [(int(o.kind), o.min_amount, o.max_amount) for o in game.legal_actions()]
                batched = [(int(kinds[i, j]), int(lows[i, j]), int(highs[i, j])) for j in range(n[i])]
                if reference != batched:
                    raise ParityError(f"{where}: legal actions {batched} (batched) vs {reference} (reference)")
                if not np.array_equal(mask[i], table.mask(game.legal_actions())):
                    raise ParityError(f"{where}: action masks differ")
                if watched[i]:
                    view = observe(game, int(seats[i]))
                    if seat_view(engine, int(t), int(seats[i])) != view:
                        raise ParityError(f"{where}: seat views differ (batched vs reference)")
                    expected = encoder.encode(view)
                    _same_obs(obs[i], expected, encoder, f"{where}, seat {seats[i]} to act")
                    counts["observations"] += 1
                j = int(chooser.integers(n[i]))
                amount = int(chooser.integers(lows[i, j], highs[i, j] + 1))
                pick_kind[i], pick_amount[i] = kinds[i, j], amount
                game.apply(Action(ActionKind(int(kinds[i, j])), amount))
                counts["decisions"] += 1
            engine.apply(live, pick_kind, pick_amount)
        counts["rounds"] += tables
    return counts


def _same_obs(got: np.ndarray, expected: np.ndarray, encoder: ObservationEncoder, where: str) -> None:
    if np.array_equal(got, expected):
        return
    bad = np.flatnonzero(got != expected)
    names = {i: row.name for row in encoder.index_table() for i in range(row.slice.start, row.slice.stop)}
    shown = ", ".join(f"{names.get(int(i), i)}: {got[i]!r} vs {expected[i]!r}" for i in bad[:6])
    raise ParityError(f"{where}: observations differ at {bad.size} indices ({shown}) (batched vs reference)")


def _check_round_end(engine: BatchedEngine, game: PontoonGame, t: int, round_number: int,
                     encoder: ObservationEncoder, seats: np.ndarray, check_observations: bool,
                     counts: dict[str, int]) -> None:
    where = f"table {t}, round {round_number + 1} (over)"
    if not game.is_round_over:
        raise ParityError(f"{where}: the reference round is still in phase {game.phase.name}")
    got = engine.results(t)[0].tolist()
    expected = game.ledger.results(game.num_seats)
    if got != expected:
        raise ParityError(f"{where}: seat results {got} (batched) vs {expected} (reference)")
    if engine.state.balance[t].tolist() != list(game.balances):
        raise ParityError(f"{where}: balances {engine.state.balance[t].tolist()} vs {game.balances}")
    if _pack_order(engine, t) != list(game.pack.cards):
        raise ParityError(f"{where}: the packs differ after the round (order or size)")
    if int(engine.state.banker[t]) != game.banker:
        raise ParityError(f"{where}: next banker {int(engine.state.banker[t])} vs {game.banker}")
    if check_observations:
        obs = engine.observe(np.full(seats.size, t), seats)
        for seat in seats:
            _same_obs(obs[seat], encoder.encode(observe(game, int(seat))), encoder, f"{where}, seat {seat}")
            counts["observations"] += 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_env.batched.parity", description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=1_000_000,
                        help="rounds in all, rounded up to whole rounds per table (default 1,000,000)")
    parser.add_argument("--tables", type=int, default=500, help="tables side by side (at most --rounds; default 500)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-observations", action="store_true", help="compare ledgers and legality only")
    parser.add_argument("--observe-every", type=int, default=1, help="compare observations at every k-th table")
    args = parser.parse_args(argv)
    for flag, value, low, high in (("--players", args.players, 1, MAX_PLAYERS), ("--rounds", args.rounds, 1, None),
                                   ("--tables", args.tables, 1, None), ("--seed", args.seed, 0, 2**63 - 1),
                                   ("--observe-every", args.observe_every, 1, None)):
        if value < low or (high is not None and value > high):
            wanted = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
            parser.error(f"{flag}: expected {wanted}, got {value}")
    try:
        native_rules(args.rules, args.players)
    except ValueError as error:  # an unknown preset, or rules the batched engine does not play
        parser.error(f"--rules: {error}")
    started = time.perf_counter()
    tables = min(args.tables, args.rounds)  # --rounds 100 played 500 rounds, one at each of 500 tables
    per_table = -(-args.rounds // tables)
    counts = lockstep(args.rules, args.players, tables, per_table, args.seed,
                      check_observations=not args.no_observations, observe_every=args.observe_every)
    print(f"parity {args.rules} {args.players} players: {counts} identical "
          f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
