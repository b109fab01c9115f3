"""The rules of play, written once: which moves a hand has, and why a move is not allowed.

Every function here is pure: it reads a :class:`~pontoon_env.game.hands.HandStat` (or a few
numbers) and the :class:`~pontoon_env.game.rules.Rules`, and says what the rules allow. The engine
builds its legal actions and its error messages from these functions; the exact solver, the
scripted agents (``banker_smart``, ``optimal``), the observation encoder and the batched engine
call the same functions (the batched engine tabulates them), so a rule variant that touches
legality is an edit of the rules type and of this module only.

Each move has a *denial* function that returns ``None`` when the move is allowed and otherwise
the reason it is not, in words a player would use; :func:`player_moves` lists the moves whose
denial is ``None``, and :func:`player_move_denial` answers "why not?" from the same checks, so
the engine's legality and its error messages cannot drift apart.

Hand-level rules: drawing (:func:`player_may_draw`, :func:`player_hand_stops`), sticking,
buying (:func:`buy_range`), the casino double, splitting (:func:`pair_splits`), the fourth-card
shoot bet, the banker's stop and the casino dealer's fixed rule (:func:`casino_dealer_draws`),
and the class of a finished hand (:func:`player_result`, :func:`banker_result`). Table-level
amounts (stakes, kitty, shoot room) are the small functions at the end.
"""

from __future__ import annotations

from pontoon_env.game.actions import ActionKind, LegalAction
from pontoon_env.game.cards import ACE
from pontoon_env.game.hands import BLACKJACK, FIVE_CARDS, HandResult, HandStat, classify_stat
from pontoon_env.game.rules import Rules

CASINO_DEALER_STANDS = 17
"""The casino dealer hits soft 17 and below and stands on hard 17 and above (§5)."""
UNLIMITED = 1 << 40
"""Free chips of a seat at a table with unlimited bankrolls."""

_STICK = LegalAction(ActionKind.STICK)
_TWIST = LegalAction(ActionKind.TWIST)
_SPLIT = LegalAction(ActionKind.SPLIT)
_DOUBLE = LegalAction(ActionKind.DOUBLE)
_DRAW = LegalAction(ActionKind.DRAW)
_STAND = LegalAction(ActionKind.STAND)
_BANKER_SPLIT = LegalAction(ActionKind.BANKER_SPLIT)


# ------------------------------------------------------------------------------ classification


def player_result(stat: HandStat, rules: Rules) -> HandResult:
    """The class of a player's hand under ``rules`` (a split ace + ten per ``split_pontoon``).

    It reads the statistic's total, card count and split flag only (the engine caches classes by them)."""
    return classify_stat(
        stat.total,
        stat.n_cards,
        stat.split,
        five_card_trick=rules.five_card_trick,
        split_pontoon_is_pontoon=rules.split_pontoon == "pontoon",
    )


def banker_result(stat: HandStat, rules: Rules) -> HandResult:
    """The class of a banker's hand: his five-card trick needs ``dealer_five_card_trick`` (D9), and
    a dealer's split hand never counts as a natural (E15). Like :func:`player_result`, it reads the
    statistic's total, card count and split flag only."""
    return classify_stat(
        stat.total,
        stat.n_cards,
        stat.split,
        five_card_trick=rules.five_card_trick and rules.dealer_five_card_trick,
        split_pontoon_is_pontoon=False,
    )


# ------------------------------------------------------------------------------ the player's hand


def player_card_limit(rules: Rules) -> int:
    """The most cards a player's hand may hold: five where the five-card trick exists, else no limit."""
    return FIVE_CARDS if rules.five_card_trick else 99


def may_draw(total: int, soft: bool, n_cards: int, rules: Rules) -> bool:
    """A hand of ``total`` (``soft``) and ``n_cards`` may take another card: under 21 and under
    the card limit, or, with ``draw_on_soft_21`` (D19), a soft 21 of three or more cards (it
    cannot go bust). The engine's hot path calls this form; :func:`player_may_draw` reads a stat."""
    if n_cards >= (FIVE_CARDS if rules.five_card_trick else 99):
        return False
    if total < BLACKJACK:
        return True
    return total == BLACKJACK and soft and n_cards >= 3 and rules.draw_on_soft_21


def player_may_draw(stat: HandStat, rules: Rules) -> bool:
    """:func:`may_draw` for a hand statistic."""
    return may_draw(stat.total, stat.soft, stat.n_cards, rules)


def player_hand_stops(stat: HandStat, rules: Rules) -> bool:
    """The hand is finished without a decision: bust, a 21 that may not draw, or the card limit."""
    return not may_draw(stat.total, stat.soft, stat.n_cards, rules)


def may_stick(total: int, rules: Rules, shoot_waiting: bool = False) -> bool:
    """A hand of ``total`` may stick: at least ``stick_min``, and no shoot bet waiting for its
    fourth card (E20). The engine's hot path calls this form; :func:`stick_denial` says why not."""
    return total >= rules.stick_min and not shoot_waiting


def stick_denial(stat: HandStat, rules: Rules, shoot_waiting: bool = False) -> str | None:
    """Why the hand may not stick now (``None``: it may). ``shoot_waiting``: a shoot bet was placed
    for the fourth card, which the hand must now draw (E20)."""
    if may_stick(stat.total, rules, shoot_waiting):
        return None
    if stat.total < rules.stick_min:
        return f"sticking needs a total of at least {rules.stick_min}, the hand has {stat.total}"
    if shoot_waiting:
        return "a shoot bet on the fourth card waits for that card"
    return None


def twist_denial(stat: HandStat, rules: Rules) -> str | None:
    """Why the hand may not twist (take a card face up, the stake unchanged)."""
    if player_may_draw(stat, rules):
        return None
    return _no_draw_reason(stat, rules)


def _no_draw_reason(stat: HandStat, rules: Rules) -> str:
    if stat.n_cards >= player_card_limit(rules):
        return f"a hand stops at {FIVE_CARDS} cards"
    if stat.total > BLACKJACK:
        return "the hand is bust"
    return "a 21 must stick"


def buy_limits(stat: HandStat, rules: Rules) -> tuple[int, int]:
    """The price range of the next buy before the bankroll cap: ``pagat`` first buy in
    [initial, 2 x initial], later buys in [initial, previous buy] (D5); ``initial``: [1, initial]."""
    if rules.buy_limits == "pagat":
        return stat.initial, (stat.last_buy or 2 * stat.initial)
    return 1, stat.initial


def buy_denial(stat: HandStat, rules: Rules, free_chips: int = UNLIMITED) -> str | None:
    """Why the hand may not buy a card now."""
    if not rules.allow_buy:
        return "these rules have no buying"
    if not player_may_draw(stat, rules):
        return _no_draw_reason(stat, rules)
    if stat.total >= BLACKJACK:
        return "a hand of 21 may not buy (D4)"
    if stat.twisted:
        return "no buying after a twist"
    if stat.doubled:
        return "no buying after a double"
    if stat.n_cards == 4 and stat.total <= rules.no_buy_fifth_at_or_below:
        limit = rules.no_buy_fifth_at_or_below
        return f"a four-card hand totalling {limit} or less may not buy its fifth card"
    low, _ = buy_limits(stat, rules)
    if free_chips < low:
        return f"the hand cannot cover the smallest buy ({low} chips, {free_chips} free)"
    return None


def buy_range(stat: HandStat, rules: Rules, free_chips: int = UNLIMITED) -> tuple[int, int] | None:
    """The legal price range of a buy now, capped by the seat's free chips; ``None`` if no buy."""
    if buy_denial(stat, rules, free_chips) is not None:
        return None
    low, high = buy_limits(stat, rules)
    return low, min(high, free_chips)


def double_denial(stat: HandStat, rules: Rules, free_chips: int = UNLIMITED) -> str | None:
    """Why the hand may not make the casino double (once per hand, on 2 to 4 cards, E9)."""
    if not rules.double_allowed:
        return "these rules have no double"
    if not player_may_draw(stat, rules):
        return _no_draw_reason(stat, rules)
    if stat.doubled:
        return "a hand doubles only once"
    if not 2 <= stat.n_cards <= 4:
        return "a hand doubles on two to four cards"
    if free_chips < stat.stake:
        return f"doubling needs {stat.stake} more chips, the seat has {free_chips} free"
    return None


def pair_splits(rank_a: int, rank_b: int, rules: Rules) -> bool:
    """Whether two cards of these ranks (0 = ace .. 12 = king) form a pair that may split:
    same rank (10-10, Q-Q, never K-J), same value where ``split="value"`` (casino), aces only
    with ``split_aces_only``."""
    if rules.split == "none":
        return False
    if rules.split_aces_only:
        return rank_a == ACE and rank_b == ACE
    if rules.split == "rank":
        return rank_a == rank_b
    return min(rank_a, 9) == min(rank_b, 9)  # ranks 9..12 (ten to king) are all worth ten


def split_denial(
    stat: HandStat, rules: Rules, *, pair: bool, hands_held: int, free_chips: int = UNLIMITED
) -> str | None:
    """Why the hand may not split. ``pair``: its two cards pass :func:`pair_splits`;
    ``hands_held``: hands the player holds now (1 before any split)."""
    if rules.split == "none":
        return "these rules have no splitting"
    if hands_held >= rules.max_split_hands:
        return f"a player may hold at most {rules.max_split_hands} hands"
    if stat.n_cards != 2 or stat.twisted or stat.buys or stat.doubled:
        return "only a hand's first two cards may split"
    if not pair:
        return "only a pair may split" + (" (aces only)" if rules.split_aces_only else "")
    if free_chips < stat.initial:
        return f"a split needs {stat.initial} more chips, the seat has {free_chips} free"
    return None


def fourth_card_shoot_open(stat: HandStat, placed: bool) -> bool:
    """Shoot: a hand of three cards may place one shoot bet for its fourth card (§4)."""
    return stat.n_cards == 3 and not placed


def split_hand_shoot_open(stat: HandStat, later_split_hand: bool, placed: bool, shoot: int) -> bool:
    """Shoot: each split hand after the first may place its own bet on its first two cards (E20)."""
    return later_split_hand and stat.split and stat.n_cards == 2 and not placed and shoot == 0


def player_moves(
    stat: HandStat,
    rules: Rules,
    *,
    pair: bool = False,
    hands_held: int = 1,
    free_chips: int = UNLIMITED,
    shoot_waiting: bool = False,
) -> list[LegalAction]:
    """The hand's legal moves (stick, twist, buy with its price range, split, double), in that
    order (policies that pick by position rely on it). Shoot bets depend on the kitty too: the engine adds them (:func:`shoot_range`)."""
    legal: list[LegalAction] = []
    if stick_denial(stat, rules, shoot_waiting) is None:
        legal.append(_STICK)
    if player_may_draw(stat, rules):
        legal.append(_TWIST)
        prices = buy_range(stat, rules, free_chips)
        if prices is not None:
            legal.append(LegalAction(ActionKind.BUY, *prices))
    if pair and split_denial(stat, rules, pair=pair, hands_held=hands_held, free_chips=free_chips) is None:
        legal.append(_SPLIT)
    if rules.double_allowed and double_denial(stat, rules, free_chips) is None:
        legal.append(_DOUBLE)
    return legal


def player_move_denial(
    kind: ActionKind,
    stat: HandStat,
    rules: Rules,
    *,
    pair: bool = False,
    hands_held: int = 1,
    free_chips: int = UNLIMITED,
    shoot_waiting: bool = False,
) -> str | None:
    """Why a move of ``kind`` is not legal for this hand (``None`` when it is, or when ``kind`` is
    not a hand move): the same checks as :func:`player_moves`."""
    if kind == ActionKind.STICK:
        return stick_denial(stat, rules, shoot_waiting)
    if kind == ActionKind.TWIST:
        return twist_denial(stat, rules)
    if kind == ActionKind.BUY:
        return buy_denial(stat, rules, free_chips)
    if kind == ActionKind.DOUBLE:
        return double_denial(stat, rules, free_chips)
    if kind == ActionKind.SPLIT:
        return split_denial(stat, rules, pair=pair, hands_held=hands_held, free_chips=free_chips)
    return None


# ------------------------------------------------------------------------------ the banker's hand


def casino_dealer_draws(total: int, soft: bool) -> bool:
    """The casino dealer's fixed rule: hit soft 17 and below, stand on hard 17 and above (§5)."""
    return total < CASINO_DEALER_STANDS or (total == CASINO_DEALER_STANDS and soft)


def banker_card_limit(rules: Rules) -> int:
    """The banker stops at five cards only where he can make the trick (D9, E16)."""
    return FIVE_CARDS if rules.five_card_trick and rules.dealer_five_card_trick else 99


def banker_stops(total: int, n_cards: int, rules: Rules) -> bool:
    """The banker's hand of ``total`` and ``n_cards`` is finished: 21 (a natural included), bust,
    or his card limit."""
    return total >= BLACKJACK or n_cards >= banker_card_limit(rules)


def banker_hand_stops(stat: HandStat, rules: Rules) -> bool:
    """:func:`banker_stops` for a hand statistic."""
    return banker_stops(stat.total, stat.n_cards, rules)


def banker_pair_splits(rank_a: int, rank_b: int, rules: Rules) -> bool:
    """1850: the dealer may play two cards of one rank as separate hands."""
    return rules.dealer_may_split and rank_a == rank_b


def banker_moves(stat: HandStat, rules: Rules, *, pair: bool = False, hands_held: int = 1) -> list[LegalAction]:
    """The banker's legal moves on an unfinished hand: the casino dealer's one forced move, or
    stand / draw (and, 1850, split a pair while he holds fewer than ``max_split_hands`` hands)."""
    if rules.dealer_rule == "hit_soft_17":
        return [_DRAW if casino_dealer_draws(stat.total, stat.soft) else _STAND]
    legal = [_STAND, _DRAW]
    if pair and stat.n_cards == 2 and hands_held < rules.max_split_hands and rules.dealer_may_split:
        legal.append(_BANKER_SPLIT)
    return legal


def banker_move_denial(kind: ActionKind, stat: HandStat, rules: Rules, *, pair: bool = False, hands_held: int = 1) -> str | None:
    """Why the banker may not make a move of ``kind`` now (``None`` when he may)."""
    if any(option.kind == kind for option in banker_moves(stat, rules, pair=pair, hands_held=hands_held)):
        return None
    if rules.dealer_rule == "hit_soft_17" and kind in (ActionKind.DRAW, ActionKind.STAND):
        return "the casino dealer hits soft 17 and below and stands on hard 17 and above"
    if kind == ActionKind.BANKER_SPLIT:
        if not rules.dealer_may_split:
            return "only the 1850 dealer may play a pair as two hands"
        if hands_held >= rules.max_split_hands:
            return f"the dealer may hold at most {rules.max_split_hands} hands"
        return "only a pair of one rank, as the first two cards, may split"
    return None


# ------------------------------------------------------------------------------ table amounts


def stake_range(rules: Rules, free_chips: int = UNLIMITED) -> tuple[int, int]:
    """The initial stake's range; a seated player can always stake the minimum (E10)."""
    return rules.min_stake, max(rules.min_stake, min(rules.max_stake, free_chips))


def kitty_range(rules: Rules, kitty: int) -> tuple[int, int]:
    """Shoot: a new kitty is in [min, max] stake; adding to a standing kitty is 0..max (E19)."""
    return (rules.min_stake if kitty == 0 else 0), rules.max_stake


def shoot_room(kitty: int, outstanding: int, free_chips: int = UNLIMITED) -> int:
    """Shoot: chips a new shoot bet may reach: the total of all shoot bets stays within the kitty
    (D7), and within the seat's free chips."""
    return min(kitty - outstanding, min(free_chips, kitty))
