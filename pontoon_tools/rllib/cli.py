"""The ``train_rllib.py`` command line (also ``train.py --backend rllib``): arguments → :class:`RLlibSettings` → :func:`train`.

Kept in the package rather than in the script so that ``train.py`` can forward to :func:`main`
with a plain import, whatever the working directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Sequence

from pontoon_tools.rllib.trainer import (
    EPISODES,
    POLICY_LAYOUTS,
    RayMissingError,
    RLlibSettings,
    RLlibTrainingError,
    parse_option,
    train,
)

DEFAULTS = RLlibSettings()


def build_parser(prog: str = "train_rllib.py") -> argparse.ArgumentParser:
    """The argument parser; ``prog`` names the command in usage and error lines."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description=textwrap.fill(
            "Train a banker policy and player policies at the same time with RLlib PPO (new API stack) on the "
            "PettingZoo table: every seat is an agent, each decision goes to the banker or the player policy by "
            "the role of the seat at that moment, illegal actions are masked in the RLModule, and each seat sees "
            "only its own observation. Writes runs/<name>/: config.json, checkpoint/ (loadable in any seat by "
            "evaluate.py, the EV tables and terminal play), checkpoints/iter_N, progress.csv (the learning curve "
            "of both roles), eval_history.csv (EV against the scripted baselines) and TensorBoard logs in tb/. "
            "Rewards are net chips / min_stake.",
            width=100,
        ),
        epilog=textwrap.fill(
            "Scaling out: start Ray on each machine (`ray start --head` on one, `ray start --address=HEAD:6379` on "
            "the others, all after scripts/setup_rllib.sh), then add --address HEAD:6379 and raise "
            "--num-env-runners; nothing else changes (docs/rllib.md).",
            width=100,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    game = parser.add_argument_group("game (as in train.py)")
    game.add_argument("--rules", default=DEFAULTS.rules, metavar="PRESET",
                      help="rules preset: pagat, shoot, casino, vingt_un_1800, vingt_un_1850, pontoon_1939, "
                           f"pontoon_2011 (default {DEFAULTS.rules})")
    game.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="override one rules option, e.g. --option stick_min=16 (repeatable; see docs/presets.md)")
    game.add_argument("--seats", type=int, default=DEFAULTS.seats,
                      help=f"player seats besides the banker, 1-9; the checkpoint is tied to it (default {DEFAULTS.seats})")
    game.add_argument("--episode", choices=EPISODES, default=DEFAULTS.episode,
                      help="an episode is one round, or a session of --session-rounds rounds on one pack "
                           f"(default {DEFAULTS.episode})")
    game.add_argument("--session-rounds", type=int, default=DEFAULTS.session_rounds,
                      help=f"rounds per session episode (default {DEFAULTS.session_rounds})")
    game.add_argument("--policies", choices=POLICY_LAYOUTS, default=DEFAULTS.policies,
                      help="shared: one banker and one player policy; per_seat: one banker policy and one player "
                           f"policy per seat (default {DEFAULTS.policies})")

    cluster = parser.add_argument_group("Ray")
    cluster.add_argument("--address", default=None, metavar="HOST:PORT",
                         help="join the Ray cluster whose head node listens there ('auto': the one started on this "
                              "machine); default: a private Ray instance on this machine's loopback")
    cluster.add_argument("--num-cpus", type=int, default=None,
                         help="cores of the private instance (default: all); not with --address")
    cluster.add_argument("--num-env-runners", type=int, default=DEFAULTS.num_env_runners,
                         help="sampling actors, one core each; 0 samples in the driver "
                              f"(default {DEFAULTS.num_env_runners})")
    cluster.add_argument("--num-envs-per-env-runner", type=int, default=DEFAULTS.num_envs_per_env_runner,
                         help=f"tables each actor steps together (default {DEFAULTS.num_envs_per_env_runner})")
    cluster.add_argument("--rollout-fragment-length", type=int, default=DEFAULTS.rollout_fragment_length,
                         help="steps per table an actor collects per call "
                              f"(default {DEFAULTS.rollout_fragment_length})")

    run = parser.add_argument_group("run")
    run.add_argument("--timesteps", type=int, default=DEFAULTS.timesteps,
                     help=f"decisions to sample, all seats together (default {DEFAULTS.timesteps:,})")
    run.add_argument("--seed", type=int, default=DEFAULTS.seed, help=f"seed (default {DEFAULTS.seed})")
    run.add_argument("--out", default=None, metavar="DIR",
                     help="run folder (default runs/<rules>-rllib); without --resume, an earlier run there is "
                          "replaced (its tb/ kept), as train.py does")
    run.add_argument("--resume", default=None, metavar="PATH",
                     help="continue from a checkpoint (run folder or checkpoint folder) for --timesteps more; it "
                          "must match the rules, table size, action layout and policies. The iterations (progress.csv, "
                          "eval_history.csv, checkpoints/iter_N) go on from the checkpoint's; --out: its own run "
                          "folder (the curve goes on there) or a new one")
    run.add_argument("--checkpoint-every", type=int, default=DEFAULTS.checkpoint_every,
                     help="save checkpoints/iter_N and score against the baselines every N iterations, 0 only at "
                          f"the end (default {DEFAULTS.checkpoint_every})")
    run.add_argument("--eval-rounds", type=int, default=DEFAULTS.eval_rounds,
                     help="rounds per role of each score against the scripted baselines, 0 to skip "
                          f"(default {DEFAULTS.eval_rounds})")
    run.add_argument("--eval-seed", type=int, default=None, help="seed of those rounds (default: seed + 10000)")
    run.add_argument("--max-iterations", type=int, default=None,
                     help="stop after this many PPO iterations too (after --resume: this many more)")
    run.add_argument("--no-progress", action="store_true", help="no per-iteration printout")

    hyper = parser.add_argument_group("PPO hyperparameters")
    hyper.add_argument("--train-batch-size", type=int, default=DEFAULTS.train_batch_size,
                       help=f"decisions per PPO update (default {DEFAULTS.train_batch_size})")
    hyper.add_argument("--minibatch-size", "--batch-size", dest="minibatch_size", type=int,
                       default=DEFAULTS.minibatch_size, help=f"minibatch size (default {DEFAULTS.minibatch_size})")
    hyper.add_argument("--num-epochs", "--n-epochs", dest="num_epochs", type=int, default=DEFAULTS.num_epochs,
                       help=f"epochs per update (default {DEFAULTS.num_epochs})")
    hyper.add_argument("--lr", type=float, default=DEFAULTS.learning_rate,
                       help=f"learning rate (default {DEFAULTS.learning_rate})")
    hyper.add_argument("--gamma", type=float, default=DEFAULTS.gamma, help=f"discount (default {DEFAULTS.gamma})")
    hyper.add_argument("--gae-lambda", type=float, default=DEFAULTS.gae_lambda,
                       help=f"GAE lambda (default {DEFAULTS.gae_lambda})")
    hyper.add_argument("--ent-coef", type=float, default=DEFAULTS.ent_coef,
                       help=f"entropy bonus (default {DEFAULTS.ent_coef})")
    hyper.add_argument("--net-arch", default=",".join(map(str, DEFAULTS.net_arch)),
                       help=f"hidden layer widths, comma-separated (default {','.join(map(str, DEFAULTS.net_arch))})")
    hyper.add_argument("--threads", type=int, default=DEFAULTS.threads,
                       help=f"torch CPU threads of the learner (default {DEFAULTS.threads})")
    return parser


def settings_from_args(args: argparse.Namespace) -> RLlibSettings:
    """Parsed arguments as :class:`RLlibSettings` (an RLlibTrainingError names a bad value)."""
    try:
        net_arch = [int(part) for part in str(args.net_arch).split(",") if part.strip()]
    except ValueError:
        raise RLlibTrainingError(
            f"--net-arch: expected comma-separated integers such as 64,64, got {args.net_arch!r}"
        ) from None
    return RLlibSettings(
        rules=args.rules, options=dict(parse_option(text) for text in args.option), seats=args.seats,
        episode=args.episode, session_rounds=args.session_rounds, policies=args.policies, timesteps=args.timesteps,
        seed=args.seed, out=args.out, resume=args.resume, address=args.address, num_cpus=args.num_cpus,
        num_env_runners=args.num_env_runners, num_envs_per_env_runner=args.num_envs_per_env_runner,
        rollout_fragment_length=args.rollout_fragment_length, train_batch_size=args.train_batch_size,
        minibatch_size=args.minibatch_size, num_epochs=args.num_epochs, learning_rate=args.lr, gamma=args.gamma,
        gae_lambda=args.gae_lambda, ent_coef=args.ent_coef, net_arch=net_arch,
        checkpoint_every=args.checkpoint_every, eval_rounds=args.eval_rounds, eval_seed=args.eval_seed,
        threads=args.threads, progress=not args.no_progress, max_iterations=args.max_iterations,
    )


def main(argv: Sequence[str] | None = None, prog: str = "train_rllib.py") -> int:
    """Run the command with ``argv``; 0 on success, 2 with one ``<prog>: error:`` line on bad input.

    ``train.py --backend rllib`` calls ``main(remaining_argv, prog="train.py --backend rllib")``.
    """
    args = build_parser(prog).parse_args(argv)
    try:
        summary = train(settings_from_args(args))
    except (RLlibTrainingError, RayMissingError, ValueError, FileNotFoundError) as error:
        # RulesError and RLlibCheckpointError are ValueErrors with a complete message.
        print(f"{prog}: error: {error}", file=sys.stderr)
        return 2
    from pontoon_tools.evaluation import strict_json_value

    # The same strict JSON as summary.json (a one-round eval's CI is null, not NaN).
    print(json.dumps(strict_json_value(summary), indent=2, default=str, allow_nan=False))
    return 0


