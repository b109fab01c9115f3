"""The learning targets of docs/training.md beyond ``pagat``'s one player seat: each trained with
``train.py`` (the defaults, a stated budget) and measured by the protocol of its kind
(:mod:`pontoon_tools.protocol`), so the table in the docs is made by one command, never typed.

    python -m pontoon_tools.targets run [--names NAME ...] [--timesteps N] [--out docs/measurements/targets]
    python -m pontoon_tools.targets table [--out ...] [--docs docs/training.md]

Kinds: ``player`` (paired gap to the solver's optimal policy against the preset's fixed banker),
``session`` (paired per round against the optimal policy on the same carried-over packs) and
``banker`` (paired against every scripted banker; at one player seat also the exact best response),
PPO bankers and belief bankers (``--algo belief``, :mod:`pontoon_tools.belief`) alike.
The ``pagat`` player and the one-seat banker are the main job's (README, "The main job").
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pontoon_tools.ablation import (ToolError, check_run_flags, interval, load_record, number, show_table, shown_path,
                                    train, trained_as)
from pontoon_tools.belief import DEFAULT_ROUNDS as BELIEF_ROUNDS
from pontoon_tools.evaluation import write_json

BEGIN, END = "<!-- targets:begin -->", "<!-- targets:end -->"
DEFAULT_STEPS = 2_000_000
"""A target's budget unless it states its own (:attr:`Target.steps`) or ``--timesteps`` is given."""
SESSION_ROUNDS, SESSION_TABLES = 10, 4096
"""A session target's sessions: rounds each, and the tables the session protocol plays at once."""


@dataclass(frozen=True)
class Target:
    """One trained seat: its name, its protocol kind, the rules and the ``train.py`` flags."""

    name: str
    kind: str
    rules: str
    flags: tuple[str, ...] = ()
    opponent: str | None = None
    """The fixed banker (player kinds) or the players' policy (banker kind)."""
    steps: int | None = None
    """Its own budget, in place of ``--timesteps`` (a belief banker's steps are rounds)."""

    @property
    def counts_rounds(self) -> bool:
        """A belief banker's budget is rounds, every other target's learner decisions."""
        return "belief" in self.flags


TARGETS: tuple[Target, ...] = (
    Target("casino-player", "player", "casino", opponent="casino_dealer"),
    # pontoon_1939 at its own budget: 20,000,000 steps take it within 0.03 of the optimum on both
    # seeds tried (10,000,000: 0.030; docs/training.md). The -draw-pricing rows keep the per-chip
    # signals that were the defaults before 2026-12-04 (training.PRICING_DEFAULTS).
    Target("pontoon_1939-player", "player", "pontoon_1939", opponent="banker_threshold", steps=20_000_000),
    Target("pontoon_1939-player-draw-pricing", "player", "pontoon_1939", ("--no-stake-expected", "--draw-expected"),
           opponent="banker_threshold"),
    Target("pontoon_1939-player-stake-expected-draw-pricing", "player", "pontoon_1939",
           ("--stake-expected", "--draw-expected"), opponent="banker_threshold", steps=20_000_000),
    Target("pontoon_2011-player", "player", "pontoon_2011", opponent="banker_threshold"),
    Target("pontoon_2011-player-draw-pricing", "player", "pontoon_2011", ("--no-stake-expected", "--draw-expected"),
           opponent="banker_threshold"),
    Target("pagat-session-player", "session", "pagat", ("--episode", "session", "--session-rounds", "10"),
           opponent="banker_threshold"),
    Target("pagat-banker-2", "banker", "pagat", ("--role", "banker", "--seats", "2"), opponent="threshold"),
    Target("pagat-banker-4", "banker", "pagat", ("--role", "banker", "--seats", "4"), opponent="threshold"),
    Target("pagat-banker-1-vs-optimal", "banker", "pagat", ("--role", "banker", "--seats", "1", "--opponents", "optimal"),
           opponent="optimal"),
    Target("pagat-banker-2-vs-optimal", "banker", "pagat", ("--role", "banker", "--seats", "2", "--opponents", "optimal"),
           opponent="optimal"),
    Target("pagat-banker-4-vs-optimal", "banker", "pagat", ("--role", "banker", "--seats", "4", "--opponents", "optimal"),
           opponent="optimal"),
    *(Target(f"pagat-belief-banker-{seats}{suffix}", "banker", "pagat",
             ("--role", "banker", "--algo", "belief", "--seats", str(seats), *flags), opponent=opponent,
             steps=BELIEF_ROUNDS)
      for suffix, flags, opponent in (("", (), "threshold"), ("-vs-optimal", ("--opponents", "optimal"), "optimal"))
      for seats in (1, 2, 4)),
)


def budget(target: Target, timesteps: int | None) -> int:
    """The steps (a belief banker's rounds) ``target`` trains for: its own budget where it states
    one (the documented commands that reproduce the records rely on it), else ``--timesteps``, else
    :data:`DEFAULT_STEPS`. ``run`` says so when it sets a ``--timesteps`` aside."""
    return target.steps or (timesteps if timesteps is not None else DEFAULT_STEPS)


def sessions_per_table(rounds: int) -> int:
    """Sessions at each of the 4,096 tables a session target plays for about ``rounds`` rounds
    (whole sessions at every table: at least one, so at least 40,960 rounds)."""
    return max(1, rounds // (SESSION_ROUNDS * SESSION_TABLES))


def run_target(target: Target, timesteps: int | None, seed: int, rounds: int, out: Path, runs: Path,
               python: str = sys.executable) -> dict[str, Any]:
    """Train ``target`` with ``train.py``, measure it, write ``<out>/<name>.json``; ``timesteps``
    (``None``: the target's own budget) as :func:`budget` says."""
    from agents.banker_belief import is_belief_run
    from pontoon_tools import protocol

    folder = runs / target.name
    timesteps = budget(target, timesteps)
    role_flags = () if "--role" in target.flags else ("--role", "player")
    # The other seats are train.py's defaults (threshold players; banker_threshold, casino_dealer
    # under casino): the opponents the protocol measures against.
    command = [python, "train.py", "--rules", target.rules, *role_flags, *target.flags,
               "--out", shown_path(folder), "--seed", str(seed), "--timesteps", str(timesteps), "--eval-rounds", "0",
               "--no-progress"]
    started = time.perf_counter()
    train(command, f"target {target.name}")
    wall = time.perf_counter() - started
    trained = trained_as(folder, timesteps, seed, command)
    model = folder if is_belief_run(folder) else folder / "model.zip"
    if target.kind == "player":
        result = protocol.player_protocol(model, target.rules, target.opponent, rounds=rounds, seed=1)
    elif target.kind == "session":
        result = protocol.session_protocol(model, target.rules, target.opponent or "banker_threshold",
                                           session_rounds=SESSION_ROUNDS, sessions_per_table=sessions_per_table(rounds),
                                           tables=SESSION_TABLES, seed=1)
    else:
        result = protocol.banker_protocol(model, target.rules, target.opponent or "threshold", rounds=rounds // 4,
                                          seed=1)
    # The steps, seed and command train.py recorded (config.json), and the protocol's seed (the
    # deals) under its own key: it is not the training's.
    measured = {key: value for key, value in result.items() if key != "seed"}
    record = {"target": target.name, "kind": target.kind, "timesteps": trained["timesteps"],
              "command": trained["command"], "train_wall_s": round(wall, 1), "seed": trained["seed"], **measured,
              "protocol_seed": result["seed"]}
    write_json(record, out / f"{target.name}.json")
    return record


def _ci(d: dict[str, Any]) -> str:
    return interval(d)  # a dash for a bound a record left null (an interval of too few rounds)


def table(out: Path) -> str:
    """The targets table (Markdown) from the records in ``out``, in :data:`TARGETS` order."""
    lines = ["| target | steps | train wall s | rounds | trained EV / round | measured against | paired (95% CI) |",
             "|---|---|---|---|---|---|---|"]
    for target in TARGETS:
        path = out / f"{target.name}.json"
        if not path.is_file():
            continue
        keys = {"player": ("rounds", "model_ev", "banker", "optimal_ev", "gap"),
                "session": ("sessions", "session_rounds", "model_ev", "optimal_ev", "model_minus_optimal"),
                "banker": ("rounds", "model_ev", "versus", "seats", "player")}[target.kind]
        r = load_record(path, ("timesteps", "train_wall_s", *keys))
        try:
            lines += _rows(target, r)
        except (AttributeError, TypeError, ValueError, KeyError) as error:  # a field of another shape than run writes
            raise ToolError(f"{path}: expected a record written by `run`, but a field does not fit: "
                            f"{error!r}") from None
    if len(lines) == 2:  # a header alone would replace the docs' block with an empty table
        raise ToolError(f"--out: expected the records `run` writes ({TARGETS[0].name}.json ...), found none in "
                        f"{str(out)!r}")
    return "\n".join(lines)


def _rows(target: Target, r: dict[str, Any]) -> list[str]:
    """The table's lines of one record."""
    unit = " rounds" if target.counts_rounds else ""
    # The steps train.py ran (whole rollouts), where the record has them; older records hold the budget asked for.
    steps = (r.get("train") or {}).get("timesteps") or r["timesteps"]
    head = f"| `{target.name}` | {number(steps, ',')}{unit} | {number(r['train_wall_s'], '.0f')} |"
    if target.kind == "player":
        return [f"{head} {number(r['rounds'], ',')} | {_ci(r['model_ev'])} | gap optimal − model, vs `{r['banker']}` "
                f"(optimal EV {number(r['optimal_ev'].get('mean'), '+.3f')}) | {_ci(r['gap'])} |"]
    if target.kind == "session":
        return [f"{head} {number(r['sessions'], ',')} sessions of {r['session_rounds']} | {_ci(r['model_ev'])} | "
                f"model − optimal per round, same packs (optimal {number(r['optimal_ev'].get('mean'), '+.3f')}) | "
                f"{_ci(r['model_minus_optimal'])} |"]
    return [f"{head} {number(r['rounds'], ',')} | {_ci(r['model_ev'])} | model − `{name}` ({r['seats']} "
            f"`{r['player']}` players) | {_ci(row['model_minus'])} |" for name, row in r["versus"].items()]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.targets", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="train and measure targets")
    run.add_argument("--names", nargs="+", default=None, help=f"targets to run (default all: {[t.name for t in TARGETS]})")
    run.add_argument("--timesteps", type=int, default=None,
                     help=f"learner decisions per target without a budget of its own (a belief banker's: rounds); "
                          f"a target with its own budget keeps it, and says so (default {DEFAULT_STEPS:,})")
    run.add_argument("--rounds", type=int, default=200_000,
                     help="paired rounds per player target (banker: a quarter; session: whole sessions of 10 rounds "
                          "at 4,096 tables, at least 40,960 rounds)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--out", default="docs/measurements/targets")
    run.add_argument("--runs", default="runs/targets")
    run.add_argument("--force", action="store_true", help="re-run targets already measured")
    show = sub.add_parser("table", help="print (and write) the table")
    show.add_argument("--out", default="docs/measurements/targets")
    show.add_argument("--docs", default=None, help="rewrite the targets block of this Markdown file")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        if args.command == "table":
            return show_table(lambda: table(out), args.docs, BEGIN, END)
        names = args.names or [t.name for t in TARGETS]
        unknown = sorted(set(names) - {t.name for t in TARGETS})
        if unknown:
            parser.error(f"--names: unknown targets {unknown}; expected some of {[t.name for t in TARGETS]}")
        chosen = [t for t in TARGETS if t.name in names]
        bankers = any(t.kind == "banker" for t in chosen)  # they play a quarter of --rounds: at least 2
        check_run_flags(parser, args.timesteps, args.rounds, args.seed, (("out", args.out), ("runs", args.runs)),
                        least_rounds=8 if bankers else 2,
                        rounds_why=": banker targets play a quarter of --rounds" if bankers else "")
        for target in chosen:
            if (out / f"{target.name}.json").is_file() and not args.force:
                print(f"[targets] {target.name}: measured already", flush=True)
                continue
            steps = budget(target, args.timesteps)
            own = (f" (its own budget; --timesteps {args.timesteps:,} applies to targets without one)"
                   if args.timesteps is not None and target.steps and target.steps != args.timesteps else "")
            print(f"[targets] {target.name}: training {steps:,} {'rounds' if target.counts_rounds else 'steps'}{own}",
                  flush=True)
            if target.kind == "session":
                played = sessions_per_table(args.rounds) * SESSION_ROUNDS * SESSION_TABLES
                if played != args.rounds:  # whole sessions at every table: say what is played instead
                    print(f"[targets] {target.name}: --rounds {args.rounds:,} played as {played:,} rounds "
                          f"({sessions_per_table(args.rounds)} x {SESSION_TABLES:,} sessions of {SESSION_ROUNDS} "
                          "rounds)", flush=True)
            run_target(target, args.timesteps, args.seed, args.rounds, out, Path(args.runs).resolve())
        print(table(out))
    except (ValueError, OSError) as error:  # a failed training, a refused model, a corrupt record: one line
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
