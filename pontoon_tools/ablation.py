"""The ablation of docs/training.md: one factor of the training at a time, each measured by the
player protocol (:func:`pontoon_tools.protocol.player_protocol`: paired against the solver's optimal
policy on the same deals, with its interval) and timed.

    python -m pontoon_tools.ablation run [--rows NAME ...] [--rounds N] [--out results/ablation]
    python -m pontoon_tools.ablation table [--out results/ablation] [--docs docs/training.md]

``run`` trains each row with ``train.py`` (its flags are in :data:`ROWS`, on top of the defaults
and the shared ``--timesteps``), measures it and writes ``<out>/<row>.json``; rows already measured
are skipped unless ``--force``. ``table`` prints the Markdown table from those files and, with
``--docs``, rewrites the block between ``<!-- ablation:begin -->`` and ``<!-- ablation:end -->`` of
that file, so the table in the docs is never typed by hand.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pontoon_tools.evaluation import write_json

ROOT = Path(__file__).resolve().parent.parent


def shown_path(folder: Path) -> str:
    """``folder`` as the recorded command shows it: relative to the checkout (the training's
    working directory) where it lies inside, so records carry no machine's absolute paths."""
    try:
        return str(folder.resolve().relative_to(ROOT))
    except ValueError:
        return str(folder.resolve())


BEGIN, END = "<!-- ablation:begin -->", "<!-- ablation:end -->"
SEED_MAX = 2**32 - 1
"""train.py's largest ``--seed``: a larger one would fail only once training starts."""
NO_VALUE = "—"
"""What a table shows for a number a record does not have (``null``: an interval of one round)."""


class ToolError(ValueError):
    """A request the ablation and targets tools cannot carry out (a corrupt record, a docs file
    without its markers, a training that failed): one line naming the file or flag, never a traceback."""


def trained_as(folder: Path, steps: int, seed: int, command: Sequence[str]) -> dict[str, Any]:
    """What the model in ``folder`` was really trained with, read from its ``config.json`` (train.py
    writes the steps it ran, a multiple of its rollout, and the command line it was given): a
    reused model's are its own, not this call's ``--timesteps``/``--seed``. ``steps``, ``seed``
    and ``command`` are what this call asked for, kept where the config does not say."""
    try:
        config = json.loads((folder / "config.json").read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ToolError(f"run config {str(folder / 'config.json')!r} is unreadable: {error}") from None
    if not isinstance(config, dict):
        raise ToolError(f"run config {str(folder / 'config.json')!r}: expected a JSON object")
    recorded = str(config.get("command") or "").split(" ", 1)
    # The first word is the train.py path of the machine it ran on: recorded as plain train.py.
    shown = ("train.py " + recorded[1]) if len(recorded) == 2 and recorded[0].endswith("train.py") else \
        (" ".join(recorded) or " ".join(["train.py", *command[2:]]))
    return {"timesteps": int(config.get("timesteps", steps)), "seed": int(config.get("seed", seed)), "command": shown,
            "wall_time_s": config.get("wall_time_s")}


def load_record(path: Path, keys: Sequence[str]) -> dict[str, Any]:
    """The record at ``path`` (a ``<row>.json`` of ``run``), refused with the file named when it is
    not JSON or lacks one of ``keys`` (a half-written or hand-edited file)."""
    try:
        record = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise ToolError(f"{path}: expected a record written by `run`, but it is unreadable: {error}") from None
    missing = [key for key in keys if not isinstance(record, dict) or key not in record]
    if missing:
        raise ToolError(f"{path}: expected a record written by `run`, but it lacks {missing}")
    return record


def number(value: Any, spec: str) -> str:
    """``value`` formatted by ``spec``, or a dash where the record has no number (``null``)."""
    return NO_VALUE if value is None else format(value, spec)


def interval(d: Any, spec: str = "+.3f") -> str:
    """``mean [low, high]`` of a paired difference, a dash for each bound a record left ``null``."""
    d = d or {}
    return f"{number(d.get('mean'), spec)} [{number(d.get('low'), spec)}, {number(d.get('high'), spec)}]"


def check_docs(docs: Path, begin: str, end: str) -> None:
    """Refuse a ``--docs`` file that is missing or lacks the markers, before anything is printed."""
    try:
        content = docs.read_text()
    except OSError as error:
        raise ToolError(f"--docs: expected a Markdown file holding {begin} and {end}, got {str(docs)!r}: "
                        f"{error.strerror or error}") from None
    if begin not in content or end not in content:
        raise ToolError(f"--docs: expected the markers {begin} and {end} around the generated table in "
                        f"{str(docs)!r}; it lacks {[m for m in (begin, end) if m not in content]}")


def check_run_flags(parser: argparse.ArgumentParser, timesteps: int | None, rounds: int, seed: int,
                    folders: Sequence[tuple[str, str]], least_timesteps: int = 1, least_rounds: int = 2,
                    rounds_why: str = "") -> None:
    """``parser.error`` (exit 2) for a flag of ``run`` that train.py or the protocol would refuse
    only once work had started: each named, with what was expected and what was given."""
    if timesteps is not None and timesteps < least_timesteps:
        why = "" if least_timesteps == 1 else " (half_length trains half of it, at least 1 step)"
        parser.error(f"--timesteps: expected an integer >= {least_timesteps}{why}, got {timesteps}")
    if rounds < least_rounds:
        parser.error(f"--rounds: expected an integer >= {least_rounds} (an interval needs two rounds{rounds_why}), "
                     f"got {rounds}")
    if not 0 <= seed <= SEED_MAX:
        parser.error(f"--seed: expected an integer in 0..2**32-1 (train.py's range), got {seed}")
    from pontoon_tools.settings import under_a_file

    for flag, folder in folders:
        if under_a_file(folder):
            parser.error(f"--{flag}: expected a folder (not a file, nor under one), got {folder!r}")


BEFORE_PRICING = ("--features", "none", "--no-draw-expected")
"""The player's inputs and draw pricing before the one-hot hand and ``draw_expected`` became its
defaults (docs/training.md, "Longer runs"): the rows of the table were all made without them."""
THEN = ("--batch-size", "8192", "--n-epochs", "4", "--lr-final", "3e-3", *BEFORE_PRICING)
"""The lean PPO's defaults when the table was made: minibatch 8,192, 4 epochs, a constant learning
rate of 3e-3 (then ``combined``'s: 4,096, 2 epochs, 3e-3 falling to 3e-4), the observation as it is
and no draw pricing; a row's own flags come after these, so ``--features keep`` replaces ``none``."""
NO_WEIGHTING = ("--no-stake-advantage",)
"""The base of the rows whose algorithm has its own defaults (SB3's, the lean DQN's)."""


@dataclass(frozen=True)
class Row:
    """One training variant: a name, what it changes, and the ``train.py`` flags that change it."""

    name: str
    group: str
    what: str
    flags: tuple[str, ...] = ()
    timesteps: int | None = None
    """Its own budget (default: the run's shared ``--timesteps``)."""
    reference: bool = False
    """A reference row outside the rules of the target (imitation): labelled as such."""
    base: tuple[str, ...] = ("--no-stake-advantage", *THEN)
    """The defaults the ablation varied were those before the stake weighting and then ``combined``'s
    flags became the defaults (both won here): every lean PPO row pins them (:data:`THEN`; the stake
    weighting stays off but in the rows that test it), so a rerun reproduces the table."""
    notes: tuple[str, ...] = field(default=())


ROWS: tuple[Row, ...] = (
    Row("default", "defaults", "the defaults then (stake weighting off; lean_ppo, 4,096 tables, rollouts of 16, minibatch 8,192, 4 epochs, "
        "lr 3e-3, entropy 0.1 -> 0, rewards / running return std, advantages normalised)"),
    Row("sb3_maskable", "algorithm", "SB3 MaskablePPO with its earlier defaults (16 envs, 256 steps, minibatch 512, "
        "20 epochs, lr 3e-4), 500,000 steps (its throughput allows no more here)", ("--algo", "maskable_ppo"),
        timesteps=500_000, base=NO_WEIGHTING),
    Row("sb3_dqn", "algorithm", "SB3 DQN (illegal ids replaced and penalised), 500,000 steps",
        ("--algo", "dqn", "--batch-size", "256"), timesteps=500_000, base=NO_WEIGHTING),
    Row("lean_dqn", "algorithm", "masked double DQN on the same 4,096 tables (pontoon_tools/dqn.py)",
        ("--algo", "lean_dqn"), base=NO_WEIGHTING),
    Row("no_reward_scale", "reward scaling", "raw chip rewards (no running return-std scaling)", ("--no-norm-reward",)),
    Row("no_adv_norm", "advantage normalisation", "advantages not normalised per minibatch", ("--no-norm-adv",)),
    Row("stake_advantage", "advantage weighting", "advantages after the stake weighted by max / initial stake "
        "(the default since this table)", base=THEN),
    Row("features_keep", "observation", "only the columns that vary in random play", ("--features", "keep")),
    Row("features_std", "observation normalisation", "inputs standardised by random-play statistics",
        ("--features", "std")),
    Row("features_onehot", "observation", "hand being played one-hot (total, cards, buys) added",
        ("--features", "keep", "onehot")),
    Row("ent_low", "entropy schedule", "entropy 0.01 constant", ("--ent-coef", "0.01", "--ent-coef-final", "0.01")),
    Row("ent_half", "entropy schedule", "entropy 0.1 -> 0 over the first half, then 0", ("--ent-decay", "0.5")),
    Row("stake_levels_2", "action design", "two stake levels (min, max) instead of four",
        ("--stake-levels", "min", "max")),
    Row("net_small", "network size", "[32, 32]", ("--net-arch", "32,32")),
    Row("net_large", "network size", "[128, 128]", ("--net-arch", "128,128")),
    Row("batch_large", "batch and epochs", "minibatch 32,768, 4 epochs", ("--batch-size", "32768")),
    Row("epochs_1", "batch and epochs", "1 epoch per rollout", ("--n-epochs", "1")),
    Row("epochs_10", "batch and epochs", "10 epochs per rollout", ("--n-epochs", "10")),
    Row("lr_low", "learning rate", "lr 1e-3", ("--lr", "1e-3", "--lr-final", "1e-3")),
    Row("lr_anneal", "learning rate", "lr 3e-3 -> 3e-4", ("--lr-final", "3e-4")),
    Row("half_length", "training length", "half the steps", (), timesteps=-2),
    Row("double_length", "training length", "twice the steps", (), timesteps=-3),
    Row("combined", "combination", "stake advantage, lr 3e-3 -> 3e-4, 2 epochs of minibatch 4,096 "
        "(the best 10M run; the defaults since)",
        ("--lr-final", "3e-4", "--n-epochs", "2", "--batch-size", "4096"), base=BEFORE_PRICING),
    Row("imitation", "reference (imitation)", "REFERENCE, not RL alone: imitate threshold first",
        ("--warm-start", "threshold"), reference=True),
)
"""Every row; ``timesteps=-2`` / ``-3`` mean half / twice the shared budget."""


def _budget(row: Row, timesteps: int) -> int:
    if row.timesteps == -2:
        return timesteps // 2
    if row.timesteps == -3:
        return timesteps * 2
    return row.timesteps or timesteps


def run_row(row: Row, timesteps: int, seed: int, rounds: int, out: Path, runs: Path, python: str = sys.executable,
            extra: Sequence[str] = (), reuse: bool = False) -> dict[str, Any]:
    """Train ``row`` with ``train.py``, measure it with the player protocol, write ``<out>/<row>.json``;
    with ``reuse``, a model already trained in its run folder is measured without training again."""
    from pontoon_tools.protocol import player_protocol

    folder = runs / row.name
    steps = _budget(row, timesteps)
    command = [python, str(ROOT / "train.py"), "--out", shown_path(folder), "--seed", str(seed), "--timesteps", str(steps),
               "--eval-rounds", "0", "--no-progress", *extra, *row.base, *row.flags]
    started = time.perf_counter()
    reused = reuse and (folder / "model.zip").is_file() and (folder / "config.json").is_file()
    if not reused:
        train(command, f"row {row.name}")
    trained = trained_as(folder, steps, seed, command)
    wall = float(trained["wall_time_s"] or 0.0) if reused else time.perf_counter() - started
    if reused:
        print(f"[ablation] {row.name}: measuring the model already in {folder} (trained {trained['timesteps']:,} steps "
              f"at seed {trained['seed']}; this call's --timesteps and --seed do not apply to it)", flush=True)
    result = player_protocol(folder / "model.zip", "pagat", rounds=rounds, seed=1)
    # The model's own steps, seed and command (its config.json), not this call's flags; the
    # protocol's seed (the deals) under its own key, since it is not the training's.
    measured = {key: value for key, value in result.items() if key != "seed"}
    record = {"row": row.name, "group": row.group, "what": row.what, "flags": list(row.flags),
              "timesteps": trained["timesteps"], "reference": row.reference, "command": trained["command"],
              "train_wall_s": round(wall, 1), "seed": trained["seed"], "reused": reused, **measured,
              "protocol_seed": result["seed"]}
    write_json(record, out / f"{row.name}.json")
    return record


def train(command: Sequence[str], what: str) -> None:
    """Run train.py's ``command`` (its own output and errors show as it runs); a failure is one
    line naming ``what`` was being trained and train.py's exit status, not a traceback."""
    try:
        subprocess.run(list(command), check=True, cwd=ROOT)
    except subprocess.CalledProcessError as error:
        raise ToolError(f"training {what} failed: train.py exited with status {error.returncode} (its message is "
                        "above)") from None


def table(out: Path) -> str:
    """The ablation table (Markdown) from the rows measured in ``out``, in :data:`ROWS` order."""
    lines = ["| group | row | change | steps | train wall s | steps/s | gap to optimal (same deals), 95% CI | "
             "model EV | mean stake | exact gap of read strategy |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in ROWS:
        path = out / f"{row.name}.json"
        if not path.is_file():
            continue
        r = load_record(path, ("group", "row", "what", "timesteps", "train_wall_s", "gap", "model_ev", "mean_stake",
                               "exact"))
        try:
            train = r.get("train") or {}
            timings = train.get("train_timings") or {}
            rate = timings.get("steps_per_s")
            # The steps the model ran (train.py rounds up to whole rollouts), as steps/s counts them;
            # older records hold the budget asked for in "timesteps".
            steps = train.get("timesteps") or r["timesteps"]
            lines.append(
                f"| {r['group']} | `{r['row']}` | {r['what']} | {number(steps, ',')} | "
                f"{number(r['train_wall_s'], '.0f')} | "
                f"{f'{rate:,}' if rate else NO_VALUE} | {interval(r['gap'])} | "
                f"{number(r['model_ev'].get('mean'), '+.3f')} | {number(r['mean_stake'].get('model'), '.2f')} | "
                f"{number(r['exact'].get('read_gap'), '+.3f')} |")
        except (AttributeError, TypeError, ValueError) as error:  # a field of another shape than run writes
            raise ToolError(f"{path}: expected a record written by `run`, but a field does not fit: {error}") from None
    if len(lines) == 2:  # a header alone would replace the docs' block with an empty table
        raise ToolError(f"--out: expected the records `run` writes ({ROWS[0].name}.json ...), found none in "
                        f"{str(out)!r}")
    return "\n".join(lines)


def show_table(make_table: Callable[[], str], docs: str | None, begin: str, end: str) -> int:
    """The ``table`` subcommand of this tool and of :mod:`pontoon_tools.targets`: print the table
    and, with ``--docs``, rewrite its block there (the file and its markers checked before anything
    is printed)."""
    if docs:
        check_docs(Path(docs), begin, end)
    text = make_table()
    print(text)
    if docs:
        write_docs(text, Path(docs), begin, end)
    return 0


def write_docs(text: str, docs: Path, begin: str = BEGIN, end: str = END) -> None:
    """Replace the block of ``docs`` between the markers ``begin`` and ``end`` with ``text``."""
    content = docs.read_text()
    if begin not in content or end not in content:
        raise ValueError(f"{docs}: expected the markers {begin} and {end} around the generated table")
    head, rest = content.split(begin, 1)
    _, tail = rest.split(end, 1)
    docs.write_text(f"{head}{begin}\n{text}\n{end}{tail}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.ablation", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="train and measure rows")
    run.add_argument("--rows", nargs="+", default=None, help=f"rows to run (default all: {[r.name for r in ROWS]})")
    run.add_argument("--timesteps", type=int, default=6_000_000, help="the shared budget per row (default 6,000,000)")
    run.add_argument("--rounds", type=int, default=300_000, help="paired rounds per row (default 300,000)")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--out", default="results/ablation")
    run.add_argument("--runs", default="runs/ablation")
    run.add_argument("--force", action="store_true", help="re-run rows already measured")
    run.add_argument("--reuse", action="store_true", help="measure a row's model already trained in --runs without "
                     "training it again")
    show = sub.add_parser("table", help="print (and write) the table")
    show.add_argument("--out", default="results/ablation")
    show.add_argument("--docs", default=None, help="rewrite the ablation block of this Markdown file")
    args = parser.parse_args(argv)
    out = Path(args.out)
    try:
        if args.command == "table":
            return show_table(lambda: table(out), args.docs, BEGIN, END)
        names = args.rows or [r.name for r in ROWS]
        unknown = sorted(set(names) - {r.name for r in ROWS})
        if unknown:
            parser.error(f"--rows: unknown rows {unknown}; expected some of {[r.name for r in ROWS]}")
        check_run_flags(parser, args.timesteps, args.rounds, args.seed, (("out", args.out), ("runs", args.runs)),
                        least_timesteps=2 if "half_length" in names else 1)
        for row in (r for r in ROWS if r.name in names):
            if (out / f"{row.name}.json").is_file() and not args.force:
                print(f"[ablation] {row.name}: measured already ({out / (row.name + '.json')})", flush=True)
                continue
            print(f"[ablation] {row.name}: {row.what}", flush=True)
            record = run_row(row, args.timesteps, args.seed, args.rounds, out, Path(args.runs).resolve(),
                             reuse=args.reuse)
            print(f"[ablation] {row.name}: gap {interval(record['gap'], '+.4f')}, train {record['train_wall_s']:.0f} s",
                  flush=True)
        print(table(out))
    except (ValueError, OSError) as error:  # a failed training, a refused model, a corrupt record: one line
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
