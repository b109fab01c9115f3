"""Engine speed: complete ``pagat`` rounds per second next to Gymnasium's ``Blackjack-v1``.

::

    python bench/engine.py [--rounds 20000] [--episodes 50000] [--steps 20000] [--repeat 10]
                           [--processes 5] [--profile] [--encode-share]

Measured on one core in ``--processes`` fresh processes, one after the other. In each, every table
is built and warmed up once and then timed in ``--repeat`` short chunks, each right after a
``Blackjack-v1`` chunk of its own. A time printed is the fastest chunk of all processes; a ratio
is the median over the processes of each process's median of its paired chunks' ratios, printed
with the processes' range (one process's ratio moves by several percent from one process to the
next, more than between its chunks):

1. **fast path**: one banker and four players under threshold policies that decide from the game
   state directly (the active hand's total, read from the engine's hands) instead of building a
   :class:`~pontoon_env.game.observation.SeatView`: this is the cost of the rules engine itself;
2. **Blackjack-v1**: episodes with uniformly random actions through the default ``gym.make``
   wrappers, and the ratio *pontoon five-seat round time / blackjack episode time* (target <= 0.5);
3. **SeatView policies**: the same table through :func:`pontoon_tools.ev_table.play_rounds` with
   ``ThresholdPlayer`` / ``BankerThreshold``, which build a seat view for every decision;
4. **single-env steps**: ``Pontoon-v0`` with 1, 4 and 9 players (random legal actions for the
   learner, the default scripted opponents), each as the ratio of its step time to a
   ``Blackjack-v1`` step (targets: 1 player <= 1, 4 players <= 2).

``--profile`` adds a cProfile of the fast path (top functions by own time); ``--encode-share``
adds, per table size, the time a step spends encoding the learner's observation.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run as a script from a checkout

from pontoon_env import Action, ActionKind, Phase, PontoonGame, make_rules  # noqa: E402

PLAYERS = 4
STICK_AT = 16
BANKER_STANDS = 17

_STAKE = ActionKind.STAKE
_STICK = Action(ActionKind.STICK)
_TWIST = Action(ActionKind.TWIST)
_DRAW = Action(ActionKind.DRAW)
_STAND = Action(ActionKind.STAND)


def fast_round(game: PontoonGame, stake: Action) -> None:
    """One complete round, deciding from the engine's own hands (no seat views, no legal lists).

    Players stake the minimum and stick at 16 or more, else twist (twisting is always legal while
    a hand is in play, sticking at 16 always is under ``pagat``); the banker draws below 17.
    """
    game.new_round()
    while game.phase != Phase.ROUND_OVER:
        phase = game.phase
        if phase == Phase.PLAYER_TURN:
            # players are listed from the banker's left: the acting one is at this offset
            player = game.players[(game.current_seat - game.banker_seat_of_round - 1) % game.num_seats]
            hand = player.hands[player.active]
            game.apply(_STICK if hand.total() >= STICK_AT else _TWIST)
        elif phase == Phase.BANKER_TURN:
            hand = game.banker_hands[game.active_hand_index]
            game.apply(_STAND if hand.total() >= BANKER_STANDS else _DRAW)
        elif phase == Phase.STAKE:
            game.apply(stake)
        else:  # not reached under pagat with these policies; keeps the loop total
            option = game.legal_actions()[0]
            game.apply(Action(option.kind, option.min_amount))


class FastPath:
    """The fast path's table, dealt on from one chunk to the next (the pack carries over)."""

    def __init__(self, seed: int) -> None:
        self.rules = make_rules("pagat")
        self.game = PontoonGame(self.rules, PLAYERS, seed=seed, banker=0)
        self.stake = Action(_STAKE, self.rules.min_stake)

    def time(self, rounds: int) -> float:
        """Seconds per round over ``rounds`` rounds."""
        game, stake = self.game, self.stake
        started = time.perf_counter()
        for _ in range(rounds):
            fast_round(game, stake)
        return (time.perf_counter() - started) / rounds


def time_seat_views(rounds: int, seed: int) -> float:
    """Seconds per round with SeatView-based scripted policies (pontoon_tools.ev_table.play_rounds)."""
    from agents.scripted import BankerThreshold, ThresholdPlayer
    from pontoon_tools.ev_table import play_rounds

    policies = [BankerThreshold(BANKER_STANDS)] + [
        ThresholdPlayer(stick_at=STICK_AT, buy_at_or_below=0, bet="min") for _ in range(PLAYERS)
    ]
    play_rounds("pagat", policies, min(200, rounds), seed=seed)
    started = time.perf_counter()
    play_rounds("pagat", policies, rounds, seed=seed)
    return (time.perf_counter() - started) / rounds


class Blackjack:
    """``Blackjack-v1`` through the default ``gym.make`` wrappers, random actions, one env throughout."""

    def __init__(self, seed: int) -> None:
        import gymnasium as gym

        self.env = gym.make("Blackjack-v1")
        self.env.action_space.seed(seed)
        self.env.reset(seed=seed)
        self.steps = 0
        """Steps taken so far (``bench/instructions.py`` counts per step)."""

    def time(self, episodes: int) -> tuple[float, float]:
        """(seconds per episode, seconds per step) over ``episodes`` episodes."""
        env = self.env
        steps = 0
        started = time.perf_counter()
        for _ in range(episodes):
            env.reset()
            done = False
            while not done:
                _, _, terminated, truncated, _ = env.step(env.action_space.sample())
                steps += 1
                done = terminated or truncated
        elapsed = time.perf_counter() - started
        self.steps += steps
        return elapsed / episodes, elapsed / steps


class PontoonSteps:
    """``Pontoon-v0`` (defaults otherwise) with random legal actions, one env throughout."""

    def __init__(self, num_players: int, seed: int) -> None:
        import gymnasium as gym

        import pontoon_env  # noqa: F401  (registers Pontoon-v0)

        self.env = gym.make("Pontoon-v0", num_players=num_players)
        self.rng = np.random.default_rng(seed)
        _, self.info = self.env.reset(seed=seed)

    def time(self, steps: int) -> float:
        """Seconds per step over ``steps`` steps (episodes reset as they end, as in training)."""
        env, rng, info = self.env, self.rng, self.info
        started = time.perf_counter()
        for _ in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(legal[int(rng.integers(len(legal)))]))
            if terminated or truncated:
                _, info = env.reset()
        elapsed = time.perf_counter() - started
        self.info = info
        return elapsed / steps


def encode_share(num_players: int, steps: int, seed: int) -> tuple[float, float, float]:
    """Where a ``Pontoon-v0`` step's time goes to encoding the learner's observation, measured
    inside the running environment (the encoder's own call timed, its caches as training leaves
    them): ``(seconds a call, calls a step, share of the step)``. The timer adds two clock reads a
    call to the step, so the share is a slight overestimate."""
    table = PontoonSteps(num_players, seed)
    table.time(max(1, steps // 4))  # warm-up, as the step measurement's
    encoder = table.env.unwrapped.encoder
    encode, clock = encoder.encode, time.perf_counter
    spent, calls = [0.0], [0]

    def timed(view: Any) -> Any:
        started = clock()
        vector = encode(view)
        spent[0] += clock() - started
        calls[0] += 1
        return vector

    encoder.encode = timed
    try:
        step_s = table.time(steps)
    finally:
        del encoder.encode  # the class's method again
    return spent[0] / max(calls[0], 1), calls[0] / steps, spent[0] / (step_s * steps)


def profile(function: Callable[[], object], top: int = 20) -> str:
    """cProfile ``function`` and return the ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.runcall(function)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()


TABLE_SIZES = (1, 4, 9)
STEP_TARGETS = {1: 1.0, 4: 2.0}
ROUND_TARGET = 0.5


def measure(args: argparse.Namespace) -> dict[str, Any]:
    """One process's measurements: each time its fastest chunk, each ratio its paired chunks' median."""
    # Each table is built and warmed up once, then timed in short chunks interleaved with the
    # others; each measurement keeps its fastest chunk (as timeit does), so that load from other
    # processes on the machine hits both sides of every ratio alike. The steady state is what is
    # measured: a table dealing on, its caches warm, as in a training run.
    chunks = max(1, args.repeat)
    fast, blackjack = FastPath(args.seed), Blackjack(args.seed)
    tables = {players: PontoonSteps(players, args.seed) for players in TABLE_SIZES}
    fast.time(max(1, min(1000, args.rounds // 4)))  # warm-up
    blackjack.time(max(1, min(2000, args.episodes // 4)))
    for table in tables.values():
        table.time(max(1, min(2000, args.steps // 4)))
    # Every Pontoon chunk follows a Blackjack-v1 chunk of its own, and a ratio is taken per pair:
    # the printed ratio is the median of the pairs' (a slow spell of the machine falls on both
    # sides of a pair); the times printed are each measurement's fastest chunk.
    round_s = episode_s = bj_step_s = float("inf")
    env_step_s = dict.fromkeys(TABLE_SIZES, float("inf"))
    round_ratios: list[float] = []
    step_ratios: dict[int, list[float]] = {players: [] for players in TABLE_SIZES}
    bj_episodes = max(1, args.episodes // chunks // (len(TABLE_SIZES) + 1))
    for _chunk in range(chunks):
        episode, step = blackjack.time(bj_episodes)
        measured = fast.time(max(1, args.rounds // chunks))
        round_ratios.append(measured / episode)
        round_s, episode_s, bj_step_s = min(round_s, measured), min(episode_s, episode), min(bj_step_s, step)
        for players in TABLE_SIZES:
            episode, step = blackjack.time(bj_episodes)
            measured = tables[players].time(max(1, args.steps // chunks))
            step_ratios[players].append(measured / step)
            episode_s, bj_step_s = min(episode_s, episode), min(bj_step_s, step)
            env_step_s[players] = min(env_step_s[players], measured)
    return {
        "round_s": round_s,
        "episode_s": episode_s,
        "bj_step_s": bj_step_s,
        "view_s": time_seat_views(max(1, args.rounds // 4), args.seed),
        "round_ratio": statistics.median(round_ratios),
        "env_step_s": {str(players): env_step_s[players] for players in TABLE_SIZES},
        "step_ratio": {str(players): statistics.median(step_ratios[players]) for players in TABLE_SIZES},
    }


def measure_in_processes(args: argparse.Namespace) -> list[dict[str, Any]]:
    """:func:`measure` in ``--processes`` fresh interpreters, one after the other (same core).

    A pure-Python loop's speed moves by several percent from one process to the next (memory
    layout, hash seeds, the machine's other load), more than between chunks of one process: one
    process's ratio is one sample, and the report gives the median and the range of several."""
    forwarded = ["--rounds", str(args.rounds), "--episodes", str(args.episodes), "--steps", str(args.steps),
                 "--seed", str(args.seed), "--repeat", str(args.repeat), "--processes", "1", "--json"]
    results = []
    for run in range(args.processes):
        done = subprocess.run([sys.executable, __file__, *forwarded], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"bench/engine.py: measuring process {run + 1} failed:\n{done.stderr[-2000:]}")
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(f"  [process {run + 1}/{args.processes} done]", file=sys.stderr, flush=True)
    return results


def report(results: list[dict[str, Any]], args: argparse.Namespace) -> None:
    """Times: the fastest over the processes; ratios: the median of the processes' with their range."""

    def verdict(ratio: float, target: float) -> str:
        return f"target <= {target:g}: {'met' if ratio <= target else 'NOT met'}"

    def ratio_text(values: list[float]) -> str:
        middle = statistics.median(values)
        spread = f", {len(values)} processes {min(values):.2f}-{max(values):.2f}" if len(values) > 1 else ""
        return f"{middle:.2f}{spread}"

    chunks = max(1, args.repeat)
    round_s = min(result["round_s"] for result in results)
    episode_s = min(result["episode_s"] for result in results)
    bj_step_s = min(result["bj_step_s"] for result in results)
    view_s = min(result["view_s"] for result in results)
    processes = f"median of {len(results)} processes of " if len(results) > 1 else ""
    print(
        f"pagat, 1 banker + {PLAYERS} players, threshold policies ({args.rounds} rounds, one core, warm tables; "
        f"times: fastest of {chunks} chunks; ratios: {processes}the median of {chunks} chunks each paired with a "
        "Blackjack-v1 chunk)"
    )
    print(f"  engine fast path      : {1 / round_s:10,.0f} rounds/s   {round_s * 1e6:8.1f} us/round")
    print(f"  Blackjack-v1 (random) : {1 / episode_s:10,.0f} episodes/s {episode_s * 1e6:8.1f} us/episode")
    ratios = [result["round_ratio"] for result in results]
    print(f"  ratio pontoon round / blackjack episode: {ratio_text(ratios)} "
          f"({verdict(statistics.median(ratios), ROUND_TARGET)})")
    print(
        f"  SeatView policies     : {1 / view_s:10,.0f} rounds/s   {view_s * 1e6:8.1f} us/round "
        f"({view_s / round_s:.1f}x the fast path)"
    )
    print(
        f"Pontoon-v0 steps (random legal actions, default threshold opponents) vs Blackjack-v1 steps "
        f"({1 / bj_step_s:,.0f}/s, {bj_step_s * 1e6:.1f} us)"
    )
    for players in TABLE_SIZES:
        step_s = min(result["env_step_s"][str(players)] for result in results)
        ratios = [result["step_ratio"][str(players)] for result in results]
        target = (f" ({verdict(statistics.median(ratios), STEP_TARGETS[players])})"
                  if players in STEP_TARGETS else "")
        print(
            f"  {players} player{'s' if players > 1 else ' '}: {1 / step_s:10,.0f} steps/s "
            f"{step_s * 1e6:8.1f} us/step   ratio to a Blackjack-v1 step {ratio_text(ratios)}{target}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/engine.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="pontoon rounds per measurement")
    parser.add_argument("--episodes", type=int, default=50_000, help="Blackjack-v1 episodes")
    parser.add_argument("--steps", type=int, default=20_000, help="Pontoon-v0 single-env steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=10, help="interleaved chunks; the fastest counts")
    parser.add_argument("--processes", type=int, default=5,
                        help="fresh processes measured one after the other; ratios are their median (1: this one)")
    parser.add_argument("--json", action="store_true", help="print one process's measurements as JSON")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the fast path")
    parser.add_argument("--encode-share", action="store_true",
                        help="also print how much of a Pontoon-v0 step encoding the observation takes")
    args = parser.parse_args(argv)
    for flag, value in (("--rounds", args.rounds), ("--episodes", args.episodes), ("--steps", args.steps),
                        ("--repeat", args.repeat), ("--processes", args.processes)):
        if value < 1:  # a chunk of one round was timed instead, and a verdict printed from it
            parser.error(f"{flag}: expected at least 1, got {value}")
    if args.seed < 0:
        parser.error(f"--seed: expected an integer >= 0, got {args.seed}")
    if args.json and args.processes != 1:
        parser.error(f"--json prints one process's measurements: use it with --processes 1, got {args.processes}")

    results = measure_in_processes(args) if args.processes > 1 else [measure(args)]
    if args.json:
        print(json.dumps(results[0]))
        return 0
    report(results, args)
    if args.encode_share:
        print("Encoding the learner's observation inside a Pontoon-v0 step (one process):")
        for players in TABLE_SIZES:
            call_s, per_step, share = encode_share(players, args.steps, args.seed)
            print(f"  {players} player{'s' if players > 1 else ' '}: {call_s * 1e6:5.1f} us a call, "
                  f"{per_step:.2f} calls a step, {share:.0%} of a step")
    if args.profile:
        rules = make_rules("pagat")
        game = PontoonGame(rules, PLAYERS, seed=args.seed, banker=0)
        stake = Action(_STAKE, rules.min_stake)
        print(profile(lambda: [fast_round(game, stake) for _ in range(args.rounds // 4 or 1)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
