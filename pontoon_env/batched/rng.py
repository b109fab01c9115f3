"""Counter-based random streams shared by the batched engine and the reference path.

Every random choice of the batched engine (shuffles, cuts, random seats, drawn learner seats)
comes from a 64-bit SplitMix stream, one ``uint64`` of state per stream. A stream is named by
``(seed, stream kind, index...)`` through :func:`stream_seed`, so the shuffle of table 17's third
fresh pack, or round 123 456 of an evaluation, can be produced without producing the others:
that is what lets 4096 tables and a million evaluation rounds be generated in compiled loops.

The reference engine can draw from exactly the same streams: :class:`CounterGenerator` offers the
two methods :class:`~pontoon_env.game.cards.Pack` and :class:`~pontoon_env.game.policy.RandomPolicy`
call (``shuffle`` and ``integers``) and runs the same compiled functions, so a
:class:`~pontoon_env.PontoonGame` given one deals, shuffles, cuts and plays randomly exactly as a
batched table does. :func:`deal_orders` gives the full pack order of evaluation rounds, the one
deck generator both evaluation paths use.
"""

from __future__ import annotations

from collections.abc import MutableSequence

import numpy as np
from numba import njit

from pontoon_env.game.cards import CARDS_PER_DECK

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)

# The draws run inside the kernel's loop, which is compiled without reference counting: compiled
# with it (``_nrt=True``, numba's default), each call counted its array arguments up and down.

STREAM_DECK = 1
"""Shuffles and cuts of a table's pack (and evaluation deal orders)."""
STREAM_SEAT = 2
"""A seat's random decisions (random policy); the index adds the seat."""
STREAM_ENV = 3
"""Episode-level draws of a vector environment (the learner's seat)."""


@njit(cache=True, _nrt=False)
def mix64(z: np.uint64) -> np.uint64:
    """SplitMix64's finaliser: a bijective scramble of 64 bits."""
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True, _nrt=False)
def stream_seed(seed: int, kind: int, a: int, b: int) -> np.uint64:
    """The starting state of stream ``(seed, kind, a, b)`` (all non-negative integers)."""
    h = mix64(np.uint64(seed) + _GOLDEN)
    h = mix64(h ^ (np.uint64(kind) * _GOLDEN + np.uint64(1)))
    h = mix64(h ^ (np.uint64(a) * _M1 + np.uint64(2)))
    h = mix64(h ^ (np.uint64(b) * _M2 + np.uint64(3)))
    return h


@njit(cache=True, _nrt=False)
def next_u64(state: np.ndarray, i: int) -> np.uint64:
    """Advance stream ``state[i]`` and return its next 64 random bits."""
    s = state[i] + _GOLDEN
    state[i] = s
    return mix64(s)


@njit(cache=True, _nrt=False)
def bounded(state: np.ndarray, i: int, n: int) -> int:
    """A random integer in ``[0, n)`` from stream ``state[i]`` (n >= 1; one draw per call)."""
    return int(next_u64(state, i) % np.uint64(n))


@njit(cache=True, _nrt=False)
def shuffle_ring(state: np.ndarray, i: int, values: np.ndarray, head: int, n: int, capacity: int) -> None:
    """Fisher-Yates shuffle (last position first) from stream ``state[i]`` of the ``n`` values that
    start at ``values[head]`` in a ring of ``capacity`` slots (value ``v`` at ``values[(head + v) %
    capacity]``; ``0 <= head < capacity``, ``n <= capacity``): the same draws, and the same order
    read from ``head``, as :func:`shuffle_in_place` of those values laid out from index 0.

    The batched engine's pack is such a ring: shuffled where it lies, it needs no rotation to
    index 0 first. The stream's state stays in a local for the whole shuffle (one draw a
    position, as :func:`bounded` makes): read and written back through the array at every draw,
    each draw waited for the last one's store (a third of a pagat round's shuffle time, perf on
    one core, ``docs/batched.md``)."""
    s = state[i]
    for k in range(n - 1, 0, -1):
        s += _GOLDEN
        j = np.int64(mix64(s) % np.uint64(k + 1))
        pk = head + k
        if pk >= capacity:
            pk -= capacity
        pj = head + j
        if pj >= capacity:
            pj -= capacity
        tmp = values[pk]
        values[pk] = values[pj]
        values[pj] = tmp
    state[i] = s


@njit(cache=True, _nrt=False)
def shuffle_in_place(state: np.ndarray, i: int, values: np.ndarray, n: int) -> None:
    """Fisher-Yates shuffle of ``values[:n]`` from stream ``state[i]`` (last position first; one
    :func:`bounded` draw a position)."""
    shuffle_ring(state, i, values, 0, n, max(n, 1))


@njit(cache=True)
def _deal_orders(seed: int, first_round: int, n_rounds: int, decks: int) -> np.ndarray:
    size = CARDS_PER_DECK * decks
    out = np.empty((n_rounds, size), dtype=np.int64)
    state = np.zeros(1, dtype=np.uint64)
    for r in range(n_rounds):
        state[0] = stream_seed(seed, STREAM_DECK, first_round + r, 0)
        for k in range(size):
            out[r, k] = k % CARDS_PER_DECK
        shuffle_in_place(state, 0, out[r], size)
    return out


def deal_orders(seed: int, first_round: int, n_rounds: int, decks: int) -> np.ndarray:
    """Full pack orders (top first) of rounds ``first_round .. first_round + n_rounds - 1``.

    Row ``r`` depends only on ``(seed, first_round + r)``: the evaluation deals round ``i`` of a
    match with seed ``s`` from ``deal_orders(s, i, 1, decks)[0]`` on both paths (the reference
    passes it to ``PontoonGame.new_round(deck=...)``), so their per-round results can be compared
    pair by pair.
    """
    for name, value in (("seed", seed), ("first_round", first_round), ("n_rounds", n_rounds)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"deal_orders: {name} must be a non-negative integer, got {value!r}")
    if not 1 <= int(decks) <= 8:
        raise ValueError(f"deal_orders: decks must be in 1..8, got {decks!r}")
    return _deal_orders(int(seed), int(first_round), int(n_rounds), int(decks))


def seat_stream_seed(seed: int, round_index: int, seat: int) -> int:
    """The starting state of seat ``seat``'s random stream in evaluation round ``round_index``."""
    return int(stream_seed(int(seed), STREAM_SEAT + int(seat), int(round_index), 0))


@njit(cache=True)
def _integers(state: np.ndarray, low: int, high: int) -> int:
    return low + bounded(state, 0, high - low)


class CounterGenerator:
    """A stand-in for :class:`numpy.random.Generator` drawing from one counter-based stream.

    It implements what the game's pack and the random policy use, ``integers(low, high=None)``
    and ``shuffle(list_or_array)``, with the batched engine's own compiled functions, so a
    reference :class:`~pontoon_env.PontoonGame` (``game.pack.rng = CounterGenerator(...)``) or a
    :class:`~pontoon_env.game.policy.RandomPolicy` given one makes the same draws as a batched
    table on the same stream.

    Args:
        state: the stream's starting state (:func:`stream_seed`, :func:`seat_stream_seed`).
    """

    def __init__(self, state: int | np.uint64) -> None:
        self.state = np.array([np.uint64(state)], dtype=np.uint64)

    @classmethod
    def on(cls, stream: np.ndarray) -> "CounterGenerator":
        """A generator drawing from ``stream`` in place (a one-element ``uint64`` view, such as a
        table's seat stream in the batched state): each draw advances it there."""
        if stream.dtype != np.uint64 or stream.shape != (1,):
            raise ValueError(f"stream: expected a one-element uint64 array, got {stream.dtype} {stream.shape}")
        generator = cls.__new__(cls)
        generator.state = stream
        return generator

    def integers(self, low: int, high: int | None = None) -> int:
        """A random integer in ``[low, high)`` (``[0, low)`` when ``high`` is None), one draw."""
        if high is None:
            low, high = 0, low
        low, high = int(low), int(high)
        if high <= low:
            raise ValueError(f"CounterGenerator.integers: high ({high}) must exceed low ({low})")
        return int(_integers(self.state, low, high))

    def shuffle(self, values: MutableSequence[int] | np.ndarray) -> None:
        """Shuffle ``values`` in place (Fisher-Yates, as the batched engine shuffles a pack)."""
        array = np.asarray(list(values), dtype=np.int64)
        shuffle_in_place(self.state, 0, array, array.size)
        values[:] = array.tolist() if not isinstance(values, np.ndarray) else array


@njit(cache=True)
def _seat_seeds(seed: int, first_round: int, n_rounds: int, num_seats: int) -> np.ndarray:
    out = np.empty((n_rounds, num_seats), dtype=np.uint64)
    for r in range(n_rounds):
        for s in range(num_seats):
            out[r, s] = stream_seed(seed, STREAM_SEAT + s, first_round + r, 0)
    return out


def seat_seeds(seed: int, first_round: int, n_rounds: int, num_seats: int) -> np.ndarray:
    """:func:`seat_stream_seed` of every seat of rounds ``first_round ..`` (``uint64 [rounds, seats]``)."""
    return _seat_seeds(int(seed), int(first_round), int(n_rounds), int(num_seats))
