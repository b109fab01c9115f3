"""Benchmark of the batched engine, with references measured in the same run.

Run pinned to one core::

    taskset -c 0 .venv/bin/python bench/batched.py            # full (a few minutes)
    taskset -c 0 .venv/bin/python bench/batched.py --quick    # shorter runs
    taskset -c 0 .venv/bin/python bench/batched.py --sections 3 --repeat 3   # one figure, three times

It prints, each with its ratio to a reference measured here and now:

1. scripted five-seat ``pagat`` rounds/s (threshold players, banker_threshold) on the batched
   engine vs the reference engine's runner loop (target >= 2,000,000);
2. vector-env learner steps/s, random masked actions, ``num_envs=4096``, vs ``Blackjack-v1``
   ``make_vec`` (target >= 1,000,000);
3. a trained model's evaluation, rounds/s (batched inference) vs the reference loop (target >= 100,000);
4. peak memory at 4096 tables, and the first-call compile time (fresh cache, target < 30 s) vs cached;
5. how throughput grows with ``num_envs`` and with the number of players, and how much of a vector
   step at 256 and at 4,096 tables is spent in the compiled pass.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # time this checkout's code, not whichever one is installed


def rate(fn, seconds: float) -> tuple[float, int]:
    """Calls ``fn`` (which returns a count) until ``seconds`` pass; returns count/s and the count."""
    fn()  # warm
    count, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        count += fn()
    return count / (time.perf_counter() - started), count


def scripted_batch(players: int, tables: int) -> Callable[[], int]:
    """A function that plays one ``pagat`` round at each of ``tables`` batched tables (threshold
    players, ``banker_threshold`` in seat 0 throughout) and returns the number of rounds."""
    from pontoon_env.batched import BatchedEngine

    engine = BatchedEngine("pagat", players, tables, seed=0,
                           policies=["banker_threshold"] + ["threshold"] * players)
    st = engine.state

    def batch() -> int:
        engine.play_round()  # new_round and play in one pass
        st.banker[:] = 0  # keep seat 0 banking (as the EV tables do)
        st.n_candidates[:] = 0
        return tables

    return batch


def scripted_rounds(players: int, tables: int, seconds: float) -> float:
    return rate(scripted_batch(players, tables), seconds)[0]


def reference_rounds(players: int, seconds: float) -> float:
    from agents.registry import make_policy
    from pontoon_env import PontoonGame, make_rules
    from pontoon_env.game.runner import keep_banker, play_round

    rules = make_rules("pagat")
    policies = [make_policy("banker_threshold", rules)] + [make_policy("threshold", rules)] * players
    game = PontoonGame(rules, players, seed=0, banker=0)
    rng = np.random.default_rng(0)

    def batch() -> int:
        for _ in range(200):
            dealt = game.dealer_rounds
            play_round(game, policies, rng)
            keep_banker(game, 0, dealt)
        return 200

    return rate(batch, seconds)[0]


def vector_batch(num_envs: int, players: int) -> Callable[[], int]:
    """A function that steps a fresh vector env once with random masked actions and returns the
    number of learner steps."""
    from pontoon_env.batched import kernel as kn
    from pontoon_env.envs.vector import PontoonVectorEnv

    env = PontoonVectorEnv(num_envs=num_envs, num_players=players)
    env.reset(seed=0)
    state = np.array([12345], dtype=np.uint64)
    actions = np.zeros(num_envs, dtype=np.int64)

    def batch() -> int:
        kn.random_legal_ids(env.action_masks(), state, actions)
        env.step(actions)
        return num_envs

    return batch


def vector_steps(num_envs: int, players: int, seconds: float) -> float:
    return rate(vector_batch(num_envs, players), seconds)[0]


def step_split(num_envs: int, players: int, seconds: float) -> tuple[float, float]:
    """Nanoseconds per table of a vector-env step with random masked actions (:func:`vector_batch`),
    all of it and the part inside the compiled pass (``kernel.env_step``, timed around each call);
    the rest is the step's Python and numpy work and the drawing of the actions."""
    from pontoon_env.batched import kernel as kn

    compiled, inside = kn.env_step, [0.0]

    def timed(*args: object) -> None:
        started = time.perf_counter()
        compiled(*args)
        inside[0] += time.perf_counter() - started

    kn.env_step = timed  # the vector env calls it through the module
    try:
        batch = vector_batch(num_envs, players)
        for _ in range(3):  # warm
            batch()
        inside[0], steps, started = 0.0, 0, time.perf_counter()
        while time.perf_counter() - started < seconds:
            steps += batch()
        wall = time.perf_counter() - started
    finally:
        kn.env_step = compiled
    return wall / steps * 1e9, inside[0] / steps * 1e9


def blackjack_steps(num_envs: int, seconds: float) -> float:
    import gymnasium as gym

    env = gym.make_vec("Blackjack-v1", num_envs=num_envs, vectorization_mode="sync")
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def batch() -> int:
        env.step(rng.integers(0, 2, size=num_envs))
        return num_envs

    return rate(batch, seconds)[0]


def trained_model(path: str) -> str:
    """A small MaskablePPO player trained for a moment on the vector env (the policy is what is timed)."""
    from sb3_contrib import MaskablePPO

    from agents.checkpoint import save_checkpoint, table_config
    from pontoon_env import make_rules
    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    env = PontoonSB3VecEnv(num_envs=256, num_players=4, seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=2048, n_epochs=1, seed=0, device="cpu")
    model.learn(4096)
    # With its run config, as train.py saves a model: ModelPolicy checks the table against it.
    save_checkpoint(model, path, {**table_config(make_rules("pagat"), 4, role="player"), "algo": "maskable_ppo"})
    return path


def model_eval(path: str, rounds: int, reference_rounds_: int) -> tuple[float, float]:
    import torch

    from agents.model import ModelPolicy
    from agents.registry import make_policy
    from pontoon_env import make_rules
    from pontoon_env.batched.evaluate import batched_match, reference_match

    torch.set_num_threads(1)
    rules = make_rules("pagat")
    policies = [make_policy("banker_threshold", rules), ModelPolicy(path, rules, num_players=4)] + [
        make_policy("threshold", rules)] * 3
    batched_match(rules, 4, policies, 4096, seed=1)  # warm
    fast = batched_match(rules, 4, policies, rounds, seed=2)
    slow = reference_match(rules, 4, policies, reference_rounds_, seed=2)
    head = batched_match(rules, 4, policies, reference_rounds_, seed=2)
    assert np.array_equal(head.net, slow.net), "batched and reference evaluation differ"
    return rounds / fast.wall_s, reference_rounds_ / slow.wall_s


def compile_times() -> tuple[float, float]:
    code = ("import time; t=time.perf_counter(); from pontoon_env.envs.vector import PontoonVectorEnv; "
            "import numpy as np; e=PontoonVectorEnv(num_envs=8, num_players=4); o,i=e.reset(seed=0); "
            "e.step(i['action_mask'].argmax(1)); from pontoon_env.batched import BatchedEngine; "
            "b=BatchedEngine('pagat', 4, 8, policies=['banker_threshold']+['threshold']*4); b.new_round(); b.play(); "
            "print(time.perf_counter()-t)")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        first = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                     check=True).stdout.split()[-1])
        cached = float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True).stdout.split()[-1])
    return first, cached


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing runs")
    parser.add_argument("--no-compile", action="store_true", help="skip the fresh-cache compile measurement")
    parser.add_argument("--sections", type=int, nargs="+", choices=range(1, 6), default=list(range(1, 6)),
                        metavar="N", help="only these numbered sections (1-5; default all), e.g. --sections 3")
    parser.add_argument("--repeat", type=int, default=1, help="run the chosen sections this many times")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error(f"--repeat: expected a positive number, got {args.repeat}")
    print(f"cores allowed: {sorted(os.sched_getaffinity(0))}")
    for _ in range(args.repeat):
        run_sections(args, set(args.sections))
    return 0


def run_sections(args: argparse.Namespace, sections: set[int]) -> None:
    """Print the chosen numbered sections (see the module docstring)."""
    seconds = 2.0 if args.quick else 5.0
    if 1 in sections:
        scripted_section(seconds)
    if 2 in sections:
        vector_section(seconds)
    if 3 in sections:
        evaluation_section(200_000 if args.quick else 1_000_000)
    if 4 in sections:
        memory_section(compile_too=not args.no_compile)
    if 5 in sections:
        scaling_section(seconds)


def scripted_section(seconds: float) -> None:
    batched = scripted_rounds(4, 4096, seconds)
    reference = reference_rounds(4, seconds)
    print(f"1. scripted 5-seat pagat rounds/s: batched {batched:,.0f} vs reference {reference:,.0f} "
          f"(x{batched / reference:,.0f}); target 2,000,000")


def vector_section(seconds: float) -> None:
    steps = vector_steps(4096, 4, seconds)
    blackjack = blackjack_steps(4096, seconds)
    print(f"2. vector env learner steps/s (num_envs=4096, random masked): {steps:,.0f} vs Blackjack-v1 make_vec "
          f"{blackjack:,.0f} (x{steps / blackjack:.1f}); target 1,000,000")


def evaluation_section(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = trained_model(os.path.join(folder, "model.zip"))
        fast, slow = model_eval(path, rounds, 2000)
    print(f"3. trained model evaluation rounds/s: batched {fast:,.0f} vs reference {slow:,.0f} (x{fast / slow:,.0f}); "
          "target 100,000 (per-round results checked equal on 2,000 rounds)")


MEMORY_CODE = (
    "import os, sys; sys.path.insert(0, sys.argv[1]); from pontoon_env.envs.vector import PontoonVectorEnv; "
    "rss = lambda: int(open('/proc/self/statm').read().split()[1]) * os.sysconf('SC_PAGE_SIZE'); "
    "before = rss(); env = PontoonVectorEnv(num_envs=4096, num_players=4); env.reset(seed=0); "
    "env.step(env.action_masks().argmax(1)); "
    "hwm = [int(line.split()[1]) * 1024 for line in open('/proc/self/status') if line.startswith('VmHWM')][0]; "
    "print(sum(a.nbytes for a in env.engine.state), before, rss(), hwm)"
)
"""Section 4 in a fresh interpreter, by the resident set now (``/proc/self/statm``): ``ru_maxrss``
is a peak, and measured after the other sections it read their peak and "+0 MiB" (a child started
then inherits it too, where ``VmHWM``, the peak printed, is this process's own)."""


def memory_section(compile_too: bool) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    state_bytes, before, after, peak = (int(word) for word in subprocess.run(
        [sys.executable, "-c", MEMORY_CODE, str(ROOT)], env=env, capture_output=True, text=True,
        check=True).stdout.split()[-4:])
    print(f"4. memory at 4096 tables (a fresh process): table state {state_bytes / 2**20:.1f} MiB; resident "
          f"{after / 2**20:.0f} MiB, {max(0, after - before) / 2**20:.0f} MiB of it for the env "
          f"({before / 2**20:.0f} MiB after the imports); peak {peak / 2**20:.0f} MiB")
    if compile_too:
        first, cached = compile_times()
        print(f"   compile: first call {first:.1f} s with an empty cache (target < 30 s), {cached:.1f} s cached")


def scaling_section(seconds: float) -> None:
    print("5. scaling (learner steps/s, random masked actions):")
    for n in (64, 256, 1024, 4096, 16384):
        print(f"   num_envs={n:>6}, 4 players: {vector_steps(n, 4, seconds / 2):>12,.0f}")
    for n in (256, 4096):
        total, inside = step_split(n, 4, seconds / 2)
        print(f"   num_envs={n:>6}, 4 players: {total:,.0f} ns a table-step, {inside:,.0f} ns of it in the compiled pass")
    for players in (1, 2, 4, 6, 9):
        print(f"   4096 tables, {players} player{'s' if players != 1 else ' '}: env steps/s {vector_steps(4096, players, seconds / 2):>12,.0f}; "
              f"scripted rounds/s {scripted_rounds(players, 4096, seconds / 2):>12,.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
