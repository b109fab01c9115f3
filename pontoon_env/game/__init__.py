"""The game of Pontoon, with no learning library in sight.

Modules, lowest first: :mod:`~pontoon_env.game.cards` (codes and the pack),
:mod:`~pontoon_env.game.rules` (typed presets), :mod:`~pontoon_env.game.hands` (the hand statistic,
totals and classes), :mod:`~pontoon_env.game.actions` (phases and action kinds),
:mod:`~pontoon_env.game.legality` (which moves a hand has, and why not),
:mod:`~pontoon_env.game.settlement` (who pays whom), :mod:`~pontoon_env.game.ledger` (transfers and a
seat's result), :mod:`~pontoon_env.game.engine` (the table's state machine),
:mod:`~pontoon_env.game.observation` (what one seat may see), :mod:`~pontoon_env.game.policy` (the
policy protocol) and :mod:`~pontoon_env.game.runner` (policies playing rounds).
"""

from pontoon_env.game.actions import Action, ActionKind, IllegalActionError, LegalAction, Phase
from pontoon_env.game.cards import DeckError, card_name, parse_card
from pontoon_env.game.engine import PontoonGame, Transfer
from pontoon_env.game.hands import HandClass, classify, hand_total
from pontoon_env.game.rules import PRESETS, Rules, RulesError, make_rules

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
