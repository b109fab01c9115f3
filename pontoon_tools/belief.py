"""``train.py --role banker --algo belief``: a banker that learns the players' hands from showdowns.

The learner is :class:`agents.banker_belief.BeliefBanker`: ``banker_smart``'s optimal stopping over
his own draws, with the belief about each standing player hand *learnt* (a
:class:`~agents.banker_belief.BeliefTable` of showdowns keyed by what the banker saw of the hand)
instead of assumed. Training plays rounds on the reference engine against the given players and, at
each banker turn, counts every standing hand: what the banker saw of it, and what it turned out to
be (the showdown, which the engine knows when the banker decides and every seat sees once he has
played). No scripted or solver policy is imitated and nothing but the rules is built in.

Which banker plays while the table is learnt does not change what is learnt: the players finish
before the banker draws, and the belief banker's other decisions (the banker's double, the kitty)
are ``banker_threshold``'s, so the rounds are played with ``banker_threshold``'s draws, which cost
nothing to compute. Round episodes only, the bank kept by the learner every round.

The run directory holds ``belief.json`` (the table), ``config.json`` (rules, table size, the
players, rounds, time) and, with ``--eval-rounds``, ``eval.json`` (the learnt banker against
``banker_threshold`` and ``banker_smart`` on the same deals).
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.banker_belief import BELIEF_FILE, BeliefBanker, BeliefTable
from agents.banker_smart import standing_hands
from agents.checkpoint import table_rules
from agents.scripted import BankerThreshold, Decision
from pontoon_env.game import legality
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import Rules
from pontoon_env.game.runner import keep_banker, play_round

DEFAULT_ROUNDS = 300_000
"""Rounds a belief banker learns from unless ``--timesteps`` says otherwise (about a minute at two seats)."""


class ShowdownRecorder(BankerThreshold):
    """``banker_threshold`` at the table, counting each standing hand into ``table`` at his turn.

    It reads the hands' true cards from ``game`` (the showdown the banker is about to see); what it
    keys them by is the banker's own view of them.
    """

    sees_table = True

    def __init__(self, game: PontoonGame, table: BeliefTable) -> None:
        super().__init__()
        self.game = game
        self.table = table
        self._counted = -1

    def on_banker_turn(self, view: SeatView, legal: Sequence[Any], rng: np.random.Generator) -> Decision:
        if self._counted != self.game.round_index:  # once a round: the hands do not change in his turn
            self._counted = self.game.round_index
            truth = {player.seat: player.hands for player in self.game.players}
            rules = self.table.rules
            for seat, hands in view.players:
                for index, hand in standing_hands(hands, rules):
                    self.table.add(hand, legality.player_result(truth[seat][index].stat(), rules))
        return super().on_banker_turn(view, legal, rng)


def learn_belief(rules: Rules, players: Sequence[Any], rounds: int, seed: int = 0, *,
                 progress: bool = False) -> BeliefTable:
    """A belief table learnt from ``rounds`` rounds against ``players`` (one policy per player seat).

    The banker sits at seat 0 and keeps the bank; the deals come from ``seed``."""
    num_players = len(players)
    game = PontoonGame(rules, num_players, seed=seed, banker=0)
    table = BeliefTable(game.rules)
    recorder = ShowdownRecorder(game, table)
    seats = [recorder, *players]
    rng = np.random.default_rng(seed)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=rounds, desc="showdowns", unit="round", mininterval=1.0, file=sys.stderr)
    for index in range(rounds):
        play_round(game, seats, rng)
        keep_banker(game, 0, index)
        if bar is not None and (index + 1) % 1000 == 0:
            bar.update(1000)
    if bar is not None:
        bar.update(rounds - bar.n)
        bar.close()
    return table


def train_belief(settings: Any, out: Path) -> dict[str, Any]:
    """Learn a belief banker as ``settings`` (a filled :class:`~pontoon_tools.training.TrainSettings`) say."""
    from pontoon_tools.evaluation import load_policy, play_match, write_json
    from pontoon_tools.training import TrainingError, build_rules, guess_role

    rules = build_rules(settings.rules, settings.options)
    seats = int(settings.seats)
    bankers = [spec for spec in settings.opponents if guess_role(spec) == "banker"]
    if bankers:  # the learner is the banker: a banker spec would be dropped unplayed
        raise TrainingError(f"--opponents: expected player specs only for --algo belief (the learner banks), got {bankers}")
    specs = list(settings.opponents) or ["threshold"]
    if len(specs) not in (1, seats):
        raise TrainingError(f"--opponents: expected one player spec, or one per player seat ({seats}), "
                            f"for --algo belief, got {specs}")
    specs = specs * seats if len(specs) == 1 else specs
    players = [load_policy(spec, rules, seats) for spec in specs]
    rounds = int(settings.timesteps)
    out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    if settings.progress:
        print(f"training banker (belief) on {rules.preset!r}, {seats} player seat(s) of {specs[0]}: "
              f"{rounds:,} rounds -> {out}", file=sys.stderr, flush=True)  # stdout is train.py's JSON summary
    table = learn_belief(rules, players, rounds, settings.seed, progress=settings.progress)
    table.save(out / BELIEF_FILE)
    wall = round(time.perf_counter() - started, 1)
    config = {
        "algo": "belief", "role": "banker", "rules": dataclasses.asdict(table_rules(rules, seats)),
        "preset": rules.preset, "rule_options": dict(settings.options),
        "num_players": seats, "seed": settings.seed, "timesteps": rounds, "timesteps_unit": "rounds",
        "hands": table.hands, "opponents": {"players": specs[0] if len(set(specs)) == 1 else specs},
        "command": " ".join(sys.argv), "wall_time_s": wall,
    }
    (out / "config.json").write_text(json.dumps(config, indent=2))
    summary: dict[str, Any] = {"role": "banker", "model": str(out / BELIEF_FILE), "wall_s": wall,
                               "hands": table.hands}
    if settings.eval_rounds:
        banker = BeliefBanker(table)
        mine = play_match(rules, seats, [banker, *players], settings.eval_rounds, (settings.eval_seed if settings.eval_seed is not None else settings.seed + 10_000))
        rows = {"model_ev": float(mine.ev(0).mean())}
        for name in ("banker_threshold", "banker_smart"):
            other = play_match(rules, seats, [load_policy(name, rules, seats), *players], settings.eval_rounds,
                               (settings.eval_seed if settings.eval_seed is not None else settings.seed + 10_000))
            diff = mine.ev(0) - other.ev(0)
            rows[f"minus_{name}"] = float(diff.mean())
            # one round has no interval: null, as the other evaluations write it (NaN is no JSON)
            rows[f"minus_{name}_half_width"] = (float(1.96 * diff.std(ddof=1) / np.sqrt(len(diff)))
                                                if len(diff) > 1 else None)
        write_json(rows, out / "eval.json")
        summary["eval"] = rows
        if settings.progress:
            def width(name: str) -> str:
                half = rows[f"minus_{name}_half_width"]
                return "no interval" if half is None else f"+-{half:.3f}"

            print("  " + ", ".join(f"model - {name} {rows[f'minus_{name}']:+.3f} ({width(name)})"
                                   for name in ("banker_threshold", "banker_smart"))
                  + f" over {settings.eval_rounds:,} paired rounds", file=sys.stderr, flush=True)  # stdout is train.py's JSON summary
    if settings.progress:
        print(f"  {table.hands:,} showdowns counted in {wall} s; wrote {out / BELIEF_FILE}", file=sys.stderr, flush=True)  # stdout is train.py's JSON summary
    return summary
