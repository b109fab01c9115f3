"""Where a trained banker loses: its draws and stands valued by a banker who plans exactly.

    python -m pontoon_tools.diagnose_banker runs/pagat-banker --reference runs/belief \\
        [--seats 4] [--rounds 20000] [--top 15] [--out diag.json]

The banker under study plays ``--rounds`` rounds against ``--players`` at ``--seats`` player seats
(the reference engine, every seat's view filtered as in play). At each of its draw-or-stand
decisions, a *reference* banker that computes the value of standing and of drawing on (a
:class:`~agents.banker_smart.BankerSmart`: ``banker_smart`` with its written prior, or a belief
banker's run directory, ``train.py --algo belief``, whose prior is learnt from showdowns) values
both moves on the same view. Where the two choose differently, the reference's value difference
is what the studied banker gave away *by the reference's reckoning*: summed over the decisions and
divided by the rounds, chips a round. The table groups it by the banker's hand (total, soft, cards)
and the number of standing hands he plays against, largest loss first, and splits it by
direction (drew where the reference stands, stood where it draws): a loss spread evenly over many
keys and both directions is noise in a learnt function, one concentrated in a few keys or one
direction is a bias to look for.

The reference is exact only for its own belief about the hidden hands (and for an infinite deck
for his own draws), so read the figures as where to look, not as the gap itself: the protocol
(``pontoon_tools.protocol banker``) measures the gap in chips on paired deals.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.banker_smart import BankerSmart, standing_hands
from agents.registry import make_policy
from agents.scripted import active_hand
from pontoon_env.game.actions import ActionKind, Phase
from pontoon_env.game.cards import CARD_VALUE
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import observe
from pontoon_env.game.rules import resolve_rules
from pontoon_env.game.runner import keep_banker
from pontoon_tools.evaluation import write_json
from pontoon_tools.settings import require_file_out

BANKER_SEAT = 0


def _hand_key(cards: Sequence[int]) -> tuple[int, bool, int]:
    """(best total, soft, cards) of the banker's known cards."""
    pip = sum(CARD_VALUE[card] for card in cards)
    soft = any(CARD_VALUE[card] == 1 for card in cards) and pip + 10 <= 21
    return pip + (10 if soft else 0), soft, len(cards)


def diagnose(banker: str, reference: str, rules_spec: str = "pagat", seats: int = 4, players: str = "threshold",
             rounds: int = 20_000, seed: int = 1, top: int = 15) -> dict[str, Any]:
    """Play ``banker`` for ``rounds`` rounds and value each of its draw-or-stand decisions by
    ``reference`` (module docstring). Returns the totals, the split by direction and the ``top``
    costliest keys."""
    from pontoon_tools.evaluation import check_role, check_scripted_role

    if rounds < 1:
        raise ValueError(f"--rounds: expected at least 1, got {rounds!r}")
    if not 1 <= seats <= 9:
        raise ValueError(f"--seats: expected 1..9 player seats, got {seats!r}")
    if top < 1:
        raise ValueError(f"--top: expected at least 1 key, got {top!r}")
    # A policy of the other role would play that role's default under its own name (a player
    # checkpoint "studied" as the banker was even accepted).
    for spec, role, name in ((banker, "banker", "banker"), (players, "player", "--players")):
        check_scripted_role(spec, role, f"{name} {spec}")
        check_role(spec, role, f"{name} {spec}")
    rules = resolve_rules(rules_spec)
    studied = make_policy(banker, rules, num_players=seats)
    judge = make_policy(reference, rules, num_players=seats)
    if not isinstance(judge, BankerSmart):
        raise ValueError(f"reference: expected banker_smart or a belief banker's run directory (a banker that "
                         f"values standing and drawing), got {reference!r}")
    seated = [make_policy(players, rules, num_players=seats) for _ in range(seats)]
    game = PontoonGame(rules, seats, seed=seed, banker=BANKER_SEAT)
    rng = np.random.default_rng(seed)
    per_key: dict[tuple[int, bool, int, int], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    decisions = disagreements = 0
    lost = {"drew where the reference stands": 0.0, "stood where the reference draws": 0.0}
    for _ in range(rounds):
        game.new_round()
        while game.phase != Phase.ROUND_OVER:
            seat = game.current_seat
            legal = game.legal_actions()
            if seat != BANKER_SEAT:
                policy = seated[seat - 1]
                view = observe(game, seat, table=getattr(policy, "sees_table", True))
                game.apply(policy.act(view, legal, rng))
                continue
            view = observe(game, seat, table=True)
            action = studied.act(view, legal, rng)
            hand = active_hand(view)
            if game.phase == Phase.BANKER_TURN and hand is not None and len(legal) > 1 and any(
                    option.kind == ActionKind.DRAW for option in legal):
                stand, draw = judge.values(view, hand.known_cards, hand.split)
                standing = sum(1 for _, hands in view.players for _ in standing_hands(hands, rules))
                entry = per_key[(*_hand_key(hand.known_cards), standing)]
                entry[0] += 1
                decisions += 1
                drew = action.kind == ActionKind.DRAW
                if drew != (draw > stand):
                    cost = abs(draw - stand)
                    entry[1] += 1
                    entry[2] += cost
                    disagreements += 1
                    lost["drew where the reference stands" if drew else "stood where the reference draws"] += cost
            game.apply(action)
        keep_banker(game, BANKER_SEAT, 0)
    rows = [
        {"total": key[0], "soft": key[1], "cards": key[2], "standing_hands": key[3], "decisions": int(n),
         "disagreements": int(wrong), "chips_per_round": cost / rounds}
        for key, (n, wrong, cost) in per_key.items()
    ]
    rows.sort(key=lambda row: -row["chips_per_round"])
    return {"banker": str(banker), "reference": str(reference), "rules": rules.preset, "seats": seats,
            "players": players, "rounds": rounds, "seed": seed, "decisions": decisions,
            "disagreements": disagreements, "chips_per_round": sum(lost.values()) / rounds,
            "by_direction": {name: value / rounds for name, value in lost.items()}, "keys": len(rows),
            "top": rows[:top]}


def format_report(report: dict[str, Any]) -> str:
    lines = [
        f"{report['rules']}, banker {report['banker']} vs {report['seats']} x {report['players']}, "
        f"{report['rounds']:,} rounds (seed {report['seed']}), valued by {report['reference']}",
        f"  draw-or-stand decisions {report['decisions']:,}; the reference chooses otherwise at "
        f"{report['disagreements']:,} ({report['disagreements'] / max(report['decisions'], 1):.1%}), "
        f"worth {report['chips_per_round']:.4f} chips a round by its values",
    ]
    lines += [f"  {name}: {value:.4f} a round" for name, value in report["by_direction"].items()]
    lines += [f"  the costliest of {report['keys']} keys (banker total, soft, cards, standing hands):",
              "  total | soft | cards | standing | decisions | disagree | chips/round"]
    lines += [f"  {r['total']:5d} | {'yes' if r['soft'] else 'no':4s} | {r['cards']:5d} | {r['standing_hands']:8d} | "
              f"{r['decisions']:9,d} | {r['disagreements']:8,d} | {r['chips_per_round']:.4f}" for r in report["top"]]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.diagnose_banker", description=__doc__.split("\n")[0])
    parser.add_argument("banker", help="the banker studied: a checkpoint, a run directory or a policy spec")
    parser.add_argument("--reference", default="banker_smart",
                        help="the banker whose values judge (banker_smart, or a belief banker's run directory)")
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--seats", type=int, default=4, help="player seats (default 4)")
    parser.add_argument("--players", default="threshold", help="the players' policy spec (default threshold)")
    parser.add_argument("--rounds", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", default=None, help="write the report as JSON here")
    args = parser.parse_args(argv)
    require_file_out(parser, "--out", args.out)
    try:
        report = diagnose(args.banker, args.reference, args.rules, args.seats, args.players, args.rounds, args.seed,
                          args.top)
    except ValueError as error:
        parser.error(str(error))
    print(format_report(report))
    if args.out:
        write_json(report, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
