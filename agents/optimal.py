"""The exact solver's player policy in a seat (:mod:`pontoon_env.solver`).

:class:`OptimalPlayer` solves the rules once (an infinite-deck expectimax of one player seat
against a banker who draws by a fixed rule, by default standing on 17, hitting soft 17 under the
casino rule) and then looks every decision up:

* the initial stake: the minimum or the maximum, as the solution's stake choice for the first card
  (or before the deal) says;
* the play: :func:`pontoon_env.solver.scripted_move` on the hand's cards, buy history, stake and
  split state, among the legal moves (a buy at the smallest or the largest legal price: the solver
  shows an optimum sits at one of the two ends).

It is optimal against that banker rule over an infinite deck; against other bankers, or with the
pack's memory, it is a strong baseline rather than a best response. Where the rules have the
banker's double (``pontoon_1939``) the rule never doubles; a hand played after a
banker did double is looked up in a second solution (:meth:`OptimalPlayer.solution_for`), of a
banker who doubles on an ace first card, as every doubling banker of :mod:`agents` does (so the
double tells the player the banker holds an ace). It places no shoot bets (the
solver does not model them; under ``shoot`` it solves the same rules without them), passes on bank
sales and takes the bank when offered. In a banker seat it banks like ``BankerThreshold(17)``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.scripted import Decision, ThresholdPlayer, active_hand, find, sized
from pontoon_env.game.actions import Action, ActionKind, LegalAction
from pontoon_env.game import legality
from pontoon_env.game.cards import CARD_RANK
from pontoon_env.game.observation import HIDDEN, SeatView
from pontoon_env.game.checks import require_int
from pontoon_env.game.rules import Rules, resolve_rules

_MOVES = {
    ActionKind.STICK: ("stick",),
    ActionKind.TWIST: ("twist",),
    ActionKind.BUY: ("buy_min", "buy_max"),
    ActionKind.DOUBLE: ("double",),
    ActionKind.SPLIT: ("split",),
}


DOUBLED_ON = frozenset({1})
"""The first-card values (1 = ace) on which the banker of :meth:`OptimalPlayer.solution_for`'s
second solution doubles: an ace, as ``banker_threshold:double_ace=true`` and ``banker_smart`` do."""


class OptimalPlayer(ThresholdPlayer):
    """The solver's optimal player policy against a fixed banker rule (see the module docstring).

    Args:
        rules: the rules being played (``pagat``, ``shoot`` (bets aside), ``casino``,
            ``pontoon_1939``, ``pontoon_2011``, with any options).
        stand: the banker's rule the solution is optimal against: he stands on this total
            (default 17; the casino dealer also hits soft 17).

    Raises:
        ValueError: rules the solver cannot model (the Vingt-Un presets).
    """

    name = "optimal"

    def __init__(self, rules: Rules | str = "pagat", stand: int = 17) -> None:
        from pontoon_env import solver

        super().__init__()
        self.rules = resolve_rules(rules)
        stand = require_int("stand", stand, 2, 22)
        if self.rules.dealer_rule == "hit_soft_17" and stand != 17:
            # no banker of these rules plays another rule: the solution would answer nobody at the table
            raise ValueError(f"stand: the {self.rules.preset!r} dealer's rule is fixed (stands on 17, hits soft 17), "
                             f"so the optimum is against stand=17; got {stand}")
        solved_rules = self.rules.replace(shoot=False) if self.rules.shoot else self.rules
        # Solved against the scripted banker_threshold, which never doubles the stakes by default.
        rule = solver.BankerRule(stand, hit_soft=self.rules.dealer_rule == "hit_soft_17", double_on=frozenset())
        self._solver = solver
        self._solved_rules = solved_rules
        self.solution = solver.solve(solved_rules, rule)
        """The solution every decision reads unless the banker doubled the stakes."""
        self._doubled_solution: object | None = None
        self.stand = stand

    def solution_for(self, banker_doubled: bool) -> object:
        """The solution a decision reads: :attr:`solution`, or after a banker's double the solution
        against the same banker doubling on an ace (solved on first use: the first one has no
        branch for a doubled round, and the engine and the batched engine both ask here)."""
        if not banker_doubled:
            return self.solution
        if self._doubled_solution is None:
            rule = self._solver.BankerRule(
                self.stand, hit_soft=self.rules.dealer_rule == "hit_soft_17", double_on=DOUBLED_ON
            )
            self._doubled_solution = self._solver.solve(self._solved_rules, rule)
        return self._doubled_solution

    def on_stake(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Decision:
        option = find(legal, ActionKind.STAKE)
        if option is None:
            return None
        hand = active_hand(view)
        first = hand.cards[0] if hand is not None and hand.cards and hand.cards[0] != HIDDEN else None
        move = self._solver.scripted_stake(self.solution, first)
        return sized(option, "max" if move == "stake_max" else "min")

    def on_player_turn(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        hand = active_hand(view)
        if hand is None:
            return None
        moves = [move for option in legal for move in _MOVES.get(option.kind, ())]
        if not moves:
            return None
        index = view.active_hand
        later = view.own_hands[index + 1 :]
        pending = sum(
            1 for other in later if len(other.cards) == 2 and not other.done and self._pair(other.cards)
        )
        move = self._solver.scripted_move(
            self.solution_for(view.stakes_doubled),
            hand.known_cards,
            hand.twisted,
            hand.last_buy,
            hand.initial,
            len(view.own_hands),
            moves,
            stake=hand.stake,
            doubled=hand.doubled,
            split_hand=hand.split,
            pending_pairs=pending,
            banker_doubled=view.stakes_doubled,
        )
        if move in ("buy_min", "buy_max"):
            buy = find(legal, ActionKind.BUY)
            return sized(buy, "min" if move == "buy_min" else "max") if buy is not None else None
        kind = next(kind for kind, names in _MOVES.items() if move in names)
        return Action(kind)

    def _pair(self, cards: Sequence[int]) -> bool:
        first, second = cards
        return legality.pair_splits(CARD_RANK[first], CARD_RANK[second], self.rules)

    def __repr__(self) -> str:
        return f"OptimalPlayer(rules={self.rules.preset!r}, stand={self.stand})"
