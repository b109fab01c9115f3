"""pontoon-env: reinforcement-learning environments for Pontoon, the British banking card game.

The package is layered, lowest first; an import never points up a layer:

* :mod:`pontoon_env.game`: the game itself (cards, rules, hands, legality, settlement, ledger,
  engine, observation, the policy protocol, the round runner). It imports neither gymnasium nor
  torch nor matplotlib.
* :mod:`pontoon_env.encoding`: the action table and observation encoder every learning
  interface shares.
* :mod:`pontoon_env.solver`: the exact infinite-deck solver.
* :mod:`agents` (a sibling package): scripted, optimal and trained policies.
* :mod:`pontoon_env.envs`: the Gymnasium and PettingZoo environments and rendering.

Experiment tooling (training, evaluation, plots, terminal play) lives outside, in
:mod:`pontoon_tools`.
"""

from importlib.util import find_spec

from pontoon_env.game import (
    PRESETS,
    Action,
    ActionKind,
    DeckError,
    HandClass,
    IllegalActionError,
    LegalAction,
    Phase,
    PontoonGame,
    Rules,
    RulesError,
    Transfer,
    card_name,
    classify,
    hand_total,
    make_rules,
    parse_card,
)

if find_spec("gymnasium") is not None:  # the game layer works without gymnasium installed
    from pontoon_env.envs.registration import register_envs

    register_envs()  # gymnasium.make("Pontoon-v0") / ("PontoonBanker-v0") after `import pontoon_env`
    from pontoon_env.benchmark import register_tasks

    register_tasks()  # and every benchmark task's environment, e.g. gymnasium.make("pagat/player-1-v0")

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
