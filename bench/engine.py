"""Engine speed: complete ``pagat`` rounds per second next to Gymnasium's ``Blackjack-v1``.

::

    python bench/engine.py [--rounds 20000] [--episodes 50000] [--profile]

Measured in one run, on one core:

1. **fast path**: one banker and four players under threshold policies that decide from the game
   state directly (the active hand's total, read from the engine's hands) instead of building a
   :class:`~pontoon_env.game.observation.SeatView`: this is the cost of the rules engine itself;
2. **Blackjack-v1**: episodes with uniformly random actions through the default ``gym.make``
   wrappers, and the ratio *pontoon round time / blackjack episode time* (target <= 2);
3. **SeatView policies**: the same table through :func:`pontoon_tools.ev_table.play_rounds` with
   ``ThresholdPlayer`` / ``BankerThreshold``, which build a seat view for every decision;
4. **single-env steps** (when :mod:`pontoon_env.envs.gymnasium_env` is installed): steps per second of
   ``Pontoon-v0`` with random legal actions next to ``Blackjack-v1`` steps per second.

``--profile`` adds a cProfile of the fast path (top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import io
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path

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


def time_fast_path(rounds: int, seed: int) -> float:
    """Seconds per round of the fast path (one chunk)."""
    rules = make_rules("pagat")
    game = PontoonGame(rules, PLAYERS, seed=seed, banker=0)
    stake = Action(_STAKE, rules.min_stake)
    for _ in range(min(200, rounds)):  # warm-up
        fast_round(game, stake)
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


def time_blackjack(episodes: int, seed: int) -> tuple[float, float]:
    """(seconds per episode, seconds per step) of Blackjack-v1 with random actions."""
    import gymnasium as gym

    env = gym.make("Blackjack-v1")
    env.action_space.seed(seed)
    env.reset(seed=seed)
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
    env.close()
    return elapsed / episodes, elapsed / steps


def time_pontoon_env_steps(steps: int, seed: int) -> float | None:
    """Seconds per step of Pontoon-v0 with random legal actions, or None without the env module."""
    if importlib.util.find_spec("pontoon_env.envs.gymnasium_env") is None:
        return None
    import gymnasium as gym

    import pontoon_env.envs.gymnasium_env  # noqa: F401  (registers Pontoon-v0)

    env = gym.make("Pontoon-v0")
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    started = time.perf_counter()
    for _ in range(steps):
        mask = np.asarray(info["action_mask"], dtype=bool)
        _, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            _, info = env.reset()
    elapsed = time.perf_counter() - started
    env.close()
    return elapsed / steps


def profile(function: Callable[[], object], top: int = 20) -> str:
    """cProfile ``function`` and return the ``top`` functions by own time."""
    profiler = cProfile.Profile()
    profiler.runcall(function)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).strip_dirs().sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/engine.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=20_000, help="pontoon rounds per measurement")
    parser.add_argument("--episodes", type=int, default=50_000, help="Blackjack-v1 episodes")
    parser.add_argument("--steps", type=int, default=20_000, help="Pontoon-v0 single-env steps")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="interleaved chunks; the fastest counts")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the fast path")
    args = parser.parse_args(argv)

    # Interleave the measurements in chunks and keep each one's fastest chunk (as timeit does), so
    # that load from other processes on the machine hits both sides of the ratio alike.
    chunks = max(1, args.repeat)
    round_s = episode_s = bj_step_s = float("inf")
    for chunk in range(chunks):
        round_s = min(round_s, time_fast_path(max(1, args.rounds // chunks), args.seed + chunk))
        episode, step = time_blackjack(max(1, args.episodes // chunks), args.seed + chunk)
        episode_s, bj_step_s = min(episode_s, episode), min(bj_step_s, step)
    view_s = time_seat_views(max(1, args.rounds // 4), args.seed)
    print(
        f"pagat, 1 banker + {PLAYERS} players, threshold policies ({args.rounds} rounds, one core, "
        f"fastest of {chunks} interleaved chunks)"
    )
    print(f"  engine fast path      : {1 / round_s:10,.0f} rounds/s   {round_s * 1e6:8.1f} us/round")
    print(f"  Blackjack-v1 (random) : {1 / episode_s:10,.0f} episodes/s {episode_s * 1e6:8.1f} us/episode")
    ratio = round_s / episode_s
    verdict = "met" if ratio <= 2 else "NOT met"
    print(f"  ratio pontoon round / blackjack episode: {ratio:.2f} (target <= 2: {verdict})")
    print(
        f"  SeatView policies     : {1 / view_s:10,.0f} rounds/s   {view_s * 1e6:8.1f} us/round "
        f"({view_s / round_s:.1f}x the fast path)"
    )
    # Hook: the single-environment line appears once pontoon_env.envs.gymnasium_env (Pontoon-v0) exists.
    env_step_s = time_pontoon_env_steps(args.steps, args.seed)
    if env_step_s is None:
        print("  single-env steps/s (Pontoon-v0) vs Blackjack-v1: pontoon_env.envs.gymnasium_env not available yet")
    else:
        print(
            f"  single-env steps/s (Pontoon-v0) vs Blackjack-v1: {1 / env_step_s:,.0f} vs "
            f"{1 / bj_step_s:,.0f} (ratio of step times {env_step_s / bj_step_s:.2f})"
        )
    if args.profile:
        rules = make_rules("pagat")
        game = PontoonGame(rules, PLAYERS, seed=args.seed, banker=0)
        stake = Action(_STAKE, rules.min_stake)
        print(profile(lambda: [fast_round(game, stake) for _ in range(args.rounds // 4 or 1)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
