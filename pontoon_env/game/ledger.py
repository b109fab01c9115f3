"""Every chip movement of a round, and the one definition of a seat's result.

Chips move only through :meth:`Ledger.pay`, so they are conserved by construction and every movement
has a payer, a payee and a reason. A seat's **result** for the round is what the ledger nets for
it: the change in its chips **plus the change in the kitty it owns** (Shoot Pontoon: the kitty is
the banker's, D22). Putting chips into one's own kitty is therefore no loss, taking the kitty back
when the bank passes no gain, and a shoot bet won from the kitty is the banker's loss. Every reward
(Gymnasium, PettingZoo), every EV table and ``evaluate.py`` take a seat's result from here.
"""

from __future__ import annotations

from typing import NamedTuple, Union

Party = Union[int, str]
"""A seat index, or ``"kitty"`` (Shoot) or ``"pool"`` (the brûlet pool)."""
KITTY = "kitty"
POOL = "pool"


class Transfer(NamedTuple):
    """One movement of chips: ``payer`` gives ``amount`` to ``payee`` for ``reason``.

    ``kitty_owner`` is the seat that owned the kitty when the transfer touched it (``None`` when the
    kitty is not involved), so a result can credit the kitty's changes to the right seat even in a
    round in which the bank changed hands.
    """

    payer: Party
    payee: Party
    amount: int
    reason: str
    kitty_owner: int | None = None


_make = tuple.__new__


def transfer_result(transfer: Transfer, seat: int) -> int:
    """What one transfer does to ``seat``'s result (chips plus owned kitty)."""
    change = 0
    payer, payee, amount, _, owner = transfer
    if payer == seat or (payer == KITTY and owner == seat):
        change -= amount
    if payee == seat or (payee == KITTY and owner == seat):
        change += amount
    return change


class Ledger(list[Transfer]):
    """The transfers of one round, in order (a list, so it compares, slices and iterates as one)."""

    __slots__ = ()

    def record(self, payer: Party, payee: Party, amount: int, reason: str, kitty_owner: int | None) -> None:
        """Record a transfer (the engine moves the chips; see ``PontoonGame._pay``)."""
        touches_kitty = payer == KITTY or payee == KITTY
        # tuple.__new__ builds the same named tuple without its Python-level __new__ (every chip
        # movement of every round comes through here)
        self.append(_make(Transfer, (payer, payee, amount, reason, kitty_owner if touches_kitty else None)))

    def result(self, seat: int, start: int = 0) -> int:
        """``seat``'s result over the transfers from index ``start`` on (D22)."""
        total = 0
        for transfer in self[start:] if start else self:
            total += transfer_result(transfer, seat)
        return total

    def results(self, num_seats: int, start: int = 0) -> list[int]:
        """Every seat's result over the transfers from ``start`` on."""
        totals = [0] * num_seats
        for payer, payee, amount, _, owner in self[start:] if start else self:
            if payer == KITTY:
                payer = owner if owner is not None else KITTY
            if payee == KITTY:
                payee = owner if owner is not None else KITTY
            if payer == payee:
                continue
            if type(payer) is int:
                totals[payer] -= amount
            if type(payee) is int:
                totals[payee] += amount
        return totals

    def chips(self, party: Party) -> int:
        """The plain change in ``party``'s chips (a seat, ``"kitty"`` or ``"pool"``), kitty aside."""
        net = 0
        for payer, payee, amount, _, _ in self:
            if payer == party:
                net -= amount
            if payee == party:
                net += amount
        return net

    def as_dicts(self) -> list[dict[str, object]]:
        """The transfers as plain dicts (for reports and JSON)."""
        return [transfer._asdict() for transfer in self]
