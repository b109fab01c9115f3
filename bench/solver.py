"""Benchmark of the exact solver: solve times and EVs per preset.

    python bench/solver.py            # table of times and EVs
    python bench/solver.py --charts   # plus the optimal strategy charts

Times are wall-clock seconds of ``solve`` from a cold start (new solver, empty caches), best of
``--repeat`` runs, on one core (BLAS threads pinned to 1; the DP itself is single-threaded Python).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pontoon_env.game.rules import make_rules  # noqa: E402
from pontoon_env.solver import (  # noqa: E402
    banker_best_response,
    default_banker_rule,
    evaluate_player_policy,
    solve,
    strategy_chart,
    threshold_policy,
)

CASES: list[tuple[str, dict]] = [
    ("pagat", {}),
    ("pagat", {"stick_min": 16}),
    ("pagat", {"split_aces_only": True}),
    ("pagat", {"bust_pays_double": False}),
    ("pagat", {"split_pontoon": "21"}),
    ("casino", {}),
    ("pontoon_1939", {}),
    ("pontoon_2011", {}),
]


def _timed(fn, repeat: int):  # type: ignore[no-untyped-def]
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=3, help="solves per preset, the fastest counts (default 3)")
    parser.add_argument("--charts", action="store_true")
    args = parser.parse_args(argv)
    if args.repeat < 1:  # no solve ran, and the table's row read None.ev
        parser.error(f"--repeat: expected at least 1, got {args.repeat}")
    header = (
        f"{'preset':<42} {'solve s':>8} {'optimal':>9} {'stake 1/10':>11} {'mean st':>8} "
        f"{'stick15':>9} {'stick16':>9} {'stick17':>9} {'BR s':>6} {'vs BR':>9}"
    )
    print("EV per initial stake unit at the minimum stake; 'stake 1/10' = chips per round staking")
    print("min/max by the first card; 'vs BR' = optimal policy against the banker's best response.")
    print(header)
    print("-" * len(header))
    for preset, options in CASES:
        rules = make_rules(preset, **options)
        banker = default_banker_rule(rules)
        seconds, solution = _timed(lambda: solve(rules, banker), args.repeat)  # noqa: B023 (called now)
        fixed = [evaluate_player_policy(rules, banker, threshold_policy(k)) for k in (15, 16, 17)]
        br_seconds, response = _timed(lambda: banker_best_response(rules, banker, solution), 1)  # noqa: B023
        name = preset + "".join(f" {k}={v}" for k, v in options.items())
        name += f" (banker {banker.stand_on}{' hs' if banker.hit_soft else ''})"
        print(
            f"{name:<42} {seconds:8.3f} {solution.ev:+9.4f} {solution.ev_stake_choice:+11.4f} "
            f"{solution.mean_stake:8.2f} "
            + " ".join(f"{ev:+9.4f}" for ev in fixed)
            + f" {br_seconds:6.2f} {response.player_ev:+9.4f}"
        )
        if args.charts and not options:
            print(strategy_chart(solution))
            print()


if __name__ == "__main__":
    main()
