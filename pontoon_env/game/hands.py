"""The hand statistic and pure helpers that read a hand: total, softness, natural and class.

A hand's cards matter to the rules only through a small statistic (:class:`HandStat`): its best
total, whether an ace counts 11, how many cards it holds, and its history (split, twisted, buys,
doubled, stakes). The engine, the exact solver, the scripted agents, the observation encoder and
the batched engine all classify hands through :func:`classify_stat`, so a hand of cards
(:func:`classify`) and a hand known only by its statistic are scored the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

from pontoon_env.game.cards import CARD_RANK, CARD_VALUE

BLACKJACK = 21
FIVE_CARDS = 5
SOFT_BONUS = 10
"""What an ace adds when it counts 11 instead of 1."""


class HandClass(IntEnum):
    """Hand classes, ordered from worst to best (docs/rules.md §1)."""

    BUST = 0
    TOTAL = 1  # 20 or less, not a five-card trick
    TWENTY_ONE = 2  # 21 with three or more cards (or a split pontoon scored as 21)
    FIVE_CARD_TRICK = 3
    PONTOON = 4  # a natural: ace + ten-value card as the first two cards


class HandResult(NamedTuple):
    """What settlement needs to know about a finished hand."""

    hand_class: HandClass
    total: int
    split: bool = False  # the hand was formed by splitting
    cards: int = 2


class HandStat(NamedTuple):
    """Everything the rules of play look at in one hand (see :mod:`pontoon_env.game.legality`).

    Stakes are chips. ``initial`` is the hand's initial stake (doubled by a banker's double; a
    split hand carries the initial stake of the hand it came from), ``last_buy`` the price of the
    previous buy (0 before any), ``stake`` what the hand has on it now.
    """

    total: int
    soft: bool
    n_cards: int
    split: bool = False
    twisted: bool = False
    buys: int = 0
    last_buy: int = 0
    doubled: bool = False
    initial: int = 1
    stake: int = 1


def values_total(pip_sum: int, has_ace: bool) -> tuple[int, bool]:
    """Best total and softness from the pip sum (aces as 1) and whether an ace is present."""
    if has_ace and pip_sum + SOFT_BONUS <= BLACKJACK:
        return pip_sum + SOFT_BONUS, True
    return pip_sum, False


MAX_DRAWING_PIPS = 30
"""The largest pip sum (aces as 1) a hand reaches by drawing: it draws only below 21 or on a soft 21,
so with at most 20 pips, and a card adds at most 10."""
TOTALS_BY_PIPS: tuple[tuple[tuple[int, bool], ...], ...] = tuple(
    tuple(values_total(pip_sum, has_ace) for pip_sum in range(MAX_DRAWING_PIPS + 1))
    for has_ace in (False, True)
)
""":func:`values_total` as a table, ``TOTALS_BY_PIPS[has_ace][pip_sum]`` for pip sums up to
:data:`MAX_DRAWING_PIPS`: the engine updates a hand's total from it on every card dealt."""


def first_card_total(value: int) -> tuple[int, bool]:
    """``(total, soft)`` of a one-card hand of card value ``value`` (1 = ace .. 10)."""
    return values_total(value, value == 1)


def add_card(total: int, soft: bool, value: int) -> tuple[int, bool]:
    """``(total, soft)`` after a card of ``value`` joins a hand of ``(total, soft)``.

    A hard hand that holds an ace already has a pip sum over 11, so the softness flag and the new
    card are all that decide whether an ace can count 11 now.
    """
    pip = (total - SOFT_BONUS if soft else total) + value
    return values_total(pip, soft or value == 1)


def hand_total(cards: Sequence[int]) -> tuple[int, bool]:
    """Return ``(best total, soft)`` of a hand of card codes.

    An ace counts 11 where that does not take the hand over 21; the hand is *soft* when one does.

    >>> hand_total([0, 36])  # AS, 10S
    (21, True)
    """
    pip_sum = 0
    has_ace = False
    for card in cards:
        value = CARD_VALUE[card]
        pip_sum += value
        if value == 1:
            has_ace = True
    return values_total(pip_sum, has_ace)


def is_natural_stat(total: int, n_cards: int) -> bool:
    """An ace and a ten-value card as two cards: the only two-card hands totalling 21."""
    return n_cards == 2 and total == BLACKJACK


_NATURAL_BY_VALUES: tuple[bool, ...] = tuple(
    is_natural_stat(values_total(first + second, 1 in (first, second))[0], 2)
    for first in range(11)
    for second in range(11)
)
""":func:`is_natural_stat` of every two-card hand, indexed ``11 * value + value`` (card values 1..10):
the engine asks at every deal and end of round, and a look-up skips the total's loop."""


def is_natural(cards: Sequence[int]) -> bool:
    """True for exactly two cards, an ace and a ten-value card."""
    return len(cards) == 2 and _NATURAL_BY_VALUES[11 * CARD_VALUE[cards[0]] + CARD_VALUE[cards[1]]]


def same_rank(a: int, b: int) -> bool:
    """True when two cards have the same rank (10-10, Q-Q; never K-J)."""
    return CARD_RANK[a] == CARD_RANK[b]


def same_value(a: int, b: int) -> bool:
    """True when two cards have the same value (K-Q counts as a pair)."""
    return CARD_VALUE[a] == CARD_VALUE[b]


def classify_stat(
    total: int,
    n_cards: int,
    split: bool = False,
    *,
    five_card_trick: bool = True,
    split_pontoon_is_pontoon: bool = True,
) -> HandResult:
    """Classify a hand from its best total and size (all the classes look at).

    Args:
        total: the hand's best total.
        n_cards: cards in the hand.
        split: the hand was formed by splitting a pair.
        five_card_trick: whether the rule set (for this hand's owner) knows the five-card trick.
        split_pontoon_is_pontoon: whether an ace + ten on a split hand counts as a pontoon (else 21).
    """
    if total > BLACKJACK:
        hand_class = HandClass.BUST
    elif is_natural_stat(total, n_cards) and (not split or split_pontoon_is_pontoon):
        hand_class = HandClass.PONTOON
    elif five_card_trick and n_cards >= FIVE_CARDS:
        hand_class = HandClass.FIVE_CARD_TRICK
    elif total == BLACKJACK:
        hand_class = HandClass.TWENTY_ONE
    else:
        hand_class = HandClass.TOTAL
    return HandResult(hand_class, total, split, n_cards)


def classify(
    cards: Sequence[int],
    *,
    split: bool = False,
    five_card_trick: bool = True,
    split_pontoon_is_pontoon: bool = True,
) -> HandResult:
    """Classify a hand of card codes (see :func:`classify_stat` for the arguments)."""
    return classify_stat(
        hand_total(cards)[0],
        len(cards),
        split,
        five_card_trick=five_card_trick,
        split_pontoon_is_pontoon=split_pontoon_is_pontoon,
    )
