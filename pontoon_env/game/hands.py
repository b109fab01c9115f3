"""Pure helpers that read a hand: its total, whether it is soft, and its class.

These are small, allocation-free functions over card codes (see :mod:`pontoon_env.game.cards`) so that
the engine, the observation encoder, the scripted agents and the exact solver all score hands the
same way, and a vectorised engine can mirror them.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum
from typing import NamedTuple

from pontoon_env.game.cards import CARD_RANK, CARD_VALUE

BLACKJACK = 21
FIVE_CARDS = 5


class HandClass(IntEnum):
    """Hand classes, ordered from worst to best (RULES.md §1)."""

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


def values_total(pip_sum: int, has_ace: bool) -> tuple[int, bool]:
    """Best total and softness from the pip sum (aces as 1) and whether an ace is present."""
    if has_ace and pip_sum + 10 <= BLACKJACK:
        return pip_sum + 10, True
    return pip_sum, False


def hand_total(cards: Sequence[int]) -> tuple[int, bool]:
    """Return ``(best total, soft)`` of a hand of card codes.

    An ace counts 11 where that does not take the hand over 21; the hand is *soft* when one does.

    >>> hand_total([0, 36])  # AS, 10S
    (21, True)
    """
    pip_sum = 0
    has_ace = False
    for card in cards:
        pip_sum += CARD_VALUE[card]
        has_ace = has_ace or CARD_VALUE[card] == 1
    return values_total(pip_sum, has_ace)


def is_natural(cards: Sequence[int]) -> bool:
    """True for exactly two cards, an ace and a ten-value card."""
    return len(cards) == 2 and {CARD_VALUE[cards[0]], CARD_VALUE[cards[1]]} == {1, 10}


def same_rank(a: int, b: int) -> bool:
    """True when two cards have the same rank (10-10, Q-Q; never K-J)."""
    return CARD_RANK[a] == CARD_RANK[b]


def same_value(a: int, b: int) -> bool:
    """True when two cards have the same value (K-Q counts as a pair)."""
    return CARD_VALUE[a] == CARD_VALUE[b]


def classify(
    cards: Sequence[int],
    *,
    split: bool = False,
    five_card_trick: bool = True,
    split_pontoon_is_pontoon: bool = True,
) -> HandResult:
    """Classify a hand.

    Args:
        cards: the hand's card codes.
        split: the hand was formed by splitting a pair.
        five_card_trick: whether the rule set knows the five-card trick.
        split_pontoon_is_pontoon: whether an ace + ten on a split hand counts as a pontoon (else 21).
    """
    total, _ = hand_total(cards)
    count = len(cards)
    if total > BLACKJACK:
        hand_class = HandClass.BUST
    elif is_natural(cards) and (not split or split_pontoon_is_pontoon):
        hand_class = HandClass.PONTOON
    elif five_card_trick and count >= FIVE_CARDS:
        hand_class = HandClass.FIVE_CARD_TRICK
    elif total == BLACKJACK:
        hand_class = HandClass.TWENTY_ONE
    else:
        hand_class = HandClass.TOTAL
    return HandResult(hand_class, total, split, count)
