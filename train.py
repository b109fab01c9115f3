#!/usr/bin/env python
"""Train a Pontoon player or banker with Stable-Baselines3 (the logic lives in pontoon_tools.training).

Every flag is a field of :class:`pontoon_tools.training.TrainSettings`; the parser is derived from
it (:mod:`pontoon_tools.settings`), so ``--help`` lists each one with its default. Examples::

    python train.py                                   # a player on pagat, default settings
    python train.py --role banker --timesteps 200000  # a banker against threshold players
    python train.py --role both --generations 3       # alternate player and banker training
    python train.py --rules pontoon_2011 --option stick_min=15 --seats 3 --out runs/2011
    python train.py --algo dqn --timesteps 100000     # DQN; illegal ids are replaced (see --help)
    python train.py --resume runs/pagat-player/model.zip --timesteps 100000
    python train.py --backend rllib --timesteps 120000 # Ray RLlib, banker and players at once (docs/rllib.md)
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence

from pontoon_tools.settings import build_parser as settings_parser
from pontoon_tools.settings import from_args
from pontoon_tools.training import TrainSettings, train


def _policy_help() -> str:
    try:
        from agents.registry import describe_policies

        return describe_policies()
    except ImportError:  # pragma: no cover - agents ships with the package
        return "random, threshold, casino_dealer, banker_threshold, banker_smart, <path>.zip"


def build_parser() -> argparse.ArgumentParser:
    """``train.py``'s parser: one flag per :class:`TrainSettings` field."""
    return settings_parser(
        TrainSettings,
        prog="train.py",
        description=textwrap.fill(
            "Train a Pontoon player or banker (Gymnasium env Pontoon-v0) with lean_ppo (the default: masked PPO on "
            "the batched engine), lean_dqn, MaskablePPO, PPO or DQN, or a belief banker. "
            "Writes a run directory: model.zip, config.json (rules, table, action layout, versions: "
            "everything needed to reload or reproduce the run), eval_history.csv/json (the learning curve: EV "
            "against fixed baseline tables), checkpoints/ and TensorBoard logs in tb/. Reward = net chips / "
            "min_stake per step. Every setting is checked before the run directory is made. These are the flags of "
            "the default backend (--backend sb3); with --backend rllib, Ray RLlib trains the banker and the players "
            "at once, with flags of its own: train.py --backend rllib --help (docs/rllib.md).",
            width=100,
        ),
        epilog=textwrap.fill(
            "Illegal actions: lean_ppo, lean_dqn and maskable_ppo mask them (env.action_masks()). ppo and dqn cannot "
            "mask; their "
            "environments are wrapped so that an illegal id is replaced by the first legal id and the step's reward "
            "is lowered by --illegal-penalty. The environment's own illegal_action='penalty' mode is not used "
            "because it ends the round, which would let the learner escape a losing hand for the price of the "
            "penalty.",
            width=100,
        ) + "\n\nPolicy specs for --opponents and --warm-start:\n" + _policy_help(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    backend = argparse.ArgumentParser(add_help=False)
    backend.add_argument("--backend", choices=("sb3", "rllib"), default="sb3")
    known, argv = backend.parse_known_args(argv)
    if known.backend == "rllib":  # Ray RLlib, the whole table at once (docs/rllib.md)
        from pontoon_tools.rllib.cli import main as rllib_main

        return rllib_main(argv, prog="train.py --backend rllib")
    settings = from_args(TrainSettings, build_parser().parse_args(argv))
    try:
        summary = train(settings)
    except (ValueError, FileNotFoundError) as error:
        # TrainingError, RulesError, PolicySpecError and CheckpointError are ValueErrors with a
        # complete message: the user gets that message, not a traceback.
        print(f"train.py: error: {error}", file=sys.stderr)
        return 2
    # The learning curves are in each run's eval_history.csv; print where the models are.
    summary = {key: value for key, value in summary.items() if key != "history"}
    for row in summary.get("generations", []):
        row.pop("player_eval", None)
        row.pop("banker_eval", None)
    print(json.dumps(summary, indent=2, default=str))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
