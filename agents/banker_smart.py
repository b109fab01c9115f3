"""A banker who decides whether to draw from what he can see of the standing hands.

Approach (documented in ``docs/agents.md`` too):

1. **A belief about every standing player hand.** The banker sees each hand's stake, shoot bet,
   number of cards and its face-up cards (twisted cards, split cards, a declared pontoon); bought
   cards and the first two cards stay hidden. For each hand he enumerates the hidden cards card by
   card, in dealing order, drawing each from an *infinite deck* (ace..9 with probability 1/13 each,
   ten-value 4/13), and weighs every sequence by how likely a typical player was to play it:

   * the hand never went bust (a bust hand is already settled) and never reached 21 or five cards
     before its last card (it would have stopped);
   * an undeclared two-card hand that was not split is not a pontoon (naturals are declared);
   * after each card but the last the player chose to draw again, with probability
     :func:`draw_probability` of the total then (1 below the rules' stick minimum, a logistic
     curve falling through 1/2 at 16 above it); after the last card he stuck, with the
     complementary probability, unless 21 or five cards stopped the hand anyway.

   Normalising gives a distribution over the hand's final class and total.
2. **The banker's utility of a final hand** ``b`` is the expected chips he receives from every
   standing hand, ``-sum(stake * E[payout multiple(hand, b)])`` using the preset's own settlement
   table (:func:`pontoon_env.game.settlement.standing_hand_payout`), plus shoot bets (won by the kitty,
   which belongs to the banker) weighed by ``shoot_weight``.
3. **Optimal stopping** over the banker's own draws, again from an infinite deck:
   ``V(hand) = max(U(hand), E_card V(hand + card))`` until he busts, reaches 21 or five cards. He
   draws when drawing is worth more than standing by more than ``margin`` chips.

The players have all finished when the banker plays, so their beliefs do not change during his turn
and are computed once per turn (cached on the visible hands). Everything else (stakes double on an
ace with ``double_on_ace``, the minimum kitty, keeping the bank) is as :class:`BankerThreshold`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from agents.scripted import BankerThreshold, Decision, active_hand, find, first_legal
from pontoon_env.game import legality
from pontoon_env.game.actions import Action, ActionKind, LegalAction
from pontoon_env.game.cards import CARD_VALUE, VALUE_PROBABILITY
from pontoon_env.game.hands import BLACKJACK, FIVE_CARDS, HandResult, HandStat, values_total
from pontoon_env.game.observation import HIDDEN, HandView, SeatView
from pontoon_env.game.checks import require_finite
from pontoon_env.game.rules import Rules, resolve_rules
from pontoon_env.game.settlement import standing_hand_payout

#: Infinite-deck probability of each card value 1 (ace) .. 10 (ten-value cards).
VALUE_PROBS: tuple[tuple[int, float], ...] = tuple(VALUE_PROBABILITY.items())


def draw_probability(total: int, stick_min: int) -> float:
    """How likely a typical player is to draw again on ``total`` (the behaviour prior).

    Forced below the rules' stick minimum; never on 21; a logistic curve through 1/2 at 16 otherwise.
    """
    if total >= BLACKJACK:
        return 0.0
    if total < stick_min or total <= 11:
        return 1.0
    return 1.0 / (1.0 + math.exp(total - 16.0))


def _stat(pip: int, has_ace: bool, count: int, split: bool = False) -> HandStat:
    """The hand statistic of a hand known by its pip sum, ace, size and split flag."""
    total, soft = values_total(pip, has_ace)
    return HandStat(total, soft, count, split)


def hand_belief(hand: HandView, rules: Rules) -> dict[HandResult, float]:
    """The banker's belief about a standing player hand: its final result and probability.

    See the module docstring for the model. The keys are :class:`HandResult` values as settlement
    takes them; the probabilities sum to 1.
    """
    count = len(hand.cards)
    if hand.declared:
        return {legality.player_result(HandStat(BLACKJACK, True, count, hand.split), rules): 1.0}
    states: dict[tuple[int, bool], float] = {(0, False): 1.0}
    for index, card in enumerate(hand.cards):
        dealt = index + 1
        choices = VALUE_PROBS if card == HIDDEN else ((CARD_VALUE[card], 1.0),)
        grown: dict[tuple[int, bool], float] = {}
        for (pip, has_ace), weight in states.items():
            for value, probability in choices:
                key = (pip + value, has_ace or value == 1)
                if values_total(*key)[0] > BLACKJACK:
                    continue  # a standing hand never went bust
                grown[key] = grown.get(key, 0.0) + weight * probability
        states = grown
        if dealt >= 2 and dealt < count:  # the player chose to draw again after this card
            kept: dict[tuple[int, bool], float] = {}
            for (pip, has_ace), weight in states.items():
                total, _ = values_total(pip, has_ace)
                if dealt == 2 and total == BLACKJACK and not hand.split:
                    continue  # an undeclared, unsplit two-card hand is no pontoon
                if legality.player_hand_stops(_stat(pip, has_ace, dealt), rules):
                    continue  # it would have stopped here
                kept[(pip, has_ace)] = weight * draw_probability(total, rules.stick_min)
            states = kept
    outcomes: dict[HandResult, float] = {}
    for (pip, has_ace), weight in states.items():
        total, _ = values_total(pip, has_ace)
        if count == 2 and total == BLACKJACK and not hand.split:
            continue
        if not legality.player_hand_stops(_stat(pip, has_ace, count), rules):
            weight *= 1.0 - draw_probability(total, rules.stick_min)  # he chose to stick here
        if weight <= 0.0:
            continue
        result = legality.player_result(_stat(pip, has_ace, count, hand.split), rules)
        outcomes[result] = outcomes.get(result, 0.0) + weight
    mass = sum(outcomes.values())
    if mass <= 0.0:  # nothing fits the model (an unusual line of play)
        return {visible_result(hand, rules): 1.0}
    return {result: weight / mass for result, weight in outcomes.items()}


def visible_result(hand: HandView, rules: Rules) -> HandResult:
    """What a hand's visible cards alone make (the fallback of a belief that has nothing to go on)."""
    known = hand.known_cards
    pip = sum(CARD_VALUE[card] for card in known)
    has_ace = any(CARD_VALUE[card] == 1 for card in known)
    return legality.player_result(_stat(pip, has_ace, len(hand.cards), hand.split), rules)


def standing_hands(hands: Iterable[HandView], rules: Rules) -> Iterator[tuple[int, HandView]]:
    """``(index, hand)`` of the hands a banker still plays against at his turn: not bust, dealt, and
    not a declared natural already paid at the deal."""
    settled_naturals = rules.natural_paid_at_deal != 0
    for index, hand in enumerate(hands):
        if not hand.bust and hand.cards and not (hand.declared and settled_naturals):
            yield index, hand


_TURNS_KEPT = 20_000
"""Visible tables a banker keeps his computations for before starting afresh (a bound on memory)."""


class BankerSmart(BankerThreshold):
    """A banker who draws when the expected chips of drawing beat standing (see module docstring).

    Args:
        rules: the rule set being played (the settlement table and the stick minimum come from it).
        double_on_ace: double all stakes on an ace first card where the preset has the banker's
            double (1850, 1939).
        kitty: Shoot kitty sizing, as :class:`BankerThreshold`.
        margin: chips by which drawing must beat standing (0: draw on any expected gain).
        shoot_weight: how much a shoot bet counts for the banker (the kitty is his; 1 = fully).
    """

    name = "banker_smart"
    sees_table = True  # its belief reads every player's visible hands

    def __init__(
        self,
        rules: Rules | str = "pagat",
        double_on_ace: bool = True,
        kitty: str | int = "min",
        margin: float = 0.0,
        shoot_weight: float = 1.0,
    ) -> None:
        super().__init__(stand=17, double_on_ace=double_on_ace, kitty=kitty)  # type: ignore[arg-type]
        self.rules = resolve_rules(rules)  # a dict or None failed only at the first banker decision
        self.margin = require_finite("margin", margin)  # nan made the banker never draw
        self.shoot_weight = require_finite("shoot_weight", shoot_weight)
        # Per visible table (the players have finished, so it is fixed for a whole banker turn): the
        # exposure, the utility of each final hand and the value of each hand on the way. Keyed by
        # the visible hands, not just the last ones: a batched evaluation asks one policy object for
        # thousands of tables in turn.
        self._turns: dict[object, tuple[list[tuple[int, int, dict[HandResult, float]]],
                                        dict[HandResult, float], dict[tuple[int, bool, int, bool], float]]] = {}
        self._payouts: dict[tuple[HandResult, HandResult], float] = {}
        """Settlement multiples by (player result, banker result): the table is fixed by the rules."""

    # -- the belief about the table

    def exposure(self, view: SeatView) -> list[tuple[int, int, dict[HandResult, float]]]:
        """``(stake, shoot bet, belief)`` of every player hand still to be settled against him."""
        return self._turn(view)[0]

    def _turn(self, view: SeatView) -> tuple[list[tuple[int, int, dict[HandResult, float]]],
                                             dict[HandResult, float], dict[tuple[int, bool, int, bool], float]]:
        key = view.players
        turn = self._turns.get(key)
        if turn is None:
            if len(self._turns) >= _TURNS_KEPT:
                self._turns.clear()
            exposure = [
                (hand.stake, hand.shoot, self.belief(hand))
                for _, hands in view.players
                for _, hand in standing_hands(hands, self.rules)
            ]
            turn = self._turns[key] = (exposure, {}, {})
        return turn

    def belief(self, hand: HandView) -> dict[HandResult, float]:
        """The distribution of a standing hand's final result (:func:`hand_belief`'s behaviour prior;
        :class:`agents.banker_belief.BeliefBanker` learns it from play instead)."""
        return hand_belief(hand, self.rules)

    def utility(
        self, exposure: Sequence[tuple[int, int, dict[HandResult, float]]], banker: HandResult
    ) -> float:
        """Expected chips the banker receives when his hand ends as ``banker``."""
        chips = 0.0
        payouts = self._payouts
        for stake, shoot, belief in exposure:
            for result, probability in belief.items():
                multiple = payouts.get((result, banker))
                if multiple is None:
                    multiple = payouts[(result, banker)] = standing_hand_payout(self.rules, result, banker)
                chips -= probability * multiple * stake
                if shoot:
                    chips += probability * self.shoot_weight * (-shoot if multiple > 0 else shoot)
        return chips

    def values(self, view: SeatView, cards: Sequence[int], split: bool = False) -> tuple[float, float]:
        """Expected chips of ``(standing, drawing)`` now with ``cards``, playing on optimally."""
        rules = self.rules
        exposure, utilities, memo = self._turn(view)  # the last two kept with the exposure

        def stand_value(pip: int, has_ace: bool, count: int) -> float:
            result = legality.banker_result(_stat(pip, has_ace, count, split), rules)
            if result not in utilities:
                utilities[result] = self.utility(exposure, result)
            return utilities[result]

        def finished(pip: int, has_ace: bool, count: int) -> bool:
            return legality.banker_hand_stops(_stat(pip, has_ace, count, split), rules)

        def draw_value(pip: int, has_ace: bool, count: int) -> float:
            return sum(
                probability * value(pip + card, has_ace or card == 1, count + 1)
                for card, probability in VALUE_PROBS
            )

        def value(pip: int, has_ace: bool, count: int) -> float:
            # Past five cards only "five or more" matters: for his class (with the trick) and for
            # his stop (at five with the trick; never by count without it).
            key = (pip, has_ace, min(count, FIVE_CARDS), split)
            if key not in memo:
                stand = stand_value(pip, has_ace, count)
                memo[key] = (
                    stand if finished(pip, has_ace, count) else max(stand, draw_value(pip, has_ace, count))
                )
            return memo[key]

        pip = sum(CARD_VALUE[card] for card in cards)
        has_ace = any(CARD_VALUE[card] == 1 for card in cards)
        count = len(cards)
        return stand_value(pip, has_ace, count), draw_value(pip, has_ace, count)

    # -- the decision

    def on_banker_turn(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        if len(legal) == 1:
            return first_legal(legal)
        hand = active_hand(view)
        if hand is None or find(legal, ActionKind.DRAW) is None:
            return None
        stand, draw = self.values(view, hand.known_cards, hand.split)
        return Action(ActionKind.DRAW if draw > stand + self.margin else ActionKind.STAND)

    def __repr__(self) -> str:
        return (
            f"BankerSmart(rules={self.rules.preset!r}, double_on_ace={self.double_on_ace}, "
            f"kitty={self.kitty!r}, margin={self.margin}, shoot_weight={self.shoot_weight})"
        )
