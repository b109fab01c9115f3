#!/usr/bin/env python
"""Train a Pontoon player or banker with Stable-Baselines3 (the logic lives in pontoon_tools.training).

Examples::

    python train.py                                   # a player on pagat, default settings
    python train.py --role banker --timesteps 200000  # a banker against threshold players
    python train.py --role both --generations 3       # alternate player and banker training
    python train.py --rules pontoon_2011 --option stick_min=15 --seats 3 --out runs/2011
    python train.py --algo dqn --timesteps 100000     # DQN; illegal ids are replaced (see --help)
    python train.py --resume runs/pagat-player/model.zip --timesteps 100000
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence

from pontoon_tools.training import (
    ALGOS,
    BOTH_SEATS,
    EPISODES,
    ROLE_DEFAULTS,
    ROLES,
    TrainingError,
    TrainSettings,
    parse_option,
    train,
)

DEFAULTS = TrainSettings()


def _policy_help() -> str:
    try:
        from agents.registry import describe_policies

        return describe_policies()
    except ImportError:  # pragma: no cover - agents ships with the package
        return "random, threshold, casino_dealer, banker_threshold, banker_smart, <path>.zip"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="train.py",
        description=textwrap.fill(
            "Train a Pontoon player or banker (Gymnasium env Pontoon-v0) with MaskablePPO, PPO or DQN. "
            "Writes a run directory: model.zip, config.json (rules, table, action layout, versions: "
            "everything needed to reload or reproduce the run), eval_history.csv/json (the learning curve: EV "
            "against fixed baseline tables), checkpoints/ and TensorBoard logs in tb/. Reward = net chips / "
            "min_stake per step.",
            width=100,
        ),
        epilog=textwrap.fill(
            "Illegal actions: maskable_ppo masks them (env.action_masks()). ppo and dqn cannot mask; their "
            "environments are wrapped so that an illegal id is replaced by the first legal id and the step's reward "
            "is lowered by --illegal-penalty. The environment's own illegal_action='penalty' mode is not used "
            "because it ends the round, which would let the learner escape a losing hand for the price of the "
            "penalty.",
            width=100,
        ) + "\n\nPolicy specs for --opponents:\n" + _policy_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    game = parser.add_argument_group("game")
    game.add_argument("--rules", default=DEFAULTS.rules, metavar="PRESET",
                      help="rules preset: pagat, shoot, casino, vingt_un_1800, vingt_un_1850, pontoon_1939, pontoon_2011 "
                           f"(default {DEFAULTS.rules})")
    game.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="override one rules option, e.g. --option stick_min=16 --option split_aces_only=true "
                           "(repeatable; see docs/presets.md)")
    game.add_argument("--seats", type=int, default=None,
                      help="number of player seats besides the banker, 1-9; the model is tied to this table size "
                           f"(default: {ROLE_DEFAULTS['player']['seats']} for a player, {ROLE_DEFAULTS['banker']['seats']} "
                           f"for a banker, {BOTH_SEATS} with --role both)")
    game.add_argument("--role", choices=ROLES, default=DEFAULTS.role,
                      help="what the learner plays: player, banker, or both (alternating generations) "
                           f"(default {DEFAULTS.role})")
    game.add_argument("--opponents", nargs="+", default=[], metavar="SPEC",
                      help="policies of the other seats: at most one player spec (drives every other player seat) "
                           "and one banker spec; scripted names or saved checkpoints (.zip). Default: threshold "
                           "players and banker_threshold (casino_dealer under casino)")
    game.add_argument("--episode", choices=EPISODES, default=DEFAULTS.episode,
                      help="an episode is one round, or a session of --session-rounds rounds on one pack "
                           f"(default {DEFAULTS.episode})")
    game.add_argument("--session-rounds", type=int, default=DEFAULTS.session_rounds,
                      help=f"rounds per session episode (default {DEFAULTS.session_rounds})")
    game.add_argument("--learner-seat", type=int, default=None,
                      help="a player learner's seat (1 = first to act); default: a random seat each episode")

    run = parser.add_argument_group("run")
    run.add_argument("--algo", choices=ALGOS, default=DEFAULTS.algo,
                     help=f"learning algorithm (default {DEFAULTS.algo}, from sb3-contrib; ppo and dqn from SB3)")
    run.add_argument("--timesteps", type=int, default=DEFAULTS.timesteps,
                     help=f"learner decisions to train for, per role and generation (default {DEFAULTS.timesteps:,})")
    run.add_argument("--seed", type=int, default=DEFAULTS.seed, help=f"seed of the model and the environments (default {DEFAULTS.seed})")
    run.add_argument("--out", default=None, metavar="DIR",
                     help="run directory (default runs/<rules>-<role>; with --resume and no --out: the checkpoint's "
                          "directory)")
    run.add_argument("--generations", type=int, default=DEFAULTS.generations,
                     help=f"with --role both: player/banker generations (default {DEFAULTS.generations})")
    run.add_argument("--resume", metavar="PATH",
                     help="continue training a checkpoint (.zip or run directory) for --timesteps more steps; it must "
                          "match the rules, table size, role, action layout and algorithm of this run")
    run.add_argument("--eval-freq", type=int, default=DEFAULTS.eval_freq,
                     help=f"evaluate (and checkpoint) every N steps, 0 for timesteps / 10 (default {DEFAULTS.eval_freq:,})")
    run.add_argument("--eval-rounds", type=int, default=DEFAULTS.eval_rounds,
                     help=f"rounds per evaluation at each baseline table, 0 to skip (default {DEFAULTS.eval_rounds})")
    run.add_argument("--eval-seed", type=int, default=None,
                     help="seed of the evaluation rounds (default: seed + 10000, away from evaluate.py's seeds)")
    run.add_argument("--checkpoint-freq", type=int, default=DEFAULTS.checkpoint_freq,
                     help="save checkpoints/step_N.zip every N steps (default: --eval-freq)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar or eval printouts")
    run.add_argument("--verbose", type=int, default=DEFAULTS.verbose, help="SB3 verbosity (0, 1, 2)")

    hyper = parser.add_argument_group("hyperparameters (defaults tuned for 2 CPU cores)")
    hyper.add_argument("--n-envs", type=int, default=DEFAULTS.n_envs, help=f"parallel environments (default {DEFAULTS.n_envs})")
    hyper.add_argument("--vec-env", choices=("dummy", "subproc"), default=DEFAULTS.vec_env,
                       help=f"step environments in this process or in worker processes (default {DEFAULTS.vec_env})")
    hyper.add_argument("--lr", type=float, default=DEFAULTS.learning_rate, help=f"learning rate (default {DEFAULTS.learning_rate})")
    hyper.add_argument("--n-steps", type=int, default=DEFAULTS.n_steps,
                       help=f"PPO: steps per environment per update (default {DEFAULTS.n_steps})")
    hyper.add_argument("--batch-size", type=int, default=DEFAULTS.batch_size, help=f"minibatch size (default {DEFAULTS.batch_size})")
    hyper.add_argument("--n-epochs", type=int, default=DEFAULTS.n_epochs, help=f"PPO: epochs per update (default {DEFAULTS.n_epochs})")
    hyper.add_argument("--gamma", type=float, default=DEFAULTS.gamma, help=f"discount (default {DEFAULTS.gamma})")
    hyper.add_argument("--gae-lambda", type=float, default=DEFAULTS.gae_lambda, help=f"PPO: GAE lambda (default {DEFAULTS.gae_lambda})")
    hyper.add_argument("--ent-coef", type=float, default=None,
                       help="PPO: entropy bonus at the start of training (default: "
                            f"{ROLE_DEFAULTS['player']['ent_coef']} for a player, {ROLE_DEFAULTS['banker']['ent_coef']} "
                            "for a banker)")
    hyper.add_argument("--net-arch", default=",".join(map(str, DEFAULTS.net_arch)),
                       help=f"hidden layer widths, comma-separated (default {','.join(map(str, DEFAULTS.net_arch))})")
    hyper.add_argument("--no-norm-reward", action="store_true",
                       help="train on raw rewards (default: rewards scaled by a running return std, VecNormalize)")
    hyper.add_argument("--illegal-penalty", type=float, default=DEFAULTS.illegal_penalty,
                       help=f"ppo/dqn: reward subtracted when an illegal id is replaced (default {DEFAULTS.illegal_penalty})")
    hyper.add_argument("--ent-coef-final", type=float, default=None,
                       help="PPO: entropy bonus at the end of training, reached linearly from --ent-coef (default "
                            f"{ROLE_DEFAULTS['player']['ent_coef_final']})")
    hyper.add_argument("--warm-start", default=None, metavar="SPEC",
                       help="before RL, imitate this policy for --warm-start-rounds rounds: behaviour cloning of the "
                            "actor (with label smoothing, so every legal move keeps some probability) and Monte-Carlo "
                            "fitting of the critic; 'none' to learn from scratch (ppo and maskable_ppo; default: none "
                            f"for a player, {ROLE_DEFAULTS['banker']['warm_start']} for a banker)")
    hyper.add_argument("--warm-start-rounds", type=int, default=DEFAULTS.warm_start_rounds,
                       help=f"rounds the warm-start policy plays (default {DEFAULTS.warm_start_rounds:,})")
    hyper.add_argument("--warm-start-epochs", type=int, default=DEFAULTS.warm_start_epochs,
                       help=f"passes over the imitation data (default {DEFAULTS.warm_start_epochs})")
    hyper.add_argument("--threads", type=int, default=DEFAULTS.threads,
                       help=f"torch CPU threads (default {DEFAULTS.threads}: small networks gain nothing from more)")
    return parser


def settings_from_args(args: argparse.Namespace) -> TrainSettings:
    """Turn parsed arguments into :class:`TrainSettings` (a TrainingError names a bad value)."""
    options = dict(parse_option(text) for text in args.option)
    try:
        net_arch = [int(part) for part in str(args.net_arch).split(",") if part.strip()]
    except ValueError:
        raise TrainingError(f"--net-arch: expected comma-separated integers such as 64,64, got {args.net_arch!r}") from None
    return TrainSettings(
        rules=args.rules, options=options, role=args.role, algo=args.algo, timesteps=args.timesteps, seed=args.seed,
        seats=args.seats, opponents=list(args.opponents), episode=args.episode, session_rounds=args.session_rounds,
        out=args.out, generations=args.generations, resume=args.resume, eval_freq=args.eval_freq,
        eval_rounds=args.eval_rounds, eval_seed=args.eval_seed, learner_seat=args.learner_seat,
        checkpoint_freq=args.checkpoint_freq, n_envs=args.n_envs, vec_env=args.vec_env, learning_rate=args.lr,
        n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.n_epochs, gamma=args.gamma,
        gae_lambda=args.gae_lambda, ent_coef=args.ent_coef, ent_coef_final=args.ent_coef_final, net_arch=net_arch,
        warm_start=args.warm_start, warm_start_rounds=args.warm_start_rounds, warm_start_epochs=args.warm_start_epochs, norm_reward=not args.no_norm_reward,
        illegal_penalty=args.illegal_penalty, threads=args.threads, progress=not args.no_progress, verbose=args.verbose,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        summary = train(settings_from_args(args))
    except (TrainingError, ValueError, FileNotFoundError) as error:
        # RulesError, PolicySpecError and CheckpointError are ValueErrors with a complete message.
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
