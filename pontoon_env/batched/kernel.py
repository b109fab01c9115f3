"""The compiled table loop: a round of every native preset, scripted seats, observations, episodes.

Everything that runs per decision lives in this one module on purpose: numba's on-disk cache
(``cache=True``) checks a function's own source file only, so a callee in another module could be
served stale; one module keeps the cache honest.

The round follows :class:`~pontoon_env.PontoonGame` step for step (``_round_steps``): the same
automatic steps in the same order (``ST_*``), the same decision phases, the same pack handling
(busts under the pack at once, the round's cards under the pack or onto the used pile in turn and
hand order with the banker's last, shuffles and cuts, the seen-card memory and its restart), the
same ledger. Rules come from :mod:`pontoon_env.batched.tables` (generated from the rule code); the
parity tests (``tests/test_batched_parity.py``) hold this sequencing to the reference on random
rounds of every native preset.

Conventions: ``st`` is a :class:`~pontoon_env.batched.state.TableState`, ``rt`` the
:class:`~pontoon_env.batched.tables.RuleTables`, ``cfg`` the option vector, ``t`` a table index,
``k`` a hand slot (players ``0..P-1`` in turn order, the banker ``P``), ``h`` a hand of the slot.

``t`` is unsigned (``np.uint64``, converted where an entry point takes it from its index array or
its loop). Numba reads a signed index as Python does, ``-1`` the last element, so every array
access with a signed variable index first adds the dimension where the index is negative (a
shift, an and and an add before the address); ``t`` is the first index of nearly every access in
the round, and unsigned it skips that. Scripted rounds went from about 1.2 to 1.5 million a second
(``docs/batched.md``, "Signed indices"). Arithmetic on ``t`` goes through ``np.int64(t)``: numba
types a signed-unsigned mix as signed, but the explicit cast says so where it happens.
"""

from __future__ import annotations

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.core.registry import CPUDispatcher
from numba.extending import intrinsic


class CompiledOnlyDispatcher(CPUDispatcher):
    """A numba dispatcher for a function that only compiled code calls: built without the
    Python-facing wrappers, so calling it from Python raises instead of jumping to a missing entry.

    Numba builds two wrappers for every compiled function (one that unboxes Python arguments, one
    that makes it a C callback), each its own code to generate: for the kernel's ~100 helpers that
    only other compiled functions call they were about 4-5 s of a ~35 s first compile (A/B on one
    core, fresh cache, three runs each; ``docs/batched.md``, "The first compile")."""

    def __call__(self, *args: object, **kwargs: object) -> object:
        raise TypeError(
            f"{self.py_func.__module__}.{self.py_func.__qualname__} runs only inside compiled code "
            "(it has no Python entry point); call the kernel's entry points, as BatchedEngine and "
            "PontoonVectorEnv do"
        )


def _compiled_only(**options: object):
    """Like ``njit(cache=True, **options)``, for functions only compiled code calls
    (:class:`CompiledOnlyDispatcher`)."""

    def decorate(func):
        if numba.config.DISABLE_JIT:  # NUMBA_DISABLE_JIT: plain Python, as njit gives
            return func
        targetoptions = {"nopython": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True, **options}
        dispatcher = CompiledOnlyDispatcher(py_func=func, locals={}, targetoptions=targetoptions)
        dispatcher.enable_caching()
        return dispatcher

    return decorate


hot = _compiled_only(_nrt=False)
"""The decorator of every function on the per-decision path that only compiled code calls:
compiled without reference counting and without Python entry (:class:`CompiledOnlyDispatcher`).

Numba otherwise increments and decrements each array argument's count on entry to and exit from
every call it does not inline, about 60 ns a call for the table state and the rule tables
(measured), more than the work of most calls. A function compiled this way may not allocate, nor
may anything it calls, so the shuffle and the cut work in place, the legal actions live in a
scratch array the caller passes, and the optimal player's table is consulted between calls of the
loop (:func:`answer_lookup`). Only the entry points that
allocate their scratch keep ``njit(cache=True)``."""
hot_entry = njit(cache=True, _nrt=False)
""":data:`hot` for the functions Python calls too (``fresh_tables``, ``new_rounds``, ...)."""
hot_ir = njit(cache=True, _nrt=False, inline="always")
"""The decorator of the functions that wrap the whole round loop (``play``, the advance, a round's
start, the step dispatch): inlined into their callers at numba's IR level, so that they are never
compiled on their own. Numba compiles each function it does not inline with every callee's code
linked in and optimises and generates it all again there, so each such wrapper, however small,
cost about as much first-compile time as the whole loop (1-3 s each). Their own bodies are small
(what they call stays a call) and each is called from one to three places (``env_play_on`` is the
one place the vector env's step plays on), so inlining copies little. The helpers below them are
not inlined this way: a copy in every caller of a function called from many places made the
compile longer, not shorter (``docs/batched.md``)."""
hot_inline = _compiled_only(_nrt=False, forceinline=True)
"""The decorator of the few functions called many times a round (the decision loop's legal list,
decision and move; dealing, drawing and revealing a card; the encoder's pass over a hand's cards,
six calls an observation): compiled as :data:`hot`, and marked for LLVM to inline into every
compiled caller.

A call that is not inlined still copies every array of its arguments (the state, the rule
tables, the options, the scratch rows) onto the stack: measured under valgrind, a five-seat
``pagat`` round ran about 26,500 machine instructions, 6,000 of them in :func:`play`'s own
loop, almost all of it argument copying for the three calls of each decision. Inlining these six
(not the round's step functions, each run a few times a round) about doubles the scripted rounds per
second (``bench/batched.py``) for about a tenth to a sixth more first-call compile time.

The round's automatic steps (:func:`run_steps`) and the encoder (:func:`encode`) are marked too,
with each called from one site per entry point so that inlining copies them once: a round's
start and a move leave the steps due for the decision loop, and the vector step writes every
observation, final or live, at one site. As calls, their ~60-90 words of arguments were pushed
from a stack frame several kilobytes deep; perf put 10-47% of the vector step's own samples on
those pushes, differently from one build or process to the next (``docs/batched.md``, "Calls
with the whole state as arguments")."""


from pontoon_env.batched import tables as tb
from pontoon_env.batched.rng import (
    STREAM_DECK,
    STREAM_ENV,
    STREAM_SEAT,
    bounded,
    shuffle_in_place,
    shuffle_ring,
    stream_seed,
)
from pontoon_env.game.actions import ActionKind, Phase
from pontoon_env.game.hands import HandClass

DEPENDENCY_FINGERPRINT = "4a33f1f9832f161788677f2b9150fb60ea270696"
"""What the compiled kernel takes from other modules, hashed: the integer constants of
:mod:`~pontoon_env.batched.state` and :mod:`~pontoon_env.batched.tables` (numba compiles a
global's value in), the values of the action, phase and hand-class enums, and the source of
:mod:`~pontoon_env.batched.rng` (its functions are compiled into the kernel's). Numba's on-disk
cache checks only the source file of the function it caches, so a change in those modules alone
would serve kernel code compiled against the old values from an existing cache.
``tests/test_kernel_compile.py`` fails until this hash is brought up to date, and bringing it up to
date edits this file, which makes numba compile the kernel afresh."""

# Field indices of the packed state (pontoon_env.batched.state).
from pontoon_env.batched.state import (  # noqa: E402
    TB_PHASE,
    TB_STEP,
    TB_TURN,
    TB_BANKER,
    TB_ROUND_BANKER,
    TB_SEATED,
    TB_ROUND_INDEX,
    TB_DEALER_ROUNDS,
    TB_HAD_NATURAL,
    TB_BANKER_NATURAL,
    TB_STAKES_DOUBLED,
    TB_LOOKED,
    TB_BANKER_ACTIVE,
    TB_ASKED_DOUBLE,
    TB_STARTED,
    TB_TAKE_STEP,
    TB_N_CANDIDATES,
    TB_N_HOLDERS,
    TB_HEAD,
    TB_SIZE,
    TB_N_DISCARDS,
    TB_FRESH,
    TB_ERROR,
    TB_STEPS_DUE,
    SE_BALANCE,
    SE_RESULT,
    SE_N_HANDS,
    SE_ACTIVE,
    SE_CANDIDATES,
    SE_HOLDERS,
    HF_N_CARDS,
    HF_PIPS,
    HF_ACE,
    HF_STAKE,
    HF_INITIAL,
    HF_SPLIT,
    HF_LAST_BUY,
    HF_BUYS,
    HF_TWISTED,
    HF_DOUBLED,
    HF_DONE,
    HF_BUST,
    HF_SETTLED,
    HF_DECLARED,
    HF_RETURNED,
    HF_PAYOUT,
    HF_CARDS,
    TB_SEEN,
    TB_PACK,
)

# ---------------------------------------------------------------------------------------- constants

PH_TAKE_BANK = int(Phase.TAKE_BANK)
PH_STAKE = int(Phase.STAKE)
PH_BANKER_DOUBLE = int(Phase.BANKER_DOUBLE)
PH_PLAYER_TURN = int(Phase.PLAYER_TURN)
PH_BANKER_TURN = int(Phase.BANKER_TURN)
PH_OVER = int(Phase.ROUND_OVER)

K_STAKE = int(ActionKind.STAKE)
K_DOUBLE_STAKES = int(ActionKind.DOUBLE_STAKES)
K_NO_DOUBLE = int(ActionKind.NO_DOUBLE)
K_STICK = int(ActionKind.STICK)
K_TWIST = int(ActionKind.TWIST)
K_BUY = int(ActionKind.BUY)
K_SPLIT = int(ActionKind.SPLIT)
K_DOUBLE = int(ActionKind.DOUBLE)
K_DRAW = int(ActionKind.DRAW)
K_STAND = int(ActionKind.STAND)
K_TAKE_BANK = int(ActionKind.TAKE_BANK)
K_DECLINE_BANK = int(ActionKind.DECLINE_BANK)
MOVE_KINDS = (K_STICK, K_TWIST, K_BUY, K_SPLIT, K_DOUBLE)  # tables.MOVE_ORDER
BLACKJACK = 21
CLASS_BUST = int(HandClass.BUST)
CLASS_PONTOON = int(HandClass.PONTOON)
CLASS_TRICK = int(HandClass.FIVE_CARD_TRICK)

# The round's automatic steps, in PontoonGame._round_steps order.
ST_TAKE_BANK, ST_SEAT, ST_STAKES_BEFORE, ST_DEAL_FIRST, ST_STAKES_AFTER, ST_BANKER_DOUBLE = 0, 1, 2, 3, 4, 5
ST_DEAL_SECOND, ST_NATURALS, ST_PLAYER_TURNS, ST_REVEAL, ST_BANKER_TURN, ST_SETTLE, ST_END, ST_DONE = (
    6, 7, 8, 9, 10, 11, 12, 13)

MAX_LEGAL = 6

# Native seat policies: columns of the policy matrix.
POL_RANDOM, POL_THRESHOLD, POL_BANKER_THRESHOLD, POL_CASINO_DEALER, POL_OPTIMAL = 0, 1, 2, 3, 4
(P_KIND, P_STICK, P_BUY_AT, P_BUY_AMOUNT, P_BET, P_SOFT_STICK, P_SPLIT_RANKS, P_DOUBLE_ON, P_STAND,
 P_DOUBLE_ACE, P_OPT_ID, P_OPT_STAKE) = range(12)
P_N = P_OPT_STAKE + 11  # stake choices of the optimal player by first-card value (0 = before the deal)
AMOUNT_MIN, AMOUNT_MAX, BET_FIRST_CARD = -1, -2, -3
OPT_STICK, OPT_TWIST, OPT_BUY_MIN, OPT_BUY_MAX, OPT_DOUBLE, OPT_SPLIT = 0, 1, 2, 3, 4, 5

# What a table waits for.
NEED_NONE, NEED_LEARNER, NEED_CALLBACK, NEED_MISS, NEED_ENDED, NEED_ERROR = 0, 1, 2, 3, 4, 5
NEED_LOOKUP = 6
"""Internal to the compiled loop: an optimal player's move is to be looked up (never returned)."""
WRITE_LIVE, WRITE_FINAL, WRITE_NONE = 0, 1, 2
"""What :func:`env_outputs` writes for a table: its observation and mask, the observation of the
episode that just ended (before the autoreset), or nothing (it has not changed)."""
MISS_MOVE = 4
"""Column of ``miss`` holding a looked-up optimal move plus one (0: none); columns 0-3 hold the key."""
MISS_WIDTH = 5

# Episode options (env config vector).
E_ROUND_EPISODES, E_SESSION_ROUNDS, E_ROLE_BANKER, E_LEARNER_SEAT, E_BANK_ROTATION, E_SEED, E_N = range(7)
MAX_SKIPPED_ROUNDS = 1000


# ---------------------------------------------------------------------------------------- memory


def _prefetch_codegen(write: int):
    def codegen(context, builder, sig, args):
        data = context.make_array(sig.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), llvm_ir.IntType(8).as_pointer())
        i32 = llvm_ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, llvm_ir.FunctionType(llvm_ir.VoidType(), [address.type, i32, i32, i32]), "llvm.prefetch.p0")
        builder.call(function, [address, llvm_ir.Constant(i32, write), llvm_ir.Constant(i32, 3), llvm_ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return codegen


@intrinsic
def _prefetch(typingctx, array, offset):
    """Ask the processor to bring the cache line holding ``array``'s element at the flat
    ``offset`` closer (LLVM's ``prefetch``, for reading, kept in every cache level); no effect on
    the program's results, nothing if the address is already cached."""
    return types.void(array, offset), _prefetch_codegen(0)


@intrinsic
def _prefetch_write(typingctx, array, offset):
    """:func:`_prefetch` for a line about to be written."""
    return types.void(array, offset), _prefetch_codegen(1)


LINE_WORDS = 8
"""int64 words in a 64-byte cache line."""


@hot_inline
def prefetch_table(st, t):
    """Prefetch the state a round of table ``t`` reads first (its row of scalars, seen ranks and
    pack, its seats, and the first hand of every slot), so that the loop over the tables finds
    the next table in the caches: at thousands of tables the state is far larger than the caches,
    and a table's work waited on memory (a vector step cost twice the compiled time per table at
    4,096 tables that it costs at 256, ``bench/batched.py`` section 5)."""
    width = st.tab.shape[1]
    for word in range(0, width, LINE_WORDS):
        _prefetch(st.tab, np.int64(t) * width + word)
    seat_words = st.seat.shape[1] * st.seat.shape[2]
    for word in range(0, seat_words, LINE_WORDS):
        _prefetch(st.seat, np.int64(t) * seat_words + word)
    slots, hands, fields = st.hand.shape[1], st.hand.shape[2], st.hand.shape[3]
    for k in range(slots):
        row = ((np.int64(t) * slots + k) * hands) * fields
        for word in range(0, fields, LINE_WORDS):
            _prefetch(st.hand, row + word)


# ---------------------------------------------------------------------------------------- cards


@hot
def _public_at(st, c):
    """Where card ``c``'s face-up flag sits in a hand row (after the fields and the card codes)."""
    return HF_CARDS + ((st.hand.shape[3] - HF_CARDS) >> 1) + c


@hot
def _discard_at(st, i):
    """Where the used pile's card ``i`` sits in a table row (after the fields, seen ranks, pack)."""
    return TB_PACK + ((st.tab.shape[1] - TB_PACK) >> 1) + i


# Reading the flat rule tables (tables.flatten): table ``table``'s element at the given indices.
@hot
def _rt1(rt, table, i0):
    base = table * tb.RT_HEADER
    return rt[rt[base] + i0 * rt[base + 1]]


@hot
def _rt2(rt, table, i0, i1):
    base = table * tb.RT_HEADER
    return rt[rt[base] + i0 * rt[base + 1] + i1 * rt[base + 2]]


@hot
def _rt3(rt, table, i0, i1, i2):
    base = table * tb.RT_HEADER
    return rt[rt[base] + i0 * rt[base + 1] + i1 * rt[base + 2] + i2 * rt[base + 3]]


@hot
def _rt5(rt, table, i0, i1, i2, i3, i4):
    base = table * tb.RT_HEADER
    return rt[
        rt[base]
        + i0 * rt[base + 1]
        + i1 * rt[base + 2]
        + i2 * rt[base + 3]
        + i3 * rt[base + 4]
        + i4 * rt[base + 5]
    ]


@hot
def _rt8(rt, table, i0, i1, i2, i3, i4, i5, i6, i7):
    base = table * tb.RT_HEADER
    return rt[
        rt[base]
        + i0 * rt[base + 1]
        + i1 * rt[base + 2]
        + i2 * rt[base + 3]
        + i3 * rt[base + 4]
        + i4 * rt[base + 5]
        + i5 * rt[base + 6]
        + i6 * rt[base + 7]
        + i7 * rt[base + 8]
    ]


@hot
def _splits(rt, first, second):
    """Whether a two-card hand of these cards may split (the pair table, by rank)."""
    return _rt2(rt, tb.RT_PAIR, first >> 2, second >> 2) != 0


@hot
def _rank(card):
    return card >> 2


@hot
def _value(card):
    r = (card >> 2) + 1
    return 10 if r > 10 else r


@hot
def hand_total(st, rt, t, k, h):
    """Best total and softness of hand ``(k, h)``."""
    p = st.hand[t, k, h, HF_PIPS]
    a = 1 if st.hand[t, k, h, HF_ACE] else 0
    return _rt2(rt, tb.RT_TOTAL, p, a), (_rt2(rt, tb.RT_SOFT, p, a) != 0)


@hot
def is_natural(st, rt, t, k, h):
    if st.hand[t, k, h, HF_N_CARDS] != 2:
        return False
    total, _ = hand_total(st, rt, t, k, h)
    return total == BLACKJACK


@hot_inline
def _wrap(x, n):
    """``x % n`` for ``-n <= x < 2 * n`` (``n > 0``), by one conditional subtraction and addition:
    every caller's ``x`` lies there (a seat past the banker, a seat relative to another, the
    pack's head moving on). Python's ``%`` compiles to an integer division, about 20-40 cycles a
    call on the decision path (the seat to act, each card drawn) several times a decision; this is
    a pair of conditional moves, with no branch for a random seat to mispredict."""
    x = x - n if x >= n else x
    return x + n if x < 0 else x


@hot
def player_seat(st, cfg, t, k):
    """The seat of player slot ``k`` (turn order from the round's banker's left)."""
    return _wrap(st.tab[t, TB_ROUND_BANKER] + 1 + k, cfg[tb.C_SEATS])


@hot
def current_seat(st, cfg, t):
    """The seat that decides now (PontoonGame.current_seat), -1 once the round is over."""
    phase = st.tab[t, TB_PHASE]
    if phase == PH_OVER:
        return -1
    if phase == PH_BANKER_DOUBLE or phase == PH_BANKER_TURN:
        return st.tab[t, TB_BANKER]
    if phase == PH_TAKE_BANK:
        return st.seat[t, 0, SE_CANDIDATES]
    return player_seat(st, cfg, t, st.tab[t, TB_TURN])


# ---------------------------------------------------------------------------------------- the pack


@hot
def _see(st, t, card):
    st.tab[t, TB_SEEN + (card >> 2)] += 1


@hot
def _reverse(st, t, lo, hi):
    """Reverse ``pack[t, lo:hi]`` in place."""
    hi -= 1
    while lo < hi:
        st.tab[t, TB_PACK + lo], st.tab[t, TB_PACK + hi] = st.tab[t, TB_PACK + hi], st.tab[t, TB_PACK + lo]
        lo += 1
        hi -= 1


@hot
def _rotate_left(st, t, n, by):
    """Rotate ``pack[t, :n]`` left by ``by`` in place (three reversals, no scratch list)."""
    _reverse(st, t, np.int64(0), by)
    _reverse(st, t, by, n)
    _reverse(st, t, np.int64(0), n)


@hot
def _unwrap(st, cfg, t):
    """Move the circular pack so that its top card is at index 0 (same order, head 0)."""
    head = st.tab[t, TB_HEAD]
    if head:
        _rotate_left(st, t, cfg[tb.C_PACK_SIZE], head)
        st.tab[t, TB_HEAD] = 0


@hot
def _pack_shuffle(st, cfg, t):
    """Pack.shuffle: the pack (top first) then the used pile, shuffled together.

    The used pile goes in after the pack's last card and the whole is shuffled where it lies in
    the ring (:func:`~pontoon_env.batched.rng.shuffle_ring`), the same order from the top as
    rotating the pack to index 0 first gives, without the rotation's three passes over it."""
    K = cfg[tb.C_PACK_SIZE]
    head = st.tab[t, TB_HEAD]
    n = st.tab[t, TB_SIZE]
    for i in range(st.tab[t, TB_N_DISCARDS]):
        st.tab[t, TB_PACK + _wrap(head + n + i, K)] = st.tab[t, _discard_at(st, i)]
    total = n + st.tab[t, TB_N_DISCARDS]
    shuffle_ring(st.rng, t, st.tab[t, TB_PACK:], head, total, K)
    st.tab[t, TB_SIZE] = total
    st.tab[t, TB_N_DISCARDS] = 0


@hot
def _pack_cut(st, cfg, t):
    """Pack.cut: rotate by a random 1..len-1 cards. A full ring (every card of the pack in it, as
    after a shuffle between rounds) is cut by moving its top: no card moves."""
    n = st.tab[t, TB_SIZE]
    if n <= 1:
        return
    cut = 1 + bounded(st.rng, t, n - 1)
    K = cfg[tb.C_PACK_SIZE]
    if n == K:
        st.tab[t, TB_HEAD] = _wrap(st.tab[t, TB_HEAD] + cut, K)
        return
    _unwrap(st, cfg, t)
    _rotate_left(st, t, n, cut)


@hot
def _shuffle_and_cut(st, cfg, t):
    _pack_shuffle(st, cfg, t)
    _pack_cut(st, cfg, t)
    st.tab[t, TB_SEEN:TB_PACK] = 0
    st.tab[t, TB_FRESH] = st.tab[t, TB_SIZE]


@hot
def _restart_seen(st, cfg, t):
    """PontoonGame._restart_seen: recount the face-up cards of the round's hands."""
    st.tab[t, TB_SEEN:TB_PACK] = 0
    if st.tab[t, TB_SEATED]:
        P = cfg[tb.C_PLAYERS]
        for k in range(P + 1):
            for h in range(st.seat[t, k, SE_N_HANDS]):
                if st.hand[t, k, h, HF_RETURNED]:
                    continue
                for c in range(st.hand[t, k, h, HF_N_CARDS]):
                    if st.hand[t, k, h, _public_at(st, c)]:
                        _see(st, t, st.hand[t, k, h, HF_CARDS + c])
    st.tab[t, TB_FRESH] = st.tab[t, TB_SIZE] if st.tab[t, TB_SIZE] > 0 else st.tab[t, TB_N_DISCARDS]


@hot
def _draw(st, cfg, t):
    """Pack.draw: the top card; an empty pack first shuffles the used pile back in (-1: none left)."""
    if st.tab[t, TB_SIZE] == 0:
        if st.tab[t, TB_N_DISCARDS] == 0:
            return -1
        _pack_shuffle(st, cfg, t)
    K = cfg[tb.C_PACK_SIZE]
    card = st.tab[t, TB_PACK + st.tab[t, TB_HEAD]]
    st.tab[t, TB_HEAD] = _wrap(st.tab[t, TB_HEAD] + 1, K)
    st.tab[t, TB_SIZE] -= 1
    return card


@hot
def _add_card(st, t, k, h, card, face_up):
    n = st.hand[t, k, h, HF_N_CARDS]
    st.hand[t, k, h, HF_CARDS + n] = card
    st.hand[t, k, h, _public_at(st, n)] = 1 if face_up else 0
    st.hand[t, k, h, HF_N_CARDS] = n + 1
    value = _value(card)
    st.hand[t, k, h, HF_PIPS] += value
    if value == 1:
        st.hand[t, k, h, HF_ACE] = 1


@hot_inline
def _deal(st, cfg, t, k, h, face_up):
    """PontoonGame._deal: restart the memory if the pack came round, draw, count a face-up card."""
    if st.tab[t, TB_FRESH] <= 0:
        _restart_seen(st, cfg, t)
    card = _draw(st, cfg, t)
    if card < 0:
        st.tab[t, TB_ERROR] = 1
        return
    st.tab[t, TB_FRESH] -= 1
    _add_card(st, t, k, h, card, face_up)
    if face_up:
        _see(st, t, card)


@hot
def _return_hand(st, cfg, t, k, h):
    """A hand's cards go under the pack (carry-over) or onto the used pile, in order."""
    n = st.hand[t, k, h, HF_N_CARDS]
    if cfg[tb.C_PACK] == tb.PACK_CARRY:  # under the pack: the ring's slots after its last card
        K = cfg[tb.C_PACK_SIZE]
        end = st.tab[t, TB_HEAD] + st.tab[t, TB_SIZE]
        for c in range(n):
            st.tab[t, TB_PACK + _wrap(end + c, K)] = st.hand[t, k, h, HF_CARDS + c]
        st.tab[t, TB_SIZE] += n
    else:
        used = st.tab[t, TB_N_DISCARDS]
        for c in range(n):
            st.tab[t, _discard_at(st, used + c)] = st.hand[t, k, h, HF_CARDS + c]
        st.tab[t, TB_N_DISCARDS] = used + n
    st.hand[t, k, h, HF_RETURNED] = 1


@hot_inline
def _reveal(st, t, k, h, aces_only):
    """PontoonGame._reveal: turn the hand's cards face up (only its aces for a declared pagat pontoon)."""
    for c in range(st.hand[t, k, h, HF_N_CARDS]):
        card = st.hand[t, k, h, HF_CARDS + c]
        if aces_only and _rank(card) != 0:
            continue
        if not st.hand[t, k, h, _public_at(st, c)]:
            st.hand[t, k, h, _public_at(st, c)] = 1
            _see(st, t, card)


@hot
def stack_pack(st, cfg, t, order):
    """Put a full pack order (top first) in place, as ``new_round(deck=order)`` does."""
    K = cfg[tb.C_PACK_SIZE]
    for i in range(K):
        st.tab[t, TB_PACK + i] = order[i]
    st.tab[t, TB_HEAD] = 0
    st.tab[t, TB_SIZE] = K
    st.tab[t, TB_N_DISCARDS] = 0
    st.tab[t, TB_SEEN:TB_PACK] = 0
    st.tab[t, TB_FRESH] = K


@hot
def fresh_table(st, cfg, t, seed, generation):
    """A new table (PontoonGame.__init__ with the banker in seat 0): shuffled pack, zero chips."""
    S = cfg[tb.C_SEATS]
    K = cfg[tb.C_PACK_SIZE]
    st.rng[t] = stream_seed(seed, np.int64(STREAM_DECK), t, generation)
    for s in range(S):
        st.seat_rng[np.int64(t) * S + s] = stream_seed(seed, STREAM_SEAT + s, t, generation)
    for i in range(K):
        st.tab[t, TB_PACK + i] = i % 52
    shuffle_in_place(st.rng, t, st.tab[t, TB_PACK:], K)
    st.tab[t, TB_HEAD] = 0
    st.tab[t, TB_SIZE] = K
    st.tab[t, TB_N_DISCARDS] = 0
    st.tab[t, TB_SEEN:TB_PACK] = 0
    st.tab[t, TB_FRESH] = K
    st.seat[t, :, SE_BALANCE] = 0
    st.seat[t, :, SE_RESULT] = 0
    st.tab[t, TB_BANKER] = 0
    st.tab[t, TB_ROUND_BANKER] = 0
    st.tab[t, TB_SEATED] = 0
    st.tab[t, TB_STARTED] = 0
    st.tab[t, TB_ROUND_INDEX] = 0
    st.tab[t, TB_DEALER_ROUNDS] = 0
    st.tab[t, TB_N_CANDIDATES] = 0
    st.tab[t, TB_PHASE] = PH_OVER
    st.tab[t, TB_STAKES_DOUBLED] = 0
    st.tab[t, TB_LOOKED] = 0
    st.tab[t, TB_ERROR] = 0
    st.tab[t, TB_STEPS_DUE] = 0
    st.seat[t, :, SE_N_HANDS] = 0


@hot_entry
def fresh_tables(st, cfg, idx, seed, generation):
    """:func:`fresh_table` at each table of ``idx``, from its next stream (``generation[t]`` counts up)."""
    for i in range(idx.size):
        t = np.uint64(idx[i])
        fresh_table(st, cfg, t, seed, generation[t])
        generation[t] += 1


# ---------------------------------------------------------------------------------------- chips


@hot
def _pay(st, t, payer, payee, amount):
    """PontoonGame._pay between two seats: the balance and this round's ledger result."""
    if amount <= 0 or payer == payee:
        return
    st.seat[t, payer, SE_BALANCE] -= amount
    st.seat[t, payee, SE_BALANCE] += amount
    st.seat[t, payer, SE_RESULT] -= amount
    st.seat[t, payee, SE_RESULT] += amount


@hot
def _settle(st, cfg, t, k, h, chips):
    """PontoonGame._settle_hand: chips > 0 the banker pays the hand's player."""
    seat = player_seat(st, cfg, t, k)
    if chips > 0:
        _pay(st, t, st.tab[t, TB_BANKER], seat, chips)
    elif chips < 0:
        _pay(st, t, seat, st.tab[t, TB_BANKER], -chips)
    st.hand[t, k, h, HF_PAYOUT] += chips
    st.hand[t, k, h, HF_SETTLED] = 1


# ---------------------------------------------------------------------------------------- hands


@hot
def _clear_hand(st, t, k, h):
    st.hand[t, k, h, HF_N_CARDS] = 0
    st.hand[t, k, h, HF_PIPS] = 0
    st.hand[t, k, h, HF_ACE] = 0
    st.hand[t, k, h, HF_STAKE] = 0
    st.hand[t, k, h, HF_INITIAL] = 0
    st.hand[t, k, h, HF_SPLIT] = 0
    st.hand[t, k, h, HF_LAST_BUY] = 0
    st.hand[t, k, h, HF_BUYS] = 0
    st.hand[t, k, h, HF_TWISTED] = 0
    st.hand[t, k, h, HF_DOUBLED] = 0
    st.hand[t, k, h, HF_DONE] = 0
    st.hand[t, k, h, HF_BUST] = 0
    st.hand[t, k, h, HF_SETTLED] = 0
    st.hand[t, k, h, HF_DECLARED] = 0
    st.hand[t, k, h, HF_RETURNED] = 0
    st.hand[t, k, h, HF_PAYOUT] = 0


@hot
def _copy_hand(st, t, k, src, dst):
    st.hand[t, k, dst, HF_N_CARDS] = st.hand[t, k, src, HF_N_CARDS]
    st.hand[t, k, dst, HF_PIPS] = st.hand[t, k, src, HF_PIPS]
    st.hand[t, k, dst, HF_ACE] = st.hand[t, k, src, HF_ACE]
    st.hand[t, k, dst, HF_STAKE] = st.hand[t, k, src, HF_STAKE]
    st.hand[t, k, dst, HF_INITIAL] = st.hand[t, k, src, HF_INITIAL]
    st.hand[t, k, dst, HF_SPLIT] = st.hand[t, k, src, HF_SPLIT]
    st.hand[t, k, dst, HF_LAST_BUY] = st.hand[t, k, src, HF_LAST_BUY]
    st.hand[t, k, dst, HF_BUYS] = st.hand[t, k, src, HF_BUYS]
    st.hand[t, k, dst, HF_TWISTED] = st.hand[t, k, src, HF_TWISTED]
    st.hand[t, k, dst, HF_DOUBLED] = st.hand[t, k, src, HF_DOUBLED]
    st.hand[t, k, dst, HF_DONE] = st.hand[t, k, src, HF_DONE]
    st.hand[t, k, dst, HF_BUST] = st.hand[t, k, src, HF_BUST]
    st.hand[t, k, dst, HF_SETTLED] = st.hand[t, k, src, HF_SETTLED]
    st.hand[t, k, dst, HF_DECLARED] = st.hand[t, k, src, HF_DECLARED]
    st.hand[t, k, dst, HF_RETURNED] = st.hand[t, k, src, HF_RETURNED]
    st.hand[t, k, dst, HF_PAYOUT] = st.hand[t, k, src, HF_PAYOUT]
    for c in range(st.hand[t, k, src, HF_N_CARDS]):
        st.hand[t, k, dst, HF_CARDS + c] = st.hand[t, k, src, HF_CARDS + c]
        st.hand[t, k, dst, _public_at(st, c)] = st.hand[t, k, src, _public_at(st, c)]


@hot
def _recount(st, t, k, h):
    pips = 0
    ace = 0
    for c in range(st.hand[t, k, h, HF_N_CARDS]):
        v = _value(st.hand[t, k, h, HF_CARDS + c])
        pips += v
        if v == 1:
            ace = 1
    st.hand[t, k, h, HF_PIPS] = pips
    st.hand[t, k, h, HF_ACE] = ace


@hot
def _split(st, cfg, t, k, h):
    """PontoonGame._split: the second card becomes a new hand after this one; one card to each."""
    moved = st.hand[t, k, h, HF_CARDS + 1]
    moved_public = st.hand[t, k, h, _public_at(st, np.int64(1))]
    st.hand[t, k, h, HF_N_CARDS] = 1
    _recount(st, t, k, h)
    st.hand[t, k, h, HF_SPLIT] = 1
    for j in range(st.seat[t, k, SE_N_HANDS] - 1, h, -1):
        _copy_hand(st, t, k, j, j + 1)
    new = h + 1
    _clear_hand(st, t, k, new)
    st.hand[t, k, new, HF_CARDS + 0] = moved
    st.hand[t, k, new, _public_at(st, np.int64(0))] = 1
    st.hand[t, k, new, HF_N_CARDS] = 1
    _recount(st, t, k, new)
    st.hand[t, k, new, HF_STAKE] = st.hand[t, k, h, HF_INITIAL]
    st.hand[t, k, new, HF_INITIAL] = st.hand[t, k, h, HF_INITIAL]
    st.hand[t, k, new, HF_SPLIT] = 1
    st.seat[t, k, SE_N_HANDS] += 1
    if not st.hand[t, k, h, _public_at(st, np.int64(0))]:
        st.hand[t, k, h, _public_at(st, np.int64(0))] = 1
        _see(st, t, st.hand[t, k, h, HF_CARDS + 0])
    if not moved_public:
        _see(st, t, moved)
    _deal(st, cfg, t, k, h, np.int64(0))
    _deal(st, cfg, t, k, new, np.int64(0))


@hot_inline
def _player_draw(st, rt, cfg, t, k, h, face_up):
    """PontoonGame._player_draw: a card; a bust pays at once and goes under the pack."""
    _deal(st, cfg, t, k, h, face_up)
    total, _ = hand_total(st, rt, t, k, h)
    if total > BLACKJACK:
        st.hand[t, k, h, HF_BUST] = 1
        st.hand[t, k, h, HF_DONE] = 1
        if cfg[tb.C_REVEAL_BUSTS]:
            _reveal(st, t, k, h, np.int64(0))
        _settle(st, cfg, t, k, h, -st.hand[t, k, h, HF_STAKE])
        _return_hand(st, cfg, t, k, h)


# ---------------------------------------------------------------------------------------- the round


@hot
def _change_banker(st, cfg, t, seat):
    st.tab[t, TB_BANKER] = seat
    st.tab[t, TB_DEALER_ROUNDS] = 0
    if cfg[tb.C_PACK] == tb.PACK_DEAL_ON and st.tab[t, TB_STARTED] and st.tab[t, TB_PHASE] != PH_OVER:
        _shuffle_and_cut(st, cfg, t)


@hot
def _first_pontoon_candidate(st, rt, cfg, t):
    """The first player whose unsplit pontoon passes the bank, in turn order (-1: none)."""
    if st.tab[t, TB_BANKER_NATURAL]:
        return -1
    for k in range(cfg[tb.C_PLAYERS]):
        if st.seat[t, k, SE_N_HANDS] == 1 and not st.hand[t, k, 0, HF_SPLIT] and is_natural(st, rt, t, k, np.int64(0)):
            return player_seat(st, cfg, t, k)
    return -1


@hot
def _next_banker(st, rt, cfg, t):
    mode = cfg[tb.C_BANK_PASSING]
    banker = st.tab[t, TB_BANKER]
    if mode == tb.PASS_PONTOON:
        first = _first_pontoon_candidate(st, rt, cfg, t)
        return first if first >= 0 else banker
    if mode == tb.PASS_HOLDER:
        return st.seat[t, 0, SE_HOLDERS] if st.tab[t, TB_N_HOLDERS] > 0 else banker
    if mode == tb.PASS_ROTATE:
        if not st.tab[t, TB_HAD_NATURAL]:
            return banker
        if cfg[tb.C_MISERICORDE] and st.tab[t, TB_DEALER_ROUNDS] == 0:
            return banker
        if cfg[tb.C_OLD_MODE]:
            return st.seat[t, 0, SE_HOLDERS] if st.tab[t, TB_N_HOLDERS] > 0 else banker
        return _wrap(banker + 1, cfg[tb.C_SEATS])
    return banker


@hot
def _step_included(cfg, step):
    if step == ST_STAKES_BEFORE:
        return cfg[tb.C_STAKE_BEFORE] != 0
    if step == ST_STAKES_AFTER:
        return cfg[tb.C_STAKE_BEFORE] == 0
    if step == ST_BANKER_DOUBLE:
        return cfg[tb.C_BANKER_DOUBLE] != 0
    return True


@hot
def _step_seat(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    st.tab[t, TB_ROUND_BANKER] = st.tab[t, TB_BANKER]
    st.tab[t, TB_SEATED] = 1
    for k in range(P + 1):
        st.seat[t, k, SE_N_HANDS] = 1
        st.seat[t, k, SE_ACTIVE] = 0
        _clear_hand(st, t, k, np.int64(0))
    st.tab[t, TB_BANKER_ACTIVE] = 0
    return True


@hot
def _step_stakes(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    while st.tab[t, TB_TURN] < P:
        k = st.tab[t, TB_TURN]
        if st.hand[t, k, 0, HF_INITIAL] != 0:
            st.tab[t, TB_TURN] += 1
            continue
        if cfg[tb.C_FIXED_STAKE]:
            st.hand[t, k, 0, HF_STAKE] = cfg[tb.C_MIN_STAKE]
            st.hand[t, k, 0, HF_INITIAL] = cfg[tb.C_MIN_STAKE]
            st.tab[t, TB_TURN] += 1
            continue
        st.tab[t, TB_PHASE] = PH_STAKE
        return False
    return True


@hot
def _step_deal(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    for k in range(P):
        _deal(st, cfg, t, k, np.int64(0), np.int64(0))
    _deal(st, cfg, t, B, np.int64(0), np.int64(0))
    if step == ST_DEAL_SECOND and cfg[tb.C_LOOKS_AT_DEAL]:
        st.tab[t, TB_LOOKED] = 2
    return True


@hot
def _step_banker_double(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    if st.tab[t, TB_LOOKED] < 1:
        st.tab[t, TB_LOOKED] = 1
    if st.tab[t, TB_ASKED_DOUBLE]:
        return True
    st.tab[t, TB_ASKED_DOUBLE] = 1
    st.tab[t, TB_PHASE] = PH_BANKER_DOUBLE
    return False


@hot
def _step_naturals(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    bnat = is_natural(st, rt, t, B, np.int64(0))
    st.tab[t, TB_BANKER_NATURAL] = 1 if bnat else 0
    st.tab[t, TB_N_HOLDERS] = 0
    for k in range(P):
        if is_natural(st, rt, t, k, np.int64(0)):
            st.seat[t, st.tab[t, TB_N_HOLDERS], SE_HOLDERS] = player_seat(st, cfg, t, k)
            st.tab[t, TB_N_HOLDERS] += 1
    if st.tab[t, TB_N_HOLDERS] > 0 or bnat:
        st.tab[t, TB_HAD_NATURAL] = 1
    aces_only = cfg[tb.C_NATURAL_ACE_ONLY]
    for k in range(P):
        if is_natural(st, rt, t, k, np.int64(0)):
            st.hand[t, k, 0, HF_DECLARED] = 1
            st.hand[t, k, 0, HF_DONE] = 1
            _reveal(st, t, k, np.int64(0), aces_only)
    if cfg[tb.C_BANKER_NATURAL_AT_DEAL] and bnat:
        _reveal(st, t, B, np.int64(0), np.int64(0))
        st.hand[t, B, 0, HF_DONE] = 1
        for k in range(P):
            nat = 1 if is_natural(st, rt, t, k, np.int64(0)) else 0
            multiple = _rt1(rt, tb.RT_BANKER_NATURAL, nat)
            _settle(st, cfg, t, k, np.int64(0), multiple * st.hand[t, k, 0, HF_STAKE])
            st.hand[t, k, 0, HF_DONE] = 1
        return True
    paid = cfg[tb.C_NATURAL_PAID]
    if paid and not bnat:
        for k in range(P):
            if is_natural(st, rt, t, k, np.int64(0)):
                _settle(st, cfg, t, k, np.int64(0), paid * st.hand[t, k, 0, HF_STAKE])
    return True


@hot
def _step_player_turns(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    while st.tab[t, TB_TURN] < P:
        k = st.tab[t, TB_TURN]
        while st.seat[t, k, SE_ACTIVE] < st.seat[t, k, SE_N_HANDS]:
            h = st.seat[t, k, SE_ACTIVE]
            if not st.hand[t, k, h, HF_DONE]:
                total, soft = hand_total(st, rt, t, k, h)
                if (_rt3(rt, tb.RT_PLAYER_STOPS, total, (1 if soft else 0), st.hand[t, k, h, HF_N_CARDS]) != 0):
                    st.hand[t, k, h, HF_DONE] = 1
            if not st.hand[t, k, h, HF_DONE]:
                st.tab[t, TB_PHASE] = PH_PLAYER_TURN
                return False
            st.seat[t, k, SE_ACTIVE] += 1
        st.tab[t, TB_TURN] += 1
    return True


@hot
def _step_reveal_banker(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    for h in range(st.seat[t, B, SE_N_HANDS]):
        _reveal(st, t, B, h, np.int64(0))
    st.tab[t, TB_LOOKED] = st.hand[t, B, 0, HF_N_CARDS]
    every = True
    for k in range(P):
        for h in range(st.seat[t, k, SE_N_HANDS]):
            if not st.hand[t, k, h, HF_SETTLED]:
                every = False
    if every:
        for h in range(st.seat[t, B, SE_N_HANDS]):
            st.hand[t, B, h, HF_DONE] = 1
    return True


@hot
def _step_banker_turn(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    while st.tab[t, TB_BANKER_ACTIVE] < st.seat[t, B, SE_N_HANDS]:
        h = st.tab[t, TB_BANKER_ACTIVE]
        if not st.hand[t, B, h, HF_DONE]:
            total, _ = hand_total(st, rt, t, B, h)
            if (_rt2(rt, tb.RT_BANKER_STOPS, total, st.hand[t, B, h, HF_N_CARDS]) != 0):
                st.hand[t, B, h, HF_DONE] = 1
        if not st.hand[t, B, h, HF_DONE]:
            st.tab[t, TB_PHASE] = PH_BANKER_TURN
            return False
        st.tab[t, TB_BANKER_ACTIVE] += 1
    st.tab[t, TB_BANKER_ACTIVE] = st.seat[t, B, SE_N_HANDS] - 1
    return True


@hot
def _step_settle(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    for k in range(P):
        for h in range(st.seat[t, k, SE_N_HANDS]):
            if st.hand[t, k, h, HF_SETTLED]:
                continue
            _reveal(st, t, k, h, np.int64(0))
            total, _ = hand_total(st, rt, t, k, h)
            split = 1 if st.hand[t, k, h, HF_SPLIT] else 0
            pclass = _rt3(rt, tb.RT_PLAYER_CLASS, total, st.hand[t, k, h, HF_N_CARDS], split)
            chips = np.int64(0)  # not a literal 0: numba would compile _settle for that type too
            for b in range(st.seat[t, B, SE_N_HANDS]):
                btotal, _ = hand_total(st, rt, t, B, b)
                bclass = _rt2(rt, tb.RT_BANKER_CLASS, btotal, st.hand[t, B, b, HF_N_CARDS])
                chips += _rt5(rt, tb.RT_PAYOUT, pclass, total, split, bclass, btotal) * st.hand[t, k, h, HF_STAKE]
            _settle(st, cfg, t, k, h, chips)
    return True


@hot
def _offer_bank(st, rt, cfg, t, nxt):
    """The bank is offered to ``nxt`` first, then to the other pontoon holders in order."""
    st.seat[t, 0, SE_CANDIDATES] = nxt
    m = 1
    if not st.tab[t, TB_BANKER_NATURAL]:  # then every unsplit pontoon, in turn order
        for k in range(cfg[tb.C_PLAYERS]):
            if st.seat[t, k, SE_N_HANDS] == 1 and not st.hand[t, k, 0, HF_SPLIT] and is_natural(st, rt, t, k, np.int64(0)):
                seat = player_seat(st, cfg, t, k)
                if seat != nxt:
                    st.seat[t, m, SE_CANDIDATES] = seat
                    m += 1
    st.tab[t, TB_N_CANDIDATES] = m
    st.tab[t, TB_DEALER_ROUNDS] += 1


@hot
def _step_end_round(st, rt, cfg, t, step):
    P = cfg[tb.C_PLAYERS]
    B = P
    had_pontoon = st.tab[t, TB_HAD_NATURAL] != 0
    for k in range(P):
        for h in range(st.seat[t, k, SE_N_HANDS]):
            if is_natural(st, rt, t, k, h):
                had_pontoon = True
    old = st.tab[t, TB_BANKER]
    nxt = _next_banker(st, rt, cfg, t)
    for k in range(P + 1):
        for h in range(st.seat[t, k, SE_N_HANDS]):
            if not st.hand[t, k, h, HF_RETURNED]:
                _return_hand(st, cfg, t, k, h)
    mode = cfg[tb.C_PACK]
    reshuffle = (
        mode == tb.PACK_FRESH
        or (had_pontoon and cfg[tb.C_SHUFFLE_AFTER_PONTOON] != 0)
        or (mode == tb.PACK_CUT and st.tab[t, TB_SIZE] < cfg[tb.C_CUT_BELOW])
        or (mode == tb.PACK_DEAL_ON and nxt != old)
    )
    if reshuffle:
        _shuffle_and_cut(st, cfg, t)
    if nxt != old:
        if cfg[tb.C_TAKE_OVER_OPTIONAL]:
            _offer_bank(st, rt, cfg, t, nxt)
        else:
            _change_banker(st, cfg, t, nxt)
    else:
        st.tab[t, TB_DEALER_ROUNDS] += 1
    return True

@hot
def _step_take_bank(st, rt, cfg, t, step):
    if not st.tab[t, TB_TAKE_STEP] or st.tab[t, TB_N_CANDIDATES] == 0:
        return True
    st.tab[t, TB_PHASE] = PH_TAKE_BANK
    return False


@hot_ir
def _step(st, rt, cfg, t, step):
    """One automatic step; False when it stops at a decision."""
    if step == ST_TAKE_BANK:
        return _step_take_bank(st, rt, cfg, t, step)
    if step == ST_SEAT:
        return _step_seat(st, rt, cfg, t, step)
    if step == ST_STAKES_BEFORE or step == ST_STAKES_AFTER:
        return _step_stakes(st, rt, cfg, t, step)
    if step == ST_DEAL_FIRST or step == ST_DEAL_SECOND:
        return _step_deal(st, rt, cfg, t, step)
    if step == ST_BANKER_DOUBLE:
        return _step_banker_double(st, rt, cfg, t, step)
    if step == ST_NATURALS:
        return _step_naturals(st, rt, cfg, t, step)
    if step == ST_PLAYER_TURNS:
        return _step_player_turns(st, rt, cfg, t, step)
    if step == ST_REVEAL:
        return _step_reveal_banker(st, rt, cfg, t, step)
    if step == ST_BANKER_TURN:
        return _step_banker_turn(st, rt, cfg, t, step)
    if step == ST_SETTLE:
        return _step_settle(st, rt, cfg, t, step)
    if step == ST_END:
        return _step_end_round(st, rt, cfg, t, step)
    return True


@hot_inline
def run_steps(st, rt, cfg, t):
    """PontoonGame._run: automatic steps until a decision is needed or the round is over.

    Called from one place per entry point (:func:`play`'s loop, or :func:`finish_steps`): a
    round's start and a move only mark the steps due (``TB_STEPS_DUE``), and the loop runs them
    before its next decision. Inlined there: as a call it took the state, the rule tables and the
    options (about 60 words) on the stack once a decision, and those pushes were a large and
    erratic part of a step (perf: 10-47% of the vector step's own samples from one build or
    process to the next; ``docs/batched.md``); inlined at every site of a move and a round's start
    instead (seven in the vector step), the first compile took 38 s."""
    while st.tab[t, TB_STEP] < ST_DONE:
        step = st.tab[t, TB_STEP]
        if _step_included(cfg, step):
            if not _step(st, rt, cfg, t, step):
                return
            if st.tab[t, TB_ERROR]:
                return
        st.tab[t, TB_STEP] = step + 1
        st.tab[t, TB_TURN] = 0
    st.tab[t, TB_PHASE] = PH_OVER


@hot
def finish_steps(st, rt, cfg, t):
    """Run the table's due automatic steps (:func:`run_steps`) where no decision loop follows: the
    entry points that deal or move and return to Python (:func:`new_rounds`, :func:`apply_tables`)."""
    if st.tab[t, TB_STEPS_DUE]:
        st.tab[t, TB_STEPS_DUE] = 0
        run_steps(st, rt, cfg, t)


@hot_ir
def new_round(st, rt, cfg, t):
    """PontoonGame.new_round (without a stacked deck: see :func:`stack_pack`) up to its automatic
    steps, which are left due (:func:`run_steps`)."""
    st.tab[t, TB_ROUND_INDEX] += 1
    st.seat[t, :, SE_RESULT] = 0
    st.tab[t, TB_SEATED] = 0
    st.seat[t, :, SE_N_HANDS] = 0
    st.tab[t, TB_HAD_NATURAL] = 0
    st.tab[t, TB_N_HOLDERS] = 0
    st.tab[t, TB_BANKER_NATURAL] = 0
    st.tab[t, TB_STAKES_DOUBLED] = 0
    st.tab[t, TB_LOOKED] = 0
    st.tab[t, TB_ASKED_DOUBLE] = 0
    st.tab[t, TB_TAKE_STEP] = 1 if st.tab[t, TB_N_CANDIDATES] > 0 else 0
    st.tab[t, TB_STEP] = 0
    st.tab[t, TB_TURN] = 0
    st.tab[t, TB_STARTED] = 1
    st.tab[t, TB_PHASE] = PH_STAKE
    st.tab[t, TB_STEPS_DUE] = 1  # run by the caller's loop (play) or finish_steps


# ---------------------------------------------------------------------------------------- decisions


@hot_entry
def buy_limits(buy_mode, initial, last_buy):
    """legality.buy_limits re-expressed (a formula over chips; pinned by a differential test)."""
    if buy_mode == tb.BUY_PAGAT:
        return initial, (last_buy if last_buy != 0 else 2 * initial)
    return 1, initial


@hot_inline
def legal(st, rt, cfg, t, kinds, lows, highs):
    """The legal actions now, in PontoonGame.legal_actions order; returns how many."""
    phase = st.tab[t, TB_PHASE]
    if phase == PH_TAKE_BANK:
        kinds[0], lows[0], highs[0] = K_TAKE_BANK, 0, 0
        kinds[1], lows[1], highs[1] = K_DECLINE_BANK, 0, 0
        return 2
    if phase == PH_STAKE:
        kinds[0], lows[0], highs[0] = K_STAKE, cfg[tb.C_MIN_STAKE], cfg[tb.C_MAX_STAKE]
        return 1
    if phase == PH_BANKER_DOUBLE:
        kinds[0], lows[0], highs[0] = K_DOUBLE_STAKES, 0, 0
        kinds[1], lows[1], highs[1] = K_NO_DOUBLE, 0, 0
        return 2
    if phase == PH_PLAYER_TURN:
        k = st.tab[t, TB_TURN]
        h = st.seat[t, k, SE_ACTIVE]
        total, soft = hand_total(st, rt, t, k, h)
        n = st.hand[t, k, h, HF_N_CARDS]
        pair = 0
        if n == 2 and _splits(rt, st.hand[t, k, h, HF_CARDS], st.hand[t, k, h, HF_CARDS + 1]):
            pair = 1
        bits = _rt8(
            rt, tb.RT_MOVES, total, 1 if soft else 0, n, 1 if st.hand[t, k, h, HF_TWISTED] else 0,
            1 if st.hand[t, k, h, HF_DOUBLED] else 0, 1 if st.hand[t, k, h, HF_BUYS] > 0 else 0, pair,
            st.seat[t, k, SE_N_HANDS],
        )
        m = 0
        for i in range(5):
            if bits & (1 << i):
                kinds[m] = MOVE_KINDS[i]
                lows[m] = 0
                highs[m] = 0
                if MOVE_KINDS[i] == K_BUY:
                    lo, hi = buy_limits(cfg[tb.C_BUY_LIMITS], st.hand[t, k, h, HF_INITIAL], st.hand[t, k, h, HF_LAST_BUY])
                    lows[m] = lo
                    highs[m] = hi
                m += 1
        return m
    if phase == PH_BANKER_TURN:
        h = st.tab[t, TB_BANKER_ACTIVE]
        B = cfg[tb.C_PLAYERS]
        if cfg[tb.C_DEALER_HS17]:
            total, soft = hand_total(st, rt, t, B, h)
            draws = _rt2(rt, tb.RT_DEALER_DRAWS, total, np.int64(1 if soft else 0)) != 0
            kinds[0] = K_DRAW if draws else K_STAND
            lows[0], highs[0] = 0, 0
            return 1
        kinds[0], lows[0], highs[0] = K_STAND, 0, 0
        kinds[1], lows[1], highs[1] = K_DRAW, 0, 0
        return 2
    return 0


@hot_inline
def apply_action(st, rt, cfg, t, kind, amount):
    """Apply a legal action for the seat to act; the automatic steps up to the next decision are
    left due (:func:`run_steps`)."""
    phase = st.tab[t, TB_PHASE]
    if phase == PH_PLAYER_TURN:
        k = st.tab[t, TB_TURN]
        h = st.seat[t, k, SE_ACTIVE]
        if kind == K_STICK:
            st.hand[t, k, h, HF_DONE] = 1
        elif kind == K_TWIST:
            st.hand[t, k, h, HF_TWISTED] = 1
            _player_draw(st, rt, cfg, t, k, h, cfg[tb.C_TWIST_UP])
        elif kind == K_BUY:
            st.hand[t, k, h, HF_STAKE] += amount
            st.hand[t, k, h, HF_LAST_BUY] = amount
            st.hand[t, k, h, HF_BUYS] += 1
            _player_draw(st, rt, cfg, t, k, h, np.int64(0))
        elif kind == K_DOUBLE:
            st.hand[t, k, h, HF_STAKE] *= 2
            st.hand[t, k, h, HF_DOUBLED] = 1
            _player_draw(st, rt, cfg, t, k, h, np.int64(1))
        elif kind == K_SPLIT:
            _split(st, cfg, t, k, h)
    elif phase == PH_BANKER_TURN:
        B = cfg[tb.C_PLAYERS]
        h = st.tab[t, TB_BANKER_ACTIVE]
        if kind == K_DRAW:
            _deal(st, cfg, t, B, h, np.int64(1))
        else:
            st.hand[t, B, h, HF_DONE] = 1
    elif phase == PH_STAKE:
        k = st.tab[t, TB_TURN]
        st.hand[t, k, 0, HF_STAKE] = amount
        st.hand[t, k, 0, HF_INITIAL] = amount
        st.tab[t, TB_TURN] += 1
    elif phase == PH_BANKER_DOUBLE:
        if kind == K_DOUBLE_STAKES:
            st.tab[t, TB_STAKES_DOUBLED] = 1
            for k in range(cfg[tb.C_PLAYERS]):
                st.hand[t, k, 0, HF_STAKE] *= 2
                st.hand[t, k, 0, HF_INITIAL] *= 2
    elif phase == PH_TAKE_BANK:
        candidate = st.seat[t, 0, SE_CANDIDATES]
        for i in range(st.tab[t, TB_N_CANDIDATES] - 1):
            st.seat[t, i, SE_CANDIDATES] = st.seat[t, i + 1, SE_CANDIDATES]
        st.tab[t, TB_N_CANDIDATES] -= 1
        if kind == K_TAKE_BANK:
            _change_banker(st, cfg, t, candidate)
            st.tab[t, TB_N_CANDIDATES] = 0
    if not st.tab[t, TB_ERROR]:
        st.tab[t, TB_STEPS_DUE] = 1  # played on by the caller's loop (play) or finish_steps


# ---------------------------------------------------------------------------------------- native seats


@hot
def _find(kinds, n, kind):
    for i in range(n):
        if kinds[i] == kind:
            return i
    return -1


@hot
def _sized(low, high, choice):
    """agents.scripted.sized: min, max or a number of chips clamped into the range."""
    if choice == AMOUNT_MIN:
        return low
    if choice == AMOUNT_MAX:
        return high
    return min(max(choice, low), high)


@hot
def _known_total(st, rt, t, k, h, visible):
    """Total and softness of the cards of a hand a seat can see (public or among the first ``visible``)."""
    pips = 0
    ace = 0
    for c in range(st.hand[t, k, h, HF_N_CARDS]):
        if st.hand[t, k, h, _public_at(st, c)] or c < visible:
            v = _value(st.hand[t, k, h, HF_CARDS + c])
            pips += v
            if v == 1:
                ace = 1
    return _rt2(rt, tb.RT_TOTAL, pips, ace), (_rt2(rt, tb.RT_SOFT, pips, ace) != 0)


@hot
def _pending_pairs(st, rt, t, k, h):
    count = 0
    for j in range(h + 1, st.seat[t, k, SE_N_HANDS]):
        if st.hand[t, k, j, HF_N_CARDS] == 2 and not st.hand[t, k, j, HF_DONE]:
            if _splits(rt, st.hand[t, k, j, HF_CARDS], st.hand[t, k, j, HF_CARDS + 1]):
                count += 1
    return count


@hot
def optimal_key(st, rt, cfg, t, opt_id, kinds, n):
    """The lookup key of the optimal player's move (everything solver.scripted_move reads)."""
    k = st.tab[t, TB_TURN]
    h = st.seat[t, k, SE_ACTIVE]
    total, soft = hand_total(st, rt, t, k, h)
    legal_bits = 0
    for i in range(5):
        if _find(kinds, n, MOVE_KINDS[i]) >= 0:
            legal_bits |= 1 << i
    pair_value = 0
    if legal_bits & (1 << 3):
        pair_value = _value(st.hand[t, k, h, HF_CARDS + 0])
    small = (
        total
        | ((1 if soft else 0) << 6)
        | (np.int64(st.hand[t, k, h, HF_N_CARDS]) << 7)
        | ((1 if st.hand[t, k, h, HF_TWISTED] else 0) << 12)
        | ((1 if st.hand[t, k, h, HF_DOUBLED] else 0) << 13)
        | ((1 if st.hand[t, k, h, HF_SPLIT] else 0) << 14)
        | ((1 if st.tab[t, TB_STAKES_DOUBLED] else 0) << 15)
        | (np.int64(pair_value) << 16)
        | (np.int64(st.seat[t, k, SE_N_HANDS]) << 20)
        | (np.int64(_pending_pairs(st, rt, t, k, h)) << 23)
        | (np.int64(legal_bits) << 26)
        | (np.int64(opt_id) << 32)
    )
    return (np.int64(small), np.int64(st.hand[t, k, h, HF_INITIAL]), np.int64(st.hand[t, k, h, HF_LAST_BUY]), np.int64(st.hand[t, k, h, HF_STAKE]))


@hot
def _has_move(kinds, n):
    """Whether a hand move (stick, twist, buy, split, double) is among the ``n`` legal kinds."""
    for i in range(n):
        for j in range(5):
            if kinds[i] == MOVE_KINDS[j]:
                return True
    return False


@hot_inline
def decide(st, rt, cfg, t, pol, p, kinds, lows, highs, n, move):
    """A native seat's decision: (kind, amount). ``move`` is the optimal table's entry for an
    optimal player's move (looked up by :func:`play`, which holds the dictionary)."""
    kind = kinds[0]
    amount = lows[0]  # agents.scripted.first_legal: the fallback of every scripted policy
    policy = pol[p, P_KIND]
    phase = st.tab[t, TB_PHASE]
    seat = current_seat(st, cfg, t)
    if policy == POL_RANDOM:
        S = cfg[tb.C_SEATS]
        i = bounded(st.seat_rng, np.int64(t) * S + seat, n)
        return kinds[i], lows[i] + bounded(st.seat_rng, np.int64(t) * S + seat, highs[i] - lows[i] + 1)
    if policy == POL_THRESHOLD or policy == POL_OPTIMAL:
        if phase == PH_TAKE_BANK:
            return K_TAKE_BANK, 0
        if phase == PH_STAKE:
            k = st.tab[t, TB_TURN]
            if policy == POL_OPTIMAL:
                value = _value(st.hand[t, k, 0, HF_CARDS + 0]) if st.hand[t, k, 0, HF_N_CARDS] > 0 else 0
                high = pol[p, P_OPT_STAKE + value] == 1
                return K_STAKE, highs[0] if high else lows[0]
            bet = pol[p, P_BET]
            if bet != BET_FIRST_CARD:
                return K_STAKE, _sized(lows[0], highs[0], bet)
            strong = False
            if st.hand[t, k, 0, HF_N_CARDS] > 0:
                v = _value(st.hand[t, k, 0, HF_CARDS + 0])
                strong = v == 1 or v == 10
            return K_STAKE, highs[0] if strong else lows[0]
        if phase == PH_PLAYER_TURN:
            k = st.tab[t, TB_TURN]
            h = st.seat[t, k, SE_ACTIVE]
            if policy == POL_OPTIMAL:
                if move < 0:  # no move among the legal actions: nothing was looked up
                    return kind, amount
                if move == OPT_STICK:
                    want = K_STICK
                elif move == OPT_TWIST:
                    want = K_TWIST
                elif move == OPT_BUY_MIN or move == OPT_BUY_MAX:
                    i = _find(kinds, n, np.int64(K_BUY))
                    if i < 0:
                        return kind, amount
                    return K_BUY, lows[i] if move == OPT_BUY_MIN else highs[i]
                elif move == OPT_DOUBLE:
                    want = K_DOUBLE
                else:
                    want = K_SPLIT
                if _find(kinds, n, want) >= 0:
                    return want, 0
                return kind, amount
            total, soft = hand_total(st, rt, t, k, h)
            count = st.hand[t, k, h, HF_N_CARDS]
            if _find(kinds, n, np.int64(K_SPLIT)) >= 0 and count == 2:
                if pol[p, P_SPLIT_RANKS] & (1 << _rank(st.hand[t, k, h, HF_CARDS + 0])):
                    return K_SPLIT, 0
            if _find(kinds, n, np.int64(K_DOUBLE)) >= 0 and count == 2 and not soft:
                if pol[p, P_DOUBLE_ON] & (np.int64(1) << total):
                    return K_DOUBLE, 0
            target = pol[p, P_SOFT_STICK] if soft else pol[p, P_STICK]
            if total >= target and _find(kinds, n, np.int64(K_STICK)) >= 0:
                return K_STICK, 0
            i = _find(kinds, n, np.int64(K_BUY))
            if i >= 0 and total <= pol[p, P_BUY_AT]:
                return K_BUY, _sized(lows[i], highs[i], pol[p, P_BUY_AMOUNT])
            if _find(kinds, n, np.int64(K_TWIST)) >= 0:
                return K_TWIST, 0
            if _find(kinds, n, np.int64(K_STICK)) >= 0:
                return K_STICK, 0
        return kind, amount
    # banker_threshold and casino_dealer
    if phase == PH_BANKER_TURN:
        if n == 1:
            return kind, amount
        B = cfg[tb.C_PLAYERS]
        total, soft = _known_total(st, rt, t, B, st.tab[t, TB_BANKER_ACTIVE], st.tab[t, TB_LOOKED])
        if policy == POL_CASINO_DEALER:
            draws = (_rt2(rt, tb.RT_DEALER_DRAWS, total, np.int64(1 if soft else 0)) != 0)
        else:
            draws = total < pol[p, P_STAND]
        want = K_DRAW if draws else K_STAND
        if _find(kinds, n, want) >= 0:
            return want, 0
        return kind, amount
    if phase == PH_BANKER_DOUBLE:
        B = cfg[tb.C_PLAYERS]
        first_shown = st.hand[t, B, 0, _public_at(st, np.int64(0))]
        if pol[p, P_DOUBLE_ACE] and st.hand[t, B, 0, HF_N_CARDS] > 0 and (first_shown or st.tab[t, TB_LOOKED] > 0):
            if _rank(st.hand[t, B, 0, HF_CARDS + 0]) == 0:
                return K_DOUBLE_STAKES, 0
        return K_NO_DOUBLE, 0
    return kind, amount


@hot
def is_banker_phase(phase):
    return phase == PH_BANKER_DOUBLE or phase == PH_BANKER_TURN


@hot_ir
def play(st, rt, cfg, t, pol, seat_pol, miss, need, scratch):
    """Let native seats decide until an external seat is to act, an optimal player needs its move
    looked up (``NEED_LOOKUP``, the key in ``miss[t, :4]``), or the round is over.

    The caller answers the lookup (:func:`answer_lookup`, in :func:`env_play_on` and
    :func:`play_tables`) and runs the loop again, or returns ``NEED_MISS`` to Python for the solver
    (the table was a typed dictionary, which compiled code touches only with reference counting).
    ``scratch`` holds the legal actions (three rows of ``MAX_LEGAL``).
    """
    kinds = scratch[0]
    lows = scratch[1]
    highs = scratch[2]
    while True:
        if st.tab[t, TB_STEPS_DUE]:  # after a round's start or a move: the one site of run_steps
            st.tab[t, TB_STEPS_DUE] = 0
            run_steps(st, rt, cfg, t)
        if st.tab[t, TB_PHASE] == PH_OVER:
            break
        if st.tab[t, TB_ERROR]:
            need[t] = NEED_ERROR
            return
        seat = current_seat(st, cfg, t)
        p = seat_pol[t, seat, 1 if is_banker_phase(st.tab[t, TB_PHASE]) else 0]
        if p < 0:
            need[t] = NEED_CALLBACK
            return
        n = legal(st, rt, cfg, t, kinds, lows, highs)
        move = -1
        if pol[p, P_KIND] == POL_OPTIMAL and st.tab[t, TB_PHASE] == PH_PLAYER_TURN and _has_move(kinds, n):
            if miss[t, MISS_MOVE] == 0:
                key = optimal_key(st, rt, cfg, t, pol[p, P_OPT_ID], kinds, n)
                miss[t, 0], miss[t, 1], miss[t, 2], miss[t, 3] = key
                need[t] = NEED_LOOKUP
                return
            move = miss[t, MISS_MOVE] - 1
            miss[t, MISS_MOVE] = 0
        kind, amount = decide(st, rt, cfg, t, pol, p, kinds, lows, highs, n, move)
        apply_action(st, rt, cfg, t, kind, amount)
    need[t] = NEED_ERROR if st.tab[t, TB_ERROR] else NEED_NONE


OPT_KEY_WIDTH = 4
"""The optimal table's rows: the four parts of a key (:func:`optimal_key`), then the move code
(``OPT_EMPTY`` for a free row)."""
OPT_EMPTY = -1


@hot_entry
def optimal_row(optimal, k0, k1, k2, k3):
    """The row of the optimal table (an open-addressing hash table: a power-of-two number of rows,
    at most half of them used, :class:`~pontoon_env.batched.policies.OptimalTable`) that holds the
    key, or the free row where it goes. Python's insertions and the compiled lookups both call it.

    The hash is a sum of small products: every part of a key is non-negative and below 2**40
    (chips and the packed small fields), so it never overflows and needs no fixed-width
    arithmetic."""
    mask = optimal.shape[0] - 1
    i = ((k0 ^ (k0 >> 17)) * 31 + k1 * 1000003 + k2 * 10007 + k3 * 101) & mask
    while optimal[i, OPT_KEY_WIDTH] != OPT_EMPTY and not (
        optimal[i, 0] == k0 and optimal[i, 1] == k1 and optimal[i, 2] == k2 and optimal[i, 3] == k3
    ):
        i = (i + 1) & mask
    return i


@hot
def answer_lookup(optimal, miss, need, t):
    """Answer a table's ``NEED_LOOKUP`` from the optimal table: the move goes to ``miss[t,
    MISS_MOVE]`` for the loop to use when it resumes (True), or the table waits with
    ``NEED_MISS`` for the key to be solved (False)."""
    move = optimal[optimal_row(optimal, miss[t, 0], miss[t, 1], miss[t, 2], miss[t, 3]), OPT_KEY_WIDTH]
    if move == OPT_EMPTY:
        need[t] = NEED_MISS
        return False
    miss[t, MISS_MOVE] = move + 1
    return True


SCRATCH_ROWS = 6
"""Rows of the ``scratch`` array the entry points that play rounds take (``[SCRATCH_ROWS,
MAX_LEGAL]`` int64, :meth:`~pontoon_env.batched.engine.BatchedEngine` keeps one): the first three
hold the legal actions of the loop (:func:`play`), the last three those an entry point lists for
itself (:func:`env_step`)."""


ROUND_PLAY_ON, ROUND_DEAL, ROUND_DEAL_STACKED = 0, 1, 2
"""What :func:`play_tables` does at a table before playing: nothing (play on), deal a new round,
or deal a new round from the pack order ``orders[i]``."""


@hot_entry
def play_tables(st, rt, cfg, idx, pol, seat_pol, optimal, miss, need, scratch, orders, start):
    """Play each table of ``idx`` (:func:`play`, answering the optimal player's lookups) until it
    waits for Python or its round is over; with ``start`` (``ROUND_*``) a new round is dealt there
    first (from ``orders[i]`` for ``ROUND_DEAL_STACKED``), as :func:`new_rounds` does.

    Dealing and playing in one pass over the tables keeps each table's state in the caches from the
    deal to the end of its round: as two passes (:func:`new_rounds`, then this) over 4,096 tables
    the state (22 MB) left the caches in between (scripted rounds, one pinned core: ``docs/batched.md``).

    ``scratch`` (``[SCRATCH_ROWS, MAX_LEGAL]``) is passed in rather than allocated here so that
    this entry point, and the loop inlined into it, compile without reference counting: with it,
    every read of a state field in the inlined loop counted the array's references up and down,
    11% of the scripted rounds' time (perf with a symbol map of the compiled code, one core)."""
    for i in range(idx.size):
        t = np.uint64(idx[i])
        if i + 1 < idx.size:
            prefetch_table(st, np.uint64(idx[i + 1]))
        if start == ROUND_DEAL_STACKED:
            stack_pack(st, cfg, t, orders[i])
        if start != ROUND_PLAY_ON:
            new_round(st, rt, cfg, t)
        while True:  # one call site: play is inlined here
            play(st, rt, cfg, t, pol, seat_pol, miss, need, scratch)
            if not (need[t] == NEED_LOOKUP and answer_lookup(optimal, miss, need, t)):
                break


@hot_entry
def record_rounds(st, rt, cfg, count, start, net, staked, initial, hands, busts, pontoons, tricks):
    """The per-round statistics of tables ``0..count-1`` into rows ``start..start+count-1`` of the
    match arrays ``[rounds, seats]`` (``pontoon_env.batched.evaluate``): each seat's net result,
    and per seat its hands, busts, pontoons and five-card tricks, a player's chips staked and
    initial stake. A slot maps to a different seat in every row (the players from the banker's
    left, then the banker); the rows are fresh zeros."""
    P = cfg[tb.C_PLAYERS]
    S = P + 1
    for t in range(np.uint64(count)):
        row = start + np.int64(t)
        banker = st.tab[t, TB_ROUND_BANKER]
        for s in range(S):
            net[row, s] = st.seat[t, s, SE_RESULT]
        for k in range(S):
            seat = banker if k == P else _wrap(banker + 1 + k, S)
            n_hands = st.seat[t, k, SE_N_HANDS]
            n_bust = 0
            n_pontoon = 0
            n_trick = 0
            chips = 0
            for h in range(n_hands):
                total = hand_total(st, rt, t, k, h)[0]
                n = st.hand[t, k, h, HF_N_CARDS]
                if k == P:
                    cls = _rt2(rt, tb.RT_BANKER_CLASS, total, n)
                else:
                    cls = _rt3(rt, tb.RT_PLAYER_CLASS, total, n, st.hand[t, k, h, HF_SPLIT])
                    chips += st.hand[t, k, h, HF_STAKE]
                n_bust += cls == CLASS_BUST
                n_pontoon += cls == CLASS_PONTOON
                n_trick += cls == CLASS_TRICK
            hands[row, seat] = n_hands
            busts[row, seat] = n_bust
            pontoons[row, seat] = n_pontoon
            tricks[row, seat] = n_trick
            if k < P:
                staked[row, seat] = chips
                initial[row, seat] = st.hand[t, k, 0, HF_INITIAL]


@hot_entry
def new_rounds(st, rt, cfg, idx, orders, stacked):
    """Start a round at each table of ``idx`` (from ``orders[i]`` where ``stacked``)."""
    for i in range(idx.size):
        t = np.uint64(idx[i])
        if stacked:
            stack_pack(st, cfg, t, orders[i])
        new_round(st, rt, cfg, t)
        finish_steps(st, rt, cfg, t)


@hot_entry
def legal_tables(st, rt, cfg, idx, n_legal, kinds, lows, highs):
    for i in range(idx.size):
        n_legal[i] = legal(st, rt, cfg, np.uint64(idx[i]), kinds[i], lows[i], highs[i])


@hot_entry
def apply_tables(st, rt, cfg, idx, kinds, amounts):
    for i in range(idx.size):
        apply_action(st, rt, cfg, np.uint64(idx[i]), kinds[i], amounts[i])
        finish_steps(st, rt, cfg, np.uint64(idx[i]))


@hot_entry
def current_seats(st, cfg, idx, out):
    for i in range(idx.size):
        out[i] = current_seat(st, cfg, np.uint64(idx[i]))


# ---------------------------------------------------------------------------------------- action ids


@hot
def _py_round(x):
    """Python's round(float) -> int: to the nearest integer, ties to even."""
    r = np.floor(x)
    diff = x - r
    if diff > 0.5 or (diff == 0.5 and int(r) % 2 != 0):
        r += 1.0
    return int(r)


@hot
def _resolve(level_type, level, low, high):
    """encoding.resolve_amount: 1 chips, 2 min, 3 max, 4 a fraction of the range."""
    if level_type == 2:
        return low
    if level_type == 3:
        return high
    if level_type == 4:
        return low + _py_round(level * (high - low))
    return min(max(np.int64(level), low), high)


@hot_inline
def _slot_amount(slot_type, slot_level, a, low, high):
    """The chips action id ``a`` stands for when its kind's legal range is ``[low, high]`` (0 for
    an id without an amount)."""
    if slot_type[a] == 0:
        return np.int64(0)
    return _resolve(slot_type[a], slot_level[a], low, high)


@hot_inline
def legal_ids(kinds, lows, highs, n, slot_kind, slot_type, slot_level, mask, amounts):
    """ActionTable.legal_ids: every legal id and its amount (of equal amounts the first id wins).

    Inlined (one site in :func:`env_step`): as a call from the step it pushed about 50 words of
    arguments (vector steps 1,134,783-1,165,501 against 987,825-1,165,860 alternated, compile
    level)."""
    mask[:] = False
    for i in range(n):
        first = -1  # the first id of this kind: no earlier id can repeat its amount
        for a in range(slot_kind.size):
            if slot_kind[a] != kinds[i]:
                continue
            if first < 0:
                first = a
            amount = _slot_amount(slot_type, slot_level, a, lows[i], highs[i])
            dup = False
            for b in range(first, a):  # an earlier id of this kind already gives this amount
                if mask[b] and slot_kind[b] == kinds[i] and amounts[b] == amount:
                    dup = True
            if dup:
                continue
            mask[a] = True
            amounts[a] = amount


@hot
def legal_id(kinds, lows, highs, n, slot_kind, slot_type, slot_level, a):
    """(whether id ``a`` is legal, its amount): :func:`legal_ids`' verdict on the one id, for the
    step's check of the learner's action without building the whole mask. An id is legal when its
    kind is and no earlier id of that kind resolves to the same amount (the first such id is
    legal, so an earlier repeat of the amount means one legal id already gives it)."""
    if a < 0 or a >= slot_kind.size:
        return False, np.int64(0)
    kind = slot_kind[a]
    for i in range(n):
        if kinds[i] != kind:
            continue
        amount = _slot_amount(slot_type, slot_level, a, lows[i], highs[i])
        for b in range(a):
            if slot_kind[b] == kind and _slot_amount(slot_type, slot_level, b, lows[i], highs[i]) == amount:
                return False, np.int64(0)
        return True, amount
    return False, np.int64(0)


# ---------------------------------------------------------------------------------------- observations

# Indices into the layout vector built by pontoon_env.batched.encode.layout (the encoder's own offsets).
(L_TABLE, L_PHASE, L_IS_BANKER, L_TO_ACT, L_DOUBLED, L_SEEN, L_PACK, L_KITTY, L_ROOM, L_BALANCE,
 L_OWN, L_OWN_COUNT, L_OWN_STRIDE, L_O_PRESENT, L_O_ACTIVE, L_O_RANKS, L_O_HIDDEN, L_O_NCARDS, L_O_TOTAL,
 L_O_SOFT, L_O_STAKE, L_O_INITIAL, L_O_LAST_BUY, L_O_BUYS, L_O_TWISTED, L_O_DOUBLED, L_O_SPLIT, L_O_SHOOT,
 L_O_DONE, L_O_BUST, L_O_DECLARED,
 L_BANK, L_BANK_COUNT, L_BANK_STRIDE, L_B_PRESENT, L_B_RANKS, L_B_HIDDEN, L_B_NCARDS, L_B_TOTAL, L_B_SOFT,
 L_B_SPLIT, L_B_DONE,
 L_OTHERS,
 L_SEATS, L_SEAT_STRIDE, L_S_IS_BANKER, L_S_IN_ROUND, L_S_BALANCE, L_S_HANDS, L_S_HAND_COUNT, L_H_STRIDE,
 L_H_PRESENT, L_H_NCARDS, L_H_KNOWN, L_H_TOTAL, L_H_SOFT, L_H_STAKE, L_H_BUYS, L_H_TWISTED, L_H_DOUBLED,
 L_H_SPLIT, L_H_SHOOT, L_H_BUST, L_H_DECLARED, L_N) = range(65)
# Float scales (ObservationEncoder._scale_*), in this order.
F_CHIPS, F_SEEN, F_PACK, F_CARDS, F_BALANCE_UNIT, F_N = range(6)


@hot
def _squash(chips, unit):
    x = chips / unit
    return x / (1.0 + abs(x))


@hot_ir
def banker_seat_of_round(st, t):
    """PontoonGame.banker_seat_of_round: the seat banking the round once it is seated, the table's
    banker before (the encoder and the step's info both read it here)."""
    return st.tab[t, TB_ROUND_BANKER] if st.tab[t, TB_SEATED] else st.tab[t, TB_BANKER]


@hot_ir
def _ix(i):
    """``i``, known not to be negative, as an unsigned array index. Numba follows Python in reading
    a negative signed index from the end, so it adds a test-and-add to every access with one (and
    LLVM cannot drop it for a value read from an array, such as the layout's offsets); an unsigned
    index has none. In the encoder, whose every write goes to such an offset, this took a table-step
    of the vector env from about 11,000 machine instructions to about 8,700 (callgrind,
    ``docs/batched.md``)."""
    return np.uint64(i)


@hot_inline
def _write_hand_cards(st, t, k, h, sees_all, visible, out, ranks_at, acc_others):
    """Rank counts of the visible cards (to ``out[ranks_at:]`` and/or the others' sum); returns
    (visible count, pips, ace)."""
    row = _ix(t)
    known = 0
    pips = 0
    ace = 0
    for c in range(st.hand[row, k, h, HF_N_CARDS]):
        if sees_all or st.hand[row, k, h, _public_at(st, c)] or c < visible:
            card = st.hand[row, k, h, HF_CARDS + c]
            known += 1
            v = _value(card)
            pips += v
            if v == 1:
                ace = 1
            if ranks_at >= 0:
                out[_ix(ranks_at + _rank(card))] += 0.25
            if acc_others >= 0:
                out[_ix(acc_others + _rank(card))] += 0.25
    return known, pips, ace


@hot_inline
def encode(st, rt, cfg, fs, lay, high, t, seat, out):
    """ObservationEncoder.encode(observe(game, seat)) for table ``t``, into ``out`` (float32).

    Inlined at its one site in :func:`env_step` and :func:`encode_tables`: as a call it took
    about 90 words of arguments on the stack, and those pushes were 22-30% of a 4-player vector
    step (perf, one core; ``docs/batched.md``). The cold sites call :func:`encode_one`."""
    out[:] = 0.0
    row = _ix(t)
    S = cfg[tb.C_SEATS]
    P = cfg[tb.C_PLAYERS]
    B = P
    chips = fs[F_CHIPS]
    unit = fs[F_BALANCE_UNIT]
    seated = st.tab[row, TB_SEATED]
    banker = banker_seat_of_round(st, row)
    is_banker = seat == banker
    to_act = current_seat(st, cfg, t) == seat
    active = 0
    if to_act:
        if st.tab[row, TB_PHASE] == PH_PLAYER_TURN:
            active = st.seat[row, st.tab[row, TB_TURN], SE_ACTIVE]
        elif st.tab[row, TB_PHASE] == PH_BANKER_TURN:
            active = st.tab[row, TB_BANKER_ACTIVE]
    T = lay[L_TABLE]
    out[_ix(T + lay[L_PHASE] + st.tab[row, TB_PHASE])] = 1.0
    out[_ix(T + lay[L_IS_BANKER])] = 1.0 if is_banker else 0.0
    out[_ix(T + lay[L_TO_ACT])] = 1.0 if to_act else 0.0
    out[_ix(T + lay[L_DOUBLED])] = 1.0 if st.tab[row, TB_STAKES_DOUBLED] else 0.0
    for r in range(13):
        out[_ix(T + lay[L_SEEN] + r)] = st.tab[row, TB_SEEN + r] * fs[F_SEEN]
    out[_ix(T + lay[L_PACK])] = st.tab[row, TB_SIZE] * fs[F_PACK]
    out[_ix(T + lay[L_BALANCE])] = _squash(st.seat[row, seat, SE_BALANCE], unit)
    looked = st.tab[row, TB_LOOKED]
    # own hands: the banker's (as he sees them) or this player's (all cards)
    own_slot = -1
    if is_banker:
        own_slot = B if seated else -1
    elif seated:
        own_slot = _wrap(seat - st.tab[row, TB_ROUND_BANKER] - 1, S)
    if own_slot >= 0:
        count = min(st.seat[row, own_slot, SE_N_HANDS], lay[L_OWN_COUNT])
        for h in range(count):
            base = lay[L_OWN] + h * lay[L_OWN_STRIDE]
            n = st.hand[row, own_slot, h, HF_N_CARDS]
            sees_all = np.int64(0 if is_banker else 1)
            known, pips, ace = _write_hand_cards(st, t, own_slot, h, sees_all, looked, out, base + lay[L_O_RANKS], np.int64(-1))
            out[_ix(base + lay[L_O_PRESENT])] = 1.0
            out[_ix(base + lay[L_O_ACTIVE])] = 1.0 if (to_act and h == active) else 0.0
            out[_ix(base + lay[L_O_HIDDEN])] = (n - known) / 2.0
            out[_ix(base + lay[L_O_NCARDS])] = n * fs[F_CARDS]
            out[_ix(base + lay[L_O_TOTAL])] = _rt2(rt, tb.RT_TOTAL, pips, ace) / 21.0
            out[_ix(base + lay[L_O_SOFT])] = 1.0 if (_rt2(rt, tb.RT_SOFT, pips, ace) != 0) else 0.0
            out[_ix(base + lay[L_O_STAKE])] = st.hand[row, own_slot, h, HF_STAKE] * chips
            out[_ix(base + lay[L_O_INITIAL])] = st.hand[row, own_slot, h, HF_INITIAL] * chips
            out[_ix(base + lay[L_O_LAST_BUY])] = st.hand[row, own_slot, h, HF_LAST_BUY] * chips
            out[_ix(base + lay[L_O_BUYS])] = st.hand[row, own_slot, h, HF_BUYS] / 3.0
            out[_ix(base + lay[L_O_TWISTED])] = 1.0 if st.hand[row, own_slot, h, HF_TWISTED] else 0.0
            out[_ix(base + lay[L_O_DOUBLED])] = 1.0 if st.hand[row, own_slot, h, HF_DOUBLED] else 0.0
            out[_ix(base + lay[L_O_SPLIT])] = 1.0 if st.hand[row, own_slot, h, HF_SPLIT] else 0.0
            out[_ix(base + lay[L_O_DONE])] = 1.0 if st.hand[row, own_slot, h, HF_DONE] else 0.0
            out[_ix(base + lay[L_O_BUST])] = 1.0 if st.hand[row, own_slot, h, HF_BUST] else 0.0
            out[_ix(base + lay[L_O_DECLARED])] = 1.0 if st.hand[row, own_slot, h, HF_DECLARED] else 0.0
    if seated:
        count = min(st.seat[row, B, SE_N_HANDS], lay[L_BANK_COUNT])
        for h in range(count):
            base = lay[L_BANK] + h * lay[L_BANK_STRIDE]
            n = st.hand[row, B, h, HF_N_CARDS]
            visible = looked if is_banker else 0
            known, pips, ace = _write_hand_cards(st, t, B, h, np.int64(0), visible, out, base + lay[L_B_RANKS], np.int64(-1))
            out[_ix(base + lay[L_B_PRESENT])] = 1.0
            out[_ix(base + lay[L_B_HIDDEN])] = (n - known) / 2.0
            out[_ix(base + lay[L_B_NCARDS])] = n * fs[F_CARDS]
            out[_ix(base + lay[L_B_TOTAL])] = _rt2(rt, tb.RT_TOTAL, pips, ace) / 21.0
            out[_ix(base + lay[L_B_SOFT])] = 1.0 if (_rt2(rt, tb.RT_SOFT, pips, ace) != 0) else 0.0
            out[_ix(base + lay[L_B_SPLIT])] = 1.0 if st.hand[row, B, h, HF_SPLIT] else 0.0
            out[_ix(base + lay[L_B_DONE])] = 1.0 if st.hand[row, B, h, HF_DONE] else 0.0
    for other in range(S):
        slot = _wrap(other - seat, S)
        if slot == 0:
            continue
        base = lay[L_SEATS] + (slot - 1) * lay[L_SEAT_STRIDE]
        pk = -1
        if seated and other != st.tab[row, TB_ROUND_BANKER]:
            pk = _wrap(other - st.tab[row, TB_ROUND_BANKER] - 1, S)
        out[_ix(base + lay[L_S_IS_BANKER])] = 1.0 if other == banker else 0.0
        out[_ix(base + lay[L_S_IN_ROUND])] = 1.0 if (pk >= 0 and st.seat[row, pk, SE_N_HANDS] > 0) else 0.0
        out[_ix(base + lay[L_S_BALANCE])] = _squash(st.seat[row, other, SE_BALANCE], unit)
        if pk < 0:
            continue
        count = min(st.seat[row, pk, SE_N_HANDS], lay[L_S_HAND_COUNT])
        for h in range(count):
            hb = base + lay[L_S_HANDS] + h * lay[L_H_STRIDE]
            n = st.hand[row, pk, h, HF_N_CARDS]
            known, pips, ace = _write_hand_cards(st, t, pk, h, np.int64(0), np.int64(0), out, np.int64(-1), lay[L_OTHERS])
            out[_ix(hb + lay[L_H_PRESENT])] = 1.0
            out[_ix(hb + lay[L_H_NCARDS])] = n * fs[F_CARDS]
            out[_ix(hb + lay[L_H_KNOWN])] = known * fs[F_CARDS]
            out[_ix(hb + lay[L_H_TOTAL])] = _rt2(rt, tb.RT_TOTAL, pips, ace) / 21.0
            out[_ix(hb + lay[L_H_SOFT])] = 1.0 if (_rt2(rt, tb.RT_SOFT, pips, ace) != 0) else 0.0
            out[_ix(hb + lay[L_H_STAKE])] = st.hand[row, pk, h, HF_STAKE] * chips
            out[_ix(hb + lay[L_H_BUYS])] = st.hand[row, pk, h, HF_BUYS] / 3.0
            out[_ix(hb + lay[L_H_TWISTED])] = 1.0 if st.hand[row, pk, h, HF_TWISTED] else 0.0
            out[_ix(hb + lay[L_H_DOUBLED])] = 1.0 if st.hand[row, pk, h, HF_DOUBLED] else 0.0
            out[_ix(hb + lay[L_H_SPLIT])] = 1.0 if st.hand[row, pk, h, HF_SPLIT] else 0.0
            out[_ix(hb + lay[L_H_BUST])] = 1.0 if st.hand[row, pk, h, HF_BUST] else 0.0
            out[_ix(hb + lay[L_H_DECLARED])] = 1.0 if st.hand[row, pk, h, HF_DECLARED] else 0.0
    for i in range(out.size):
        if out[i] > high[i]:
            out[i] = high[i]


@hot
def encode_one(st, rt, cfg, fs, lay, high, t, seat, out):
    """:func:`encode` as a call, for the sites off the step's path (:func:`env_outputs`)."""
    encode(st, rt, cfg, fs, lay, high, t, seat, out)


@hot_entry
def encode_tables(st, rt, cfg, fs, lay, high, idx, seats, out):
    for i in range(idx.size):
        encode(st, rt, cfg, fs, lay, high, np.uint64(idx[i]), seats[i], out[i])


@hot_entry
def mask_tables(n, kinds, lows, highs, slot_kind, slot_type, slot_level, mask, amounts):
    for i in range(n.size):
        legal_ids(kinds[i], lows[i], highs[i], n[i], slot_kind, slot_type, slot_level, mask[i], amounts[i])


# ---------------------------------------------------------------------------------------- episodes
# PontoonEnv's episode logic (reset, _advance, _start_round, _draw_learner_seat), per table.


@hot
def _draw_learner(st, ep, cfg, ecfg, opp_pol, seat_pol, t):
    S = cfg[tb.C_SEATS]
    if ecfg[E_ROLE_BANKER]:
        ep.learner[t] = st.tab[t, TB_BANKER] if ecfg[E_BANK_ROTATION] else 0
    elif ecfg[E_LEARNER_SEAT] >= 0:
        ep.learner[t] = ecfg[E_LEARNER_SEAT]
    elif ecfg[E_ROUND_EPISODES] or ep.rounds_played[t] == 0:
        pick = bounded(ep.env_rng, t, S - 1)
        seat = 0
        for s in range(S):
            if s == st.tab[t, TB_BANKER]:
                continue
            if pick == 0:
                seat = s
                break
            pick -= 1
        ep.learner[t] = seat
    for s in range(S):
        seat_pol[t, s, 0] = opp_pol[s, 0]
        seat_pol[t, s, 1] = opp_pol[s, 1]
    seat_pol[t, ep.learner[t], 0] = -1
    seat_pol[t, ep.learner[t], 1] = -1


@hot
def _fresh(st, ep, cfg, ecfg, t):
    fresh_table(st, cfg, t, ecfg[E_SEED], ep.generation[t])
    ep.env_rng[t] = stream_seed(ecfg[E_SEED], np.int64(STREAM_ENV), t, ep.generation[t])
    ep.generation[t] += 1
    ep.rounds_played[t] = 0


@hot_ir
def _start_round(st, rt, cfg, ep, t):
    ep.rounds_played[t] += 1
    new_round(st, rt, cfg, t)


@hot
def _pay_out(st, ep, t):
    """The learner's chips since the last payout become this step's reward."""
    balance = st.seat[t, ep.learner[t], SE_BALANCE]
    ep.reward[t] += balance - ep.mark[t]
    ep.mark[t] = balance


@hot_ir
def env_advance(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, miss, need, t, scratch):
    """Play on until the learner decides, an external seat decides, the episode ends, or an optimal
    player's move is to be looked up (``NEED_LOOKUP``: answered by :func:`env_play_on`, which calls
    this again)."""
    while True:
        play(st, rt, cfg, t, pol, seat_pol, miss, need, scratch)
        if need[t] == NEED_LOOKUP or need[t] == NEED_ERROR:
            return
        learner = ep.learner[t]
        if st.tab[t, TB_PHASE] != PH_OVER:
            if current_seat(st, cfg, t) == learner:
                need[t] = NEED_LEARNER
                if not ep.in_reset[t]:
                    _pay_out(st, ep, t)
            else:
                need[t] = NEED_CALLBACK
            return
        if not ep.in_reset[t]:
            ep.rounds_finished[t] += 1
            ep.round_result[t] = st.seat[t, learner, SE_RESULT]
        if ecfg[E_ROUND_EPISODES]:
            if ep.acted[t]:
                ep.terminated[t] = True
                _pay_out(st, ep, t)
                need[t] = NEED_ENDED
                return
            ep.skipped[t] += 1
            if ep.skipped[t] > MAX_SKIPPED_ROUNDS:
                st.tab[t, TB_ERROR] = 2
                need[t] = NEED_ERROR
                return
            ep.mark[t] = st.seat[t, learner, SE_BALANCE]
            _start_round(st, rt, cfg, ep, t)
            continue
        if ep.rounds_played[t] >= ecfg[E_SESSION_ROUNDS]:
            if ep.in_reset[t]:
                # A session with no decision for the learner: reset deals a fresh one.
                ep.skipped[t] += 1
                _fresh(st, ep, cfg, ecfg, t)
                _draw_learner(st, ep, cfg, ecfg, opp_pol, seat_pol, t)
                ep.mark[t] = st.seat[t, ep.learner[t], SE_BALANCE]
                _start_round(st, rt, cfg, ep, t)
                continue
            ep.truncated[t] = True
            _pay_out(st, ep, t)
            need[t] = NEED_ENDED
            return
        _start_round(st, rt, cfg, ep, t)


@njit(cache=True, inline="always")
def env_play_on(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, t, scratch):
    """:func:`env_advance`, answering each optimal player's lookup from ``optimal`` and playing on,
    until the table waits for something else (a decision, a missing key, the episode's end).

    Inlined into each caller with the advance and the decision loop inside it, and called from one
    place in each: numba compiles every function it does not inline with a copy of all its
    callees linked in and optimised again, so each extra function holding the round loop cost
    2-3 s of the first compile (``docs/batched.md``)."""
    while True:
        env_advance(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, miss, need, t, scratch)
        if not (need[t] == NEED_LOOKUP and answer_lookup(optimal, miss, need, t)):
            return


@hot_ir
def _begin_table(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, miss, need, t, fresh, scratch):
    """Start a new episode at table ``t`` (on a fresh table if ``fresh``): its first round dealt up
    to the first decision; the caller plays on (:func:`env_play_on`)."""
    if fresh or not ecfg[E_ROUND_EPISODES] or st.tab[t, TB_PHASE] != PH_OVER:
        _fresh(st, ep, cfg, ecfg, t)
    _draw_learner(st, ep, cfg, ecfg, opp_pol, seat_pol, t)
    ep.mark[t] = st.seat[t, ep.learner[t], SE_BALANCE]
    ep.acted[t] = False
    ep.in_reset[t] = True
    ep.skipped[t] = 0
    _start_round(st, rt, cfg, ep, t)


@hot_entry
def env_apply(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, idx, kinds, amounts, learner,
              scratch):
    """Apply one action per table (the learner's where ``learner``, else an external seat's) and play on
    (``scratch`` as for :func:`play_tables`)."""
    for i in range(idx.size):
        t = np.uint64(idx[i])
        apply_action(st, rt, cfg, t, kinds[i], amounts[i])
        if learner:
            ep.acted[t] = True
            ep.in_reset[t] = False
        env_play_on(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, t, scratch)


@hot_entry
def env_resume(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, idx, scratch):
    """Play on at tables that paused for a missing optimal-table key (now solved; ``scratch`` as
    for :func:`play_tables`)."""
    for i in range(idx.size):
        t = np.uint64(idx[i])
        env_play_on(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, t, scratch)


@hot_inline
def _write_live(st, rt, cfg, fs, lay, high, ep, slot_kind, slot_type, slot_level, obs, mask, amounts,
                kinds, lows, highs, t):
    """Table ``t``'s learner observation and action mask (for :func:`env_outputs`)."""
    encode_one(st, rt, cfg, fs, lay, high, t, ep.learner[t], obs[t])
    n = legal(st, rt, cfg, t, kinds, lows, highs)
    legal_ids(kinds, lows, highs, n, slot_kind, slot_type, slot_level, mask[t], amounts)


@hot
def _write_info(st, ep, t):
    """Table ``t``'s entries of the step's ``info`` (the learner's role, chips and the round's
    index) into the episode arrays, while the table is in cache: read afterwards from Python, the
    same three values took a strided pass over every table's state rows (about 40-100 us a step at
    4,096 tables, most of the env's own Python time)."""
    seat = ep.learner[t]
    banker = banker_seat_of_round(st, t)
    ep.info_banks[t] = banker == seat
    ep.info_balance[t] = st.seat[t, seat, SE_BALANCE]
    ep.info_round[t] = st.tab[t, TB_ROUND_INDEX]


STAGE_DONE, STAGE_STEP, STAGE_BEGIN = 0, 1, 2
"""Where :func:`env_step` left a table: done (its observation and mask written, and its final
observation if its episode ended); waiting after the learner's action for what only Python can
answer (an external seat, a missing optimal-table key, an error), nothing written; or waiting so at
the start of the episode that replaced an ended one, its final observation written."""

START_NONE, START_KEEP, START_FRESH = 0, 1, 2
"""What :func:`env_step` called with ``begin`` does at each table: nothing; start an episode (on
the table as it is where the episode's rules allow, as :func:`_begin_table`); start one on a fresh
table."""


@hot_entry
def env_step(st, rt, cfg, fs, lay, high, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, ids, slot_kind,
             slot_type, slot_level, obs, mask, final_obs, final_dirty, valid, ended, stage, begin, start, scratch,
             amounts):
    """A whole vector step, one table at a time: the learner's action id checked against the legal
    ids (``valid[t]`` False when illegal, nothing applied), applied, the table played on to the
    learner's next decision; where the episode ended (or the action was illegal: the single env's
    penalty ends it) its last observation into ``final_obs[t]``, ``ended[t]`` set and the next
    episode begun (on a fresh table after an illegal action); then the observation and mask.
    First, where ``final_dirty[t]``, the row ``final_obs[t]`` still holds an earlier step's final
    observation (the buffer is reused): it is zeroed and the flag cleared, in either mode.

    All of it is done per table while the table's state is in cache, instead of in one pass over
    every table per stage (four passes over about 22 MB of table state at 4,096 tables; measured
    with the vector env's reuse of ``final_obs`` buffers, x1.25 learner steps/s, ``docs/batched.md``).
    A table that waits for Python (``stage[t]`` not ``STAGE_DONE``) is finished by the caller, as
    :class:`~pontoon_env.envs.vector.PontoonVectorEnv` does.

    With ``begin`` the same pass starts episodes instead (the vector env's reset, and the
    autoreset of a table finished in Python): at each table whose ``start[t]`` is not
    ``START_NONE`` a new episode (on a fresh table for ``START_FRESH``), played to the learner's
    first decision, then its observation and mask (``stage[t]`` ``STAGE_BEGIN`` where it waits for
    Python instead); ``ids``, ``valid``, ``ended`` and the episode flags are not touched. One entry
    point for both, because numba compiles each entry point with a copy of the whole round loop
    linked in: a separate one for the start cost about 3 s more of the first compile.

    The work arrays come from the caller (``scratch`` as for :func:`play_tables`; ``amounts``
    int64, one entry per action id), so that the step compiles without reference counting
    (:func:`play_tables` says what that cost). The learner's id is checked by :func:`legal_id`
    alone; the whole mask is built once a step, for the next decision."""
    kinds = scratch[3]
    lows = scratch[4]
    highs = scratch[5]
    for t in range(np.uint64(ids.size)):
        after = np.int64(t) + 1
        if after < ids.size:
            prefetch_table(st, np.uint64(after))
            for word in range(0, obs.shape[1], 16):  # the next observation row (16 float32 a line)
                _prefetch_write(obs, after * obs.shape[1] + word)
            if final_dirty[after]:  # and its final-observation row, which is zeroed below for certain
                for word in range(0, obs.shape[1], 16):
                    _prefetch_write(final_obs, after * obs.shape[1] + word)
        if final_dirty[t]:  # an earlier step's final observation: the buffer hands out zeros elsewhere
            final_obs[t, :] = 0.0
            final_dirty[t] = False
        final = False  # the episode ended: its last observation is due (then the next episode)
        fresh = False  # ... and the next one starts on a fresh table
        if begin:
            if start[t] == START_NONE:
                continue
            begun = True
            _begin_table(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, miss, need, t, start[t] == START_FRESH,
                         scratch)
        else:
            ep.reward[t] = 0
            ep.terminated[t] = False
            ep.truncated[t] = False
            ep.rounds_finished[t] = 0
            ended[t] = False
            n = legal(st, rt, cfg, t, kinds, lows, highs)
            a = ids[t]
            ok, amount = legal_id(kinds, lows, highs, n, slot_kind, slot_type, slot_level, a)
            valid[t] = ok
            begun = not ok
            if ok:
                apply_action(st, rt, cfg, t, slot_kind[a], amount)
                ep.acted[t] = True
                ep.in_reset[t] = False
            else:  # the single env's penalty ends the episode: the next one on a fresh table
                ended[t] = True
                final = True
                fresh = True
        # The one place the round is played on (env_play_on is inlined here) and the one place an
        # observation is written (encode is inlined here): the episode's last one into final_obs
        # before the next episode begins, else the learner's next one.
        while True:
            if not final:
                env_play_on(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, optimal, miss, need, t, scratch)
                final = not begun and need[t] == NEED_ENDED
                if final:
                    begun = True
                    ended[t] = True
            if final or need[t] == NEED_LEARNER:
                encode(st, rt, cfg, fs, lay, high, t, ep.learner[t], (final_obs if final else obs)[t])
            if not final:
                break
            _begin_table(st, rt, cfg, ecfg, ep, pol, seat_pol, opp_pol, miss, need, t, fresh, scratch)
            final = False
            fresh = False
        _write_info(st, ep, t)  # a table left waiting has it written again when Python finishes it
        if need[t] != NEED_LEARNER:
            stage[t] = STAGE_BEGIN if begun else STAGE_STEP
            continue
        n = legal(st, rt, cfg, t, kinds, lows, highs)
        legal_ids(kinds, lows, highs, n, slot_kind, slot_type, slot_level, mask[t], amounts)
        stage[t] = STAGE_DONE


@njit(cache=True)
def masks_at(st, rt, cfg, idx, slot_kind, slot_type, slot_level, mask, amounts):
    """The action-id mask of the seat to act at each table of ``idx`` (all False once over)."""
    kinds = np.empty(MAX_LEGAL, dtype=np.int64)
    lows = np.empty(MAX_LEGAL, dtype=np.int64)
    highs = np.empty(MAX_LEGAL, dtype=np.int64)
    for i in range(idx.size):
        n = legal(st, rt, cfg, np.uint64(idx[i]), kinds, lows, highs)
        legal_ids(kinds, lows, highs, n, slot_kind, slot_type, slot_level, mask[i], amounts[i])


@hot_entry
def random_legal_ids(mask, state, out):
    """A uniformly random legal id per row (for benchmarks and smoke tests)."""
    for i in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            if mask[i, a]:
                count += 1
        pick = bounded(state, np.int64(0), count)
        for a in range(mask.shape[1]):
            if mask[i, a]:
                if pick == 0:
                    out[i] = a
                    break
                pick -= 1


@njit(cache=True)
def env_outputs(st, rt, cfg, fs, lay, high, ep, slot_kind, slot_type, slot_level, obs, mask, write, final_obs):
    """The learner observations and action masks of the tables in one pass: per table, ``write``
    says which (``WRITE_LIVE``: its observation and mask; ``WRITE_FINAL``: the observation of the
    episode that just ended, into ``final_obs``, taken before the autoreset; ``WRITE_NONE``:
    nothing, so that a step encodes each table once)."""
    kinds = np.empty(MAX_LEGAL, dtype=np.int64)
    lows = np.empty(MAX_LEGAL, dtype=np.int64)
    highs = np.empty(MAX_LEGAL, dtype=np.int64)
    amounts = np.zeros(slot_kind.size, dtype=np.int64)
    for t in range(np.uint64(obs.shape[0])):
        if write[t] == WRITE_NONE:
            continue
        _write_info(st, ep, t)
        if write[t] == WRITE_FINAL:
            encode_one(st, rt, cfg, fs, lay, high, t, ep.learner[t], final_obs[t])
            continue
        _write_live(st, rt, cfg, fs, lay, high, ep, slot_kind, slot_type, slot_level, obs, mask, amounts,
                    kinds, lows, highs, t)
