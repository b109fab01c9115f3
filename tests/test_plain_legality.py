"""The engine's shortcut for applying common moves without the legal list agrees with the list.

:meth:`PontoonGame._plainly_legal` accepts stick, twist, stake, draw and stand from the legality
predicates when nobody asked for the legal actions; it must say "legal" exactly when the list
holds the action, in every preset, with finite and unlimited bankrolls.
"""

from __future__ import annotations

import numpy as np
import pytest

from pontoon_env import Action, ActionKind, PontoonGame
from pontoon_env.game.actions import Phase
from pontoon_env.game.policy import RandomPolicy
from pontoon_env.game.rules import PRESETS, make_rules

_CHECKED = {
    Phase.PLAYER_TURN: (ActionKind.STICK, ActionKind.TWIST),
    Phase.BANKER_TURN: (ActionKind.DRAW, ActionKind.STAND),
    Phase.STAKE: (ActionKind.STAKE,),
}


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("bankroll", [0, 30])
def test_plainly_legal_matches_the_legal_list(preset: str, bankroll: int) -> None:
    rules = make_rules(preset, bankroll=bankroll) if bankroll else make_rules(preset)
    game = PontoonGame(rules, 3, seed=5, banker=0)
    policy, rng = RandomPolicy(), np.random.default_rng(11)
    checked = 0
    for _ in range(150):
        if bankroll and min(game.balances) < rules.max_stake:
            break
        game.new_round()
        while not game.is_round_over:
            legal = game.legal_actions()
            for kind in _CHECKED.get(game.phase, ()):
                for amount in (-1, 0, 1, rules.min_stake, rules.max_stake, rules.max_stake + 1):
                    plain = game._plainly_legal(kind, amount)
                    listed = any(option.allows(Action(kind, amount)) for option in legal)
                    assert plain == listed, (preset, game.phase, kind, amount, legal)
                    checked += 1
            game.apply(policy.act(None, legal, rng))  # type: ignore[arg-type]
    assert checked > 0
