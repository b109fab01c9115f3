"""Score policies on the named benchmark tasks (:mod:`pontoon_env.benchmark`), and write the results.

::

    python -m pontoon_tools.benchmark score pagat/player-1 threshold          # one policy, one task
    python -m pontoon_tools.benchmark score pagat/player-1 runs/x/model.zip --out results/x.json
    python -m pontoon_tools.benchmark table --rounds 20000                  # docs/benchmark.md

The protocol: the policy sits in the task's learner seat at the task's table and plays the task's
fixed deals (round ``i`` of a task is dealt from the evaluation's shared streams of
``(eval_seed, i)``, one for the pack and one per seat, so every policy meets the same cards: the
comparisons are paired; the batched engine plays them where the rules are native). ``random``
and the task's ceiling play the same deals. The **normalised score** is

    score = mean(policy - random) / mean(ceiling - random)

per round (per session in session tasks), with a 95% confidence interval from the paired rounds
(delta method on the ratio). Everything is seeded: rerunning gives the same numbers.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make_policy
from pontoon_env.benchmark import TASKS, Task, get_task
from pontoon_env.envs.gymnasium_env import PontoonEnv
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.policy import Policy
from pontoon_env.game.rules import Rules
from pontoon_tools.settings import under_a_file
from pontoon_env.batched.rng import STREAM_DECK, CounterGenerator, deal_orders, seat_stream_seed, stream_seed
from pontoon_env.game.runner import play_round
from pontoon_tools.evaluation import play_match

ROOT = Path(__file__).resolve().parent.parent
DOC_PATH = ROOT / "docs" / "benchmark.md"


@dataclass(frozen=True)
class Table:
    """A task's table as the environment builds it: rules, seats and the other seats' policies."""

    rules: Rules
    num_players: int
    learner_seat: int
    others: dict[int, Policy]

    @classmethod
    def of(cls, task: Task) -> Table:
        env = PontoonEnv(role=task.role, **task.env_kwargs())
        seat = 0 if task.role == "banker" else (task.learner_seat or 1)
        others = {
            other: env.opponents.policy(other, banker=other == 0)
            for other in range(task.num_players + 1)
            if other != seat
        }
        return cls(env.rules, task.num_players, seat, others)


def play_task(task: Task, table: Table, policy: Policy, episodes: int, seed: int | None = None) -> np.ndarray:
    """The learner seat's result (stake units) in each of ``episodes`` rounds (or sessions).

    Round tasks go through :func:`pontoon_tools.evaluation.play_match` (the batched engine where
    native, the same deals either way); a session task plays its rounds on one table, the pack
    carrying over, session ``i`` dealt from the shared streams of round ``i``.
    """
    seed = task.eval_seed if seed is None else seed
    seats = table.num_players + 1
    policies = [policy if seat == table.learner_seat else table.others[seat] for seat in range(seats)]
    if task.episode == "round":
        result = play_match(table.rules, table.num_players, policies, episodes, seed, banker_seat=0)
        return result.net[:, table.learner_seat] / table.rules.min_stake
    results = np.zeros(episodes)
    for index in range(episodes):
        game = PontoonGame(table.rules, table.num_players, seed=0, banker=0)
        game.pack.stack(deal_orders(seed, index, 1, table.rules.decks)[0].tolist())
        # The session's later shuffles and cuts from its own stream too (they came from the
        # seed-0 table's generator: the same draws in every session, whatever --seed said).
        game.pack.rng = CounterGenerator(stream_seed(seed, STREAM_DECK, index, 1))
        rngs = [CounterGenerator(seat_stream_seed(seed, index, seat)) for seat in range(seats)]
        total = 0
        for _ in range(task.session_rounds):
            total += play_round(game, policies, rngs)[table.learner_seat]
        results[index] = total / table.rules.min_stake
    return results


@dataclass(frozen=True)
class TaskScore:
    """One policy's result on one task."""

    task: str
    version: int
    policy: str
    episodes: int
    ev: float
    ev_ci: float
    score: float
    score_ci: float
    random_ev: float
    ceiling: str
    ceiling_ev: float
    ceiling_exact: bool
    wall_s: float

    per: str = "round"
    """What one episode of the task is (``"round"``, or ``"session of 10 rounds"``): the EV is per episode."""

    def line(self) -> str:
        kind = "" if self.ceiling_exact else " (ceiling: best scripted)"
        return (
            f"{self.task} v{self.version}  {self.policy}: EV {self.ev:+.4f} ± {self.ev_ci:.4f}/{self.per}, "
            f"score {self.score:.3f} ± {self.score_ci:.3f}{kind}  [{self.episodes} episodes, {self.wall_s:.0f} s]"
        )


def normalised_score(policy: np.ndarray, random: np.ndarray, ceiling: np.ndarray) -> tuple[float, float]:
    """``mean(policy - random) / mean(ceiling - random)`` and its 95% half-width (delta method on
    the paired per-round differences)."""
    a, b = policy - random, ceiling - random
    mean_a, mean_b = float(a.mean()), float(b.mean())
    if mean_b == 0.0:
        raise ValueError("the ceiling scores exactly like random on these deals: no score scale")
    ratio = mean_a / mean_b
    n = len(a)
    if n < 2:
        return ratio, math.inf
    cov = np.cov(a, b)
    variance = (cov[0, 0] - 2 * ratio * cov[0, 1] + ratio**2 * cov[1, 1]) / (n * mean_b**2)
    return ratio, 1.96 * math.sqrt(max(variance, 0.0))


def score(task: Task | str, policy_spec: str | Policy, episodes: int | None = None, seed: int | None = None,
          label: str | None = None) -> TaskScore:
    """Play a policy, ``random`` and the ceiling on the task's deals and score the policy."""
    task = get_task(task) if isinstance(task, str) else task
    episodes = task.eval_rounds if episodes is None else episodes
    if episodes < 2:
        raise ValueError(f"episodes: expected at least 2 (for a confidence interval), got {episodes}")
    table = Table.of(task)
    if isinstance(policy_spec, str):  # a banker's network in a player's seat scores nothing meaningful
        from pontoon_tools.evaluation import check_role, check_scripted_role

        # a scripted policy of the other role would play that role's default under its own name
        check_scripted_role(policy_spec, task.role, f"{policy_spec} (task {task.name})")
        check_role(policy_spec, task.role, f"{policy_spec} (task {task.name})")
    started = time.perf_counter()

    def results_of(spec: str | Policy) -> np.ndarray:
        return play_task(task, table, make_policy(spec, table.rules, num_players=table.num_players), episodes, seed)

    mine, random, ceiling = results_of(policy_spec), results_of("random"), results_of(task.ceiling)
    value, half_width = normalised_score(mine, random, ceiling)
    name = label or (policy_spec if isinstance(policy_spec, str) else getattr(policy_spec, "name", "policy"))
    return TaskScore(
        task=task.name,
        version=task.version,
        policy=str(name),
        episodes=episodes,
        ev=float(mine.mean()),
        ev_ci=float(1.96 * mine.std(ddof=1) / math.sqrt(episodes)),
        score=value,
        score_ci=half_width,
        random_ev=float(random.mean()),
        ceiling=task.ceiling,
        ceiling_ev=float(ceiling.mean()),
        ceiling_exact=task.ceiling_exact,
        wall_s=time.perf_counter() - started,
        per=f"session of {task.session_rounds} rounds" if task.episode == "session" else "round",
    )


def library_versions() -> dict[str, str]:
    """The versions a result depends on (written into every result file)."""
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for package in ("pontoon-env", "numpy", "gymnasium", "stable-baselines3", "sb3-contrib", "torch", "numba"):
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            pass
    return found


def result_record(result: TaskScore, task: Task) -> dict[str, Any]:
    """A JSON-able record of a score: the task's full specification, the policy, the library versions."""
    return {"result": asdict(result), "task": task.as_dict(), "versions": library_versions(),
            "machine": platform.platform()}


# ------------------------------------------------------------------------------------------ table


TABLE_ROWS = ("random", "{threshold}", "{best}", "{ceiling}")
"""The scripted rows of every task; ``{threshold}`` is the role's threshold policy (``threshold`` for
a player, ``banker_threshold`` for a banker)."""


def trained_run(spec: str) -> dict[str, Any]:
    """What a trained row's checkpoint says about its training (seconds, steps, seed, command), read
    from the run's ``config.json``; empty for a scripted spec."""
    from agents.checkpoint import read_config

    if not spec.endswith(".zip") and not Path(spec).is_dir():
        return {}
    try:
        _, config = read_config(spec)
    except Exception:  # noqa: BLE001 - an RLlib checkpoint or a foreign model: no training record to show
        return {}
    return {"train_s": config.get("wall_time_s"), "timesteps": config.get("timesteps"), "seed": config.get("seed"),
            "command": config.get("command")}


def results_table(rounds: int | None, tasks: Sequence[str], extra: Sequence[tuple[str, str, str]] = ()) -> tuple[str, list[dict]]:
    """The results table (Markdown) and its records: each task's scripted rows, then ``extra``
    rows ``(task, label, policy spec)`` (trained models). Several specs under one label of a task
    are training seeds: each gets its row, then one row gives their mean score and its spread."""
    lines = [
        "| task | policy | EV per episode (95% CI) | score (95% CI) | episodes | training |",
        "|---|---|---|---|---|---|",
    ]
    records = []
    for name in tasks:
        task = get_task(name)
        specs: list[tuple[str, str]] = []
        for row in TABLE_ROWS:
            spec = row.format(best=task.best_scripted, ceiling=task.ceiling,
                              threshold="banker_threshold" if task.role == "banker" else "threshold")
            if spec not in [s for s, _ in specs]:
                specs.append((spec, spec))
        trained = [(spec, label) for task_name, label, spec in extra if task_name == name]
        by_label: dict[str, list[TaskScore]] = {}
        for spec, label in specs + trained:
            result = score(task, spec, episodes=rounds, label=label)
            run = trained_run(spec) if (spec, label) in trained else {}
            records.append({**result_record(result, task), "training": run})
            note = "" if task.ceiling_exact or spec != task.ceiling else " (ceiling: best scripted)"
            training = (f"{run['timesteps']:,} steps, seed {run['seed']}, {run['train_s']:.0f} s"
                        if run.get("train_s") is not None and run.get("timesteps") else "")
            lines.append(
                f"| `{task.name}` | `{result.policy}`{note} | {result.ev:+.3f} ± {result.ev_ci:.3f} | "
                f"{result.score:.3f} ± {result.score_ci:.3f} | {result.episodes:,} | {training} |"
            )
            if (spec, label) in trained:
                by_label.setdefault(label, []).append(result)
        for label, results in by_label.items():
            if len(results) > 1:
                values = np.array([r.score for r in results])
                lines.append(f"| `{task.name}` | **`{label}`: mean of {len(results)} seeds** | | "
                             f"**{values.mean():.3f}** (spread {values.min():.3f} to {values.max():.3f}, "
                             f"sd {values.std(ddof=1):.3f}) | | |")
    return "\n".join(lines), records


def _commands(records: Sequence[dict]) -> list[str]:
    """The training commands of the trained rows, one per line."""
    seen = []
    for record in records:
        command = (record.get("training") or {}).get("command")
        command = command.replace(f"{ROOT}/", "") if command else command
        if command and command not in seen:
            seen.append(command)
    return [f"    python {command}" if not command.startswith("python") else f"    {command}" for command in seen]


def _doc(table: str, rounds_text: str, command: str, commands: Sequence[str] = ()) -> str:
    trained = ["", "The trained rows were trained by (each run's `config.json` holds the full settings):", "",
               *commands, ""] if commands else []
    return "\n".join(
        [
            "# Benchmark tasks and results",
            "",
            "<!-- Generated by `" + command + "`; do not edit by hand. -->",
            "",
            (__doc__ or "").split("\n\n", 2)[2].split("\n\n")[0],
            "",
            "## Tasks",
            "",
            "| task | gym id | table | ceiling (score 1) | evaluation |",
            "|---|---|---|---|---|",
            *(
                f"| `{t.name}` | `{t.gym_id}` | {t.description} | `{t.ceiling}`"
                f"{'' if t.ceiling_exact else ' (best scripted, not exact)'} | seed {t.eval_seed}, "
                f"{t.eval_rounds:,} {'sessions of ' + str(t.session_rounds) + ' rounds' if t.episode == 'session' else 'rounds'} |"
                for t in TASKS.values()
            ),
            "",
            f"## Results ({rounds_text})",
            "",
            table,
            "",
            *trained,
        ]
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.benchmark", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    one = sub.add_parser("score", help="score one policy on one task")
    one.add_argument("task", help=f"one of {list(TASKS)}")
    one.add_argument("policy", help="a policy spec (threshold, optimal, ...) or a checkpoint path")
    one.add_argument("--rounds", type=int, default=None, help="rounds (sessions) instead of the task's protocol")
    one.add_argument("--out", type=Path, default=None, help="write the JSON result here")
    many = sub.add_parser("table", help="score the scripted rows of every task and write docs/benchmark.md")
    many.add_argument("--rounds", type=int, default=None, help="rounds per task (default: each task's protocol)")
    many.add_argument("--tasks", nargs="*", default=list(TASKS), help="tasks to include (default: all)")
    many.add_argument("--trained", nargs="*", default=[], metavar="TASK=LABEL=SPEC",
                      help="extra rows, e.g. pagat/player-1=trained-seed0=runs/b0/model.zip")
    many.add_argument("--doc", type=Path, default=DOC_PATH, help="the Markdown file to write")
    many.add_argument("--json", type=Path, default=None, help="also write every record as JSON here")
    args = parser.parse_args(argv)
    try:
        if args.rounds is not None and args.rounds < 2:
            raise ValueError(f"--rounds: expected at least 2 (for a confidence interval), got {args.rounds}")
        # Output paths are checked before the scoring, which takes hours at the full protocol.
        for name in ("out", "doc", "json"):
            path = getattr(args, name, None)
            if path is not None and (path.is_dir() or under_a_file(path.parent)):  # an existing file is rewritten
                raise ValueError(f"--{name}: expected a file path (not a folder, nor under a file), got {str(path)!r}")
        if args.command == "table" and not args.doc.parent.is_dir():
            raise ValueError(f"--doc: expected a file in an existing folder, got {str(args.doc)!r}")
        if args.command == "score":
            task = get_task(args.task)
            result = score(task, args.policy, episodes=args.rounds)
            print(result.line())
            if args.out is not None:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps(result_record(result, task), indent=2))
            return 0
        if not args.tasks:
            raise ValueError(f"--tasks: expected one or more of {list(TASKS)}, got none")
        for name in args.tasks:
            get_task(name)  # an unknown task is refused before anything is scored
        extra = []
        for item in args.trained:
            parts = item.split("=", 2)
            if len(parts) != 3 or not all(parts):
                raise ValueError(f"--trained: expected TASK=LABEL=SPEC with none of the three empty, got {item!r}")
            if parts[0] not in args.tasks:
                # the row would be left out of the table without a word
                raise ValueError(f"--trained: task {parts[0]!r} of {item!r} is not among the tasks scored "
                                 f"({', '.join(args.tasks)})")
            extra.append((parts[0], parts[1], parts[2]))
        started = time.perf_counter()
        table, records = results_table(args.rounds, args.tasks, extra)
        rounds_text = f"{args.rounds:,} rounds per task" if args.rounds else "each task's full protocol"
        command = "python -m pontoon_tools.benchmark table" + (f" --rounds {args.rounds}" if args.rounds else "")
        if args.tasks != list(TASKS):
            command += " --tasks " + " ".join(args.tasks)
        if args.trained:
            command += " --trained " + " ".join(args.trained)
        rounds_text += f"; {time.perf_counter() - started:.0f} s on {platform.machine()}, {time.strftime('%Y-%m-%d')}"
        if args.json is not None:
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(records, indent=2))
        args.doc.write_text(_doc(table, rounds_text, command, _commands(records)))
        print(table)
        return 0
    except (KeyError, ValueError, OSError) as error:
        # a KeyError's str() is its repr (quoted): print the message it carries
        message = error.args[0] if isinstance(error, KeyError) and error.args else error
        print(f"error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
