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
from collections.abc import Sequence
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
    if reuse and (folder / "model.zip").is_file() and (folder / "config.json").is_file():
        wall = float(json.loads((folder / "config.json").read_text())["wall_time_s"])
    else:
        subprocess.run(command, check=True, cwd=ROOT)
        wall = time.perf_counter() - started
    result = player_protocol(folder / "model.zip", "pagat", rounds=rounds, seed=1)
    record = {"row": row.name, "group": row.group, "what": row.what, "flags": list(row.flags), "timesteps": steps,
              "reference": row.reference, "command": " ".join(command[1:]), "train_wall_s": round(wall, 1),
              "seed": seed, **result}
    write_json(record, out / f"{row.name}.json")
    return record


def table(out: Path) -> str:
    """The ablation table (Markdown) from the rows measured in ``out``, in :data:`ROWS` order."""
    lines = ["| group | row | change | steps | train wall s | steps/s | gap to optimal (same deals), 95% CI | "
             "model EV | mean stake | exact gap of read strategy |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for row in ROWS:
        path = out / f"{row.name}.json"
        if not path.is_file():
            continue
        r = json.loads(path.read_text())
        g = r["gap"]
        timings = (r.get("train") or {}).get("train_timings") or {}
        rate = timings.get("steps_per_s")
        lines.append(
            f"| {r['group']} | `{r['row']}` | {r['what']} | {r['timesteps']:,} | {r['train_wall_s']:.0f} | "
            f"{f'{rate:,}' if rate else '—'} | {g['mean']:+.3f} [{g['low']:+.3f}, {g['high']:+.3f}] | "
            f"{r['model_ev']['mean']:+.3f} | {r['mean_stake']['model']:.2f} | {r['exact']['read_gap']:+.3f} |")
    return "\n".join(lines)


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
    if args.command == "table":
        text = table(out)
        print(text)
        if args.docs:
            write_docs(text, Path(args.docs))
        return 0
    names = args.rows or [r.name for r in ROWS]
    unknown = sorted(set(names) - {r.name for r in ROWS})
    if unknown:
        parser.error(f"--rows: unknown rows {unknown}; expected some of {[r.name for r in ROWS]}")
    for row in (r for r in ROWS if r.name in names):
        if (out / f"{row.name}.json").is_file() and not args.force:
            print(f"[ablation] {row.name}: measured already ({out / (row.name + '.json')})", flush=True)
            continue
        print(f"[ablation] {row.name}: {row.what}", flush=True)
        record = run_row(row, args.timesteps, args.seed, args.rounds, out, Path(args.runs).resolve(), reuse=args.reuse)
        g = record["gap"]
        print(f"[ablation] {row.name}: gap {g['mean']:+.4f} [{g['low']:+.4f}, {g['high']:+.4f}], "
              f"train {record['train_wall_s']:.0f} s", flush=True)
    print(table(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
