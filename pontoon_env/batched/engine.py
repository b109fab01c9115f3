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
from pontoon_env.game.actions import ActionKind, IllegalActionError
from pontoon_env.game.cards import DeckError, card_name, parse_cards
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
        self.seed = require_int("seed", seed, 0, 2**63 - 1)  # one int64 signature of the compiled code
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
        elif isinstance(policies, (str, bytes)):
            raise TypeError(f"policies: expected one policy per seat (a sequence or a seat -> policy mapping), "
                            f"got the string {policies!r}")
        elif isinstance(policies, Mapping):
            bad = [seat for seat in policies if isinstance(seat, (bool, np.bool_))
                   or not (isinstance(seat, (int, np.integer)) and 0 <= seat < self.num_seats)]
            if bad:
                raise ValueError(f"policies: seats must be 0..{self.num_players}, got {bad}")
            given = {int(seat): policy for seat, policy in policies.items()}
        else:
            listed = list(policies)
            if len(listed) != self.num_seats:
                raise ValueError(f"policies: expected {self.num_seats} entries (one per seat), got {len(listed)}")
            given = dict(enumerate(listed))
        for seat, policy in given.items():
            _check_policy(f"policies[{seat}]", policy)
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
        """Drive ``seat`` by ``policy`` (``None``: external) at ``tables`` (default: all).

        A policy the engine cannot play natively drives the seat from Python
        (:attr:`external_policies`): one such policy per seat, at every table where the seat is
        external.

        Raises:
            ValueError: a seat outside ``0..num_players``; a second Python policy for a seat that
            another drives at other tables. TypeError: a policy that is none of
            ``None``, a registry spec and an object with ``act`` or ``act_batch``.
        """
        seat = require_int("seat", seat, 0, self.num_players)
        _check_policy("policy", policy)
        where = self._tables(tables, unique=True)
        if isinstance(policy, str):
            from agents.registry import make_policy

            policy = make_policy(policy, self.rules, num_players=self.num_players)
        rows = self.policy_rows(policy)
        # One Python driver per seat serves every table where the seat is external: a second one
        # at other tables would silently replace it there (refused), and a seat made native at
        # some tables keeps its driver at the others.
        others = np.ones(self.num_tables, dtype=bool)
        others[where] = False
        still_external = others & (self.seat_pol[:, seat, 0] < 0)
        driver = self.external_policies.get(seat)
        if rows is None:
            if policy is not None and driver is not None and driver is not policy and still_external.any():
                raise ValueError(
                    f"set_seat: seat {seat} is driven by {driver!r} at tables {np.flatnonzero(still_external)[:5].tolist()}"
                    f"{' ...' if still_external.sum() > 5 else ''}; one Python policy drives a seat at every table "
                    f"where it is external, got another, {policy!r}, for tables {where[:5].tolist()} (set it at all "
                    "the tables, or give a native policy at the others first)")
            self.seat_pol[where, seat, :] = -1
            if policy is not None:
                self.external_policies[seat] = policy
        else:
            self.seat_pol[where, seat, 0], self.seat_pol[where, seat, 1] = rows
            if not still_external.any():
                self.external_policies.pop(seat, None)

    # ------------------------------------------------------------------------------ tables

    def _tables(self, tables: Any, unique: bool = False) -> np.ndarray:
        """``tables`` (``None``: all; one index or a sequence of them) as an int64 array, checked:
        integers in range, and with ``unique`` (a call that changes the tables) none twice.

        Raises:
            TypeError: not integers (a boolean mask is refused: pass ``np.flatnonzero(mask)``).
            IndexError: an index out of range. ValueError: an index twice where ``unique``.
        """
        if tables is None:
            return self.all
        if isinstance(tables, np.ndarray) and tables.dtype == np.int64 and tables.ndim == 1:
            # the engine's own callers: no conversion, except of a layout numba would compile the
            # kernels again for (a strided view such as ``np.arange(n)[::2]``, or a read-only array)
            flags = tables.flags
            idx = tables if flags.c_contiguous and flags.writeable and flags.aligned else np.array(tables)
        else:
            try:
                array = np.asarray(tables)
            except (TypeError, ValueError) as error:
                raise TypeError(f"tables: expected table indices (integers), got {tables!r}") from error
            if array.ndim > 1:
                raise TypeError(f"tables: expected one index or a 1-D sequence of them, got shape {array.shape}")
            if array.size and array.dtype.kind not in "iu":
                hint = " (a boolean mask: pass np.flatnonzero(mask))" if array.dtype.kind == "b" else ""
                raise TypeError(f"tables: expected integer table indices, got dtype {array.dtype}{hint}")
            if array.size and array.dtype.kind == "u" and int(array.max()) >= self.num_tables:
                raise IndexError(f"tables: index {int(array.max())} is out of range 0..{self.num_tables - 1}")
            idx = array.astype(np.int64).reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= self.num_tables):
            bad = int(idx[(idx < 0) | (idx >= self.num_tables)][0])
            raise IndexError(f"tables: index {bad} is out of range 0..{self.num_tables - 1}")
        if unique and idx.size > 1:
            ordered = np.sort(idx)
            twice = ordered[1:][ordered[1:] == ordered[:-1]]
            if twice.size:
                raise ValueError(f"tables: index {int(twice[0])} is given twice (a table is dealt, played or "
                                 "changed once a call)")
        return idx

    def reset(self, tables: Any = None) -> None:
        """Fresh tables: a new shuffled pack from the next stream, zero chips, the bank at seat 0."""
        idx = self._tables(tables, unique=True)
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
        idx = self._tables(tables, unique=True)
        busy = idx[self.state.phase[idx] != kn.PH_OVER]
        if busy.size:
            raise RuntimeError(f"{caller}: table {int(busy[0])} is still playing its round")
        if orders is None:
            return idx, self._no_orders, False  # the kernel never reads it
        return idx, self._orders(orders, idx), True

    def _orders(self, orders: Any, idx: np.ndarray) -> np.ndarray:
        """The pack orders of the tables ``idx`` (one row per table, in ``idx``'s order), checked:
        a refusal names the row, the table it is for and the card."""
        size, count = int(self.cfg[tb.C_PACK_SIZE]), idx.size

        def where(i: int) -> str:
            return f"orders[{i}] (table {int(idx[i])})"

        if isinstance(orders, np.ndarray) and orders.dtype.kind in "iu":
            # as given: a flat or otherwise shaped array is not silently read as rows
            array = orders.astype(np.int64) if orders.ndim == 2 else None
            if array is None:
                raise DeckError(f"orders: expected {count} full packs of {size} cards (shape ({count}, {size})), "
                                f"got shape {orders.shape}")
        else:
            array = None
        if array is None:
            if isinstance(orders, (str, bytes)) or not hasattr(orders, "__iter__"):
                raise DeckError(f"orders: expected {count} pack orders (one sequence of cards per table), got {orders!r}")
            rows = list(orders)
            if len(rows) != count:
                raise DeckError(f"orders: expected {count} pack orders, got {len(rows)}")
            parsed = [parse_cards(row, self.rules.decks, where(i)) for i, row in enumerate(rows)]
            for i, row in enumerate(parsed):  # numpy's "inhomogeneous shape" named no table
                if len(row) != size:
                    raise DeckError(f"{where(i)}: expected a full pack of {size} cards, got {len(row)}")
            array = np.array(parsed, dtype=np.int64) if rows else np.zeros((0, size), dtype=np.int64)
        if array.shape != (count, size):
            raise DeckError(f"orders: expected {count} full packs of {size} cards, got shape {array.shape}")
        full = np.sort(np.tile(np.arange(52), self.rules.decks))
        wrong = np.flatnonzero((np.sort(array, axis=1) != full[None, :]).any(axis=1))
        if wrong.size:
            i = int(wrong[0])
            row = array[i]
            bad = row[(row < 0) | (row >= 52)]
            if bad.size:
                raise DeckError(f"{where(i)}: card codes must be in 0..51, got {int(bad[0])}")
            counts = np.bincount(row, minlength=52)
            extra = np.flatnonzero(counts > self.rules.decks)
            raise DeckError(f"{where(i)}: not a full pack of {self.rules.decks} deck(s): it holds {int(counts[extra[0]])} "
                            f"copies of {card_name(int(extra[0]))}")
        return array

    def play(self, tables: Any = None) -> np.ndarray:
        """Let native seats play at ``tables`` until an external seat is to act or the round ends.

        Returns ``need`` for those tables: ``kernel.NEED_CALLBACK`` where an external seat decides,
        ``kernel.NEED_NONE`` where the round is over.

        Raises:
            DeckError: a table's pack ran out (naming the table).
        """
        return self._play(self._tables(tables, unique=True), self._no_orders, kn.ROUND_PLAY_ON)

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

    def apply(self, tables: Any, kinds: Any, amounts: Any) -> None:
        """Apply one (kind, amount) action per table, as ``PontoonGame.apply(Action(kind, amount))``.

        Raises:
            TypeError: ``kinds`` or ``amounts`` not one integer per table. IllegalActionError:
            naming the table, the action and the legal actions there; no table is changed.
        """
        idx = self._tables(tables, unique=True)
        kinds = _per_table("kinds", kinds, idx.size)
        amounts = _per_table("amounts", amounts, idx.size)
        n, legal_kinds, lows, highs = self.legal(idx)
        slots = np.arange(legal_kinds.shape[1])[None, :] < n[:, None]
        allowed = (slots & (legal_kinds == kinds[:, None]) & (lows <= amounts[:, None])
                   & (amounts[:, None] <= highs)).any(axis=1)
        if not allowed.all():
            i = int(np.flatnonzero(~allowed)[0])
            legal = ", ".join(f"{ActionKind(int(legal_kinds[i, j])).name.lower()} {int(lows[i, j])}..{int(highs[i, j])}"
                              for j in range(int(n[i]))) or "none (the round is over)"
            kind = int(kinds[i])
            name = ActionKind(kind).name.lower() if kind in ActionKind._value2member_map_ else f"kind {kind}"
            raise IllegalActionError(f"table {int(idx[i])}: {name} {int(amounts[i])} is not legal now; legal: {legal}")
        self._apply_legal(idx, kinds, amounts)

    def _apply_legal(self, idx: np.ndarray, kinds: np.ndarray, amounts: np.ndarray) -> None:
        """:meth:`apply` of actions already known legal (from the masks, or checked by the caller)."""
        kn.apply_tables(self.state, self.rules_flat, self.cfg, idx, kinds, amounts)
        self.check_errors(idx)

    def apply_ids(self, tables: Any, ids: Any) -> None:
        """Apply one action id per table, checked against the masks.

        Raises:
            TypeError: ``ids`` not integers of one per table. IllegalActionError: naming the table,
            the id and the legal ids there.
        """
        idx = self._tables(tables, unique=True)
        chosen = check_ids(ids, idx.size, self.table.n, idx)
        mask, amounts = self.masks(idx)
        bad = np.flatnonzero(~mask[np.arange(idx.size), chosen])
        if bad.size:
            i = int(bad[0])
            legal = ", ".join(f"{a}={self.table.names[a]}" for a in np.flatnonzero(mask[i])) or "none"
            raise IllegalActionError(
                f"table {int(idx[i])}: action {int(chosen[i])} ({self.table.names[chosen[i]]}) is not legal now; "
                f"legal: {legal}"
            )
        self._apply_legal(idx, self.slot_kind[chosen], amounts[np.arange(idx.size), chosen])

    def observe(self, tables: Any = None, seats: Any = None) -> np.ndarray:
        """``ObservationEncoder.encode(observe(game, seat))`` for each table (float32 rows)."""
        idx = self._tables(tables)
        given = np.asarray(0 if seats is None else seats)
        if given.size and given.dtype.kind not in "iu":
            raise TypeError(f"seats: expected integer seats, got dtype {given.dtype}")
        try:
            seat_array = np.broadcast_to(given, idx.shape).astype(np.int64)
        except ValueError:
            raise ValueError(f"seats: expected one seat or one per table ({idx.size}), got shape {given.shape}") from None
        bad = np.flatnonzero((seat_array < 0) | (seat_array >= self.num_seats))
        if bad.size:
            raise ValueError(f"seats[{int(bad[0])}] (table {int(idx[bad[0]])}): expected a seat in "
                             f"0..{self.num_seats - 1}, got {int(seat_array[bad[0]])}")
        out = np.empty((idx.size, self.encoder.size), dtype=np.float32)  # encode writes every value of a row
        kn.encode_tables(self.state, self.rules_flat, self.cfg, self.scales, self.layout, self.high, idx, seat_array, out)
        return out

    def results(self, tables: Any = None) -> np.ndarray:
        """Each seat's result in the current (or last) round: the ledger's, in chips."""
        return self.state.result[self._tables(tables)].copy()


def check_ids(ids: Any, count: int, n: int, tables: np.ndarray | None = None) -> np.ndarray:
    """``ids`` as ``count`` int64 ids in ``0..n-1`` (``tables``: the table of each, for the errors;
    default ``0..count-1``).

    Raises:
        TypeError: the wrong shape or a non-integer dtype (naming both). ValueError: an id out of
        range (naming the table index and the value).
    """
    array = integer_rows("actions", ids, count)
    bad = np.flatnonzero(array >= n) if array.dtype.kind == "u" else np.flatnonzero((array < 0) | (array >= n))
    if bad.size:
        i = int(bad[0])
        table = i if tables is None else int(tables[i])
        raise ValueError(f"actions[{i}] (table {table}): id {int(array[i])} is out of range 0..{n - 1}")
    return array.astype(np.int64)


def integer_rows(name: str, values: Any, count: int) -> np.ndarray:
    """``values`` as ``count`` integers, one per table, in their own dtype (shape ``(count,)`` or
    ``(count, 1)``, as Gymnasium's batched actions come).

    Raises:
        TypeError: the wrong shape or a dtype that is not integer, naming ``name`` and both.
    """
    array = np.asarray(values)
    if array.shape not in ((count,), (count, 1)):
        raise TypeError(f"{name}: expected shape ({count},), one integer per table, got shape {array.shape}")
    if array.dtype.kind not in "iu":
        raise TypeError(f"{name}: expected integers, got dtype {array.dtype}")
    return array.reshape(count)


def _per_table(name: str, values: Any, count: int) -> np.ndarray:
    """:func:`integer_rows` as int64 (a uint64 beyond int64 refused, not wrapped)."""
    array = integer_rows(name, values, count)
    if array.dtype.kind == "u" and array.size and int(array.max()) > np.iinfo(np.int64).max:
        raise TypeError(f"{name}: {int(array.max())} does not fit an int64")
    return array.astype(np.int64)


def _check_policy(name: str, policy: Any) -> None:
    """Refuse a seat policy that is none of ``None`` (external), a registry spec and an object that
    decides (``act`` or ``act_batch``): ``5`` was kept as an external policy nobody could call."""
    if policy is None or isinstance(policy, str) or hasattr(policy, "act") or hasattr(policy, "act_batch"):
        return
    raise TypeError(f"{name}: expected None (external), a policy spec such as 'threshold', or an object with "
                    f"act() or act_batch(), got {policy!r} ({type(policy).__name__})")
