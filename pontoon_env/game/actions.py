"""The vocabulary of decisions: phases, action kinds, and the legal-action description.

An :class:`Action` is a kind plus an amount (chips) where the kind takes one. The engine offers
:class:`LegalAction` values, each a kind with the inclusive range of amounts it accepts, so that a
caller can see, for example, that a buy may be for 5 to 10 chips.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class Phase(IntEnum):
    """Where the round stands; each decision phase names whose decision it is."""

    TAKE_BANK = 0  # a player entitled to the bank accepts or declines it (2011)
    BANK_SALE = 1  # the banker keeps the bank or puts it up for sale
    BANK_BID = 2  # players bid for the bank in turn
    KITTY = 3  # Shoot: the banker puts up (or adds to) the kitty
    STAKE = 4  # a player places the initial stake
    BANKER_DOUBLE = 5  # the banker may double all stakes (1850, 1939)
    SHOOT_BET = 6  # Shoot: a player may place a shoot bet after the stakes
    PLAYER_TURN = 7  # a player plays a hand
    BANKER_TURN = 8  # the banker draws or stands
    ROUND_OVER = 9  # settled; call ``new_round`` for the next one


class ActionKind(IntEnum):
    """Every decision of every preset. Kinds marked (amount) take a chip amount."""

    STAKE = 0  # (amount) initial stake
    DOUBLE_STAKES = 1  # banker doubles all stakes
    NO_DOUBLE = 2  # banker leaves the stakes as they are
    SHOOT = 3  # (amount) a shoot bet; before the 4th card or a split hand's own bet too
    NO_SHOOT = 4  # place no shoot bet now
    STICK = 5
    TWIST = 6
    BUY = 7  # (amount) buy one card face down for that many chips
    SPLIT = 8
    DOUBLE = 9  # the casino double
    DRAW = 10  # banker draws a card
    STAND = 11  # banker stops drawing
    BANKER_SPLIT = 12  # 1850: the dealer plays a pair as two hands
    KITTY = 13  # (amount) put up or add to the kitty (0 adds nothing)
    KEEP_BANK = 14
    SELL_BANK = 15  # (amount) offer the bank for sale with this reserve price
    BID = 16  # (amount) bid for the bank
    PASS = 17  # make no bid
    TAKE_BANK = 18
    DECLINE_BANK = 19


AMOUNT_KINDS = frozenset({ActionKind.STAKE, ActionKind.SHOOT, ActionKind.BUY, ActionKind.KITTY,
                          ActionKind.SELL_BANK, ActionKind.BID})


class Action(NamedTuple):
    """A decision: a kind and, for the kinds in :data:`AMOUNT_KINDS`, a chip amount.

    A named tuple rather than a dataclass: actions are created on the hot path of every round.
    """

    kind: ActionKind
    amount: int = 0

    def __str__(self) -> str:
        # A malformed action (a plain int kind, an amount on a kind that takes none) prints as it
        # is: error messages name what was given.
        name = self.kind.name.lower() if isinstance(self.kind, ActionKind) else repr(self.kind)
        return f"{name}:{self.amount}" if self.kind in AMOUNT_KINDS or self.amount != 0 else name


class LegalAction(NamedTuple):
    """A legal kind of action with the inclusive range of amounts it accepts (0..0 if none)."""

    kind: ActionKind
    min_amount: int = 0
    max_amount: int = 0

    def allows(self, action: Action) -> bool:
        """True when ``action`` is of this kind and its amount is within the range."""
        return action.kind == self.kind and self.min_amount <= action.amount <= self.max_amount


class IllegalActionError(ValueError):
    """An action that the rules do not allow now. The game state is left unchanged."""
