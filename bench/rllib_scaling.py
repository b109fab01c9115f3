#!/usr/bin/env python
"""How RLlib sampling scales with env runners: the same PPO set-up at 1, 2, ... runners, steps/s and ratios.

For each runner count it builds the training of ``train_rllib.py`` (same table, policies, tables
per runner and seed), runs one warm-up iteration (actor start, first weights), then measures

* ``sample steps/s``: decisions sampled per second by the runners alone (RLlib's own
  ``synchronous_parallel_sample``, the call PPO makes each iteration), over ``--samples`` calls;
* ``train steps/s``: decisions per second of whole PPO iterations (sampling, then learning in
  the driver), over ``--iterations`` iterations;

and prints both with the ratio to the first runner count. Locally every runner takes one core,
so on two cores 2 runners is the most that can scale; with ``--address`` the same command
measures a cluster (``--runners 1,8,32``). Run it in ``.venv-rllib``::

    .venv-rllib/bin/python bench/rllib_scaling.py                 # 1 and 2 runners on this machine
    .venv-rllib/bin/python bench/rllib_scaling.py --address HEAD:6379 --runners 1,8,32
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pontoon_env.game.rules import resolve_rules  # noqa: E402
from pontoon_tools.rllib.trainer import RLlibSettings, build_config, connect  # noqa: E402


def measure(settings: RLlibSettings, samples: int, iterations: int, batch: int) -> dict[str, float]:
    """Sampling and training throughput of one configuration (the algorithm is stopped afterwards)."""
    from ray.rllib.execution.rollout_ops import synchronous_parallel_sample

    algo = build_config(settings).build_algo()
    try:
        result = algo.train()  # warm-up: actors up, connectors built, weights synced once
        before = int(result["num_env_steps_sampled_lifetime"])
        started = time.perf_counter()
        for _ in range(iterations):
            result = algo.train()
        train_s = time.perf_counter() - started
        trained = int(result["num_env_steps_sampled_lifetime"]) - before
        group = algo.env_runner_group
        steps, started = 0, time.perf_counter()
        for _ in range(samples):
            episodes = synchronous_parallel_sample(worker_set=group, max_env_steps=batch, concat=True,
                                                   _uses_new_env_runners=True)
            steps += sum(episode.env_steps() for episode in episodes)
        sample_s = time.perf_counter() - started
    finally:
        algo.stop()
    return {
        "sample_steps": steps,
        "sample_s": round(sample_s, 2),
        "sample_steps_per_s": round(steps / sample_s, 1),
        "train_steps": trained,
        "train_s": round(train_s, 2),
        "train_steps_per_s": round(trained / train_s, 1),
    }


OUR_FLAGS = {"--train-batch-size": "--batch", "--num-envs-per-env-runner": "--envs-per-runner",
             "--num-env-runners": "--runners"}
"""train_rllib.py's flags in RLlibSettings' messages, and this script's names for them."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rllib_scaling.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--runners", default="1,2", help="comma-separated env runner counts (default 1,2)")
    parser.add_argument("--envs-per-runner", type=int, default=RLlibSettings.num_envs_per_env_runner,
                        help=f"tables per runner (default {RLlibSettings.num_envs_per_env_runner})")
    parser.add_argument("--batch", type=int, default=RLlibSettings.train_batch_size,
                        help=f"decisions per sample call and per PPO update (default {RLlibSettings.train_batch_size})")
    parser.add_argument("--samples", type=int, default=3, help="timed sample calls per runner count (default 3)")
    parser.add_argument("--iterations", type=int, default=2, help="timed PPO iterations per runner count (default 2)")
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--seats", type=int, default=RLlibSettings.seats)
    parser.add_argument("--address", default=None, help="a running Ray cluster (default: a local instance)")
    parser.add_argument("--num-cpus", type=int, default=None, help="cores of the local instance (default: all)")
    parser.add_argument("--episodes-to-numpy", choices=("auto", "on", "off"), default="auto",
                        help="RLlib's episodes_to_numpy: auto = train_rllib.py's choice (on with remote runners, off "
                             "when the driver samples), or forced on/off to compare (default auto)")
    parser.add_argument("--json", default=None, metavar="PATH", help="also write the rows as JSON")
    args = parser.parse_args(argv)
    try:
        counts = [int(part) for part in args.runners.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 0:
        parser.error(f"--runners: expected comma-separated runner counts >= 0 such as 1,2, got {args.runners!r}")
    try:
        resolve_rules(args.rules)
    except ValueError as error:  # an unknown preset was found only after Ray started
        parser.error(f"--rules: {error}")
    for flag, value in (("--samples", args.samples), ("--iterations", args.iterations)):
        if value < 1:
            parser.error(f"{flag}: expected an integer >= 1, got {value}")
    base = RLlibSettings(rules=args.rules, seats=args.seats, address=args.address, num_cpus=args.num_cpus,
                         num_envs_per_env_runner=args.envs_per_runner, train_batch_size=args.batch,
                         minibatch_size=max(1, min(256, args.batch)), progress=False,
                         episodes_to_numpy={"auto": None, "on": True, "off": False}[args.episodes_to_numpy])
    try:  # every runner count's settings, before Ray starts; the messages name this script's flags
        for count in counts:
            RLlibSettings(**{**base.__dict__, "num_env_runners": count}).validate()
    except (ValueError, RuntimeError) as error:  # RLlibTrainingError
        message = str(error)
        for theirs, ours in OUR_FLAGS.items():
            message = message.replace(theirs, ours)
        parser.error(message)
    ray, connected = connect(base)
    import torch

    torch.set_num_threads(1)
    cpus = ray.cluster_resources().get("CPU", 0)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.rules}, {args.seats} players, {args.envs_per_runner} tables per runner, batch {args.batch}, "
          f"episodes_to_numpy={args.episodes_to_numpy}; "
          f"Ray {ray.__version__}, {cpus:g} CPUs in the cluster; load average before: {load:.2f}")
    rows = []
    try:
        for count in counts:
            settings = RLlibSettings(**{**base.__dict__, "num_env_runners": count})
            row = {"env_runners": count, **measure(settings, args.samples, args.iterations, args.batch)}
            rows.append(row)
            print(f"  {count:3d} runner(s): sample {row['sample_steps_per_s']:8.1f} steps/s "
                  f"({row['sample_steps']} in {row['sample_s']} s), train {row['train_steps_per_s']:7.1f} steps/s",
                  flush=True)
    finally:
        if connected:
            ray.shutdown()
    first = rows[0]
    print(f"{'runners':>8} {'sample steps/s':>15} {'ratio':>6} {'train steps/s':>14} {'ratio':>6}")
    for row in rows:
        row["sample_ratio"] = round(row["sample_steps_per_s"] / first["sample_steps_per_s"], 2)
        row["train_ratio"] = round(row["train_steps_per_s"] / first["train_steps_per_s"], 2)
        print(f"{row['env_runners']:>8} {row['sample_steps_per_s']:>15.1f} {row['sample_ratio']:>6.2f} "
              f"{row['train_steps_per_s']:>14.1f} {row['train_ratio']:>6.2f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average after: {load:.2f} (other work on the machine lowers the ratio)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
