"""Machine instructions per ``Pontoon-v0`` step, next to a ``Blackjack-v1`` step, counted by valgrind.

::

    python bench/instructions.py [--players 1 4] [--steps 3000] [--parts | --caches | --scripted | --vector | --encode]
                                 [--repeat 1]

Timings on a shared machine move by 5-15% from one run to the next (``bench/engine.py`` reads
ratios of paired chunks for that reason), more than most single changes to the step path gain.
Instructions executed move far less (a whole step's count within 1-3% between invocations):
this script runs the same loops as ``bench/engine.py``
(``Pontoon-v0`` with random legal actions and the default scripted opponents; ``Blackjack-v1``
with random actions, both through ``gym.make``'s wrappers) under valgrind's ``callgrind`` with a
fixed ``PYTHONHASHSEED`` and seeds, twice each (a short and a long run, so the interpreter's start
and the imports cancel), and prints the instructions of one step and their ratio to a
``Blackjack-v1`` step. Two versions of the code compare to within that: ``PYTHONPATH=/tmp/old python
/tmp/old/bench/instructions.py`` beside this checkout's.

Instructions are not time: the step's targets (``bench/engine.py``) are in time, and a step whose
memory use misses the caches more takes longer for the same count (on 2026-12-06 the 4-player step
was 1.85-1.87 Blackjack-v1 steps in instructions and 2.14-2.2 in time). ``--parts`` also counts the step
with the learner's encoding replaced by a stored vector and with its whole observation (the seat's
view and its encoding) replaced, so their shares of the step are read off the differences.

``--caches`` runs the same loops under valgrind's ``cachegrind`` with its cache and branch
simulation instead and prints, per step, the simulated first-level instruction- and data-cache
misses and mispredicted branches beside a ``Blackjack-v1`` step's: where the time ratio and the
instruction ratio differ, these say which of the two steps spends more per instruction (a model
of a processor, not this machine's counters, which its virtual machine does not expose).

``--encode`` counts the batched encoder alone, per observation (``kernel.encode_tables`` at 256
tables part-way through their rounds): the largest single part of a vector step.

With ``--scripted`` or ``--vector`` (below), ``--caches`` gives the same events per round or
table-step of the batched engine.

``--scripted`` counts the batched engine's scripted rounds instead (``bench/batched.py``'s first
figure: ``pagat``, threshold players, ``banker_threshold``), per round: what the compiled kernel
executes, to set beside its rounds a second (a throughput target is instructions a round times
rounds a second over the instructions a second the processor runs).

``--vector`` counts the native vector environment's learner steps the same way, per table-step
(``bench/batched.py``'s second figure, random masked actions, at 256 tables so that a batch is
quick under valgrind): the compiled step, its encoding and the step's Python and numpy work.

Needs ``valgrind`` on the ``PATH`` (``apt-get install valgrind``); it takes about a minute per
measurement.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run as a script from a checkout
sys.path.insert(0, str(ROOT / "bench"))

MODES = ("full", "no_encode", "no_observation")
"""What the learner's observation costs: all of it, no encoding (a stored vector), none at all."""
_NO_ASLR = ["setarch", "-R"] if shutil.which("setarch") else []
"""Address-space randomisation off where ``setarch`` is there: one source of variation between runs
less (object addresses, and so the order of Python's identity-keyed sets and dicts)."""
WARM_STEPS = 200
"""Steps (Blackjack-v1: episodes) of the short run; the long run adds ``--steps`` to them."""
SCRIPTED_TABLES = 256
"""Tables of a batch in ``--scripted`` and ``--vector`` (their short runs play two batches)."""


def child(mode: str, players: int, steps: int) -> int:
    """Run ``steps`` steps of ``mode`` (``blackjack`` or one of :data:`MODES`); print the step count."""
    from engine import Blackjack, PontoonSteps  # bench/engine.py: the same loops as the timed ones

    if mode == "encode":  # the batched encoder alone: whole passes over 256 tables part-way through rounds
        return encode_child(players, steps)
    if mode in ("scripted", "vector"):  # batched tables (bench/batched.py's loops): rounds or table-steps
        from batched import scripted_batch, vector_batch

        batch = scripted_batch(players, SCRIPTED_TABLES) if mode == "scripted" else vector_batch(SCRIPTED_TABLES, players)
        rounds = 0
        while rounds < steps:
            rounds += batch()
        print(rounds)
        return 0
    if mode == "blackjack":
        reference = Blackjack(0)
        reference.time(steps)  # episodes, each of one or more steps
        print(reference.steps)
        return 0
    table = PontoonSteps(players, 0)
    env = table.env.unwrapped
    if mode != "full":
        stored = env.encoder.encode(env._view())
        if mode == "no_encode":
            env.encoder.encode = lambda view: stored.copy()
        else:
            env._observation = lambda: stored.copy()
    table.time(steps)
    print(steps)
    return 0


def encode_child(players: int, count: int) -> int:
    """Encode the learner's observation at each of :data:`SCRIPTED_TABLES` tables of the native
    vector env (random masked actions for seven steps first, so the tables are part-way through
    their rounds) in whole passes of ``kernel.encode_tables`` until ``count`` are written; print them."""
    import numpy as np

    from pontoon_env.batched import kernel as kn
    from pontoon_env.envs.vector import PontoonVectorEnv

    env = PontoonVectorEnv(num_envs=SCRIPTED_TABLES, num_players=players)
    env.reset(seed=0)
    state, actions = np.array([12345], dtype=np.uint64), np.zeros(SCRIPTED_TABLES, dtype=np.int64)
    for _ in range(7):
        kn.random_legal_ids(env.action_masks(), state, actions)
        env.step(actions)
    e = env.engine
    tables = np.arange(SCRIPTED_TABLES, dtype=np.int64)
    seats = env.ep.learner.copy()
    out = np.zeros((SCRIPTED_TABLES, env.single_observation_space.shape[0]), dtype=np.float32)
    written = 0
    while written < count:
        kn.encode_tables(e.state, e.rules_flat, e.cfg, e.scales, e.layout, e.high, tables, seats, out)
        written += SCRIPTED_TABLES
    print(written)
    return 0


def instructions(mode: str, players: int, steps: int) -> tuple[int, int]:
    """(instructions, steps) of one run of :func:`child` under callgrind."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [*_NO_ASLR, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__,
               "--child", mode, str(players), str(steps)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    counted = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
    if done.returncode != 0 or counted is None:
        raise SystemExit(f"bench/instructions.py: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return int(counted.group(1)), int(done.stdout.split()[-1])


CACHE_EVENTS = (
    ("I1 misses", r"I1\s+misses:\s*([\d,]+)", "first-level instruction-cache misses"),
    ("D1 misses", r"D1\s+misses:\s*([\d,]+)", "first-level data-cache misses"),
    ("mispredicted", r"Mispredicts:\s*([\d,]+)", "mispredicted branches"),
    ("of them indirect", r"Mispredicts:\s*[\d,]+\s*\(\s*[\d,]+ cond \+\s*([\d,]+) ind", "mispredicted indirect branches"),
)
"""What ``--caches`` reads off cachegrind's summary: its label, the pattern, what it counts."""


def simulated(mode: str, players: int, steps: int) -> tuple[dict[str, int], int]:
    """(events of :data:`CACHE_EVENTS`, steps) of one run of :func:`child` under cachegrind with its
    cache and branch simulation (valgrind's model of a processor, not this one's counters)."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    command = [*_NO_ASLR, "valgrind", "--tool=cachegrind", "--cache-sim=yes", "--branch-sim=yes",
               "--cachegrind-out-file=/dev/null", sys.executable, __file__, "--child", mode, str(players), str(steps)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    events = read_events(done.stderr)
    if done.returncode != 0 or events is None:
        raise SystemExit(f"bench/instructions.py: {' '.join(command)} failed:\n{done.stderr[-2000:]}")
    return events, int(done.stdout.split()[-1])


def read_events(summary: str) -> dict[str, int] | None:
    """The events of :data:`CACHE_EVENTS` in cachegrind's summary (``None`` if one is missing)."""
    events = {}
    for label, pattern, _ in CACHE_EVENTS:
        found = re.search(pattern, summary)
        if found is None:
            return None
        events[label] = int(found.group(1).replace(",", ""))
    return events


def simulated_per_step(mode: str, players: int, steps: int, warm: int = WARM_STEPS) -> dict[str, float]:
    """Each simulated event per step: the long run's less the short run's, over the steps between."""
    short, short_steps = simulated(mode, players, warm)
    long, long_steps = simulated(mode, players, warm + steps)
    return {label: (long[label] - short[label]) / (long_steps - short_steps) for label in long}


def print_caches(players_list: list[int], steps: int) -> None:
    """The ``--caches`` table: simulated misses per step, Blackjack-v1 beside each table size."""
    blackjack = simulated_per_step("blackjack", 1, steps)
    print(f"simulated per step (cachegrind --cache-sim=yes --branch-sim=yes, PYTHONHASHSEED=0, {steps} steps "
          f"after {WARM_STEPS}; valgrind's model of the caches and branch predictor, not this processor's)")
    header = "".join(f"{label:>18}" for label, _, _ in CACHE_EVENTS)
    print(f"  {'':24}{header}")
    print(f"  {'Blackjack-v1 (random)':24}" + "".join(f"{blackjack[label]:18,.0f}" for label, _, _ in CACHE_EVENTS))
    for players in players_list:
        pontoon = simulated_per_step("full", players, steps)
        name = f"Pontoon-v0, {players} player{'s' if players > 1 else ''}"
        print(f"  {name:24}" + "".join(f"{pontoon[label]:18,.0f}" for label, _, _ in CACHE_EVENTS))
        print(f"  {'  ratio to Blackjack-v1':24}"
              + "".join(f"{pontoon[label] / blackjack[label]:18.2f}" for label, _, _ in CACHE_EVENTS))


def print_batched_caches(mode: str, players_list: list[int], count: int) -> None:
    """``--caches`` with ``--scripted`` or ``--vector``: the simulated events per round or table-step
    of the batched engine (the loops of :func:`print_batched`). Where the time of a batched step
    does not follow its instructions, the mispredicted branches are the first place to look: the
    game's draws and a random learner's moves are branches no predictor can learn."""
    unit = "round" if mode == "scripted" else "table-step"
    print(f"simulated per {unit} of the batched engine ({'scripted pagat rounds' if mode == 'scripted' else 'vector env, random masked actions'}, "
          f"cachegrind --cache-sim=yes --branch-sim=yes, {SCRIPTED_TABLES} tables a batch, {count} after "
          f"{2 * SCRIPTED_TABLES}; valgrind's model of the caches and branch predictor, not this processor's)")
    print(f"  {'':24}" + "".join(f"{label:>18}" for label, _, _ in CACHE_EVENTS))
    for players in players_list:
        simulated(mode, players, SCRIPTED_TABLES)  # compiles for valgrind's processor if not cached
        events = simulated_per_step(mode, players, count, warm=2 * SCRIPTED_TABLES)
        name = f"{players} player{'s' if players > 1 else ''} + banker"
        print(f"  {name:24}" + "".join(f"{events[label]:18,.0f}" for label, _, _ in CACHE_EVENTS))


def per_step(mode: str, players: int, steps: int) -> float:
    """Instructions of one step: the long run's less the short run's, over the steps between."""
    short, short_steps = instructions(mode, players, WARM_STEPS)
    long, long_steps = instructions(mode, players, WARM_STEPS + steps)
    return (long - short) / (long_steps - short_steps)


def print_batched(mode: str, players_list: list[int], count: int, repeat: int = 1) -> None:
    """The ``--scripted`` lines (instructions per round of the batched engine's scripted tables) or
    the ``--vector`` lines (per learner step of a table of the native vector env), each the mean of
    ``repeat`` short-and-long pairs, with their range when there are several.

    Numba's on-disk cache is keyed by the processor it compiled for, and valgrind presents another
    one, so a first run under valgrind compiles the kernel for it (a few minutes, once per cache).

    ``--repeat`` shows whether two measurements agree: these runs have, to the instruction
    (2026-12-07: 10,442 and 10,442 a 4-player table-step over 20,480), but an ad-hoc loop that
    loaded a build for another processor from a cache native runs shared put two invocations of
    one run 2-6 million instructions apart, up to a thousand a table-step over 5,120."""
    what = {"scripted": "scripted pagat round", "vector": "vector-env learner step of a table (random masked actions)",
            "encode": "learner observation written by the encoder"}[mode]
    unit = {"scripted": "rounds", "vector": "table-steps", "encode": "observations"}[mode]
    print(f"instructions per {what} of the batched engine (callgrind, {SCRIPTED_TABLES} tables "
          f"a batch, {count} {unit} after {2 * SCRIPTED_TABLES}, {repeat} pair{'s' if repeat > 1 else ''} of runs; "
          "the compile, Python and imports cancel)")
    for players in players_list:
        instructions(mode, players, SCRIPTED_TABLES)  # compiles for valgrind's processor if not cached
        counts = []
        for _ in range(repeat):
            short, short_count = instructions(mode, players, 2 * SCRIPTED_TABLES)
            long, long_count = instructions(mode, players, 2 * SCRIPTED_TABLES + count)
            counts.append((long - short) / (long_count - short_count))
        spread = f"   (pairs: {min(counts):,.0f}-{max(counts):,.0f})" if repeat > 1 else ""
        print(f"  {players} player{'s' if players > 1 else ' '} + banker: {sum(counts) / len(counts):10,.0f}{spread}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/instructions.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[1, 4], help="table sizes (players besides the banker)")
    parser.add_argument("--steps", type=int, default=3000, help="steps (Blackjack-v1: episodes) measured")
    parser.add_argument("--parts", action="store_true", help="also count the step without the learner's encoding "
                        "and without its observation")
    parser.add_argument("--caches", action="store_true", help="instead, simulated cache misses and mispredicted "
                        "branches per step (cachegrind), beside a Blackjack-v1 step's; with --scripted or "
                        "--vector, per round or table-step of the batched engine")
    parser.add_argument("--scripted", action="store_true", help="instead, instructions per scripted round of the "
                        "batched engine (bench/batched.py's first figure), --steps rounds")
    parser.add_argument("--vector", action="store_true", help="instead, instructions per learner step of a table "
                        "of the native vector env (bench/batched.py's second figure, 256 tables), --steps table-steps")
    parser.add_argument("--encode", action="store_true", help="instead, instructions per observation of the "
                        "batched encoder (kernel.encode_tables over 256 tables), --steps observations")
    parser.add_argument("--repeat", type=int, default=1, help="--scripted/--vector: pairs of runs to average "
                        "(their range is printed)")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "PLAYERS", "STEPS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child[0], int(args.child[1]), int(args.child[2]))
    if any(players < 1 or players > 9 for players in args.players):
        parser.error(f"--players: expected table sizes in 1..9, got {args.players}")
    if args.steps < 1:
        parser.error(f"--steps: expected a positive number, got {args.steps}")
    modes = [flag for flag, given in (("--scripted", args.scripted), ("--vector", args.vector),
                                      ("--encode", args.encode)) if given]
    if len(modes) > 1 or (args.encode and args.caches):  # one of them was silently dropped
        parser.error(f"expected one of --scripted, --vector, --encode (--caches with --scripted or --vector), "
                     f"got {' '.join(modes + (['--caches'] if args.caches else []))}")
    if args.parts and (modes or args.caches):
        parser.error(f"--parts: counts the Pontoon-v0 step only, got it with {' '.join(modes or ['--caches'])}")
    if args.repeat < 1:
        parser.error(f"--repeat: expected a positive number, got {args.repeat}")
    if shutil.which("valgrind") is None:
        print("bench/instructions.py: valgrind is not on the PATH (install it, e.g. apt-get install valgrind)",
              file=sys.stderr)
        return 2
    if args.caches:
        if args.scripted or args.vector:
            print_batched_caches("scripted" if args.scripted else "vector", args.players, args.steps)
        else:
            print_caches(args.players, args.steps)
        return 0
    if args.scripted or args.vector or args.encode:
        mode = "scripted" if args.scripted else "vector" if args.vector else "encode"
        print_batched(mode, args.players, args.steps, args.repeat)
        return 0
    blackjack = per_step("blackjack", 1, args.steps)
    print(f"instructions per step (callgrind, PYTHONHASHSEED=0, {args.steps} steps after {WARM_STEPS}; "
          "Python and imports cancel)")
    print(f"  Blackjack-v1 (random)                  : {blackjack:12,.0f}")
    for players in args.players:
        full = per_step("full", players, args.steps)
        print(f"  Pontoon-v0, {players} player{'s' if players > 1 else ' '}: {full:12,.0f}   ratio to a Blackjack-v1 "
              f"step {full / blackjack:.2f}")
        if args.parts:
            no_encode = per_step("no_encode", players, args.steps)
            no_observation = per_step("no_observation", players, args.steps)
            print(f"    the learner's encoding   {full - no_encode:10,.0f} ({(full - no_encode) / full:.0%} of the step)")
            print(f"    the learner's seat view  {no_encode - no_observation:10,.0f} "
                  f"({(no_encode - no_observation) / full:.0%})")
            print(f"    the rest of the step     {no_observation:10,.0f} ({no_observation / full:.0%})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
