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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from pontoon_env.batched import tables as tb
from pontoon_env.batched.rng import STREAM_DECK, STREAM_ENV, STREAM_SEAT, bounded, shuffle_in_place, stream_seed
from pontoon_env.game.actions import ActionKind, Phase

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

# Episode options (env config vector).
E_ROUND_EPISODES, E_SESSION_ROUNDS, E_ROLE_BANKER, E_LEARNER_SEAT, E_BANK_ROTATION, E_SEED, E_N = range(7)
MAX_SKIPPED_ROUNDS = 1000


# ---------------------------------------------------------------------------------------- cards


@njit(cache=True, inline="always")
def _rank(card):
    return card >> 2


@njit(cache=True, inline="always")
def _value(card):
    r = (card >> 2) + 1
    return 10 if r > 10 else r


@njit(cache=True, inline="always")
def hand_total(st, rt, t, k, h):
    """Best total and softness of hand ``(k, h)``."""
    p = st.pips[t, k, h]
    a = 1 if st.ace[t, k, h] else 0
    return rt.total[p, a], rt.soft[p, a]


@njit(cache=True, inline="always")
def is_natural(st, rt, t, k, h):
    if st.n_cards[t, k, h] != 2:
        return False
    total, _ = hand_total(st, rt, t, k, h)
    return total == BLACKJACK


@njit(cache=True, inline="always")
def player_seat(st, cfg, t, k):
    """The seat of player slot ``k`` (turn order from the round's banker's left)."""
    return (st.round_banker[t] + 1 + k) % cfg[tb.C_SEATS]


@njit(cache=True)
def current_seat(st, cfg, t):
    """The seat that decides now (PontoonGame.current_seat), -1 once the round is over."""
    phase = st.phase[t]
    if phase == PH_OVER:
        return -1
    if phase == PH_BANKER_DOUBLE or phase == PH_BANKER_TURN:
        return st.banker[t]
    if phase == PH_TAKE_BANK:
        return st.candidates[t, 0]
    return player_seat(st, cfg, t, st.turn[t])


# ---------------------------------------------------------------------------------------- the pack


@njit(cache=True)
def _see(st, t, card):
    st.seen[t, card >> 2] += 1


@njit(cache=True)
def _to_bottom(st, cfg, t, card):
    K = cfg[tb.C_PACK_SIZE]
    st.pack[t, (st.head[t] + st.size[t]) % K] = card
    st.size[t] += 1


@njit(cache=True)
def _discard(st, t, card):
    st.discards[t, st.n_discards[t]] = card
    st.n_discards[t] += 1


@njit(cache=True)
def _pack_shuffle(st, cfg, t):
    """Pack.shuffle: the pack (top first) then the used pile, shuffled together."""
    K = cfg[tb.C_PACK_SIZE]
    n = st.size[t]
    order = np.empty(n + st.n_discards[t], dtype=np.int64)
    for i in range(n):
        order[i] = st.pack[t, (st.head[t] + i) % K]
    for i in range(st.n_discards[t]):
        order[n + i] = st.discards[t, i]
    total = n + st.n_discards[t]
    shuffle_in_place(st.rng, t, order, total)
    for i in range(total):
        st.pack[t, i] = order[i]
    st.head[t] = 0
    st.size[t] = total
    st.n_discards[t] = 0


@njit(cache=True)
def _pack_cut(st, cfg, t):
    """Pack.cut: rotate by a random 1..len-1 cards."""
    n = st.size[t]
    if n <= 1:
        return
    K = cfg[tb.C_PACK_SIZE]
    cut = 1 + bounded(st.rng, t, n - 1)
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        order[i] = st.pack[t, (st.head[t] + (i + cut) % n) % K]
    for i in range(n):
        st.pack[t, i] = order[i]
    st.head[t] = 0


@njit(cache=True)
def _shuffle_and_cut(st, cfg, t):
    _pack_shuffle(st, cfg, t)
    _pack_cut(st, cfg, t)
    st.seen[t, :] = 0
    st.fresh[t] = st.size[t]


@njit(cache=True)
def _restart_seen(st, cfg, t):
    """PontoonGame._restart_seen: recount the face-up cards of the round's hands."""
    st.seen[t, :] = 0
    if st.seated[t]:
        P = cfg[tb.C_PLAYERS]
        for k in range(P + 1):
            for h in range(st.n_hands[t, k]):
                if st.returned[t, k, h]:
                    continue
                for c in range(st.n_cards[t, k, h]):
                    if st.public[t, k, h, c]:
                        _see(st, t, st.cards[t, k, h, c])
    st.fresh[t] = st.size[t] if st.size[t] > 0 else st.n_discards[t]


@njit(cache=True)
def _draw(st, cfg, t):
    """Pack.draw: the top card; an empty pack first shuffles the used pile back in (-1: none left)."""
    if st.size[t] == 0:
        if st.n_discards[t] == 0:
            return -1
        _pack_shuffle(st, cfg, t)
    K = cfg[tb.C_PACK_SIZE]
    card = st.pack[t, st.head[t]]
    st.head[t] = (st.head[t] + 1) % K
    st.size[t] -= 1
    return card


@njit(cache=True)
def _add_card(st, t, k, h, card, face_up):
    n = st.n_cards[t, k, h]
    st.cards[t, k, h, n] = card
    st.public[t, k, h, n] = face_up
    st.n_cards[t, k, h] = n + 1
    value = _value(card)
    st.pips[t, k, h] += value
    if value == 1:
        st.ace[t, k, h] = True


@njit(cache=True)
def _deal(st, cfg, t, k, h, face_up):
    """PontoonGame._deal: restart the memory if the pack came round, draw, count a face-up card."""
    if st.fresh[t] <= 0:
        _restart_seen(st, cfg, t)
    card = _draw(st, cfg, t)
    if card < 0:
        st.error[t] = 1
        return
    st.fresh[t] -= 1
    _add_card(st, t, k, h, card, face_up)
    if face_up:
        _see(st, t, card)


@njit(cache=True)
def _return_hand(st, cfg, t, k, h):
    """A hand's cards go under the pack (carry-over) or onto the used pile, in order."""
    carry = cfg[tb.C_PACK] == tb.PACK_CARRY
    for c in range(st.n_cards[t, k, h]):
        if carry:
            _to_bottom(st, cfg, t, st.cards[t, k, h, c])
        else:
            _discard(st, t, st.cards[t, k, h, c])
    st.returned[t, k, h] = True


@njit(cache=True)
def _reveal(st, t, k, h, aces_only):
    """PontoonGame._reveal: turn the hand's cards face up (only its aces for a declared pagat pontoon)."""
    for c in range(st.n_cards[t, k, h]):
        card = st.cards[t, k, h, c]
        if aces_only and _rank(card) != 0:
            continue
        if not st.public[t, k, h, c]:
            st.public[t, k, h, c] = True
            _see(st, t, card)


@njit(cache=True)
def stack_pack(st, cfg, t, order):
    """Put a full pack order (top first) in place, as ``new_round(deck=order)`` does."""
    K = cfg[tb.C_PACK_SIZE]
    for i in range(K):
        st.pack[t, i] = order[i]
    st.head[t] = 0
    st.size[t] = K
    st.n_discards[t] = 0
    st.seen[t, :] = 0
    st.fresh[t] = K


@njit(cache=True)
def fresh_table(st, cfg, t, seed, generation):
    """A new table (PontoonGame.__init__ with the banker in seat 0): shuffled pack, zero chips."""
    S = cfg[tb.C_SEATS]
    K = cfg[tb.C_PACK_SIZE]
    st.rng[t] = stream_seed(seed, STREAM_DECK, t, generation)
    for s in range(S):
        st.seat_rng[t * S + s] = stream_seed(seed, STREAM_SEAT + s, t, generation)
    order = np.empty(K, dtype=np.int64)
    for i in range(K):
        order[i] = i % 52
    shuffle_in_place(st.rng, t, order, K)
    for i in range(K):
        st.pack[t, i] = order[i]
    st.head[t] = 0
    st.size[t] = K
    st.n_discards[t] = 0
    st.seen[t, :] = 0
    st.fresh[t] = K
    st.balance[t, :] = 0
    st.result[t, :] = 0
    st.banker[t] = 0
    st.round_banker[t] = 0
    st.seated[t] = False
    st.started[t] = False
    st.round_index[t] = 0
    st.dealer_rounds[t] = 0
    st.n_candidates[t] = 0
    st.phase[t] = PH_OVER
    st.stakes_doubled[t] = False
    st.looked[t] = 0
    st.error[t] = 0
    st.n_hands[t, :] = 0


# ---------------------------------------------------------------------------------------- chips


@njit(cache=True)
def _pay(st, t, payer, payee, amount):
    """PontoonGame._pay between two seats: the balance and this round's ledger result."""
    if amount <= 0 or payer == payee:
        return
    st.balance[t, payer] -= amount
    st.balance[t, payee] += amount
    st.result[t, payer] -= amount
    st.result[t, payee] += amount


@njit(cache=True)
def _settle(st, cfg, t, k, h, chips):
    """PontoonGame._settle_hand: chips > 0 the banker pays the hand's player."""
    seat = player_seat(st, cfg, t, k)
    if chips > 0:
        _pay(st, t, st.banker[t], seat, chips)
    elif chips < 0:
        _pay(st, t, seat, st.banker[t], -chips)
    st.payout[t, k, h] += chips
    st.settled[t, k, h] = True


# ---------------------------------------------------------------------------------------- hands


@njit(cache=True)
def _clear_hand(st, t, k, h):
    st.n_cards[t, k, h] = 0
    st.pips[t, k, h] = 0
    st.ace[t, k, h] = False
    st.stake[t, k, h] = 0
    st.initial[t, k, h] = 0
    st.split[t, k, h] = False
    st.last_buy[t, k, h] = 0
    st.buys[t, k, h] = 0
    st.twisted[t, k, h] = False
    st.doubled[t, k, h] = False
    st.done[t, k, h] = False
    st.bust[t, k, h] = False
    st.settled[t, k, h] = False
    st.declared[t, k, h] = False
    st.returned[t, k, h] = False
    st.payout[t, k, h] = 0


@njit(cache=True)
def _copy_hand(st, t, k, src, dst):
    st.n_cards[t, k, dst] = st.n_cards[t, k, src]
    st.pips[t, k, dst] = st.pips[t, k, src]
    st.ace[t, k, dst] = st.ace[t, k, src]
    st.stake[t, k, dst] = st.stake[t, k, src]
    st.initial[t, k, dst] = st.initial[t, k, src]
    st.split[t, k, dst] = st.split[t, k, src]
    st.last_buy[t, k, dst] = st.last_buy[t, k, src]
    st.buys[t, k, dst] = st.buys[t, k, src]
    st.twisted[t, k, dst] = st.twisted[t, k, src]
    st.doubled[t, k, dst] = st.doubled[t, k, src]
    st.done[t, k, dst] = st.done[t, k, src]
    st.bust[t, k, dst] = st.bust[t, k, src]
    st.settled[t, k, dst] = st.settled[t, k, src]
    st.declared[t, k, dst] = st.declared[t, k, src]
    st.returned[t, k, dst] = st.returned[t, k, src]
    st.payout[t, k, dst] = st.payout[t, k, src]
    for c in range(st.n_cards[t, k, src]):
        st.cards[t, k, dst, c] = st.cards[t, k, src, c]
        st.public[t, k, dst, c] = st.public[t, k, src, c]


@njit(cache=True)
def _recount(st, t, k, h):
    pips = 0
    ace = False
    for c in range(st.n_cards[t, k, h]):
        v = _value(st.cards[t, k, h, c])
        pips += v
        if v == 1:
            ace = True
    st.pips[t, k, h] = pips
    st.ace[t, k, h] = ace


@njit(cache=True)
def _split(st, cfg, t, k, h):
    """PontoonGame._split: the second card becomes a new hand after this one; one card to each."""
    moved = st.cards[t, k, h, 1]
    moved_public = st.public[t, k, h, 1]
    st.n_cards[t, k, h] = 1
    _recount(st, t, k, h)
    st.split[t, k, h] = True
    for j in range(st.n_hands[t, k] - 1, h, -1):
        _copy_hand(st, t, k, j, j + 1)
    new = h + 1
    _clear_hand(st, t, k, new)
    st.cards[t, k, new, 0] = moved
    st.public[t, k, new, 0] = True
    st.n_cards[t, k, new] = 1
    _recount(st, t, k, new)
    st.stake[t, k, new] = st.initial[t, k, h]
    st.initial[t, k, new] = st.initial[t, k, h]
    st.split[t, k, new] = True
    st.n_hands[t, k] += 1
    if not st.public[t, k, h, 0]:
        st.public[t, k, h, 0] = True
        _see(st, t, st.cards[t, k, h, 0])
    if not moved_public:
        _see(st, t, moved)
    _deal(st, cfg, t, k, h, False)
    _deal(st, cfg, t, k, new, False)


@njit(cache=True)
def _player_draw(st, rt, cfg, t, k, h, face_up):
    """PontoonGame._player_draw: a card; a bust pays at once and goes under the pack."""
    _deal(st, cfg, t, k, h, face_up)
    total, _ = hand_total(st, rt, t, k, h)
    if total > BLACKJACK:
        st.bust[t, k, h] = True
        st.done[t, k, h] = True
        if cfg[tb.C_REVEAL_BUSTS]:
            _reveal(st, t, k, h, False)
        _settle(st, cfg, t, k, h, -st.stake[t, k, h])
        _return_hand(st, cfg, t, k, h)


# ---------------------------------------------------------------------------------------- the round


@njit(cache=True)
def _change_banker(st, cfg, t, seat):
    st.banker[t] = seat
    st.dealer_rounds[t] = 0
    if cfg[tb.C_PACK] == tb.PACK_DEAL_ON and st.started[t] and st.phase[t] != PH_OVER:
        _shuffle_and_cut(st, cfg, t)


@njit(cache=True)
def _pontoon_candidates(st, rt, cfg, t, out):
    """Players whose unsplit pontoon passes the bank, in priority order; returns how many."""
    if st.banker_natural[t]:
        return 0
    n = 0
    for k in range(cfg[tb.C_PLAYERS]):
        if st.n_hands[t, k] == 1 and not st.split[t, k, 0] and is_natural(st, rt, t, k, 0):
            out[n] = player_seat(st, cfg, t, k)
            n += 1
    return n


@njit(cache=True)
def _next_banker(st, rt, cfg, t):
    mode = cfg[tb.C_BANK_PASSING]
    banker = st.banker[t]
    if mode == tb.PASS_PONTOON:
        found = np.empty(cfg[tb.C_SEATS], dtype=np.int64)
        n = _pontoon_candidates(st, rt, cfg, t, found)
        return found[0] if n > 0 else banker
    if mode == tb.PASS_HOLDER:
        return st.holders[t, 0] if st.n_holders[t] > 0 else banker
    if mode == tb.PASS_ROTATE:
        if not st.had_natural[t]:
            return banker
        if cfg[tb.C_MISERICORDE] and st.dealer_rounds[t] == 0:
            return banker
        if cfg[tb.C_OLD_MODE]:
            return st.holders[t, 0] if st.n_holders[t] > 0 else banker
        return (banker + 1) % cfg[tb.C_SEATS]
    return banker


@njit(cache=True)
def _step_included(cfg, step):
    if step == ST_STAKES_BEFORE:
        return cfg[tb.C_STAKE_BEFORE] != 0
    if step == ST_STAKES_AFTER:
        return cfg[tb.C_STAKE_BEFORE] == 0
    if step == ST_BANKER_DOUBLE:
        return cfg[tb.C_BANKER_DOUBLE] != 0
    return True


@njit(cache=True)
def _step(st, rt, cfg, t, step):
    """One automatic step; False when it stops at a decision."""
    P = cfg[tb.C_PLAYERS]
    B = P
    if step == ST_TAKE_BANK:
        if not st.take_step[t] or st.n_candidates[t] == 0:
            return True
        st.phase[t] = PH_TAKE_BANK
        return False
    if step == ST_SEAT:
        st.round_banker[t] = st.banker[t]
        st.seated[t] = True
        for k in range(P + 1):
            st.n_hands[t, k] = 1
            st.active[t, k] = 0
            _clear_hand(st, t, k, 0)
        st.banker_active[t] = 0
        return True
    if step == ST_STAKES_BEFORE or step == ST_STAKES_AFTER:
        while st.turn[t] < P:
            k = st.turn[t]
            if st.initial[t, k, 0] != 0:
                st.turn[t] += 1
                continue
            if cfg[tb.C_FIXED_STAKE]:
                st.stake[t, k, 0] = cfg[tb.C_MIN_STAKE]
                st.initial[t, k, 0] = cfg[tb.C_MIN_STAKE]
                st.turn[t] += 1
                continue
            st.phase[t] = PH_STAKE
            return False
        return True
    if step == ST_DEAL_FIRST or step == ST_DEAL_SECOND:
        for k in range(P):
            _deal(st, cfg, t, k, 0, False)
        _deal(st, cfg, t, B, 0, False)
        if step == ST_DEAL_SECOND and cfg[tb.C_LOOKS_AT_DEAL]:
            st.looked[t] = 2
        return True
    if step == ST_BANKER_DOUBLE:
        if st.looked[t] < 1:
            st.looked[t] = 1
        if st.asked_double[t]:
            return True
        st.asked_double[t] = True
        st.phase[t] = PH_BANKER_DOUBLE
        return False
    if step == ST_NATURALS:
        bnat = is_natural(st, rt, t, B, 0)
        st.banker_natural[t] = bnat
        st.n_holders[t] = 0
        for k in range(P):
            if is_natural(st, rt, t, k, 0):
                st.holders[t, st.n_holders[t]] = player_seat(st, cfg, t, k)
                st.n_holders[t] += 1
        if st.n_holders[t] > 0 or bnat:
            st.had_natural[t] = True
        aces_only = cfg[tb.C_NATURAL_ACE_ONLY] != 0
        for k in range(P):
            if is_natural(st, rt, t, k, 0):
                st.declared[t, k, 0] = True
                st.done[t, k, 0] = True
                _reveal(st, t, k, 0, aces_only)
        if cfg[tb.C_BANKER_NATURAL_AT_DEAL] and bnat:
            _reveal(st, t, B, 0, False)
            st.done[t, B, 0] = True
            for k in range(P):
                nat = 1 if is_natural(st, rt, t, k, 0) else 0
                _settle(st, cfg, t, k, 0, rt.banker_natural[nat] * st.stake[t, k, 0])
                st.done[t, k, 0] = True
            return True
        paid = cfg[tb.C_NATURAL_PAID]
        if paid and not bnat:
            for k in range(P):
                if is_natural(st, rt, t, k, 0):
                    _settle(st, cfg, t, k, 0, paid * st.stake[t, k, 0])
        return True
    if step == ST_PLAYER_TURNS:
        while st.turn[t] < P:
            k = st.turn[t]
            while st.active[t, k] < st.n_hands[t, k]:
                h = st.active[t, k]
                if not st.done[t, k, h]:
                    total, soft = hand_total(st, rt, t, k, h)
                    if rt.player_stops[total, 1 if soft else 0, st.n_cards[t, k, h]]:
                        st.done[t, k, h] = True
                if not st.done[t, k, h]:
                    st.phase[t] = PH_PLAYER_TURN
                    return False
                st.active[t, k] += 1
            st.turn[t] += 1
        return True
    if step == ST_REVEAL:
        for h in range(st.n_hands[t, B]):
            _reveal(st, t, B, h, False)
        st.looked[t] = st.n_cards[t, B, 0]
        every = True
        for k in range(P):
            for h in range(st.n_hands[t, k]):
                if not st.settled[t, k, h]:
                    every = False
        if every:
            for h in range(st.n_hands[t, B]):
                st.done[t, B, h] = True
        return True
    if step == ST_BANKER_TURN:
        while st.banker_active[t] < st.n_hands[t, B]:
            h = st.banker_active[t]
            if not st.done[t, B, h]:
                total, _ = hand_total(st, rt, t, B, h)
                if rt.banker_stops[total, st.n_cards[t, B, h]]:
                    st.done[t, B, h] = True
            if not st.done[t, B, h]:
                st.phase[t] = PH_BANKER_TURN
                return False
            st.banker_active[t] += 1
        st.banker_active[t] = st.n_hands[t, B] - 1
        return True
    if step == ST_SETTLE:
        for k in range(P):
            for h in range(st.n_hands[t, k]):
                if st.settled[t, k, h]:
                    continue
                _reveal(st, t, k, h, False)
                total, _ = hand_total(st, rt, t, k, h)
                split = 1 if st.split[t, k, h] else 0
                pclass = rt.player_class[total, st.n_cards[t, k, h], split]
                chips = 0
                for b in range(st.n_hands[t, B]):
                    btotal, _ = hand_total(st, rt, t, B, b)
                    bclass = rt.banker_class[btotal, st.n_cards[t, B, b]]
                    chips += rt.payout[pclass, total, split, bclass, btotal] * st.stake[t, k, h]
                _settle(st, cfg, t, k, h, chips)
        return True
    if step == ST_END:
        had_pontoon = st.had_natural[t]
        for k in range(P):
            for h in range(st.n_hands[t, k]):
                if is_natural(st, rt, t, k, h):
                    had_pontoon = True
        old = st.banker[t]
        nxt = _next_banker(st, rt, cfg, t)
        for k in range(P + 1):
            for h in range(st.n_hands[t, k]):
                if not st.returned[t, k, h]:
                    _return_hand(st, cfg, t, k, h)
        mode = cfg[tb.C_PACK]
        reshuffle = (
            mode == tb.PACK_FRESH
            or (had_pontoon and cfg[tb.C_SHUFFLE_AFTER_PONTOON] != 0)
            or (mode == tb.PACK_CUT and st.size[t] < cfg[tb.C_CUT_BELOW])
            or (mode == tb.PACK_DEAL_ON and nxt != old)
        )
        if reshuffle:
            _shuffle_and_cut(st, cfg, t)
        if nxt != old:
            if cfg[tb.C_TAKE_OVER_OPTIONAL]:
                found = np.empty(cfg[tb.C_SEATS], dtype=np.int64)
                n = _pontoon_candidates(st, rt, cfg, t, found)
                st.candidates[t, 0] = nxt
                m = 1
                for i in range(n):
                    if found[i] != nxt:
                        st.candidates[t, m] = found[i]
                        m += 1
                st.n_candidates[t] = m
                st.dealer_rounds[t] += 1
            else:
                _change_banker(st, cfg, t, nxt)
        else:
            st.dealer_rounds[t] += 1
        return True
    return True


@njit(cache=True)
def run_steps(st, rt, cfg, t):
    """PontoonGame._run: automatic steps until a decision is needed or the round is over."""
    while st.step[t] < ST_DONE:
        step = st.step[t]
        if _step_included(cfg, step):
            if not _step(st, rt, cfg, t, step):
                return
            if st.error[t]:
                return
        st.step[t] = step + 1
        st.turn[t] = 0
    st.phase[t] = PH_OVER


@njit(cache=True)
def new_round(st, rt, cfg, t):
    """PontoonGame.new_round (without a stacked deck: see :func:`stack_pack`)."""
    st.round_index[t] += 1
    st.result[t, :] = 0
    st.seated[t] = False
    st.n_hands[t, :] = 0
    st.had_natural[t] = False
    st.n_holders[t] = 0
    st.banker_natural[t] = False
    st.stakes_doubled[t] = False
    st.looked[t] = 0
    st.asked_double[t] = False
    st.take_step[t] = st.n_candidates[t] > 0
    st.step[t] = 0
    st.turn[t] = 0
    st.started[t] = True
    st.phase[t] = PH_STAKE
    run_steps(st, rt, cfg, t)


# ---------------------------------------------------------------------------------------- decisions


@njit(cache=True)
def buy_limits(buy_mode, initial, last_buy):
    """legality.buy_limits re-expressed (a formula over chips; pinned by a differential test)."""
    if buy_mode == tb.BUY_PAGAT:
        return initial, (last_buy if last_buy != 0 else 2 * initial)
    return 1, initial


@njit(cache=True)
def legal(st, rt, cfg, t, kinds, lows, highs):
    """The legal actions now, in PontoonGame.legal_actions order; returns how many."""
    phase = st.phase[t]
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
        k = st.turn[t]
        h = st.active[t, k]
        total, soft = hand_total(st, rt, t, k, h)
        n = st.n_cards[t, k, h]
        pair = 0
        if n == 2 and rt.pair[_rank(st.cards[t, k, h, 0]), _rank(st.cards[t, k, h, 1])]:
            pair = 1
        bits = rt.moves[total, 1 if soft else 0, n, 1 if st.twisted[t, k, h] else 0,
                        1 if st.doubled[t, k, h] else 0, 1 if st.buys[t, k, h] > 0 else 0, pair, st.n_hands[t, k]]
        m = 0
        for i in range(5):
            if bits & (1 << i):
                kinds[m] = MOVE_KINDS[i]
                lows[m] = 0
                highs[m] = 0
                if MOVE_KINDS[i] == K_BUY:
                    lo, hi = buy_limits(cfg[tb.C_BUY_LIMITS], st.initial[t, k, h], st.last_buy[t, k, h])
                    lows[m] = lo
                    highs[m] = hi
                m += 1
        return m
    if phase == PH_BANKER_TURN:
        h = st.banker_active[t]
        B = cfg[tb.C_PLAYERS]
        if cfg[tb.C_DEALER_HS17]:
            total, soft = hand_total(st, rt, t, B, h)
            kinds[0] = K_DRAW if rt.dealer_draws[total, 1 if soft else 0] else K_STAND
            lows[0], highs[0] = 0, 0
            return 1
        kinds[0], lows[0], highs[0] = K_STAND, 0, 0
        kinds[1], lows[1], highs[1] = K_DRAW, 0, 0
        return 2
    return 0


@njit(cache=True)
def apply_action(st, rt, cfg, t, kind, amount):
    """Apply a legal action for the seat to act and play on to the next decision."""
    phase = st.phase[t]
    if phase == PH_PLAYER_TURN:
        k = st.turn[t]
        h = st.active[t, k]
        if kind == K_STICK:
            st.done[t, k, h] = True
        elif kind == K_TWIST:
            st.twisted[t, k, h] = True
            _player_draw(st, rt, cfg, t, k, h, cfg[tb.C_TWIST_UP] != 0)
        elif kind == K_BUY:
            st.stake[t, k, h] += amount
            st.last_buy[t, k, h] = amount
            st.buys[t, k, h] += 1
            _player_draw(st, rt, cfg, t, k, h, False)
        elif kind == K_DOUBLE:
            st.stake[t, k, h] *= 2
            st.doubled[t, k, h] = True
            _player_draw(st, rt, cfg, t, k, h, True)
        elif kind == K_SPLIT:
            _split(st, cfg, t, k, h)
    elif phase == PH_BANKER_TURN:
        B = cfg[tb.C_PLAYERS]
        h = st.banker_active[t]
        if kind == K_DRAW:
            _deal(st, cfg, t, B, h, True)
        else:
            st.done[t, B, h] = True
    elif phase == PH_STAKE:
        k = st.turn[t]
        st.stake[t, k, 0] = amount
        st.initial[t, k, 0] = amount
        st.turn[t] += 1
    elif phase == PH_BANKER_DOUBLE:
        if kind == K_DOUBLE_STAKES:
            st.stakes_doubled[t] = True
            for k in range(cfg[tb.C_PLAYERS]):
                st.stake[t, k, 0] *= 2
                st.initial[t, k, 0] *= 2
    elif phase == PH_TAKE_BANK:
        candidate = st.candidates[t, 0]
        for i in range(st.n_candidates[t] - 1):
            st.candidates[t, i] = st.candidates[t, i + 1]
        st.n_candidates[t] -= 1
        if kind == K_TAKE_BANK:
            _change_banker(st, cfg, t, candidate)
            st.n_candidates[t] = 0
    if st.error[t]:
        return
    run_steps(st, rt, cfg, t)


# ---------------------------------------------------------------------------------------- native seats


@njit(cache=True, inline="always")
def _find(kinds, n, kind):
    for i in range(n):
        if kinds[i] == kind:
            return i
    return -1


@njit(cache=True, inline="always")
def _sized(low, high, choice):
    """agents.scripted.sized: min, max or a number of chips clamped into the range."""
    if choice == AMOUNT_MIN:
        return low
    if choice == AMOUNT_MAX:
        return high
    return min(max(choice, low), high)


@njit(cache=True)
def _known_total(st, rt, t, k, h, visible):
    """Total and softness of the cards of a hand a seat can see (public or among the first ``visible``)."""
    pips = 0
    ace = 0
    for c in range(st.n_cards[t, k, h]):
        if st.public[t, k, h, c] or c < visible:
            v = _value(st.cards[t, k, h, c])
            pips += v
            if v == 1:
                ace = 1
    return rt.total[pips, ace], rt.soft[pips, ace]


@njit(cache=True)
def _pending_pairs(st, rt, t, k, h):
    count = 0
    for j in range(h + 1, st.n_hands[t, k]):
        if st.n_cards[t, k, j] == 2 and not st.done[t, k, j]:
            if rt.pair[_rank(st.cards[t, k, j, 0]), _rank(st.cards[t, k, j, 1])]:
                count += 1
    return count


@njit(cache=True)
def optimal_key(st, rt, cfg, t, opt_id, kinds, n):
    """The lookup key of the optimal player's move (everything solver.scripted_move reads)."""
    k = st.turn[t]
    h = st.active[t, k]
    total, soft = hand_total(st, rt, t, k, h)
    legal_bits = 0
    for i in range(5):
        if _find(kinds, n, MOVE_KINDS[i]) >= 0:
            legal_bits |= 1 << i
    pair_value = 0
    if legal_bits & (1 << 3):
        pair_value = _value(st.cards[t, k, h, 0])
    small = (
        total
        | ((1 if soft else 0) << 6)
        | (np.int64(st.n_cards[t, k, h]) << 7)
        | ((1 if st.twisted[t, k, h] else 0) << 12)
        | ((1 if st.doubled[t, k, h] else 0) << 13)
        | ((1 if st.split[t, k, h] else 0) << 14)
        | ((1 if st.stakes_doubled[t] else 0) << 15)
        | (np.int64(pair_value) << 16)
        | (np.int64(st.n_hands[t, k]) << 20)
        | (np.int64(_pending_pairs(st, rt, t, k, h)) << 23)
        | (np.int64(legal_bits) << 26)
        | (np.int64(opt_id) << 32)
    )
    return (np.int64(small), np.int64(st.initial[t, k, h]), np.int64(st.last_buy[t, k, h]), np.int64(st.stake[t, k, h]))


@njit(cache=True)
def decide(st, rt, cfg, t, pol, p, kinds, lows, highs, n, optimal, miss):
    """A native seat's decision: (kind, amount, ok); ok False when the optimal table lacks the key."""
    kind = kinds[0]
    amount = lows[0]  # agents.scripted.first_legal: the fallback of every scripted policy
    policy = pol[p, P_KIND]
    phase = st.phase[t]
    seat = current_seat(st, cfg, t)
    if policy == POL_RANDOM:
        S = cfg[tb.C_SEATS]
        i = bounded(st.seat_rng, t * S + seat, n)
        return kinds[i], lows[i] + bounded(st.seat_rng, t * S + seat, highs[i] - lows[i] + 1), True
    if policy == POL_THRESHOLD or policy == POL_OPTIMAL:
        if phase == PH_TAKE_BANK:
            return K_TAKE_BANK, 0, True
        if phase == PH_STAKE:
            k = st.turn[t]
            if policy == POL_OPTIMAL:
                value = _value(st.cards[t, k, 0, 0]) if st.n_cards[t, k, 0] > 0 else 0
                high = pol[p, P_OPT_STAKE + value] == 1
                return K_STAKE, highs[0] if high else lows[0], True
            bet = pol[p, P_BET]
            if bet != BET_FIRST_CARD:
                return K_STAKE, _sized(lows[0], highs[0], bet), True
            strong = False
            if st.n_cards[t, k, 0] > 0:
                v = _value(st.cards[t, k, 0, 0])
                strong = v == 1 or v == 10
            return K_STAKE, highs[0] if strong else lows[0], True
        if phase == PH_PLAYER_TURN:
            k = st.turn[t]
            h = st.active[t, k]
            if policy == POL_OPTIMAL:
                has_move = False
                for i in range(n):
                    for j in range(5):
                        if kinds[i] == MOVE_KINDS[j]:
                            has_move = True
                if not has_move:
                    return kind, amount, True
                key = optimal_key(st, rt, cfg, t, pol[p, P_OPT_ID], kinds, n)
                if key not in optimal:
                    miss[t, 0], miss[t, 1], miss[t, 2], miss[t, 3] = key
                    return kind, amount, False
                move = optimal[key]
                if move == OPT_STICK:
                    want = K_STICK
                elif move == OPT_TWIST:
                    want = K_TWIST
                elif move == OPT_BUY_MIN or move == OPT_BUY_MAX:
                    i = _find(kinds, n, K_BUY)
                    if i < 0:
                        return kind, amount, True
                    return K_BUY, lows[i] if move == OPT_BUY_MIN else highs[i], True
                elif move == OPT_DOUBLE:
                    want = K_DOUBLE
                else:
                    want = K_SPLIT
                if _find(kinds, n, want) >= 0:
                    return want, 0, True
                return kind, amount, True
            total, soft = hand_total(st, rt, t, k, h)
            count = st.n_cards[t, k, h]
            if _find(kinds, n, K_SPLIT) >= 0 and count == 2:
                if pol[p, P_SPLIT_RANKS] & (1 << _rank(st.cards[t, k, h, 0])):
                    return K_SPLIT, 0, True
            if _find(kinds, n, K_DOUBLE) >= 0 and count == 2 and not soft:
                if pol[p, P_DOUBLE_ON] & (np.int64(1) << total):
                    return K_DOUBLE, 0, True
            target = pol[p, P_SOFT_STICK] if soft else pol[p, P_STICK]
            if total >= target and _find(kinds, n, K_STICK) >= 0:
                return K_STICK, 0, True
            i = _find(kinds, n, K_BUY)
            if i >= 0 and total <= pol[p, P_BUY_AT]:
                return K_BUY, _sized(lows[i], highs[i], pol[p, P_BUY_AMOUNT]), True
            if _find(kinds, n, K_TWIST) >= 0:
                return K_TWIST, 0, True
            if _find(kinds, n, K_STICK) >= 0:
                return K_STICK, 0, True
        return kind, amount, True
    # banker_threshold and casino_dealer
    if phase == PH_BANKER_TURN:
        if n == 1:
            return kind, amount, True
        B = cfg[tb.C_PLAYERS]
        total, soft = _known_total(st, rt, t, B, st.banker_active[t], st.looked[t])
        if policy == POL_CASINO_DEALER:
            draws = rt.dealer_draws[total, 1 if soft else 0]
        else:
            draws = total < pol[p, P_STAND]
        want = K_DRAW if draws else K_STAND
        if _find(kinds, n, want) >= 0:
            return want, 0, True
        return kind, amount, True
    if phase == PH_BANKER_DOUBLE:
        B = cfg[tb.C_PLAYERS]
        if pol[p, P_DOUBLE_ACE] and st.n_cards[t, B, 0] > 0 and (st.public[t, B, 0, 0] or st.looked[t] > 0):
            if _rank(st.cards[t, B, 0, 0]) == 0:
                return K_DOUBLE_STAKES, 0, True
        return K_NO_DOUBLE, 0, True
    return kind, amount, True


@njit(cache=True)
def is_banker_phase(phase):
    return phase == PH_BANKER_DOUBLE or phase == PH_BANKER_TURN


@njit(cache=True)
def play(st, rt, cfg, t, pol, seat_pol, optimal, miss, need):
    """Let native seats decide until an external seat is to act or the round is over."""
    kinds = np.empty(MAX_LEGAL, dtype=np.int64)
    lows = np.empty(MAX_LEGAL, dtype=np.int64)
    highs = np.empty(MAX_LEGAL, dtype=np.int64)
    while st.phase[t] != PH_OVER:
        if st.error[t]:
            need[t] = NEED_ERROR
            return
        seat = current_seat(st, cfg, t)
        p = seat_pol[t, seat, 1 if is_banker_phase(st.phase[t]) else 0]
        if p < 0:
            need[t] = NEED_CALLBACK
            return
        n = legal(st, rt, cfg, t, kinds, lows, highs)
        kind, amount, ok = decide(st, rt, cfg, t, pol, p, kinds, lows, highs, n, optimal, miss)
        if not ok:
            need[t] = NEED_MISS
            return
        apply_action(st, rt, cfg, t, kind, amount)
    need[t] = NEED_ERROR if st.error[t] else NEED_NONE


@njit(cache=True)
def play_tables(st, rt, cfg, idx, pol, seat_pol, optimal, miss, need):
    for i in range(idx.size):
        play(st, rt, cfg, idx[i], pol, seat_pol, optimal, miss, need)


@njit(cache=True)
def new_rounds(st, rt, cfg, idx, orders, stacked):
    """Start a round at each table of ``idx`` (from ``orders[i]`` where ``stacked``)."""
    for i in range(idx.size):
        t = idx[i]
        if stacked:
            stack_pack(st, cfg, t, orders[i])
        new_round(st, rt, cfg, t)


@njit(cache=True)
def legal_tables(st, rt, cfg, idx, n_legal, kinds, lows, highs):
    for i in range(idx.size):
        n_legal[i] = legal(st, rt, cfg, idx[i], kinds[i], lows[i], highs[i])


@njit(cache=True)
def apply_tables(st, rt, cfg, idx, kinds, amounts):
    for i in range(idx.size):
        apply_action(st, rt, cfg, idx[i], kinds[i], amounts[i])


@njit(cache=True)
def current_seats(st, cfg, idx, out):
    for i in range(idx.size):
        out[i] = current_seat(st, cfg, idx[i])


# ---------------------------------------------------------------------------------------- action ids


@njit(cache=True)
def _py_round(x):
    """Python's round(float) -> int: to the nearest integer, ties to even."""
    r = np.floor(x)
    diff = x - r
    if diff > 0.5 or (diff == 0.5 and int(r) % 2 != 0):
        r += 1.0
    return int(r)


@njit(cache=True)
def _resolve(level_type, level, low, high):
    """encoding.resolve_amount: 1 chips, 2 min, 3 max, 4 a fraction of the range."""
    if level_type == 2:
        return low
    if level_type == 3:
        return high
    if level_type == 4:
        return low + _py_round(level * (high - low))
    return min(max(np.int64(level), low), high)


@njit(cache=True)
def legal_ids(kinds, lows, highs, n, slot_kind, slot_type, slot_level, mask, amounts):
    """ActionTable.legal_ids: every legal id and its amount (of equal amounts the first id wins)."""
    mask[:] = False
    used = np.empty(slot_kind.size, dtype=np.int64)
    for i in range(n):
        n_used = 0
        for a in range(slot_kind.size):
            if slot_kind[a] != kinds[i]:
                continue
            amount = 0
            if slot_type[a] != 0:
                amount = _resolve(slot_type[a], slot_level[a], lows[i], highs[i])
            dup = False
            for u in range(n_used):
                if used[u] == amount:
                    dup = True
            if dup:
                continue
            used[n_used] = amount
            n_used += 1
            mask[a] = True
            amounts[a] = amount


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


@njit(cache=True, inline="always")
def _squash(chips, unit):
    x = chips / unit
    return x / (1.0 + abs(x))


@njit(cache=True)
def _write_hand_cards(st, t, k, h, sees_all, visible, out, ranks_at, acc_others):
    """Rank counts of the visible cards (to ``out[ranks_at:]`` and/or the others' sum); returns
    (visible count, pips, ace)."""
    known = 0
    pips = 0
    ace = 0
    for c in range(st.n_cards[t, k, h]):
        if sees_all or st.public[t, k, h, c] or c < visible:
            card = st.cards[t, k, h, c]
            known += 1
            v = _value(card)
            pips += v
            if v == 1:
                ace = 1
            if ranks_at >= 0:
                out[ranks_at + _rank(card)] += 0.25
            if acc_others >= 0:
                out[acc_others + _rank(card)] += 0.25
    return known, pips, ace


@njit(cache=True)
def encode(st, rt, cfg, fs, lay, high, t, seat, out):
    """ObservationEncoder.encode(observe(game, seat)) for table ``t``, into ``out`` (float32)."""
    out[:] = 0.0
    S = cfg[tb.C_SEATS]
    P = cfg[tb.C_PLAYERS]
    B = P
    chips = fs[F_CHIPS]
    unit = fs[F_BALANCE_UNIT]
    seated = st.seated[t]
    banker = st.round_banker[t] if seated else st.banker[t]
    is_banker = seat == banker
    to_act = current_seat(st, cfg, t) == seat
    active = 0
    if to_act:
        if st.phase[t] == PH_PLAYER_TURN:
            active = st.active[t, st.turn[t]]
        elif st.phase[t] == PH_BANKER_TURN:
            active = st.banker_active[t]
    T = lay[L_TABLE]
    out[T + lay[L_PHASE] + st.phase[t]] = 1.0
    out[T + lay[L_IS_BANKER]] = 1.0 if is_banker else 0.0
    out[T + lay[L_TO_ACT]] = 1.0 if to_act else 0.0
    out[T + lay[L_DOUBLED]] = 1.0 if st.stakes_doubled[t] else 0.0
    for r in range(13):
        out[T + lay[L_SEEN] + r] = st.seen[t, r] * fs[F_SEEN]
    out[T + lay[L_PACK]] = st.size[t] * fs[F_PACK]
    out[T + lay[L_BALANCE]] = _squash(st.balance[t, seat], unit)
    looked = st.looked[t]
    # own hands: the banker's (as he sees them) or this player's (all cards)
    own_slot = -1
    if is_banker:
        own_slot = B if seated else -1
    elif seated:
        own_slot = (seat - st.round_banker[t] - 1) % S
    if own_slot >= 0:
        count = min(st.n_hands[t, own_slot], lay[L_OWN_COUNT])
        for h in range(count):
            base = lay[L_OWN] + h * lay[L_OWN_STRIDE]
            n = st.n_cards[t, own_slot, h]
            sees_all = not is_banker
            known, pips, ace = _write_hand_cards(st, t, own_slot, h, sees_all, looked, out, base + lay[L_O_RANKS], -1)
            out[base + lay[L_O_PRESENT]] = 1.0
            out[base + lay[L_O_ACTIVE]] = 1.0 if (to_act and h == active) else 0.0
            out[base + lay[L_O_HIDDEN]] = (n - known) / 2.0
            out[base + lay[L_O_NCARDS]] = n * fs[F_CARDS]
            out[base + lay[L_O_TOTAL]] = rt.total[pips, ace] / 21.0
            out[base + lay[L_O_SOFT]] = 1.0 if rt.soft[pips, ace] else 0.0
            out[base + lay[L_O_STAKE]] = st.stake[t, own_slot, h] * chips
            out[base + lay[L_O_INITIAL]] = st.initial[t, own_slot, h] * chips
            out[base + lay[L_O_LAST_BUY]] = st.last_buy[t, own_slot, h] * chips
            out[base + lay[L_O_BUYS]] = st.buys[t, own_slot, h] / 3.0
            out[base + lay[L_O_TWISTED]] = 1.0 if st.twisted[t, own_slot, h] else 0.0
            out[base + lay[L_O_DOUBLED]] = 1.0 if st.doubled[t, own_slot, h] else 0.0
            out[base + lay[L_O_SPLIT]] = 1.0 if st.split[t, own_slot, h] else 0.0
            out[base + lay[L_O_DONE]] = 1.0 if st.done[t, own_slot, h] else 0.0
            out[base + lay[L_O_BUST]] = 1.0 if st.bust[t, own_slot, h] else 0.0
            out[base + lay[L_O_DECLARED]] = 1.0 if st.declared[t, own_slot, h] else 0.0
    if seated:
        count = min(st.n_hands[t, B], lay[L_BANK_COUNT])
        for h in range(count):
            base = lay[L_BANK] + h * lay[L_BANK_STRIDE]
            n = st.n_cards[t, B, h]
            visible = looked if is_banker else 0
            known, pips, ace = _write_hand_cards(st, t, B, h, False, visible, out, base + lay[L_B_RANKS], -1)
            out[base + lay[L_B_PRESENT]] = 1.0
            out[base + lay[L_B_HIDDEN]] = (n - known) / 2.0
            out[base + lay[L_B_NCARDS]] = n * fs[F_CARDS]
            out[base + lay[L_B_TOTAL]] = rt.total[pips, ace] / 21.0
            out[base + lay[L_B_SOFT]] = 1.0 if rt.soft[pips, ace] else 0.0
            out[base + lay[L_B_SPLIT]] = 1.0 if st.split[t, B, h] else 0.0
            out[base + lay[L_B_DONE]] = 1.0 if st.done[t, B, h] else 0.0
    for other in range(S):
        slot = (other - seat) % S
        if slot == 0:
            continue
        base = lay[L_SEATS] + (slot - 1) * lay[L_SEAT_STRIDE]
        pk = -1
        if seated and other != st.round_banker[t]:
            pk = (other - st.round_banker[t] - 1) % S
        out[base + lay[L_S_IS_BANKER]] = 1.0 if other == banker else 0.0
        out[base + lay[L_S_IN_ROUND]] = 1.0 if (pk >= 0 and st.n_hands[t, pk] > 0) else 0.0
        out[base + lay[L_S_BALANCE]] = _squash(st.balance[t, other], unit)
        if pk < 0:
            continue
        count = min(st.n_hands[t, pk], lay[L_S_HAND_COUNT])
        for h in range(count):
            hb = base + lay[L_S_HANDS] + h * lay[L_H_STRIDE]
            n = st.n_cards[t, pk, h]
            known, pips, ace = _write_hand_cards(st, t, pk, h, False, 0, out, -1, lay[L_OTHERS])
            out[hb + lay[L_H_PRESENT]] = 1.0
            out[hb + lay[L_H_NCARDS]] = n * fs[F_CARDS]
            out[hb + lay[L_H_KNOWN]] = known * fs[F_CARDS]
            out[hb + lay[L_H_TOTAL]] = rt.total[pips, ace] / 21.0
            out[hb + lay[L_H_SOFT]] = 1.0 if rt.soft[pips, ace] else 0.0
            out[hb + lay[L_H_STAKE]] = st.stake[t, pk, h] * chips
            out[hb + lay[L_H_BUYS]] = st.buys[t, pk, h] / 3.0
            out[hb + lay[L_H_TWISTED]] = 1.0 if st.twisted[t, pk, h] else 0.0
            out[hb + lay[L_H_DOUBLED]] = 1.0 if st.doubled[t, pk, h] else 0.0
            out[hb + lay[L_H_SPLIT]] = 1.0 if st.split[t, pk, h] else 0.0
            out[hb + lay[L_H_BUST]] = 1.0 if st.bust[t, pk, h] else 0.0
            out[hb + lay[L_H_DECLARED]] = 1.0 if st.declared[t, pk, h] else 0.0
    for i in range(out.size):
        if out[i] > high[i]:
            out[i] = high[i]


@njit(cache=True)
def encode_tables(st, rt, cfg, fs, lay, high, idx, seats, out):
    for i in range(idx.size):
        encode(st, rt, cfg, fs, lay, high, idx[i], seats[i], out[i])


@njit(cache=True)
def mask_tables(n, kinds, lows, highs, slot_kind, slot_type, slot_level, mask, amounts):
    for i in range(n.size):
        legal_ids(kinds[i], lows[i], highs[i], n[i], slot_kind, slot_type, slot_level, mask[i], amounts[i])
