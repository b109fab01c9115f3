"""Settlement tables of RULES.md as small pure functions.

Each function answers one question with a signed multiple of a hand's *current* stake, seen from
the player: ``+k`` means the banker pays ``k`` stakes, ``-k`` that the player pays ``k`` stakes,
``0`` a stand-off. They take :class:`~pontoon_env.game.hands.HandResult` values only, so the engine, the
exact solver and a vectorised engine all share them.

* :func:`standing_hand_payout`: a player hand still standing against the banker's final hand.
* :func:`banker_natural_at_deal`: what a banker's natural takes when it ends the round at the deal
  (``pagat``, ``casino``, 1800, 1850); ``None`` where the preset settles it at the banker's turn.
* :func:`player_natural_at_deal`: what a player's natural is paid at once (1939, 1850); ``None``
  where it waits for settlement.
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
    """§3 table (``pagat`` and ``shoot``). Ties go to the banker."""
    p, b = player.hand_class, banker.hand_class
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


def banker_natural_ends_round(rules: Rules) -> bool:
    """True where a banker's natural is revealed at the deal and ends the round (§3, §5, §6, §7)."""
    return rules.settlement in ("pagat", "casino", "vingt_un_1800", "vingt_un_1850")


def banker_natural_at_deal(rules: Rules, player_has_natural: bool) -> int:
    """What a banker's natural revealed at the deal does to each player's initial stake.

    ``pagat``: every player loses 2 (D-log: player pontoons too). ``casino``: every player loses 1.
    1850: players pay 2, a player natural stands off (D12). 1800: the dealer's natural, first in
    rotation when no player has one, takes 2 from every player; a player natural pays nothing.
    """
    scheme = rules.settlement
    if scheme == "pagat":
        return -2
    if scheme == "casino":
        return -1
    if scheme in ("vingt_un_1850", "vingt_un_1800"):
        return 0 if player_has_natural else -2
    raise ValueError(f"settlement {scheme!r} settles the banker's natural at the banker's turn")


def player_natural_paid_at_deal(rules: Rules) -> int:
    """What a player's (unsplit) natural is paid at once when the banker has none; 0 if it waits.

    1939: 3 stakes and the player takes the bank. 1850: 2, settled with the dealer only.
    (1800's natural is paid by every participant: see the engine's natural handling.)
    """
    return {"pontoon_1939": 3, "vingt_un_1850": 2, "vingt_un_1800": 2}.get(rules.settlement, 0)


def shoot_bet_wins(stake_payout: int) -> bool:
    """Shoot bets are paid 1:1 from the kitty when the hand beats the banker, else go to it (§4)."""
    return stake_payout > 0
