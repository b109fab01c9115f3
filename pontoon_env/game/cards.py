"""Cards, their codes and the pack.

A card is an ``int`` in ``0..51``: ``rank * 4 + suit``. Ranks run ace, 2, ..., 10, jack, queen,
king (``0..12``); suits run spades, hearts, diamonds, clubs (``0..3``). Integers keep hands cheap to
copy and let a vectorised engine share the same tables; strings such as ``"AS"``, ``"10H"`` or
``"KD"`` are accepted wherever a user gives cards.

The :class:`Pack` is the physical pack on the table. Pontoon's pack carries over between rounds
(cards go to the bottom unshuffled, busts go under the pack at once), so it is a real ordered pile,
not a sampler. Every random choice takes a :class:`numpy.random.Generator`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

RANK_NAMES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES: tuple[str, ...] = ("S", "H", "D", "C")
CARDS_PER_DECK = 52
ACE = 0
"""Rank index of the ace."""

#: Pip value of each card code (ace counts 1 here; totals add the soft 10).
CARD_VALUE: tuple[int, ...] = tuple(min(code // 4 + 1, 10) for code in range(CARDS_PER_DECK))
#: Rank index (0 = ace ... 12 = king) of each card code.
CARD_RANK: tuple[int, ...] = tuple(code // 4 for code in range(CARDS_PER_DECK))

#: Card values 1 (ace) .. 10 (any ten-value card).
VALUES: tuple[int, ...] = tuple(range(1, 11))
#: The infinite-deck model (the solver's, and ``banker_smart``'s belief): every card is an ace,
#: 2, ..., 9 with probability 1/13 each and a ten-value card with probability 4/13, whatever was
#: dealt before.
VALUE_PROBABILITY: dict[int, float] = {value: (4.0 if value == 10 else 1.0) / 13.0 for value in VALUES}
RANK_PROBABILITY = 1.0 / 13.0
"""Infinite deck: the probability that a card has one given rank."""


def rank_of_value(value: int) -> int:
    """A rank index holding card value ``value`` (the ten for a ten-value card)."""
    return value - 1


_RANK_BY_NAME = {name: index for index, name in enumerate(RANK_NAMES)}
_RANK_BY_NAME["T"] = 9  # common shorthand for ten
_SUIT_BY_NAME = {name: index for index, name in enumerate(SUIT_NAMES)}


class DeckError(ValueError):
    """A card or a stacked deck that cannot exist in the pack being used."""


def card_code(rank: int, suit: int) -> int:
    """Return the code of the card of ``rank`` (0 = ace .. 12 = king) and ``suit`` (0..3)."""
    return rank * 4 + suit


def parse_card(card: str | int) -> int:
    """Return the code of ``card``, given as a code ``0..51`` or a string like ``"AS"``, ``"10H"``.

    Raises:
        DeckError: naming the card and the accepted forms.
    """
    if isinstance(card, (int, np.integer)) and not isinstance(card, bool):
        if 0 <= int(card) < CARDS_PER_DECK:
            return int(card)
        raise DeckError(f"card code must be in 0..51, got {card!r}")
    if isinstance(card, str):
        text = card.strip().upper()
        rank, suit = _RANK_BY_NAME.get(text[:-1]), _SUIT_BY_NAME.get(text[-1:])
        if rank is not None and suit is not None:
            return card_code(rank, suit)
    raise DeckError(
        f"unknown card {card!r}: expected a rank in {'/'.join(RANK_NAMES)} followed by a suit in "
        f"{'/'.join(SUIT_NAMES)} (for example 'AS', '10H', 'KD') or an integer code 0..51"
    )


def card_name(code: int) -> str:
    """Return the short name of a card code, for example ``"10H"``."""
    return RANK_NAMES[code // 4] + SUIT_NAMES[code % 4]


def parse_cards(cards: Iterable[str | int], decks: int, name: str = "deck") -> list[int]:
    """Parse a scripted card order and check that ``decks`` packs can hold it.

    Args:
        cards: a list of cards (codes or names such as ``"AS"``), top first.
        decks: decks in the pack.
        name: the parameter the cards came from, for error messages.

    Raises:
        DeckError: naming ``name``: not a list of cards (a string, a number), an unknown card, or
            more copies of a card than ``decks`` packs hold.
    """
    if isinstance(cards, (str, bytes, set, frozenset, Mapping)) or not isinstance(cards, Iterable):
        # a set or a dict has no order to deal in (a set's would follow the hash seed)
        raise DeckError(
            f"{name}: expected a list of cards such as ['AS', '10H', 'KD'], got {type(cards).__name__} {cards!r}"
        )
    codes = []
    for position, card in enumerate(cards):
        try:
            codes.append(parse_card(card))
        except DeckError as error:
            raise DeckError(f"{name}[{position}]: {error}") from None
    counts = np.bincount(np.asarray(codes, dtype=np.int64), minlength=CARDS_PER_DECK) if codes else None
    if counts is not None and counts.max() > decks:
        worst = int(counts.argmax())
        raise DeckError(
            f"{name}: holds {int(counts[worst])} copies of {card_name(worst)}, but a pack of "
            f"{decks} deck(s) holds at most {decks}"
        )
    return codes


class Pack:
    """An ordered pile of cards: drawn from the top, returned to the bottom.

    ``draw`` pops the top; ``to_bottom`` puts cards under the pack; ``shuffle`` mixes everything
    still in the pack. ``seen`` lists the cards that were shown face up since the last shuffle, the
    public memory every seat shares when the pack carries over.
    """

    def __init__(self, decks: int, rng: np.random.Generator) -> None:
        self.decks = decks
        self._cards: deque[int] = deque(np.tile(np.arange(CARDS_PER_DECK), decks).tolist())
        self.discards: list[int] = []
        """Used cards waiting to be shuffled back (deal-on packs and shoes)."""
        self.rng = rng
        self.shuffle()

    def __len__(self) -> int:
        return len(self._cards)

    @property
    def cards(self) -> tuple[int, ...]:
        """The pack from the top down."""
        return tuple(self._cards)

    def shuffle(self) -> None:
        """Gather the used cards into the pack and shuffle it all."""
        order = list(self._cards) + self.discards
        self.discards = []
        self.rng.shuffle(order)
        self._cards = deque(order)

    def cut(self) -> None:
        """Cut the pack at a uniformly random point (at least one card in each part)."""
        if len(self._cards) > 1:
            self._cards.rotate(-int(self.rng.integers(1, len(self._cards))))

    def draw(self) -> int:
        """Take the top card; an exhausted pack first shuffles the used cards back in."""
        try:  # every card of every round is drawn here: the rare empty pack costs the exception
            return self._cards.popleft()
        except IndexError:
            if not self.discards:
                raise DeckError("the pack is exhausted and no used cards are left to shuffle in") from None
            self.shuffle()
            return self._cards.popleft()

    def discard(self, cards: Iterable[int]) -> None:
        """Put ``cards`` on the used pile (to be shuffled back later)."""
        self.discards.extend(cards)

    def to_bottom(self, cards: Iterable[int]) -> None:
        """Put ``cards`` under the pack in the given order."""
        self._cards.extend(cards)

    def remove_bottom(self) -> int:
        """Take the bottom card (used for the brûlet)."""
        return self._cards.pop()

    def stack(self, top: Sequence[int], bottom: Sequence[int] = ()) -> None:
        """Gather every card, shuffle, then put ``top`` on top and ``bottom`` at the bottom in order.

        Used to start a round from a scripted order: the listed cards come first (and last), the
        rest follow in shuffled order. The pack keeps its size and card counts.
        """
        self.shuffle()
        remaining = list(self._cards)
        for card in top:
            try:
                remaining.remove(card)
            except ValueError:
                raise DeckError(
                    f"stacked deck asks for {card_name(card)}, but no copy of it is left in the pack"
                ) from None
        for card in bottom:
            try:
                remaining.remove(card)
            except ValueError:
                raise DeckError(
                    f"stacked deck asks for {card_name(card)} at the bottom, but no copy of it is left"
                ) from None
        self._cards = deque([*top, *remaining, *bottom])
