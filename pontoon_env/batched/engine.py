"""N Pontoon tables stepped together: the Python face of the compiled kernel.

:class:`BatchedEngine` holds N tables of one rule set and one table size as arrays
(:class:`~pontoon_env.batched.state.TableState`) and steps them all in one compiled call. Each
seat is driven by a native scripted policy (:mod:`pontoon_env.batched.policies`) or left
*external*: :meth:`BatchedEngine.play` stops a table where an external seat is to act, and the
caller answers for all such tables at once (:meth:`legal`, :meth:`masks`, :meth:`observe`,
:meth:`apply`, :meth:`apply_ids`), the way the vector environment drives its learner.

Same rules, same deck orders and same actions give the same ledgers, observations and legal
actions as :class:`~pontoon_env.PontoonGame` (``tests/test_batched_parity.py``). Every random
draw comes from counter-based streams (:mod:`pontoon_env.batched.rng`) keyed by the seed, the
table and how many fresh packs it has had, so the same seed gives the same trajectories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.batched import tables as tb
from pontoon_env.batched.layout import action_slots, observation_layout, observation_scales
from pontoon_env.batched.policies import OptimalTable, native_rows
from pontoon_env.batched.state import TableState, new_state
from pontoon_env.encoding import ActionLevels, ActionTable, Level, ObservationEncoder
from pontoon_env.game.actions import IllegalActionError
from pontoon_env.game.cards import DeckError, parse_cards
from pontoon_env.game.checks import require_int
from pontoon_env.game.engine import MAX_PLAYERS
from pontoon_env.game.rules import Rules, RulesError, RulesSpec, resolve_rules


class NotNativeError(RulesError):
    """Rules the batched engine cannot play natively (the message says which option)."""


def native_rules(rules: RulesSpec, num_players: int) -> Rules:
    """The rules a table of ``num_players`` plays (a second deck above seven players, D18/E23),
    checked to be native.

    Raises:
        NotNativeError: naming the preset and the options the batched engine does not play.
    """
    resolved = resolve_rules(rules)
    if num_players > 7 and resolved.decks == 1:
        resolved = resolved.replace(decks=2)
    problem = tb.native_problem(resolved)
    if problem is not None:
        raise NotNativeError(
            f"rules {resolved.preset!r}: {problem}; native presets are {list(tb.NATIVE_PRESETS)} "
            "(use the reference engine, PontoonGame, for the others)"
        )
    return resolved


class BatchedEngine:
    """``num_tables`` tables of ``num_players`` players each (see the module docstring).

    Args:
        rules: a native rule set (preset name, :class:`Rules` or dict of options).
        num_players: player seats per table, 1-9 (the banker is seat 0 at every fresh table).
        num_tables: how many tables.
        seed: the seed of every stream (packs, random seats).
        policies: per seat, a policy object, a registry spec (``"threshold:stick=17"``) or
            ``None`` (external: the caller decides for it). A sequence of ``num_players + 1``
            entries, a mapping seat -> policy (missing seats are external), or ``None`` (all
            external). A policy the engine cannot play natively (``banker_smart``, a model) leaves
            its seat external; :attr:`external_policies` keeps it for the caller.
        action_levels: the action table's amount levels (as the single environment takes them).

    Raises:
        NotNativeError: the rules are not native. ValueError: a bad table size.
    """

    def __init__(
        self,
        rules: RulesSpec,
        num_players: int,
        num_tables: int,
        seed: int = 0,
        policies: Sequence[Any] | Mapping[int, Any] | None = None,
        action_levels: ActionLevels | Mapping[str, Sequence[Level] | None] | None = None,
    ) -> None:
        num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
        num_tables = require_int("num_tables", num_tables, 1)
        self.seed = require_int("seed", seed, 0)
        self.rules = native_rules(rules, num_players)
        self.num_players = num_players
        self.num_seats = num_players + 1
        self.num_tables = num_tables
        self.cfg = tb.config(self.rules, num_players)
        self.rt = tb.build(self.rules)
        self.rules_flat = tb.flatten(self.rt)  # what the compiled code reads (RuleTables is for Python)
        self.state: TableState = new_state(
            num_tables, self.num_seats, int(self.cfg[tb.C_HAND_CARDS]), int(self.cfg[tb.C_PACK_SIZE])
        )
        self.encoder = ObservationEncoder(self.rules, self.num_seats)
        self.table = ActionTable(self.rules, action_levels)
        self.layout = observation_layout(self.encoder)
        self.scales = observation_scales(self.encoder)
        self.high = self.encoder.high.astype(np.float32)
        self.slot_kind, self.slot_type, self.slot_level = action_slots(self.table)
        self.optimal = OptimalTable()
        self._rows: list[np.ndarray] = [np.zeros(kn.P_N, dtype=np.int64)]
        self.pol = np.stack(self._rows)
        self.seat_pol = np.full((num_tables, self.num_seats, 2), -1, dtype=np.int64)
        self.external_policies: dict[int, Any] = {}
        self.need = np.zeros(num_tables, dtype=np.int8)
        self.miss = np.zeros((num_tables, kn.MISS_WIDTH), dtype=np.int64)
        # Work arrays of the compiled entry points, made once (they compile without reference
        # counting, so they may not allocate): legal-action rows, and the amount of each action id.
        self.scratch = np.zeros((kn.SCRATCH_ROWS, kn.MAX_LEGAL), dtype=np.int64)
        self.amounts = np.zeros(self.slot_kind.size, dtype=np.int64)
        self._no_orders = np.zeros((1, int(self.cfg[tb.C_PACK_SIZE])), dtype=np.int64)
        self.generation = np.zeros(num_tables, dtype=np.int64)
        self.all = np.arange(num_tables, dtype=np.int64)
        self._seat_specs: dict[int, Any] = {}
        self.set_policies(policies)
        self.reset()

    # ------------------------------------------------------------------------------ seats

    def set_policies(self, policies: Sequence[Any] | Mapping[int, Any] | None) -> None:
        """Seat policies as the constructor takes them (see the class docstring)."""
        if policies is None:
            given: dict[int, Any] = {}
        elif isinstance(policies, Mapping):
            bad = [seat for seat in policies if not (isinstance(seat, int) and 0 <= seat < self.num_seats)]
            if bad:
                raise ValueError(f"policies: seats must be 0..{self.num_players}, got {bad}")
            given = dict(policies)
        else:
            listed = list(policies)
            if len(listed) != self.num_seats:
                raise ValueError(f"policies: expected {self.num_seats} entries (one per seat), got {len(listed)}")
            given = dict(enumerate(listed))
        for seat in range(self.num_seats):
            self.set_seat(seat, given.get(seat))

    def policy_rows(self, policy: Any) -> tuple[int, int] | None:
        """Rows (player phases, banker phases) of a policy in the policy matrix, added if new."""
        if policy is None:
            return None
        if isinstance(policy, str):
            from agents.registry import make_policy

            policy = make_policy(policy, self.rules, num_players=self.num_players)
        rows = native_rows(policy, self.optimal)
        if rows is None:
            return None
        ids = []
        for row in rows:
            for index, known in enumerate(self._rows):
                if index and np.array_equal(known, row):
                    ids.append(index)
                    break
            else:
                self._rows.append(row)
                ids.append(len(self._rows) - 1)
        self.pol = np.stack(self._rows)
        return ids[0], ids[1]

    def set_seat(self, seat: int, policy: Any, tables: np.ndarray | None = None) -> None:
        """Drive ``seat`` by ``policy`` (``None``: external) at ``tables`` (default: all)."""
        where = self.all if tables is None else tables
        if isinstance(policy, str):
            from agents.registry import make_policy

            policy = make_policy(policy, self.rules, num_players=self.num_players)
        rows = self.policy_rows(policy)
        if rows is None:
            self.seat_pol[where, seat, :] = -1
            if policy is not None:
                self.external_policies[seat] = policy
        else:
            self.seat_pol[where, seat, 0], self.seat_pol[where, seat, 1] = rows
            self.external_policies.pop(seat, None)

    # ------------------------------------------------------------------------------ tables

    def _tables(self, tables: Any) -> np.ndarray:
        if tables is None:
            return self.all
        idx = np.asarray(tables, dtype=np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_tables):
            bad = int(idx[(idx < 0) | (idx >= self.num_tables)][0])
            raise IndexError(f"tables: index {bad} is out of range 0..{self.num_tables - 1}")
        return idx

    def reset(self, tables: Any = None) -> None:
        """Fresh tables: a new shuffled pack from the next stream, zero chips, the bank at seat 0."""
        idx = self._tables(tables)
        kn.fresh_tables(self.state, self.cfg, idx, self.seed, self.generation)

    def new_round(self, tables: Any = None, orders: np.ndarray | Sequence[Sequence[Any]] | None = None) -> None:
        """Deal the next round at ``tables``; ``orders`` (one full pack order per table, top first)
        stacks the pack first, as ``PontoonGame.new_round(deck=order)`` does.

        Raises:
            RuntimeError: a table whose round is not over. DeckError: an order that is not a full pack.
        """
        idx, array, stacked = self._round_start("new_round", tables, orders)
        kn.new_rounds(self.state, self.rules_flat, self.cfg, idx, array, stacked)

    def play_round(self, tables: Any = None, orders: np.ndarray | Sequence[Sequence[Any]] | None = None) -> np.ndarray:
        """:meth:`new_round` then :meth:`play`, in one pass over the tables (each table's round dealt
        and played while its state is in the caches; faster than the two calls over thousands of
        tables). Returns and raises as they do."""
        idx, array, stacked = self._round_start("play_round", tables, orders)
        return self._play(idx, array, kn.ROUND_DEAL_STACKED if stacked else kn.ROUND_DEAL)

    def _round_start(self, caller: str, tables: Any, orders: Any) -> tuple[np.ndarray, np.ndarray, bool]:
        """The tables of a new round, checked to be over, and the pack orders (a dummy row if none)."""
        idx = self._tables(tables)
        busy = idx[self.state.phase[idx] != kn.PH_OVER]
        if busy.size:
            raise RuntimeError(f"{caller}: table {int(busy[0])} is still playing its round")
        if orders is None:
            return idx, self._no_orders, False  # the kernel never reads it
        return idx, self._orders(orders, idx.size), True

    def _orders(self, orders: Any, count: int) -> np.ndarray:
        size = int(self.cfg[tb.C_PACK_SIZE])
        if isinstance(orders, np.ndarray) and orders.dtype.kind in "iu":
            array = orders.astype(np.int64).reshape(count, -1) if orders.size == count * size else None
        else:
            array = None
        if array is None:
            rows = list(orders)
            if len(rows) != count:
                raise DeckError(f"orders: expected {count} pack orders, got {len(rows)}")
            array = np.array([parse_cards(row, self.rules.decks, f"orders[{i}]") for i, row in enumerate(rows)],
                             dtype=np.int64) if rows else np.zeros((0, size), dtype=np.int64)
        if array.shape != (count, size):
            raise DeckError(f"orders: expected {count} full packs of {size} cards, got shape {array.shape}")
        full = np.sort(np.tile(np.arange(52), self.rules.decks))
        wrong = np.flatnonzero((np.sort(array, axis=1) != full[None, :]).any(axis=1))
        if wrong.size:
            raise DeckError(f"orders[{int(wrong[0])}]: not a full pack of {self.rules.decks} deck(s)")
        return array

    def play(self, tables: Any = None) -> np.ndarray:
        """Let native seats play at ``tables`` until an external seat is to act or the round ends.

        Returns ``need`` for those tables: ``kernel.NEED_CALLBACK`` where an external seat decides,
        ``kernel.NEED_NONE`` where the round is over.

        Raises:
            DeckError: a table's pack ran out (naming the table).
        """
        return self._play(self._tables(tables), self._no_orders, kn.ROUND_PLAY_ON)

    def _play(self, idx: np.ndarray, orders: np.ndarray, start: int) -> np.ndarray:
        requested = idx
        while True:
            kn.play_tables(self.state, self.rules_flat, self.cfg, idx, self.pol, self.seat_pol, self.optimal.moves,
                           self.miss, self.need, self.scratch, orders, np.int64(start))
            start = kn.ROUND_PLAY_ON  # tables resumed after a missing key play on
            self.check_errors(idx)
            missing = idx[self.need[idx] == kn.NEED_MISS]
            if not missing.size:
                # ``need`` of every table asked about, not only of the last ones resumed after a miss.
                return self.need[requested].copy()
            self.solve_misses(missing)
            idx = missing

    def solve_misses(self, idx: np.ndarray) -> None:
        """Solve the optimal-table keys the tables ``idx`` stopped at."""
        st = self.state
        for t in idx:
            k = int(st.turn[t])
            h = int(st.active[t, k])
            cards = [int(card) for card in st.cards[t, k, h, : st.n_cards[t, k, h]]]
            self.optimal.solve(tuple(int(v) for v in self.miss[t, :4]), cards)

    def check_errors(self, idx: np.ndarray) -> None:
        bad = idx[self.state.error[idx] != 0]
        if bad.size:
            raise DeckError(
                f"table {int(bad[0])}: the pack is exhausted and no used cards are left to shuffle in (E25)"
            )

    # ------------------------------------------------------------------------------ decisions

    def current_seats(self, tables: Any = None) -> np.ndarray:
        """The seat to act at each table (-1 where the round is over)."""
        idx = self._tables(tables)
        out = np.empty(idx.size, dtype=np.int64)
        kn.current_seats(self.state, self.cfg, idx, out)
        return out

    def is_over(self, tables: Any = None) -> np.ndarray:
        return self.state.phase[self._tables(tables)] == kn.PH_OVER

    def legal(self, tables: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The legal actions at each table: counts and (kinds, min amounts, max amounts) rows."""
        idx = self._tables(tables)
        n = np.zeros(idx.size, dtype=np.int64)
        kinds = np.zeros((idx.size, kn.MAX_LEGAL), dtype=np.int64)
        lows = np.zeros((idx.size, kn.MAX_LEGAL), dtype=np.int64)
        highs = np.zeros((idx.size, kn.MAX_LEGAL), dtype=np.int64)
        kn.legal_tables(self.state, self.rules_flat, self.cfg, idx, n, kinds, lows, highs)
        return n, kinds, lows, highs

    def masks(self, tables: Any = None) -> tuple[np.ndarray, np.ndarray]:
        """The action-id mask of each table (ActionTable.legal_ids) and each legal id's amount."""
        idx = self._tables(tables)
        n, kinds, lows, highs = self.legal(idx)
        mask = np.zeros((idx.size, self.table.n), dtype=np.bool_)
        amounts = np.zeros((idx.size, self.table.n), dtype=np.int64)
        kn.mask_tables(n, kinds, lows, highs, self.slot_kind, self.slot_type, self.slot_level, mask, amounts)
        return mask, amounts

    def apply(self, tables: Any, kinds: np.ndarray, amounts: np.ndarray) -> None:
        """Apply one (kind, amount) action per table (they must be legal: see :meth:`apply_ids`)."""
        idx = self._tables(tables)
        kn.apply_tables(self.state, self.rules_flat, self.cfg, idx, np.asarray(kinds, dtype=np.int64),
                        np.asarray(amounts, dtype=np.int64))
        self.check_errors(idx)

    def apply_ids(self, tables: Any, ids: Any) -> None:
        """Apply one action id per table, checked against the masks.

        Raises:
            TypeError: ``ids`` not integers of one per table. IllegalActionError: naming the table,
            the id and the legal ids there.
        """
        idx = self._tables(tables)
        chosen = check_ids(ids, idx.size, self.table.n)
        mask, amounts = self.masks(idx)
        bad = np.flatnonzero(~mask[np.arange(idx.size), chosen])
        if bad.size:
            i = int(bad[0])
            legal = ", ".join(f"{a}={self.table.names[a]}" for a in np.flatnonzero(mask[i])) or "none"
            raise IllegalActionError(
                f"table {int(idx[i])}: action {int(chosen[i])} ({self.table.names[chosen[i]]}) is not legal now; "
                f"legal: {legal}"
            )
        self.apply(idx, self.slot_kind[chosen], amounts[np.arange(idx.size), chosen])

    def observe(self, tables: Any = None, seats: Any = None) -> np.ndarray:
        """``ObservationEncoder.encode(observe(game, seat))`` for each table (float32 rows)."""
        idx = self._tables(tables)
        seat_array = np.broadcast_to(np.asarray(0 if seats is None else seats, dtype=np.int64), idx.shape).copy()
        out = np.empty((idx.size, self.encoder.size), dtype=np.float32)  # encode writes every value of a row
        kn.encode_tables(self.state, self.rules_flat, self.cfg, self.scales, self.layout, self.high, idx, seat_array, out)
        return out

    def results(self, tables: Any = None) -> np.ndarray:
        """Each seat's result in the current (or last) round: the ledger's, in chips."""
        return self.state.result[self._tables(tables)].copy()


def check_ids(ids: Any, count: int, n: int) -> np.ndarray:
    """``ids`` as ``count`` int64 ids in ``0..n-1``.

    Raises:
        TypeError: the wrong shape or a non-integer dtype (naming both). ValueError: an id out of
        range (naming the table index and the value).
    """
    array = np.asarray(ids)
    if array.shape not in ((count,), (count, 1)):
        raise TypeError(f"actions: expected shape ({count},) of integer ids, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"actions: expected integer ids (dtype int), got dtype {array.dtype}")
    array = array.reshape(count).astype(np.int64)
    bad = np.flatnonzero((array < 0) | (array >= n))
    if bad.size:
        raise ValueError(f"actions[{int(bad[0])}] (table {int(bad[0])}): id {int(array[bad[0]])} is out of range 0..{n - 1}")
    return array
