"""Scripted policies as rows of numbers the compiled seats read, and the optimal player's table.

:func:`native_rows` turns a policy object (as :func:`agents.registry.make_policy` builds it from a
spec such as ``"threshold:stick=17,buy=0"``) into two rows of the policy matrix: how it plays the
player phases and how it plays the banker phases (a scripted policy plays the other role like the
default policy of that role, :meth:`agents.scripted.ScriptedPolicy.other_role`). Only exact types
are converted (a subclass may change any decision): ``RandomPolicy``, ``ThresholdPlayer``,
``BankerThreshold``, ``CasinoDealer`` and ``OptimalPlayer``; anything else (``banker_smart``, a
trained model, any object with ``act``) returns ``None`` and is played through a callback.

:class:`OptimalTable` is the solver's strategy as a lookup table keyed by everything
:func:`pontoon_env.solver.scripted_move` reads. It is filled on demand: a table whose optimal seat
meets a key not in it pauses, the key is solved here with the solver itself, and the table plays
on; after a few thousand rounds every reachable key is in, and decisions are lookups.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.game.cards import VALUES


def _amount_code(choice: Any) -> int:
    if choice == "min":
        return kn.AMOUNT_MIN
    if choice == "max":
        return kn.AMOUNT_MAX
    return int(choice)


def _threshold_row(policy: Any) -> np.ndarray:
    row = np.zeros(kn.P_N, dtype=np.int64)
    row[kn.P_KIND] = kn.POL_THRESHOLD
    row[kn.P_STICK] = policy.stick_at
    row[kn.P_SOFT_STICK] = policy.soft_stick_at
    row[kn.P_BUY_AT] = policy.buy_at_or_below
    row[kn.P_BUY_AMOUNT] = _amount_code(policy.buy_amount)
    row[kn.P_BET] = kn.BET_FIRST_CARD if policy.bet == "first_card" else _amount_code(policy.bet)
    row[kn.P_SPLIT_RANKS] = sum(1 << rank for rank in policy.split_ranks)
    row[kn.P_DOUBLE_ON] = sum(1 << total for total in policy.double_on if 0 <= total < 62)
    return row


def _banker_row(policy: Any, casino: bool) -> np.ndarray:
    row = np.zeros(kn.P_N, dtype=np.int64)
    row[kn.P_KIND] = kn.POL_CASINO_DEALER if casino else kn.POL_BANKER_THRESHOLD
    row[kn.P_STAND] = policy.stand
    row[kn.P_DOUBLE_ACE] = policy.double_on_ace
    return row


def _random_row() -> np.ndarray:
    row = np.zeros(kn.P_N, dtype=np.int64)
    row[kn.P_KIND] = kn.POL_RANDOM
    return row


class OptimalTable:
    """The optimal players' moves by key (see the module docstring), shared by a whole engine."""

    INITIAL_ROWS = 1024

    def __init__(self) -> None:
        self.moves = self._empty(self.INITIAL_ROWS)
        """The table the compiled code reads (:func:`~pontoon_env.batched.kernel.optimal_row`):
        one row per key, its four parts then the move code; replaced by a larger one as it fills,
        so read it afresh for every call. It was a numba typed dictionary, whose hashing code was
        about 2 s of the kernel's first compile."""
        self.size = 0
        self.players: list[Any] = []

    @staticmethod
    def _empty(rows: int) -> np.ndarray:
        return np.full((rows, kn.OPT_KEY_WIDTH + 1), kn.OPT_EMPTY, dtype=np.int64)

    def __len__(self) -> int:
        return self.size

    def get(self, key: tuple[int, int, int, int]) -> int | None:
        """The move code of ``key``, or ``None`` if it has not been solved."""
        move = int(self.moves[kn.optimal_row(self.moves, *(int(part) for part in key)), kn.OPT_KEY_WIDTH])
        return None if move == kn.OPT_EMPTY else move

    def put(self, key: tuple[int, int, int, int], move: int) -> None:
        """Store ``move`` under ``key``, doubling the table first if that would fill over half of it
        (linear probing stays short, and a free row always ends a search)."""
        parts = tuple(int(part) for part in key)
        if any(not 0 <= part < 1 << 40 for part in parts):
            raise ValueError(f"optimal table key: expected four parts in 0..2**40, got {parts}")
        if 2 * (self.size + 1) > len(self.moves):
            old = self.moves[self.moves[:, kn.OPT_KEY_WIDTH] != kn.OPT_EMPTY]
            self.moves = self._empty(2 * len(self.moves))
            for row in old:
                self.moves[kn.optimal_row(self.moves, *(int(part) for part in row[: kn.OPT_KEY_WIDTH]))] = row
        row = kn.optimal_row(self.moves, *parts)
        if self.moves[row, kn.OPT_KEY_WIDTH] == kn.OPT_EMPTY:
            self.size += 1
        self.moves[row, : kn.OPT_KEY_WIDTH] = parts
        self.moves[row, kn.OPT_KEY_WIDTH] = move

    def register(self, policy: Any) -> int:
        """The id of an :class:`agents.optimal.OptimalPlayer` in this table (one per solution)."""
        for index, known in enumerate(self.players):
            if known is policy:
                return index
        self.players.append(policy)
        return len(self.players) - 1

    def stake_row(self, row: np.ndarray, policy: Any) -> None:
        from pontoon_env import solver

        row[kn.P_OPT_STAKE] = solver.scripted_stake(policy.solution, None) == "stake_max"
        for value in VALUES:
            row[kn.P_OPT_STAKE + value] = policy.solution.stake_choice[value] == "stake_max"

    def solve(self, key: tuple[int, int, int, int], cards: list[int]) -> None:
        """Fill in the move of ``key`` with the solver (``cards``: the hand, for scripted_move)."""
        from pontoon_env import solver

        small, initial, last_buy, stake = (int(part) for part in key)
        soft_total = small & 63
        twisted = bool(small >> 12 & 1)
        doubled = bool(small >> 13 & 1)
        split_hand = bool(small >> 14 & 1)
        banker_doubled = bool(small >> 15 & 1)
        hands = small >> 20 & 7
        pending = small >> 23 & 7
        bits = small >> 26 & 31
        policy = self.players[small >> 32]
        del soft_total
        legal: list[str] = []
        names = (("stick",), ("twist",), ("buy_min", "buy_max"), ("split",), ("double",))
        for bit, moves in enumerate(names):
            if bits & (1 << bit):
                legal += moves
        move = solver.scripted_move(
            policy.solution_for(banker_doubled), cards, twisted, last_buy, initial, hands, legal, stake=stake, doubled=doubled,
            split_hand=split_hand, pending_pairs=pending, banker_doubled=banker_doubled,
        )
        code = {"stick": kn.OPT_STICK, "twist": kn.OPT_TWIST, "buy_min": kn.OPT_BUY_MIN, "buy_max": kn.OPT_BUY_MAX,
                "double": kn.OPT_DOUBLE, "split": kn.OPT_SPLIT}[move]
        self.put(key, code)


def native_rows(policy: Any, optimal: OptimalTable) -> tuple[np.ndarray, np.ndarray] | None:
    """The (player-phase, banker-phase) rows of ``policy``, or ``None`` if it is not native."""
    from agents.optimal import OptimalPlayer
    from agents.scripted import BankerThreshold, CasinoDealer, ThresholdPlayer, default_banker, default_player
    from pontoon_env.game.policy import RandomPolicy

    kind = type(policy)
    if kind is RandomPolicy:
        return _random_row(), _random_row()
    if kind is ThresholdPlayer:
        return _threshold_row(policy), _banker_row(default_banker(), False)
    if kind is BankerThreshold:
        return _threshold_row(default_player()), _banker_row(policy, False)
    if kind is CasinoDealer:
        return _threshold_row(default_player()), _banker_row(policy, True)
    if kind is OptimalPlayer:
        row = np.zeros(kn.P_N, dtype=np.int64)
        row[kn.P_KIND] = kn.POL_OPTIMAL
        row[kn.P_OPT_ID] = optimal.register(policy)
        optimal.stake_row(row, policy)
        return row, _banker_row(default_banker(), False)
    return None
