"""The state of N tables as a structure of arrays: a few field-indexed arrays, tables on axis 0.

A table's seats are numbered as in :class:`~pontoon_env.PontoonGame`. Hands are stored by *slot*:
slots ``0 .. P-1`` are the players in turn order from the round's banker's left (the reference's
``game.players`` list) and slot ``P`` is the banker, so the compiled loops walk a round in the
same order as the reference engine. The pack is a circular buffer (``pack``, ``TB_HEAD``,
``TB_SIZE``) with the used pile beside it (``discards``).

The fields live in five arrays indexed by field constants rather than one array per field. Every
compiled call that is not inlined copies each array argument (pointer, shape and strides) onto
the stack, so the number of arrays is what a call costs: with ten state arrays and eleven rule
tables a call cost about 65 ns, measured, more than the work of most calls. So the per-table
scalars, the seen-rank counts, the pack and the used pile share one row per table (``tab``), and
a hand's fields, its cards and which of them lie face up share one row per hand (``hand``); the
rule tables are one flat array (:func:`pontoon_env.batched.tables.flatten`). One integer type
throughout, so that no function is compiled twice for two argument types. Python code reads the
state through the named views of :class:`TableState` (``state.phase``, ``state.balance``,
``state.n_cards``, ``state.cards``, ``state.pack`` ...), which are views into those arrays.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

TABLE_FIELDS = ('phase', 'step', 'turn', 'banker', 'round_banker', 'seated', 'round_index', 'dealer_rounds', 'had_natural', 'banker_natural', 'stakes_doubled', 'looked', 'banker_active', 'asked_double', 'started', 'take_step', 'n_candidates', 'n_holders', 'head', 'size', 'n_discards', 'fresh', 'error', 'steps_due')
"""Per-table scalars (``tab[:, TB_*]``)."""
SEAT_FIELDS = ('balance', 'result', 'n_hands', 'active', 'candidates', 'holders')
"""Per-seat values (``seat[:, s, SE_*]``); ``candidates`` and ``holders`` are lists indexed like seats."""
HAND_FIELDS = ('n_cards', 'pips', 'ace', 'stake', 'initial', 'split', 'last_buy', 'buys', 'twisted', 'doubled', 'done', 'bust', 'settled', 'declared', 'returned', 'payout')
"""Per-hand values (``hand[:, slot, h, HF_*]``)."""

TB_PHASE = 0
TB_STEP = 1
TB_TURN = 2
TB_BANKER = 3
TB_ROUND_BANKER = 4
TB_SEATED = 5
TB_ROUND_INDEX = 6
TB_DEALER_ROUNDS = 7
TB_HAD_NATURAL = 8
TB_BANKER_NATURAL = 9
TB_STAKES_DOUBLED = 10
TB_LOOKED = 11
TB_BANKER_ACTIVE = 12
TB_ASKED_DOUBLE = 13
TB_STARTED = 14
TB_TAKE_STEP = 15
TB_N_CANDIDATES = 16
TB_N_HOLDERS = 17
TB_HEAD = 18
TB_SIZE = 19
TB_N_DISCARDS = 20
TB_FRESH = 21
TB_ERROR = 22
TB_STEPS_DUE = 23
SE_BALANCE = 0
SE_RESULT = 1
SE_N_HANDS = 2
SE_ACTIVE = 3
SE_CANDIDATES = 4
SE_HOLDERS = 5
HF_N_CARDS = 0
HF_PIPS = 1
HF_ACE = 2
HF_STAKE = 3
HF_INITIAL = 4
HF_SPLIT = 5
HF_LAST_BUY = 6
HF_BUYS = 7
HF_TWISTED = 8
HF_DOUBLED = 9
HF_DONE = 10
HF_BUST = 11
HF_SETTLED = 12
HF_DECLARED = 13
HF_RETURNED = 14
HF_PAYOUT = 15
HF_CARDS = len(HAND_FIELDS)
"""A hand row holds its fields, then its ``C`` card codes, then ``C`` face-up flags."""
TB_SEEN = len(TABLE_FIELDS)
"""A table row holds its fields, the 13 seen-rank counts, the pack (``K`` slots), the used pile (``K``)."""
TB_PACK = TB_SEEN + 13


class TableState(NamedTuple):
    """N tables (see the module docstring); field views for Python code below."""

    tab: np.ndarray  # int64 [N, TB_PACK + 2K]: fields, seen ranks, pack, used pile
    seat: np.ndarray  # int64 [N, S, len(SEAT_FIELDS)]
    hand: np.ndarray  # int64 [N, S, H, HF_CARDS + 2C]: fields, card codes, face-up flags
    rng: np.ndarray  # uint64 [N]: the pack's stream
    seat_rng: np.ndarray  # uint64 [N * S]: each seat's stream (random seats)

    @property
    def hand_cards(self) -> int:
        """``C``: the card capacity of a hand."""
        return (self.hand.shape[3] - HF_CARDS) // 2

    @property
    def pack_size(self) -> int:
        """``K``: the cards of the pack."""
        return (self.tab.shape[1] - TB_PACK) // 2

    @property
    def cards(self) -> np.ndarray:
        """int64 [N, S, H, C]: the card codes of each hand."""
        return self.hand[:, :, :, HF_CARDS:HF_CARDS + self.hand_cards]

    @property
    def public(self) -> np.ndarray:
        """int64 [N, S, H, C]: 1 where the card lies face up."""
        c = self.hand_cards
        return self.hand[:, :, :, HF_CARDS + c:HF_CARDS + 2 * c]

    @property
    def pack(self) -> np.ndarray:
        """int64 [N, K]: a circular buffer, the top at ``head``, ``size`` cards."""
        return self.tab[:, TB_PACK:TB_PACK + self.pack_size]

    @property
    def discards(self) -> np.ndarray:
        """int64 [N, K]: the used pile, ``n_discards`` cards."""
        k = self.pack_size
        return self.tab[:, TB_PACK + k:TB_PACK + 2 * k]

    @property
    def seen(self) -> np.ndarray:
        """int64 [N, 13]: ranks shown since the last shuffle."""
        return self.tab[:, TB_SEEN:TB_PACK]

    @property
    def phase(self) -> np.ndarray:
        return self.tab[:, TB_PHASE]

    @property
    def step(self) -> np.ndarray:
        return self.tab[:, TB_STEP]

    @property
    def turn(self) -> np.ndarray:
        return self.tab[:, TB_TURN]

    @property
    def banker(self) -> np.ndarray:
        return self.tab[:, TB_BANKER]

    @property
    def round_banker(self) -> np.ndarray:
        return self.tab[:, TB_ROUND_BANKER]

    @property
    def seated(self) -> np.ndarray:
        return self.tab[:, TB_SEATED]

    @property
    def round_index(self) -> np.ndarray:
        return self.tab[:, TB_ROUND_INDEX]

    @property
    def dealer_rounds(self) -> np.ndarray:
        return self.tab[:, TB_DEALER_ROUNDS]

    @property
    def had_natural(self) -> np.ndarray:
        return self.tab[:, TB_HAD_NATURAL]

    @property
    def banker_natural(self) -> np.ndarray:
        return self.tab[:, TB_BANKER_NATURAL]

    @property
    def stakes_doubled(self) -> np.ndarray:
        return self.tab[:, TB_STAKES_DOUBLED]

    @property
    def looked(self) -> np.ndarray:
        return self.tab[:, TB_LOOKED]

    @property
    def banker_active(self) -> np.ndarray:
        return self.tab[:, TB_BANKER_ACTIVE]

    @property
    def asked_double(self) -> np.ndarray:
        return self.tab[:, TB_ASKED_DOUBLE]

    @property
    def started(self) -> np.ndarray:
        return self.tab[:, TB_STARTED]

    @property
    def take_step(self) -> np.ndarray:
        return self.tab[:, TB_TAKE_STEP]

    @property
    def n_candidates(self) -> np.ndarray:
        return self.tab[:, TB_N_CANDIDATES]

    @property
    def n_holders(self) -> np.ndarray:
        return self.tab[:, TB_N_HOLDERS]

    @property
    def head(self) -> np.ndarray:
        return self.tab[:, TB_HEAD]

    @property
    def size(self) -> np.ndarray:
        return self.tab[:, TB_SIZE]

    @property
    def n_discards(self) -> np.ndarray:
        return self.tab[:, TB_N_DISCARDS]

    @property
    def fresh(self) -> np.ndarray:
        return self.tab[:, TB_FRESH]

    @property
    def error(self) -> np.ndarray:
        return self.tab[:, TB_ERROR]

    @property
    def balance(self) -> np.ndarray:
        return self.seat[:, :, SE_BALANCE]

    @property
    def result(self) -> np.ndarray:
        return self.seat[:, :, SE_RESULT]

    @property
    def n_hands(self) -> np.ndarray:
        return self.seat[:, :, SE_N_HANDS]

    @property
    def active(self) -> np.ndarray:
        return self.seat[:, :, SE_ACTIVE]

    @property
    def candidates(self) -> np.ndarray:
        return self.seat[:, :, SE_CANDIDATES]

    @property
    def holders(self) -> np.ndarray:
        return self.seat[:, :, SE_HOLDERS]

    @property
    def n_cards(self) -> np.ndarray:
        return self.hand[:, :, :, HF_N_CARDS]

    @property
    def pips(self) -> np.ndarray:
        return self.hand[:, :, :, HF_PIPS]

    @property
    def ace(self) -> np.ndarray:
        return self.hand[:, :, :, HF_ACE]

    @property
    def stake(self) -> np.ndarray:
        return self.hand[:, :, :, HF_STAKE]

    @property
    def initial(self) -> np.ndarray:
        return self.hand[:, :, :, HF_INITIAL]

    @property
    def split(self) -> np.ndarray:
        return self.hand[:, :, :, HF_SPLIT]

    @property
    def last_buy(self) -> np.ndarray:
        return self.hand[:, :, :, HF_LAST_BUY]

    @property
    def buys(self) -> np.ndarray:
        return self.hand[:, :, :, HF_BUYS]

    @property
    def twisted(self) -> np.ndarray:
        return self.hand[:, :, :, HF_TWISTED]

    @property
    def doubled(self) -> np.ndarray:
        return self.hand[:, :, :, HF_DOUBLED]

    @property
    def done(self) -> np.ndarray:
        return self.hand[:, :, :, HF_DONE]

    @property
    def bust(self) -> np.ndarray:
        return self.hand[:, :, :, HF_BUST]

    @property
    def settled(self) -> np.ndarray:
        return self.hand[:, :, :, HF_SETTLED]

    @property
    def declared(self) -> np.ndarray:
        return self.hand[:, :, :, HF_DECLARED]

    @property
    def returned(self) -> np.ndarray:
        return self.hand[:, :, :, HF_RETURNED]

    @property
    def payout(self) -> np.ndarray:
        return self.hand[:, :, :, HF_PAYOUT]



def new_state(n_tables: int, num_seats: int, hand_cards: int, pack_size: int, max_hands: int = 4) -> TableState:
    """Zeroed state for ``n_tables`` tables of ``num_seats`` seats (the kernel deals them)."""
    n, s, h = n_tables, num_seats, max_hands
    return TableState(
        tab=np.zeros((n, TB_PACK + 2 * pack_size), dtype=np.int64),
        seat=np.zeros((n, s, len(SEAT_FIELDS)), dtype=np.int64),
        hand=np.zeros((n, s, h, HF_CARDS + 2 * hand_cards), dtype=np.int64),
        rng=np.zeros(n, dtype=np.uint64),
        seat_rng=np.zeros(n * s, dtype=np.uint64),
    )


class EpisodeState(NamedTuple):
    """Per-table episode bookkeeping of the vector environment (PontoonEnv's private fields)."""

    learner: np.ndarray  # int64 [N]: the learner's seat this episode
    acted: np.ndarray  # bool [N]: the learner acted in the current round
    in_reset: np.ndarray  # bool [N]: the episode has not had its first learner decision yet
    rounds_played: np.ndarray  # int64 [N]: rounds started on this table since it was fresh
    mark: np.ndarray  # int64 [N]: the learner's balance already paid out as reward
    generation: np.ndarray  # int64 [N]: fresh tables so far (keys the pack's stream)
    env_rng: np.ndarray  # uint64 [N]: episode draws (the learner's seat)
    reward: np.ndarray  # int64 [N]: chips for the learner this step
    terminated: np.ndarray  # bool [N]
    truncated: np.ndarray  # bool [N]
    rounds_finished: np.ndarray  # int32 [N]: rounds that ended during this step
    round_result: np.ndarray  # int64 [N]: the learner's result in the last of them
    skipped: np.ndarray  # int32 [N]: rounds without a learner decision while resetting
    info_banks: np.ndarray  # bool [N]: info["role"]: the learner's seat banks the round now
    info_balance: np.ndarray  # int64 [N]: info["balance"]: the learner's chips now
    info_round: np.ndarray  # int64 [N]: info["round_index"]


def new_episode_state(n_tables: int) -> EpisodeState:
    """Zeroed episode bookkeeping for ``n_tables`` tables."""
    z = np.zeros
    return EpisodeState(
        learner=z(n_tables, np.int64), acted=z(n_tables, np.bool_), in_reset=z(n_tables, np.bool_),
        rounds_played=z(n_tables, np.int64), mark=z(n_tables, np.int64), generation=z(n_tables, np.int64),
        env_rng=z(n_tables, np.uint64), reward=z(n_tables, np.int64), terminated=z(n_tables, np.bool_),
        truncated=z(n_tables, np.bool_), rounds_finished=z(n_tables, np.int32), round_result=z(n_tables, np.int64),
        skipped=z(n_tables, np.int32), info_banks=z(n_tables, np.bool_), info_balance=z(n_tables, np.int64),
        info_round=z(n_tables, np.int64),
    )
