#!/usr/bin/env python
"""Benchmark Pontoon policies honestly: EVs with confidence intervals, paired comparisons, charts.

The logic lives in pontoon_tools.evaluation (playing, statistics, reports) and pontoon_tools.plots
(strategy charts, EV bars, learning curves). Every flag is a field of
:class:`pontoon_tools.evaluation.EvaluateSettings`; the parser is derived from it
(:mod:`pontoon_tools.settings`). The tables are printed and written before any chart is drawn.
Examples::

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
from typing import Any

from pontoon_tools.evaluation import EvaluateSettings, format_report, run_evaluation
from pontoon_tools.settings import build_parser as settings_parser
from pontoon_tools.settings import from_args


def _policy_help() -> str:
    try:
        from agents.registry import describe_policies

        return describe_policies()
    except ImportError:  # pragma: no cover - agents ships with the package
        return "random, threshold, casino_dealer, banker_threshold, banker_smart, optimal, <path>.zip"


def build_parser() -> argparse.ArgumentParser:
    """``evaluate.py``'s parser: one flag per :class:`EvaluateSettings` field."""
    return settings_parser(
        EvaluateSettings,
        prog="evaluate.py",
        description=textwrap.fill(
            "Play policies (scripted names or trained checkpoints, in any seat) for N seeded rounds and report, for "
            "each seat: EV per round in stake units with a 95% confidence interval, win/lose/push rates, bust, "
            "pontoon and five-card-trick rates, mean stake, and the banker's take per player. Each round is dealt "
            "on a fresh table from the match's own streams (pack order and one random stream per seat, both from "
            "the seed and the round), so runs with the same seed deal the same cards: --compare uses this for paired "
            "differences. Writes report.txt/json, "
            "summary.csv and comparison.csv to --out (printed before any chart is drawn), then PNG charts.",
            width=100,
        ),
        epilog="Policy specs:\n" + _policy_help(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    settings = from_args(EvaluateSettings, build_parser().parse_args(argv))

    def announce(report: dict[str, Any]) -> None:
        print(format_report(report), flush=True)

    try:
        report = run_evaluation(settings, announce=announce)
    except (ValueError, ImportError) as error:
        # EvaluationError, RulesError, PolicySpecError and CheckpointError are ValueErrors with a
        # complete message: the user gets that message, not a traceback.
        print(f"evaluate.py: error: {error}", file=sys.stderr)
        return 2
    print("\nwrote: " + ", ".join(report["files"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
