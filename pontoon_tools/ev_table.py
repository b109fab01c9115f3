"""Play whole rounds of a table with one policy per seat, straight on the engine.

:func:`play_rounds` is the reference engine's plain loop (the EV tables here and the "SeatView
policies" line of ``bench/engine.py`` use it; ``evaluate.py`` and the benchmark tasks play through
:func:`pontoon_tools.evaluation.play_match`): no Gymnasium wrapper, one
:func:`~pontoon_env.game.observation.observe` per decision. The pack is seeded ``seed``, the
policies draw from a child stream of it (:func:`pontoon_env.game.runner.policy_rng`). Run as a script it measures each
policy's expected value per round::

    python -m pontoon_tools.ev_table --rules pagat --players 4 --rounds 20000 --seed 0

prints, for each player policy against each banker policy, the mean net chips per round of a
player seat and of the banker, in minimum stakes, with 95% confidence intervals.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.rules import Rules, make_rules
from pontoon_env.game.runner import Seating, chooser, keep_banker, play_round, policy_rng
from pontoon_tools.settings import build_parser, flag, from_args, setting

def play_rounds(
    rules: Rules | str,
    policies: Seating,
    num_rounds: int,
    seed: int | None = 0,
    fixed_banker: bool = True,
    *,
    banker: int = 0,
    num_players: int | None = None,
) -> np.ndarray:
    """Play ``num_rounds`` complete rounds and return each seat's net chips per round.

    Args:
        rules: the rule set or a preset name.
        policies: one policy per seat (seat 0 .. players); the number of players is taken from it
            unless ``num_players`` is given.
        num_rounds: rounds to play.
        seed: seeds both the game (the pack) and the policies' generator.
        fixed_banker: keep ``banker`` at the bank for every round. The rules may pass the bank (a
            player's pontoon, a sale, a rotation); then, between rounds, the bank is moved back by
            setting ``game.banker`` directly (and any pending take-over offer is dropped). This
            keeps every seat in one role, so a seat's mean is the expected value of *that* policy
            *in that role*; with bank passing the seats mix roles and the means mix policies. The
            chips of the round that passed the bank are left as they were (a returned kitty
            included).
        banker: the first banker's seat.
        num_players: number of player seats (default: one per policy less the banker).

    Returns:
        ``int64`` array of shape ``(num_rounds, seats)``: each seat's result in each round, from
        the round's ledger (chips plus the kitty it owns, D22).
    """
    rules = make_rules(rules) if isinstance(rules, str) else rules
    count = len(policies)
    players = count - 1 if num_players is None else num_players
    game = PontoonGame(rules, players, seed=seed, banker=banker)
    seated = chooser(policies, game.num_seats)
    rng = policy_rng(seed)
    results = np.zeros((num_rounds, game.num_seats), dtype=np.int64)
    for index in range(num_rounds):
        dealt = game.dealer_rounds
        results[index] = play_round(game, seated, rng)
        if fixed_banker:
            keep_banker(game, banker, dealt)
    return results


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """The mean of ``values`` and the half-width of its normal 95% confidence interval."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return float(values.mean()) if values.size else math.nan, math.nan
    return float(values.mean()), float(1.96 * values.std(ddof=1) / math.sqrt(values.size))


# ---------------------------------------------------------------------------- the EV table

DEFAULT_PLAYERS = (
    "optimal",
    "threshold:stick=15",
    "threshold:stick=16",
    "threshold:stick=17",
    "threshold:buy=0",
    "threshold:amount=min",
    "threshold:bet=min",
    "threshold:bet=min,buy=0",
    "random",
)
"""The player policies of the table in ``docs/agents.md``."""
DEFAULT_BANKERS = ("banker_threshold:stand=17", "banker_threshold:stand=16", "casino_dealer", "banker_smart")
"""The banker policies of the table in ``docs/agents.md``."""


def ev_table(
    rules: Rules,
    player_specs: Sequence[str],
    banker_specs: Sequence[str],
    num_players: int,
    num_rounds: int,
    seed: int,
    jobs: int = 1,
) -> list[dict[str, object]]:
    """Each player spec (in every player seat) against each banker spec; means in minimum stakes.

    ``jobs`` > 1 plays the pairings in that many worker processes.
    """
    pairings = [
        (rules, player, banker, num_players, num_rounds, seed)
        for banker in banker_specs
        for player in player_specs
    ]
    if jobs <= 1:
        return [_pairing(*pairing) for pairing in pairings]
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(jobs) as pool:
        return list(pool.map(_pairing, *zip(*pairings, strict=True)))


def _pairing(
    rules: Rules, player_spec: str, banker_spec: str, num_players: int, num_rounds: int, seed: int
) -> dict[str, object]:
    """One row of :func:`ev_table` (a module-level function so that worker processes can run it)."""
    from agents.registry import make_policy

    started = time.perf_counter()
    policies = [make_policy(banker_spec, rules)] + [
        make_policy(player_spec, rules) for _ in range(num_players)
    ]
    nets = play_rounds(rules, policies, num_rounds, seed=seed) / rules.min_stake
    # The player seats of one round share the banker's hand, so average them per round first and
    # take the interval over rounds (independent up to the pack carrying over).
    player_mean, player_ci = mean_ci(nets[:, 1:].mean(axis=1))
    banker_mean, banker_ci = mean_ci(nets[:, 0])
    return {
        "player": player_spec,
        "banker": banker_spec,
        "player_ev": player_mean,
        "player_ci": player_ci,
        "banker_ev": banker_mean,
        "banker_ci": banker_ci,
        "seconds": time.perf_counter() - started,
    }


def format_table(rows: Sequence[Mapping[str, object]]) -> str:
    """A Markdown table of :func:`ev_table` rows: one line per player policy, one column per banker.

    Each cell is the mean net chips per round of one player seat (in minimum stakes) with its 95%
    confidence interval; the banker's mean is shown under each banker column's header row.
    """
    players = list(dict.fromkeys(str(row["player"]) for row in rows))
    bankers = list(dict.fromkeys(str(row["banker"]) for row in rows))
    cell = {(str(row["player"]), str(row["banker"])): row for row in rows}
    lines = [
        "| player policy (every player seat) | " + " | ".join(f"vs `{banker}`" for banker in bankers) + " |",
        "|---|" + "---|" * len(bankers),
    ]
    for player in players:
        values = []
        for banker in bankers:
            row = cell.get((player, banker))
            values.append(f"{row['player_ev']:+.3f} ± {row['player_ci']:.3f}" if row else "")
        lines.append(f"| `{player}` | " + " | ".join(values) + " |")
    return "\n".join(lines)


def format_long(rows: Sequence[Mapping[str, object]]) -> str:
    """A Markdown table of :func:`ev_table` rows, one line per pairing, with the banker's EV too."""
    lines = [
        "| player policy (every player seat) | banker policy | player EV / round | banker EV / round |",
        "|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row['player']}` | `{row['banker']}` | {row['player_ev']:+.3f} ± {row['player_ci']:.3f} "
            f"| {row['banker_ev']:+.3f} ± {row['banker_ci']:.3f} |"
        )
    return "\n".join(lines)


@dataclass
class EvTableSettings:
    """The options of ``python -m pontoon_tools.ev_table``, each declared once (the CLI is derived)."""

    rules: str = setting("pagat", "preset name", metavar="PRESET")
    players: int = setting(4, "player seats")
    rounds: int = setting(20_000, "rounds per pairing")
    seed: int = setting(0, "seed of every pairing (each pairing is seeded on its own)")
    player: list[str] = setting(help="player policy spec (repeatable); default: the set of docs/agents.md",
                                default_factory=list, metavar="SPEC", repeat=True)
    banker: list[str] = setting(help="banker policy spec (repeatable); default: the set of docs/agents.md",
                                default_factory=list, metavar="SPEC", repeat=True)
    jobs: int = setting(1, "worker processes")
    long: bool = setting(False, "one line per pairing, with the banker's EV")

    def validate(self) -> None:
        """Raise ``ValueError`` naming the first invalid setting (its flag, what it expects, what it got)."""

        def check(ok: bool, name: str, expected: str) -> None:
            if not ok:
                raise ValueError(f"{flag(EvTableSettings, name)}: expected {expected}, got {getattr(self, name)!r}")

        check(1 <= self.players <= 9, "players", "1..9 player seats")
        check(self.rounds >= 1, "rounds", "a positive number of rounds")
        check(self.seed >= 0, "seed", "an integer >= 0")
        check(self.jobs >= 1, "jobs", "at least 1 worker process")
        from pontoon_tools.evaluation import check_role, check_scripted_role

        for name in ("player", "banker"):
            for spec in getattr(self, name):
                # a policy of the other role would play that role's default under its own name
                check_scripted_role(spec, name, f"{flag(EvTableSettings, name)} {spec}")
                check_role(spec, name, f"{flag(EvTableSettings, name)} {spec}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(
        EvTableSettings,
        prog="python -m pontoon_tools.ev_table",
        description="Expected value per round of scripted policies (engine only, fixed banker at seat 0).",
    )
    args = from_args(EvTableSettings, parser.parse_args(argv))
    try:
        args.validate()
        rules = make_rules(args.rules)
        rows = ev_table(
            rules,
            args.player or DEFAULT_PLAYERS,
            args.banker or DEFAULT_BANKERS,
            args.players,
            args.rounds,
            args.seed,
            args.jobs,
        )
    except (ValueError, OSError) as error:  # a bad preset, policy spec or checkpoint: its message says which
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    print(
        f"rules={args.rules} players={args.players} rounds={args.rounds} seed={args.seed}; "
        f"net chips per round in minimum stakes ({rules.min_stake} chip), mean ± 95% CI; "
        "player EV = mean over the player seats"
    )
    print(format_long(rows) if args.long else format_table(rows))
    print(f"({sum(float(row['seconds']) for row in rows):.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
