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

from pontoon_env.game import legality
from pontoon_env.game.actions import Phase
from pontoon_env.game.cards import card_name
from pontoon_env.game.checks import require_int
from pontoon_env.game.engine import Hand, PontoonGame
from pontoon_env.game.hands import HandStat, hand_total

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
        cards = self.cards
        if HIDDEN not in cards:  # the usual case (a seat's own hand): the tuple itself
            return cards
        return tuple([card for card in cards if card != HIDDEN])

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


_make = tuple.__new__
"""Builds the named tuples below from one plain tuple: a view is built for every decision of every
seat, and this skips the Python-level ``__new__`` of a named tuple (same type, same fields)."""


def _hand_view(hand: Hand, sees_all: bool, visible: int = 0) -> HandView:
    """``visible``: how many of the hand's first cards the seat has looked at (the banker's own)."""
    shown = hand.public
    if sees_all or False not in shown:  # `in` on the list of flags: cheaper than all()
        cards = tuple(hand.cards)
    elif not visible:  # another seat's hand: its face-up cards only
        if True in shown:
            cards = tuple([card if public else HIDDEN for card, public in zip(hand.cards, shown)])
        else:  # all face down (the banker's hand before his turn): no per-card work
            cards = (HIDDEN,) * len(shown)
    else:
        cards = tuple(
            [
                card if public or index < visible else HIDDEN
                for index, (card, public) in enumerate(zip(hand.cards, hand.public))
            ]
        )
    return _make(
        HandView,
        (
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
        ),
    )


def observe(game: PontoonGame, seat: int, table: bool = True) -> SeatView:
    """Return what ``seat`` may see of ``game`` now.

    ``table=False`` builds a cheaper view for policies that look only at their own seat (the
    scripted players and bankers): ``players`` then holds only this seat's own entry. It never
    shows more than the full view; everything else (the banker's hands, stakes of the own hands,
    the table's chips and the seen ranks) is as in the full view.
    """
    if type(seat) is not int or not 0 <= seat < game.num_seats:  # one test on the usual path
        seat = require_int("seat", seat, 0, game.num_seats - 1)
    in_round = game.players
    banker = game.banker_seat_of_round if in_round else game.banker
    is_banker = seat == banker
    own: tuple[HandView, ...] = ()
    if table:
        entries = []
        for player in in_round:
            mine = player.seat == seat
            dealt = player.hands
            if len(dealt) == 1:  # the usual case: a tuple display skips the comprehension's frame
                hands = (_hand_view(dealt[0], mine),)
            else:
                hands = tuple([_hand_view(hand, mine) for hand in dealt])
            if mine:
                own = hands
            entries.append((player.seat, hands))
        players = tuple(entries)
    else:
        # Players sit in turn order from the round's banker's left: look there first.
        player = in_round[(seat - banker - 1) % game.num_seats] if in_round and not is_banker else None
        if player is None or player.seat != seat:
            player = next((entry for entry in in_round if entry.seat == seat), None)
        if player is None:
            players = ()
        else:
            hands = player.hands
            # one hand is the usual case: a tuple display skips the comprehension's frame
            if len(hands) == 1:
                own = (_hand_view(hands[0], True),)
            else:
                own = tuple([_hand_view(hand, True) for hand in hands])
            players = ((seat, own),)
    # The engine's own fields rather than its read-only properties (current_seat, shoot_room ...):
    # this runs for every decision of every seat, and each property is a call.
    looked = game._banker_looked if is_banker else 0
    banker_dealt = game.banker_hands
    banker_hands = (
        (_hand_view(banker_dealt[0], False, looked),)
        if len(banker_dealt) == 1
        else tuple([_hand_view(hand, False, looked) for hand in banker_dealt])
    )
    if is_banker:
        own = banker_hands
    to_act = game._to_act == seat
    kitty = game.kitty
    return _make(
        SeatView,
        (
            seat,
            banker,
            is_banker,
            game.phase,
            to_act,
            own,
            game.active_hand_index if to_act else 0,
            players,
            banker_hands,
            tuple(game.seen),
            len(game.pack),
            tuple(game.balances),
            kitty,
            kitty - game._shoot_out if kitty > game._shoot_out else 0,  # PontoonGame.shoot_room
            game._stakes_doubled,
            game.round_index,
        ),
    )


def seat_report(game: PontoonGame, seat: int) -> dict[str, object]:
    """The round's settlement as ``seat`` may see it (the seat-filtered twin of
    :meth:`PontoonGame.round_report`, for an environment's ``info``).

    Cards the seat may not see are ``"??"`` and the class of a hand the seat cannot read is
    ``"hidden"`` (a hand known to be bust or declared a natural is shown as such). Stakes,
    payouts, the ledger and every seat's result are chips moved on the table, so they are public.
    """
    view = observe(game, seat)
    rules = game.rules

    def hand_entry(hand: HandView, banker: bool) -> dict[str, object]:
        hidden = HIDDEN in hand.cards
        if hand.bust:
            hand_class = "bust"
        elif hand.declared:
            hand_class = "pontoon"
        elif hidden or not hand.cards:
            hand_class = "hidden"
        else:
            stat = HandStat(*hand_total(hand.cards), len(hand.cards), hand.split)
            result = legality.banker_result(stat, rules) if banker else legality.player_result(stat, rules)
            hand_class = result.hand_class.name.lower()
        return {
            "cards": ["??" if card == HIDDEN else card_name(card) for card in hand.cards],
            "hand_class": hand_class,
            "total": None if hidden else hand.total,
        }

    hands = []
    for player_seat, seat_hands in view.players:
        engine_hands = next(player.hands for player in game.players if player.seat == player_seat)
        for index, (hand, played) in enumerate(zip(seat_hands, engine_hands)):
            entry = hand_entry(hand, banker=False)
            entry.update(seat=player_seat, hand=index, stake=hand.stake, shoot=hand.shoot, payout=played.payout)
            hands.append(entry)
    return {
        "banker": view.banker,
        "banker_hands": [hand_entry(hand, banker=True) for hand in view.banker_hands],
        "hands": hands,
        "ledger": game.ledger.as_dicts(),
        "result": {str(index): value for index, value in enumerate(game.ledger.results(game.num_seats))},
        "kitty": game.ledger.chips("kitty"),
        "pool": game.ledger.chips("pool"),
    }
