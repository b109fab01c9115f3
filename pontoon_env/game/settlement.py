"""Settlement tables of docs/rules.md as small pure functions.

Each function answers one question with a signed multiple of a hand's *current* stake, seen from
the player: ``+k`` means the banker pays ``k`` stakes, ``-k`` that the player pays ``k`` stakes,
``0`` a stand-off. They take :class:`~pontoon_env.game.hands.HandResult` values only, so the engine, the
exact solver and a vectorised engine all share them.

* :func:`standing_hand_payout`: a player hand still standing against the banker's final hand.
* :func:`banker_natural_at_deal`: what a banker's natural takes when it ends the round at the deal
  (where ``rules.banker_natural_at_deal``).

What a player's natural is paid at once is the option ``rules.natural_paid_at_deal``.
"""

from __future__ import annotations

from collections.abc import Callable

from pontoon_env.game.hands import HandClass, HandResult
from pontoon_env.game.rules import Rules

BUST = HandClass.BUST
TOTAL = HandClass.TOTAL
TWENTY_ONE = HandClass.TWENTY_ONE
FIVE_CARD_TRICK = HandClass.FIVE_CARD_TRICK
PONTOON = HandClass.PONTOON


def _beats(player: HandResult, banker: HandResult) -> bool:
    """True when the player's hand outranks the banker's (class first, then total)."""
    if player.hand_class != banker.hand_class:
        return player.hand_class > banker.hand_class
    return player.hand_class == TOTAL and player.total > banker.total


def _pagat(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§3 table (``pagat`` and ``shoot``). Ties go to the banker.

    A banker's pontoon normally ends the round at the deal; where ``banker_natural_at_deal`` is
    turned off it reaches this table and takes what it would have taken at the deal.
    """
    p, b = player.hand_class, banker.hand_class
    if b == PONTOON:
        return banker_natural_at_deal(rules, p == PONTOON)
    special = p in (PONTOON, FIVE_CARD_TRICK)
    pays = 2 if p == PONTOON else rules.five_card_trick_pays
    if b == BUST:
        return pays if special and rules.bust_pays_double else 1
    if p == PONTOON:
        return 2
    if b == FIVE_CARD_TRICK:
        return -2
    if p == FIVE_CARD_TRICK:
        return pays
    if b == TWENTY_ONE:
        return -1
    return 1 if player.total > banker.total else -1


def _casino(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§5: pontoon and five-card trick pay 2:1, the rest 1:1, ties to the dealer."""
    p, b = player.hand_class, banker.hand_class
    if p == PONTOON and b != PONTOON:
        return 2
    if b == BUST:
        return rules.five_card_trick_pays if p == FIVE_CARD_TRICK else 1
    if not _beats(player, banker):
        return -1
    return rules.five_card_trick_pays if p == FIVE_CARD_TRICK else 1


def _vingt_un(player: HandResult, banker: HandResult, ties_stand_off: bool) -> int:
    """Vingt-Un settlement shared by 1800 and 1850; they differ only in how ties settle."""
    p, b = player.hand_class, banker.hand_class
    player_21 = p in (TWENTY_ONE, PONTOON)
    if b == BUST:
        return 2 if player_21 else 1
    if b in (TWENTY_ONE, PONTOON):
        return 0 if player_21 else -2
    if player_21:
        return 2
    if ties_stand_off and player.total == banker.total:
        return 0
    return 1 if player.total > banker.total else -1


def _vingt_un_1800(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§6: dealer 21 takes 2 (stand-off with 21); player 21 wins 2; other ties stand off."""
    return _vingt_un(player, banker, ties_stand_off=True)


def _vingt_un_1850(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§7: equal or lower pay 1, higher receive 1, 21 receives 2; a drawn dealer 21 takes 2."""
    return _vingt_un(player, banker, ties_stand_off=False)


def _pontoon_1939(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§8 table. A player natural reaching settlement met a banker natural (else it was paid)."""
    p, b = player.hand_class, banker.hand_class
    strong = p in (TWENTY_ONE, FIVE_CARD_TRICK)
    if b == PONTOON:
        if p == PONTOON:
            return -1
        return -2 if strong else -3
    if p == PONTOON:  # only reachable if the banker's natural was not checked: pays as a natural
        return 3
    if b in (TWENTY_ONE, FIVE_CARD_TRICK):
        return -1 if strong else -2
    if b == BUST:
        return 2 if strong else 1
    if strong:
        return 2
    return 1 if player.total > banker.total else -1


def _pontoon_2011(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """§9: banker pontoon takes all at 1x; player pontoon wins 2 (1 if split); else 1:1."""
    p, b = player.hand_class, banker.hand_class
    if b == PONTOON:
        return -1
    if p == PONTOON:
        return 1 if player.split else 2
    if b == BUST:
        return rules.five_card_trick_pays if p == FIVE_CARD_TRICK else 1
    if not _beats(player, banker):
        return -1
    return rules.five_card_trick_pays if p == FIVE_CARD_TRICK else 1


_TABLES: dict[str, Callable[[Rules, HandResult, HandResult], int]] = {
    "pagat": _pagat,
    "casino": _casino,
    "vingt_un_1800": _vingt_un_1800,
    "vingt_un_1850": _vingt_un_1850,
    "pontoon_1939": _pontoon_1939,
    "pontoon_2011": _pontoon_2011,
}


def standing_hand_payout(rules: Rules, player: HandResult, banker: HandResult) -> int:
    """Signed multiple of the current stake for a player hand still standing at settlement.

    A busted player hand never reaches this: it lost its stake at once (``-1``).
    """
    return _TABLES[rules.settlement](rules, player, banker)


def banker_natural_at_deal(rules: Rules, player_has_natural: bool) -> int:
    """What a banker's natural shown at the deal (``rules.banker_natural_at_deal``) does to each
    player's initial stake: ``-banker_natural_wins`` (pagat 2, casino 1; a player's natural pays
    too, E12), or 0 for a player's natural where ``natural_vs_natural="stand_off"`` (Vingt-Un, D12).
    """
    if player_has_natural and rules.natural_vs_natural == "stand_off":
        return 0
    return -rules.banker_natural_wins


def shoot_bet_wins(stake_payout: int) -> bool:
    """Shoot bets are paid 1:1 from the kitty when the hand beats the banker, else go to it (§4)."""
    return stake_payout > 0
