"""Training throughput: ``train.py``'s default learner on the batched vector env against Stable-Baselines3
PPO on ``Blackjack-v1`` with its default settings, measured in the same run.

    .venv/bin/python bench/training.py                 # both cores (the issue's target: >= 50,000 steps/s)
    taskset -c 0 .venv/bin/python bench/training.py    # one core
    .venv/bin/python bench/training.py --quick         # shorter runs

Rows (learner steps per second of training, environment and updates included, set-up and
evaluation excluded):

1. SB3 ``PPO("MlpPolicy", FlattenObservation(gym.make("Blackjack-v1")))``, every setting at its
   default (one env, 2,048 steps per update, minibatch 64, 10 epochs; the wrapper one-hot encodes
   the Tuple observation SB3 does not take): the reference;
2. SB3 ``MaskablePPO`` on the batched ``PontoonSB3VecEnv`` (pagat, one player seat) with large
   batches (4,096 tables, 16 steps each, minibatch 8,192, 4 epochs): the first choice of the
   issue, to show where it tops out;
3. ``train.py``'s defaults (``lean_ppo``, pagat, one player seat) through :class:`pontoon_tools.training.Trainer`
   with the evaluation switched off: the number the target is about.

The machine is shared, so absolute numbers move with its load; the ratios of rows measured in the
same run are what it shows. It prints a table and writes ``--out`` (JSON).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def sb3_blackjack(steps: int) -> float:
    """SB3 PPO, default settings, on Blackjack-v1: learner steps/s."""
    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO

    torch.set_num_threads(1)
    # SB3 takes no Tuple observation space: FlattenObservation one-hot encodes Blackjack's three
    # Discrete parts (the one wrapper needed); every PPO setting stays at its default.
    env = gym.wrappers.FlattenObservation(gym.make("Blackjack-v1"))
    model = PPO("MlpPolicy", env, seed=0, device="cpu")
    model.learn(2048)  # warm-up rollout and update
    started = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - started)


def sb3_maskable_batched(steps: int) -> float:
    """sb3-contrib MaskablePPO on the batched SB3 VecEnv, large batches: learner steps/s."""
    import torch
    from sb3_contrib import MaskablePPO

    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    torch.set_num_threads(1)
    env = PontoonSB3VecEnv(num_envs=4096, seed=0, rules="pagat", num_players=1, learner_seat=1)
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=8192, n_epochs=4, gamma=1.0, seed=0, device="cpu")
    model.learn(4096 * 16)
    started = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - started)


def train_py_default(steps: int) -> dict[str, float]:
    """``train.py``'s defaults (lean_ppo) for ``steps`` steps, evaluation off: steps/s and its split."""
    from pontoon_tools.training import Trainer, TrainSettings

    with tempfile.TemporaryDirectory() as folder:
        settings = TrainSettings(timesteps=steps, eval_rounds=0, progress=False, out=folder)
        trainer = Trainer(settings, "player", Path(folder))
        trainer.run()
        timings = dict(trainer.train_timings or {})
    return {"steps_per_s": float(timings["steps_per_s"]), "rollout_s": timings["rollout_s"],
            "update_s": timings["update_s"], "wait_s": timings.get("wait_s", 0.0), "steps": float(timings["steps"])}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument("--out", default="results/bench_training.json")
    args = parser.parse_args()
    scale = 1 if not args.quick else 4
    cores = sorted(os.sched_getaffinity(0))
    print(f"cores allowed: {cores}; {platform.processor() or platform.machine()}", flush=True)
    rows = {}
    rows["sb3_ppo_blackjack_default"] = sb3_blackjack(40_960 // scale)
    print(f"1. SB3 PPO, default settings, Blackjack-v1: {rows['sb3_ppo_blackjack_default']:,.0f} steps/s", flush=True)
    rows["sb3_maskable_ppo_batched"] = sb3_maskable_batched(4096 * 16 * 12 // scale)
    print(f"2. SB3 MaskablePPO, batched PontoonSB3VecEnv (4,096 x 16, minibatch 8,192, 4 epochs): "
          f"{rows['sb3_maskable_ppo_batched']:,.0f} steps/s", flush=True)
    lean = train_py_default(4096 * 16 * 40 // scale)
    rows["train_py_default"] = lean["steps_per_s"]
    print(f"3. train.py defaults (lean_ppo, pagat, 1 player seat): {lean['steps_per_s']:,.0f} steps/s "
          f"(sampler {lean['rollout_s']:.0f} s, updates {lean['update_s']:.0f} s, learner waiting "
          f"{lean['wait_s']:.0f} s); target 50,000", flush=True)
    base = rows["sb3_ppo_blackjack_default"]
    print("\n| learner | steps/s | x SB3 PPO on Blackjack-v1 |\n|---|---|---|")
    for name, value in rows.items():
        print(f"| {name} | {value:,.0f} | {value / base:.1f} |")
    result = {"cores": cores, "rows": rows, "lean_split": lean, "target_steps_per_s": 50_000,
              "date": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": platform.node()}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
