#!/usr/bin/env python
"""Train the banker and the players of a Pontoon table at once with Ray RLlib PPO, on one machine or a cluster.

The logic lives in pontoon_tools.rllib (trainer, multi-agent env, masking RLModule). Examples::

    python train_rllib.py --timesteps 200000                        # local: Ray on this machine's cores
    python train_rllib.py --rules pontoon_2011 --option stick_min=15 --seats 4 --out runs/2011-rllib
    python train_rllib.py --policies per_seat                       # one player policy per seat
    python train_rllib.py --address 10.0.0.1:6379 --num-env-runners 32 --num-envs-per-env-runner 8
    python evaluate.py --player runs/pagat-rllib --banker runs/pagat-rllib   # the checkpoint in any seat

Needs the ``rllib`` extra (its own virtual environment: ``bash scripts/setup_rllib.sh``).
``train.py --backend rllib`` forwards its remaining arguments to
:func:`pontoon_tools.rllib.cli.main`, where the command line lives.
"""

from __future__ import annotations

from pontoon_tools.rllib.cli import build_parser, main, settings_from_args

__all__ = ["build_parser", "main", "settings_from_args"]

if __name__ == "__main__":
    raise SystemExit(main())
