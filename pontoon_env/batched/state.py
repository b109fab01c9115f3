"""The state of N tables as a structure of arrays (one array per field, tables on axis 0).

A table's seats are numbered as in :class:`~pontoon_env.PontoonGame`. Hands are stored by *slot*:
slots ``0 .. P-1`` are the players in turn order from the round's banker's left (the reference's
``game.players`` list) and slot ``P`` is the banker, so the compiled loops walk a round in the
same order as the reference engine. The pack is a circular buffer (``pack``, ``head``, ``size``)
with the used pile beside it (``discards``), so cards go under the pack or onto the used pile in
the reference's order.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class TableState(NamedTuple):
    """Every field of N tables; see :func:`new_state` for shapes and meanings."""

    # the round
    phase: np.ndarray  # int8 [N]: pontoon_env.Phase
    step: np.ndarray  # int8 [N]: the automatic step the round is at (kernel.ST_*)
    turn: np.ndarray  # int8 [N]: player slot whose turn a per-player step is at
    banker: np.ndarray  # int8 [N]: game.banker
    round_banker: np.ndarray  # int8 [N]: game.banker_seat_of_round
    seated: np.ndarray  # bool [N]: game.players is not empty
    round_index: np.ndarray  # int64 [N]
    dealer_rounds: np.ndarray  # int64 [N]
    had_natural: np.ndarray  # bool [N]
    banker_natural: np.ndarray  # bool [N]
    stakes_doubled: np.ndarray  # bool [N]
    looked: np.ndarray  # int8 [N]: cards the banker has looked at
    banker_active: np.ndarray  # int8 [N]
    asked_double: np.ndarray  # bool [N]
    started: np.ndarray  # bool [N]: a round was ever started (game._round_started)
    take_step: np.ndarray  # bool [N]: this round began with a take-over offer
    n_candidates: np.ndarray  # int8 [N]
    candidates: np.ndarray  # int8 [N, S]: players offered the bank (2011), in priority order
    n_holders: np.ndarray  # int8 [N]
    holders: np.ndarray  # int8 [N, S]: seats holding an unsplit natural at the deal, in turn order
    # the pack
    pack: np.ndarray  # int8 [N, K]: circular buffer, top at head
    head: np.ndarray  # int32 [N]
    size: np.ndarray  # int32 [N]: cards in the pack
    discards: np.ndarray  # int8 [N, K]
    n_discards: np.ndarray  # int32 [N]
    seen: np.ndarray  # int32 [N, 13]: ranks shown since the last shuffle
    fresh: np.ndarray  # int32 [N]: cards left that were in the pack at the last shuffle
    rng: np.ndarray  # uint64 [N]: the pack's stream
    seat_rng: np.ndarray  # uint64 [N * S]: each seat's stream (random seats)
    error: np.ndarray  # int8 [N]: 1 = the pack ran out (DeckError)
    # chips
    balance: np.ndarray  # int64 [N, S]
    result: np.ndarray  # int64 [N, S]: this round's ledger result per seat
    # hands by slot
    n_hands: np.ndarray  # int8 [N, S]
    active: np.ndarray  # int8 [N, S]
    n_cards: np.ndarray  # int8 [N, S, H]
    pips: np.ndarray  # int16 [N, S, H]
    ace: np.ndarray  # bool [N, S, H]
    stake: np.ndarray  # int64 [N, S, H]
    initial: np.ndarray  # int64 [N, S, H]
    split: np.ndarray  # bool [N, S, H]
    last_buy: np.ndarray  # int64 [N, S, H]
    buys: np.ndarray  # int8 [N, S, H]
    twisted: np.ndarray  # bool [N, S, H]
    doubled: np.ndarray  # bool [N, S, H]
    done: np.ndarray  # bool [N, S, H]
    bust: np.ndarray  # bool [N, S, H]
    settled: np.ndarray  # bool [N, S, H]
    declared: np.ndarray  # bool [N, S, H]
    returned: np.ndarray  # bool [N, S, H]
    payout: np.ndarray  # int64 [N, S, H]
    cards: np.ndarray  # int8 [N, S, H, C]
    public: np.ndarray  # bool [N, S, H, C]


def new_state(n_tables: int, num_seats: int, hand_cards: int, pack_size: int, max_hands: int = 4) -> TableState:
    """Zeroed state for ``n_tables`` tables of ``num_seats`` seats (the kernel deals them)."""
    n, s, h, c, k = n_tables, num_seats, max_hands, hand_cards, pack_size

    def z(shape: tuple[int, ...], dtype: type) -> np.ndarray:
        return np.zeros(shape, dtype=dtype)

    b, i8, i16, i32, i64 = np.bool_, np.int8, np.int16, np.int32, np.int64
    return TableState(
        phase=z((n,), i8), step=z((n,), i8), turn=z((n,), i8), banker=z((n,), i8), round_banker=z((n,), i8),
        seated=z((n,), b), round_index=z((n,), i64), dealer_rounds=z((n,), i64), had_natural=z((n,), b),
        banker_natural=z((n,), b), stakes_doubled=z((n,), b), looked=z((n,), i8), banker_active=z((n,), i8),
        asked_double=z((n,), b), started=z((n,), b), take_step=z((n,), b), n_candidates=z((n,), i8),
        candidates=z((n, s), i8), n_holders=z((n,), i8), holders=z((n, s), i8),
        pack=z((n, k), i8), head=z((n,), i32), size=z((n,), i32), discards=z((n, k), i8), n_discards=z((n,), i32),
        seen=z((n, 13), i32), fresh=z((n,), i32), rng=z((n,), np.uint64), seat_rng=z((n * s,), np.uint64),
        error=z((n,), i8), balance=z((n, s), i64), result=z((n, s), i64),
        n_hands=z((n, s), i8), active=z((n, s), i8), n_cards=z((n, s, h), i8), pips=z((n, s, h), i16),
        ace=z((n, s, h), b), stake=z((n, s, h), i64), initial=z((n, s, h), i64), split=z((n, s, h), b),
        last_buy=z((n, s, h), i64), buys=z((n, s, h), i8), twisted=z((n, s, h), b), doubled=z((n, s, h), b),
        done=z((n, s, h), b), bust=z((n, s, h), b), settled=z((n, s, h), b), declared=z((n, s, h), b),
        returned=z((n, s, h), b), payout=z((n, s, h), i64), cards=z((n, s, h, c), i8),
        public=z((n, s, h, c), b),
    )
