"""pontoon-env: reinforcement-learning environments for Pontoon, the British banking card game.

The package is layered like OpenSpiel's games: :mod:`pontoon_env.rules` (static rules as data),
:mod:`pontoon_env.engine` (state and transitions), :mod:`pontoon_env.observation` (what each seat
may see), and the Gymnasium / PettingZoo wrappers on top.
"""

from pontoon_env.actions import Action, ActionKind, IllegalActionError, LegalAction, Phase
from pontoon_env.cards import DeckError, card_name, parse_card
from pontoon_env.engine import PontoonGame, Transfer
from pontoon_env.hands import HandClass, classify, hand_total
from pontoon_env.rules import PRESETS, Rules, RulesError, make_rules
from pontoon_env.registration import register_envs

register_envs()  # gymnasium.make("Pontoon-v0") / ("PontoonBanker-v0") after `import pontoon_env`

__all__ = [
    "PRESETS",
    "Action",
    "ActionKind",
    "DeckError",
    "HandClass",
    "IllegalActionError",
    "LegalAction",
    "Phase",
    "PontoonGame",
    "Rules",
    "RulesError",
    "Transfer",
    "card_name",
    "classify",
    "hand_total",
    "make_rules",
    "parse_card",
]
