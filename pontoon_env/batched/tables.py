"""The rules of one table as arrays the compiled engine reads, generated from the pure rule code.

Nothing here states a rule. Every table is filled by calling the reference functions over every
input they can see: hand totals from :func:`~pontoon_env.game.hands.values_total`, the legal moves
of a hand from :func:`~pontoon_env.game.legality.player_moves`, the stop rules from
:func:`~pontoon_env.game.legality.player_hand_stops` / :func:`~pontoon_env.game.legality.banker_hand_stops`,
the casino dealer's rule, which pairs split, the classes of finished hands and the settlement
multiples from :func:`~pontoon_env.game.settlement.standing_hand_payout`. The one rule re-expressed
for the compiler, the price range of a buy (a formula over chips), is pinned to
:func:`~pontoon_env.game.legality.buy_limits` by ``tests/test_batched_tables.py``.

:func:`native_problem` says why a rule set cannot run natively (``None`` when it can), and
:func:`build` returns the tables with the integer option vector ``cfg`` (indices ``C_*``).
"""

from __future__ import annotations

import functools

from typing import NamedTuple

import numpy as np

from pontoon_env.game import legality
from pontoon_env.game.actions import ActionKind
from pontoon_env.game.cards import CARDS_PER_DECK
from pontoon_env.game.hands import FIVE_CARDS, HandClass, HandResult, HandStat, values_total
from pontoon_env.game.rules import Rules
from pontoon_env.game.settlement import banker_natural_at_deal, standing_hand_payout

NATIVE_PRESETS = ("pagat", "casino", "pontoon_1939", "pontoon_2011")
"""Presets the batched engine plays natively (with any of their options it supports)."""

MAX_TOTAL = 41
"""Totals are tabulated over 0..40 (no hand gets past 31)."""
MAX_PIPS = 64
MAX_HANDS = 4
"""Hands a player may hold after splits (the most any rule set allows)."""
LONG_HAND = 22
"""Card capacity of a hand where no five-card limit stops it (no hand draws past 21 cards)."""

# Move bits of the tabulated legal moves, in the order legality.player_moves lists them.
MOVE_ORDER = (ActionKind.STICK, ActionKind.TWIST, ActionKind.BUY, ActionKind.SPLIT, ActionKind.DOUBLE)
BIT = {kind: 1 << index for index, kind in enumerate(MOVE_ORDER)}

# Indices of the integer option vector.
(
    C_SEATS, C_PLAYERS, C_DECKS, C_PACK_SIZE, C_MIN_STAKE, C_MAX_STAKE, C_FIXED_STAKE, C_STAKE_BEFORE,
    C_BANKER_DOUBLE, C_BUY_LIMITS, C_TWIST_UP, C_REVEAL_BUSTS, C_NATURAL_ACE_ONLY, C_LOOKS_AT_DEAL,
    C_BANKER_NATURAL_AT_DEAL, C_NATURAL_PAID, C_DEALER_HS17, C_PACK, C_SHUFFLE_AFTER_PONTOON,
    C_BANK_PASSING, C_TAKE_OVER_OPTIONAL, C_OLD_MODE, C_MISERICORDE, C_CUT_BELOW, C_HAND_CARDS,
    C_MAX_HANDS, C_N,
) = range(27)

BUY_NONE, BUY_PAGAT, BUY_INITIAL = 0, 1, 2
PACK_CARRY, PACK_DEAL_ON, PACK_FRESH, PACK_CUT = 0, 1, 2, 3
PASS_NONE, PASS_PONTOON, PASS_HOLDER, PASS_ROTATE = 0, 1, 2, 3
_BUY = {"none": BUY_NONE, "pagat": BUY_PAGAT, "initial": BUY_INITIAL}
_PACK = {"carry_over": PACK_CARRY, "deal_on": PACK_DEAL_ON, "fresh_each_round": PACK_FRESH, "cut_card": PACK_CUT}
_PASSING = {"none": PASS_NONE, "pontoon": PASS_PONTOON, "natural_holder": PASS_HOLDER, "rotate_on_natural": PASS_ROTATE}


class RuleTables(NamedTuple):
    """The generated tables (see the module docstring); every array is read-only in the engine."""

    total: np.ndarray  # [pips, has_ace] -> best total
    soft: np.ndarray  # [pips, has_ace] -> an ace counts 11
    player_stops: np.ndarray  # [total, soft, n_cards] -> the hand stops (no decision)
    moves: np.ndarray  # [total, soft, n_cards, twisted, doubled, bought, pair, hands_held] -> move bits
    banker_stops: np.ndarray  # [total, n_cards]
    dealer_draws: np.ndarray  # [total, soft] -> the casino dealer draws
    pair: np.ndarray  # [rank, rank] -> the two cards split
    player_class: np.ndarray  # [total, n_cards, split] -> HandClass
    banker_class: np.ndarray  # [total, n_cards] -> HandClass
    payout: np.ndarray  # [player class, player total, split, banker class, banker total] -> multiple
    banker_natural: np.ndarray  # [player has a natural] -> multiple of the stake at the deal


RT_TOTAL, RT_SOFT, RT_PLAYER_STOPS, RT_MOVES, RT_BANKER_STOPS, RT_DEALER_DRAWS, RT_PAIR, RT_PLAYER_CLASS, \
    RT_BANKER_CLASS, RT_PAYOUT, RT_BANKER_NATURAL = range(11)
"""Indices of the tables in :class:`RuleTables` order (what :func:`flatten` writes a header for)."""
RT_HEADER = 10
"""Header words per table in the flat array: the table's offset, then its strides (in elements)."""


def flatten(tables: RuleTables) -> np.ndarray:
    """The tables as one int64 array, which is what the compiled code takes.

    One array instead of eleven because a compiled call copies every array argument's pointer,
    shape and strides: eleven tables made each call copy about a hundred words (see
    :mod:`pontoon_env.batched.state`). Table ``i`` starts at ``flat[flat[i * RT_HEADER]]`` and
    its element ``[a, b, ...]`` sits at that offset plus ``a * flat[i * RT_HEADER + 1] + b *
    flat[i * RT_HEADER + 2] + ...`` (C order).
    """
    header = np.zeros(len(tables) * RT_HEADER, dtype=np.int64)
    parts = [header]
    offset = header.size
    for i, table in enumerate(tables):
        if table.ndim >= RT_HEADER:
            raise ValueError(f"rule table {RuleTables._fields[i]} has {table.ndim} axes (at most {RT_HEADER - 1})")
        header[i * RT_HEADER] = offset
        stride = 1
        for axis in range(table.ndim - 1, -1, -1):
            header[i * RT_HEADER + 1 + axis] = stride
            stride *= table.shape[axis]
        parts.append(np.ascontiguousarray(table, dtype=np.int64).ravel())
        offset += table.size
    return np.concatenate(parts)


def native_problem(rules: Rules) -> str | None:
    """Why ``rules`` cannot be played by the batched engine (``None`` when they can)."""
    checks = (
        (rules.settlement in NATIVE_PRESETS, f"settlement {rules.settlement!r} (native: {list(NATIVE_PRESETS)})"),
        (not rules.shoot, "shoot bets (shoot=True)"),
        (not rules.bank_sale, "bank sales (bank_sale=True)"),
        (rules.bankroll == 0, f"finite bankrolls (bankroll={rules.bankroll})"),
        (not rules.brulet, "the brûlet (brulet=True)"),
        (not rules.dealer_may_split, "dealer pairs (dealer_may_split=True)"),
        (not rules.natural_paid_by_all, "a natural paid by every participant (natural_paid_by_all=True)"),
    )
    reasons = [reason for ok, reason in checks if not ok]
    return None if not reasons else "the batched engine does not play " + ", ".join(reasons)


def hand_cards(rules: Rules) -> int:
    """Card capacity of one hand: five with the five-card trick, else :data:`LONG_HAND`."""
    player = legality.player_card_limit(rules)
    banker = legality.banker_card_limit(rules)
    return FIVE_CARDS if max(player, banker) <= FIVE_CARDS else LONG_HAND


def config(rules: Rules, num_players: int) -> np.ndarray:
    """The integer option vector of ``rules`` at a table of ``num_players`` players."""
    cfg = np.zeros(C_N, dtype=np.int64)
    cfg[C_SEATS] = num_players + 1
    cfg[C_PLAYERS] = num_players
    cfg[C_DECKS] = rules.decks
    cfg[C_PACK_SIZE] = rules.decks * CARDS_PER_DECK
    cfg[C_MIN_STAKE] = rules.min_stake
    cfg[C_MAX_STAKE] = rules.max_stake
    cfg[C_FIXED_STAKE] = rules.fixed_stake
    cfg[C_STAKE_BEFORE] = rules.stake_before_deal
    cfg[C_BANKER_DOUBLE] = rules.banker_double
    cfg[C_BUY_LIMITS] = _BUY[rules.buy_limits] if rules.allow_buy else BUY_NONE
    cfg[C_TWIST_UP] = rules.twist_face_up
    cfg[C_REVEAL_BUSTS] = rules.reveal_busts
    cfg[C_NATURAL_ACE_ONLY] = rules.natural_shown == "ace"
    cfg[C_LOOKS_AT_DEAL] = rules.banker_looks == "at_deal"
    cfg[C_BANKER_NATURAL_AT_DEAL] = rules.banker_natural_at_deal
    cfg[C_NATURAL_PAID] = rules.natural_paid_at_deal
    cfg[C_DEALER_HS17] = rules.dealer_rule == "hit_soft_17"
    cfg[C_PACK] = _PACK[rules.pack]
    cfg[C_SHUFFLE_AFTER_PONTOON] = rules.shuffle_after_pontoon
    cfg[C_BANK_PASSING] = _PASSING[rules.bank_passing]
    cfg[C_TAKE_OVER_OPTIONAL] = rules.bank_take_over_optional
    cfg[C_OLD_MODE] = rules.old_mode
    cfg[C_MISERICORDE] = rules.misericorde
    # The engine reshuffles a cut-card shoe when len(pack) < (1 - fraction) * cards, a float bound:
    # for an integer length that is len(pack) < ceil(bound).
    cfg[C_CUT_BELOW] = int(np.ceil((1 - rules.cut_card_fraction) * rules.decks * CARDS_PER_DECK))
    cfg[C_HAND_CARDS] = hand_cards(rules)
    cfg[C_MAX_HANDS] = rules.max_split_hands if rules.split != "none" else 1
    return cfg


def build(rules: Rules) -> RuleTables:
    """Tabulate the rules of play of ``rules`` (see the module docstring): a copy of the tables
    built once per rule set (tabulating takes about 0.2 s, which every engine, vector env and
    batched match paid), the caller's to change."""
    return RuleTables(*(table.copy() for table in _build(rules)))


@functools.lru_cache(maxsize=64)
def _build(rules: Rules) -> RuleTables:
    cards = hand_cards(rules)
    total = np.zeros((MAX_PIPS, 2), dtype=np.int16)
    soft = np.zeros((MAX_PIPS, 2), dtype=np.bool_)
    for pips in range(MAX_PIPS):
        for ace in (0, 1):
            total[pips, ace], soft[pips, ace] = values_total(pips, bool(ace))

    player_stops = np.zeros((MAX_TOTAL, 2, cards + 1), dtype=np.bool_)
    banker_stops = np.zeros((MAX_TOTAL, cards + 1), dtype=np.bool_)
    dealer_draws = np.zeros((MAX_TOTAL, 2), dtype=np.bool_)
    moves = np.zeros((MAX_TOTAL, 2, cards + 1, 2, 2, 2, 2, MAX_HANDS + 1), dtype=np.int8)
    for t in range(MAX_TOTAL):
        for s in (0, 1):
            dealer_draws[t, s] = legality.casino_dealer_draws(t, bool(s))
            for n in range(cards + 1):
                stat = HandStat(t, bool(s), n)
                player_stops[t, s, n] = legality.player_hand_stops(stat, rules)
                if s == 0:
                    banker_stops[t, n] = legality.banker_hand_stops(stat, rules)
                for tw in (0, 1):
                    for db in (0, 1):
                        for bought in (0, 1):
                            stat = HandStat(t, bool(s), n, False, bool(tw), bought, bought, bool(db), 1, 1 + bought)
                            for pair in (0, 1):
                                for held in range(1, MAX_HANDS + 1):
                                    legal = legality.player_moves(stat, rules, pair=bool(pair), hands_held=held)
                                    moves[t, s, n, tw, db, bought, pair, held] = sum(BIT[o.kind] for o in legal)

    pair = np.zeros((13, 13), dtype=np.bool_)
    for a in range(13):
        for b in range(13):
            pair[a, b] = legality.pair_splits(a, b, rules)

    player_class = np.zeros((MAX_TOTAL, cards + 1, 2), dtype=np.int8)
    banker_class = np.zeros((MAX_TOTAL, cards + 1), dtype=np.int8)
    classes = len(HandClass)
    payout = np.zeros((classes, MAX_TOTAL, 2, classes, MAX_TOTAL), dtype=np.int8)
    banker_results: dict[tuple[int, int], HandResult] = {}
    for t in range(MAX_TOTAL):
        for n in range(cards + 1):
            result = legality.banker_result(HandStat(t, False, n), rules)
            banker_class[t, n] = result.hand_class
            banker_results[(int(result.hand_class), t)] = result
    for t in range(MAX_TOTAL):
        for n in range(cards + 1):
            for split in (0, 1):
                result = legality.player_result(HandStat(t, False, n, bool(split)), rules)
                player_class[t, n, split] = result.hand_class
                for (bc, bt), banker in banker_results.items():
                    payout[result.hand_class, t, split, bc, bt] = standing_hand_payout(rules, result, banker)
    banker_natural = np.array([banker_natural_at_deal(rules, False), banker_natural_at_deal(rules, True)], dtype=np.int8)
    return RuleTables(
        total, soft, player_stops, moves, banker_stops, dealer_draws, pair, player_class, banker_class, payout,
        banker_natural,
    )
