"""The exact banker best response to a fixed player, as a policy for the banker's seat.

:func:`pontoon_env.solver.banker_best_response` computes, over an infinite deck, the banker's
optimal drawing rule against one fixed player policy, given his own hand and what he sees of the
player's standing hand (its card count, its stake, whether it is a declared natural; after a split
only that the player split). :class:`BankerBestResponse` plays that table at a one-player table:
it is the ceiling a learned banker is measured against (the benchmark's banker score, the
learning targets).

The fixed player is a scripted ``threshold`` player (any parameters the solver can express) or
the solver's ``optimal`` player; its stake choice by first card is part of it, since the banker
sees the stake. Everything else the banker decides (the kitty, the double, the bank) is as
:class:`~agents.scripted.BankerThreshold`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agents.scripted import BankerThreshold, Decision, ThresholdPlayer, active_hand, find, first_legal
from pontoon_env.game.actions import Action, ActionKind, LegalAction
from pontoon_env.game.hands import hand_total
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import Rules, RulesSpec, resolve_rules


def solver_player(rules: Rules, player: str | ThresholdPlayer) -> tuple[object, dict[int, int]]:
    """The solver's form of a fixed player: ``(PolicyFn or Solution, stake by first card)``."""
    from pontoon_env import solver

    if player == "optimal":
        rule = solver.BankerRule(17, hit_soft=rules.dealer_rule == "hit_soft_17", double_on=frozenset())
        solution = solver.solve(rules.replace(shoot=False) if rules.shoot else rules, rule)
        low, high = rules.min_stake, rules.max_stake
        return solution, {v: high if move == "stake_max" else low for v, move in solution.stake_choice.items()}
    if player == "threshold":
        player = ThresholdPlayer()
    if not isinstance(player, ThresholdPlayer):
        raise ValueError(f"player: expected 'threshold', 'optimal' or a ThresholdPlayer, got {player!r}")
    return player.solver_policy(), player.stake_choice(rules)


class BankerBestResponse(BankerThreshold):
    """The banker's exact best response to one fixed player (see the module docstring).

    Args:
        rules: the rules being played (a preset the solver models: ``pagat`` with its options,
            ``casino``, ``pontoon_1939``, ``pontoon_2011``; Shoot bets aside).
        player: the fixed player it answers: ``"threshold"``, ``"optimal"`` or a
            :class:`~agents.scripted.ThresholdPlayer`.

    Raises:
        ValueError: rules the solver cannot model, or a player it cannot express.
    """

    name = "banker_best_response"
    sees_table = True  # the response reads the player's standing hand
    max_players = 1
    """The player seats it can answer: the registry refuses it at a larger table when the table
    is made, not at the first banker decision with two hands standing."""

    def __init__(self, rules: RulesSpec = "pagat", player: str | ThresholdPlayer = "threshold") -> None:
        from pontoon_env import solver

        super().__init__(stand=17)
        self.rules = resolve_rules(rules)
        self.player = player
        if self.rules.shoot and getattr(player, "shoot", "none") != "none":
            # the solver values the round without shoot bets: this player's would go unanswered
            raise ValueError(f"player: the solver leaves shoot bets out, so it cannot answer a player who makes "
                             f"them (shoot={player.shoot!r}); give one with shoot='none'")  # type: ignore[union-attr]
        solved = self.rules.replace(shoot=False) if self.rules.shoot else self.rules
        rule = solver.BankerRule(17, hit_soft=self.rules.dealer_rule == "hit_soft_17", double_on=frozenset())
        policy, choice = solver_player(solved, player)
        self.response = solver.banker_best_response(solved, rule, policy, stake_choice=choice)  # type: ignore[arg-type]
        self._signal = solver.Signal

    def on_banker_turn(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Decision:
        if len(legal) == 1:
            return first_legal(legal)
        hand = active_hand(view)
        if hand is None or find(legal, ActionKind.DRAW) is None:
            return None
        standing = [seat_hands for _, seat_hands in view.players if seat_hands]
        if len(standing) != 1:
            raise ValueError(
                f"banker_best_response answers one player; this table has {len(standing)} player seats in the round"
            )
        (hands,) = standing
        if len(hands) > 1:
            signal = self._signal(True)
        else:
            player_hand = hands[0]
            signal = self._signal(False, len(player_hand.cards), player_hand.stake, player_hand.declared)
        total, soft = hand_total(hand.known_cards)
        key = (view.stakes_doubled, signal, total, soft, len(hand.cards))
        draws = self.response._draws.get(key)
        if draws is None:  # a position the response never meets (no standing hand shows it)
            draws = self.draws(total, soft)
        return Action(ActionKind.DRAW if draws else ActionKind.STAND)

    def __repr__(self) -> str:
        return f"BankerBestResponse(rules={self.rules.preset!r}, player={self.player!r})"

