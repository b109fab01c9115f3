#!/usr/bin/env python
"""Benchmark Pontoon policies honestly: EVs with confidence intervals, paired comparisons, charts.

The logic lives in pontoon_tools.evaluation (playing, statistics, reports) and pontoon_tools.plots
(strategy charts, EV bars, learning curves). Examples::

    # every seat of a 4-player table, 20,000 rounds
    python evaluate.py --player threshold --banker banker_threshold --seats 4 --learner-seat 1

    # a trained player against the baselines, on the same cards, with its learning curve and charts
    python evaluate.py --run runs/pagat-player --compare runs/pagat-player/model.zip threshold random

    # a trained banker against the threshold banker
    python evaluate.py --role banker --compare runs/pagat-banker/model.zip banker_threshold

    # how far a policy is from the exact solver's optimum
    python evaluate.py --player threshold --seats 1 --optimality-gap
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Sequence

from pontoon_tools.evaluation import EvaluateSettings, EvaluationError, format_report, run_evaluation
from pontoon_tools.training import TrainingError, parse_option

DEFAULTS = EvaluateSettings()


def _policy_help() -> str:
    try:
        from agents.registry import describe_policies

        return describe_policies()
    except ImportError:  # pragma: no cover - agents ships with the package
        return "random, threshold, casino_dealer, banker_threshold, banker_smart, optimal, <path>.zip"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evaluate.py",
        description=textwrap.fill(
            "Play policies (scripted names or trained checkpoints, in any seat) for N seeded rounds and report, for "
            "each seat: EV per round in stake units with a 95% confidence interval, win/lose/push rates, bust, "
            "pontoon and five-card-trick rates, mean stake, and the banker's take per player. Each round is dealt "
            "on a fresh table from SeedSequence([seed, round]), with one random stream per seat, so runs with the "
            "same seed deal the same cards: --compare uses this for paired differences. Writes report.txt/json, "
            "summary.csv, comparison.csv and PNG charts to --out.",
            width=100,
        ),
        epilog="Policy specs:\n" + _policy_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    table = parser.add_argument_group("table")
    table.add_argument("--rules", default=None, metavar="PRESET",
                       help="rules preset (default: the checkpoint's rules if a checkpoint is given, else pagat)")
    table.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                       help="override one rules option (repeatable), e.g. --option stick_min=16")
    table.add_argument("--seats", type=int, default=None,
                       help="number of player seats besides the banker (default: the checkpoint's, else 4)")
    table.add_argument("--banker-seat", type=int, default=DEFAULTS.banker_seat,
                       help=f"the seat that banks every round (default {DEFAULTS.banker_seat})")
    table.add_argument("--learner-seat", type=int, default=DEFAULTS.learner_seat,
                       help="the seat of --player, and of the compared policies when --role player "
                            f"(default {DEFAULTS.learner_seat}: the banker's left, first to act)")
    table.add_argument("--player", default=None, metavar="SPEC", help="policy in --learner-seat (default threshold)")
    table.add_argument("--others", default=None, metavar="SPEC", help="policy of the other player seats (default threshold)")
    table.add_argument("--banker", default=None, metavar="SPEC",
                       help="banker policy (default banker_threshold; casino_dealer under casino)")
    table.add_argument("--policies", nargs="+", default=None, metavar="SPEC",
                       help="one spec per seat, seat 0 first (overrides --player/--others/--banker)")

    what = parser.add_argument_group("what to measure")
    what.add_argument("--role", choices=("player", "banker"), default=None,
                      help="which seat --compare and --optimality-gap are about: the learner seat (player) or the "
                           "banker seat (default: the --run's role, else guessed from the first --compare spec)")
    what.add_argument("--rounds", type=int, default=DEFAULTS.rounds, help=f"rounds per policy (default {DEFAULTS.rounds:,})")
    what.add_argument("--seed", type=int, default=DEFAULTS.seed, help=f"seed of the rounds (default {DEFAULTS.seed})")
    what.add_argument("--compare", nargs="+", default=None, metavar="SPEC",
                      help="two or more policies played in the same seat on the same cards; reports each one's EV and "
                           "the paired difference first − other with its 95%% CI")
    what.add_argument("--optimality-gap", action="store_true",
                      help="player role: EV(optimal) − EV(policy), both from the exact solver (pontoon_env.solver, "
                           "infinite deck) and from the solver's policy played on the same cards; needs a fixed-rule "
                           "banker (banker_threshold[:stand=K] or casino_dealer)")
    what.add_argument("--run", default=None, metavar="DIR",
                      help="a train.py run directory: plots its learning curve and uses its model.zip in its role's "
                           "seat unless --player/--banker say otherwise")

    output = parser.add_argument_group("output")
    output.add_argument("--out", default=DEFAULTS.out, metavar="DIR", help=f"output directory (default {DEFAULTS.out})")
    output.add_argument("--no-charts", action="store_true", help="skip the PNG charts")
    output.add_argument("--no-progress", action="store_true", help="no progress bars")
    return parser


def settings_from_args(args: argparse.Namespace) -> EvaluateSettings:
    if args.compare is not None and len(args.compare) < 2 and not args.optimality_gap:
        raise EvaluationError("--compare needs at least two policies (the first is compared with each other one)")
    return EvaluateSettings(
        rules=args.rules, options=dict(parse_option(text) for text in args.option), seats=args.seats,
        banker_seat=args.banker_seat, learner_seat=args.learner_seat, player=args.player, others=args.others,
        banker=args.banker, policies=args.policies, role=args.role, rounds=args.rounds, seed=args.seed,
        compare=args.compare, optimality_gap=args.optimality_gap, run=args.run, charts=not args.no_charts,
        out=args.out, progress=not args.no_progress,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        report = run_evaluation(settings_from_args(args))
    except (EvaluationError, TrainingError, ValueError, ImportError) as error:
        # RulesError, PolicySpecError and CheckpointError are ValueErrors with a complete message.
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print(format_report(report))
    print("\nwrote: " + ", ".join(report["files"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
