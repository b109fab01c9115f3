"""What each seat may see: the game state filtered to one seat's knowledge.

:func:`observe` returns a :class:`SeatView`, the only input the encoders, the scripted agents and a
human-play interface get. Keeping this filter in one place means the hidden-information rules are
written once and tested once:

* a player sees all his own cards; other seats see only cards dealt or turned face up (twisted
  cards, split cards, a declared pontoon, busted hands where the rules throw them in face up, and
  every standing hand at the showdown);
* a bought card comes face down: the other seats see that a card was bought and its price, not
  the card;
* the banker sees his own first card only where he may look at it (not in ``pagat`` before the
  second card, never before his turn in ``pontoon_2011``); players see the banker's cards only when
  he turns them up;
* stakes, buys, shoot bets, the kitty and every seat's chips are public;
* the rank counts of public cards seen since the last shuffle are known to everyone, because the
  pack carries over between rounds.
"""

from __future__ import annotations

from typing import NamedTuple

from pontoon_env.game.actions import Phase
from pontoon_env.game.engine import Hand, PontoonGame
from pontoon_env.game.hands import hand_total

HIDDEN = -1
"""Stands for a face-down card in a view."""


class HandView(NamedTuple):
    """One hand as a given seat sees it. Hidden cards are :data:`HIDDEN`.

    Named tuples rather than frozen dataclasses: a view is built for every decision of every
    seat, and tuple construction is several times cheaper.
    """

    cards: tuple[int, ...]
    stake: int
    initial: int
    last_buy: int
    buys: int
    twisted: bool
    doubled: bool
    split: bool
    shoot: int
    done: bool
    bust: bool
    """Known to have gone bust (the stake was taken: public even when the cards stay hidden)."""
    declared: bool
    """A natural laid down (publicly a pontoon)."""

    @property
    def num_cards(self) -> int:
        return len(self.cards)

    @property
    def known_cards(self) -> tuple[int, ...]:
        return tuple(card for card in self.cards if card != HIDDEN)

    @property
    def total(self) -> int:
        """Best total of the cards this seat can see."""
        return hand_total(self.known_cards)[0]

    @property
    def soft(self) -> bool:
        return hand_total(self.known_cards)[1]


class SeatView(NamedTuple):
    """Everything one seat may know at this moment."""

    seat: int
    banker: int
    is_banker: bool
    phase: Phase
    to_act: bool
    own_hands: tuple[HandView, ...]
    """This seat's hands (the banker's own hands when ``is_banker``)."""
    active_hand: int
    """Index of the hand being played when it is this seat's turn, else 0."""
    players: tuple[tuple[int, tuple[HandView, ...]], ...]
    """Every player seat from the banker's left, with its hands as this seat sees them."""
    banker_hands: tuple[HandView, ...]
    seen_ranks: tuple[int, ...]
    """Counts of each rank (ace..king) shown face up since the last shuffle."""
    cards_in_pack: int
    balances: tuple[int, ...]
    kitty: int
    shoot_room: int
    stakes_doubled: bool
    round_index: int


def _hand_view(hand: Hand, sees_all: bool, visible: int = 0) -> HandView:
    """``visible``: how many of the hand's first cards the seat has looked at (the banker's own)."""
    if sees_all:
        cards = tuple(hand.cards)
    else:
        cards = tuple(
            card if public or index < visible else HIDDEN
            for index, (card, public) in enumerate(zip(hand.cards, hand.public))
        )
    return HandView(
        cards,
        hand.stake,
        hand.initial,
        hand.last_buy,
        hand.buys,
        hand.twisted,
        hand.doubled,
        hand.split,
        hand.shoot,
        hand.done,
        hand.bust,
        hand.declared,
    )


def observe(game: PontoonGame, seat: int) -> SeatView:
    """Return what ``seat`` may see of ``game`` now."""
    if not 0 <= seat < game.num_seats:
        raise ValueError(f"seat: expected 0..{game.num_seats - 1}, got {seat!r}")
    banker = game.banker_seat_of_round if game.players else game.banker
    is_banker = seat == banker
    players = tuple(
        (player.seat, tuple(_hand_view(hand, sees_all=player.seat == seat) for hand in player.hands))
        for player in game.players
    )
    looked = game.banker_cards_known_to_banker
    banker_hands = tuple(
        _hand_view(hand, sees_all=False, visible=looked if is_banker else 0) for hand in game.banker_hands
    )
    if is_banker:
        own = banker_hands
    else:
        own = next((hands for player_seat, hands in players if player_seat == seat), ())
    to_act = game.current_seat == seat
    active = game.active_hand_index if to_act else 0
    return SeatView(
        seat=seat,
        banker=banker,
        is_banker=is_banker,
        phase=game.phase,
        to_act=to_act,
        own_hands=own,
        active_hand=active,
        players=players,
        banker_hands=banker_hands,
        seen_ranks=tuple(game.seen),
        cards_in_pack=len(game.pack),
        balances=tuple(game.balances),
        kitty=game.kitty,
        shoot_room=game.shoot_room,
        stakes_doubled=game.stakes_doubled,
        round_index=game.round_index,
    )
