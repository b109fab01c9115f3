"""Where a trained player loses against the solver's optimum: the evidence behind docs/training.md.

    python -m pontoon_tools.diagnose runs/pagat-player [--rounds 300000] [--top 15] [--out diag.json]

Two views of the same model:

1. **By first card** (the stake decision's unit): the model and the solver's ``optimal`` policy
   play the same fresh-pack deals (batched evaluator, paired); for each first-card value, the share
   of rounds, both EVs, the paired difference with its interval, its contribution to the total gap
   and both mean initial stakes. It separates staking (the stake columns) from playing (the EVs
   at equal stakes).
2. **Costly decisions**: the model's strategy read off its play (:mod:`pontoon_tools.exploit`), each
   decoded decision valued by the solver's exact action values (infinite deck): the chips per round
   lost at each key where the model's move is not the solver's, largest first. Over an infinite
   deck this is exact; on the table's finite pack the solver's move is not always the best one
   (the first-card view shows where the pack matters), so read it as where to look.
3. **Draw prices under the model's own play** (``--branches N``): at N of the model's decisions
   to draw a card (twist or buy) on a hand that may do either (two cards, or the numbers of
   cards in ``--branch-cards``), the game is cloned and played on from each of
   twist, the cheapest and the dearest buy, by the model and the banker, from the same pack (so
   the same next cards): the paired difference of the learner's result, per chip of initial stake,
   by hand. It tells a move the model's later play does not support (the difference would then be
   negative) from one that pays under that very play but that the learning did not find.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pontoon_env.game.rules import Rules, resolve_rules
from pontoon_env.game.runner import keep_banker
from pontoon_tools.evaluation import estimate, load_policy, play_match, write_json
from pontoon_tools.settings import require_file_out, require_minimums


def banker_rule(banker: str, rules: Rules) -> Any:
    """The drawing rule the views' ``optimal`` is optimal against: the banker's own where it draws
    by a fixed rule (``banker_threshold:stand=12`` ...), else the solver's reference rule (for
    ``banker_smart`` and the like, which no fixed rule describes)."""
    from pontoon_tools import exploit
    from pontoon_tools.evaluation import EvaluationError, banker_rule_for

    try:
        return banker_rule_for(banker, rules)
    except EvaluationError:
        return exploit.reference_rule(rules)


def by_first_card(model: str | Path, rules: Rules, banker: str, rounds: int, seed: int) -> list[dict[str, Any]]:
    """The first view (module docstring): one row per first-card value 1 (ace) .. 10."""
    from pontoon_env.batched.rng import deal_orders

    table = load_policy(banker, rules, 1)
    mine = play_match(rules, 1, [table, load_policy(str(model), rules, 1)], rounds, seed)
    optimal = load_policy(f"optimal:stand={banker_rule(banker, rules).stand_on}", rules, 1)
    best = play_match(rules, 1, [table, optimal], rounds, seed)
    first = np.concatenate([deal_orders(seed, start, min(4096, rounds - start), rules.decks)[:, 0]
                            for start in range(0, rounds, 4096)])
    value = np.minimum(first // 4 + 1, 10)
    rows = []
    for v in range(1, 11):
        pick = value == v
        if not pick.any():  # a first card these rounds never dealt: no row of nan (and no warnings)
            continue
        diff = estimate(best.ev(1)[pick] - mine.ev(1)[pick])
        rows.append({"first_card": v, "share": float(pick.mean()), "model_ev": float(mine.ev(1)[pick].mean()),
                     "optimal_ev": float(best.ev(1)[pick].mean()), "gap": diff.mean, "gap_low": diff.low,
                     "gap_high": diff.high, "contribution": diff.mean * float(pick.mean()),
                     "model_stake": float(mine.initial[pick, 1].mean()), "optimal_stake": float(best.initial[pick, 1].mean())})
    total = estimate(best.ev(1) - mine.ev(1))
    rows.append({"first_card": "all", "share": 1.0, "model_ev": float(mine.ev(1).mean()),
                 "optimal_ev": float(best.ev(1).mean()), "gap": total.mean, "gap_low": total.low, "gap_high": total.high,
                 "contribution": total.mean, "model_stake": float(mine.initial[:, 1].mean()),
                 "optimal_stake": float(best.initial[:, 1].mean())})
    return rows


def costly_decisions(model: str | Path, rules: Rules, banker: str, top: int = 15, steps: int = 48) -> dict[str, Any]:
    """The second view (module docstring): the ``top`` keys by chips per round lost."""
    from pontoon_env import solver
    from pontoon_tools import exploit
    from pontoon_tools.protocol import _action_table, _encoder, _load, read_model

    _, loaded, config = _load(model, rules, 1, "player")
    decisions, _ = read_model(loaded, rules, 1, "player", {"banker": banker}, steps=steps)
    layout = exploit.ObsLayout.of(_encoder(rules), rules)
    kind, keys = exploit.player_keys(decisions.obs, layout, rules)
    codes, _ = exploit._move_codes(_action_table(rules, config))
    solution = solver.solve(rules, banker_rule(banker, rules))
    play = np.flatnonzero((kind == 1) & (codes[decisions.actions] >= 0))
    moves: dict[tuple[int, ...], Counter[int]] = defaultdict(Counter)
    for key, code in zip(map(tuple, keys[play].tolist()), codes[decisions.actions[play]].tolist()):
        moves[key][code] += 1
    rows = []
    for key, counter in moves.items():
        total, soft, n, twisted, stake, initial, last_buy, doubled, split, _, pair, hands, pending = key
        state = solver.HandState(total, bool(soft), n, bool(twisted), stake, last_buy, bool(doubled), bool(split))
        try:
            values = solution.action_values(state, initial_stake=initial, pair_value=pair, hands=hands,
                                            pending_pairs=pending)
        except (KeyError, ValueError):
            continue
        best = max(values, key=values.get)
        for code, count in counter.items():
            move = exploit.MOVES[code]
            move = "buy_max" if move == "buy_min" and move not in values else move
            if move not in values or move == best:
                continue
            chips = (values[best] - values[move]) * initial
            rows.append({"total": total, "soft": bool(soft), "cards": n, "twisted": bool(twisted), "stake": stake,
                         "initial": initial, "last_buy": last_buy, "split_hand": bool(split), "pair": pair,
                         "model": move, "optimal": best, "decisions": count, "chips_per_decision": chips,
                         "chips_per_round": chips * count / max(decisions.rounds, 1)})
    rows.sort(key=lambda r: -r["chips_per_round"])
    return {"rounds_read": decisions.rounds, "total_chips_per_round": float(sum(r["chips_per_round"] for r in rows)),
            "rows": rows[:top]}


def draw_branches(model: str | Path, rules: Rules, banker: str, decisions: int, seed: int,
                  cards: Sequence[int] = (2,), max_rounds: int | None = None) -> list[dict[str, Any]]:
    """The third view (module docstring): one row per hand (total and number of cards, among
    ``cards``), the paired results of buying at the maximum and at the minimum, each less twisting,
    per initial chip, under the model's play. Stops after ``decisions`` decisions or ``max_rounds``
    rounds (default 1,000 a decision: a hand the model never reaches ends the search)."""
    from pontoon_env.game.actions import Action, ActionKind
    from pontoon_env.game.engine import PontoonGame
    from pontoon_env.game.runner import chooser, decide, play_until

    policies = chooser([load_policy(banker, rules, 1), load_policy(str(model), rules, 1)], 2)
    game = PontoonGame(rules, 1, seed=seed, banker=0)
    rng = np.random.default_rng(seed)
    diffs: dict[tuple[int, bool, int], list[tuple[float, float, bool]]] = defaultdict(list)
    found = 0
    wanted = set(int(n) for n in cards)
    for _ in range(max_rounds if max_rounds is not None else 1000 * max(decisions, 1)):
        if found >= decisions:
            break
        game.new_round()
        while play_until(game, policies, rng, stop_seat=1):
            legal = {a.kind: a for a in game.legal_actions()}
            hand = game.players[0].hands[game.active_hand_index or 0]
            stat = hand.stat()
            chosen = decide(game, policies(1, game.phase), rng)
            draws = chosen.kind in (ActionKind.TWIST, ActionKind.BUY)
            if draws and ActionKind.TWIST in legal and ActionKind.BUY in legal and stat.n_cards in wanted \
                    and found < decisions:
                buy = legal[ActionKind.BUY]
                results = []
                for action in (Action(ActionKind.TWIST), Action(ActionKind.BUY, buy.max_amount),
                               Action(ActionKind.BUY, buy.min_amount)):
                    branch = game.clone()
                    branch.apply(action)
                    play_until(branch, policies, np.random.default_rng(0))
                    results.append(branch.seat_result(1) / stat.initial)
                key = (stat.n_cards, stat.soft, stat.total)
                diffs[key].append((results[1] - results[0], results[2] - results[0], chosen.kind == ActionKind.BUY))
                found += 1
            game.apply(chosen)
        keep_banker(game, 0, game.dealer_rounds)
    rows = []
    for key in sorted(diffs):
        d = np.array(diffs[key], dtype=np.float64)
        top, low = estimate(d[:, 0]), estimate(d[:, 1])
        n_cards, soft, total = key
        rows.append({"hand": f"{'soft' if soft else 'hard'} {total}", "cards": n_cards, "decisions": len(d),
                     "buy_max_minus_twist": top.mean, "buy_max_low": top.low, "buy_max_high": top.high,
                     "buy_min_minus_twist": low.mean, "buy_min_low": low.low, "buy_min_high": low.high,
                     "model_buys": float(d[:, 2].mean())})
    return rows


def format_tables(first: list[dict[str, Any]], costly: dict[str, Any]) -> str:
    lines = ["| first card | share | model EV | optimal EV | optimal − model, 95% CI | contribution to the gap (chips a round) | stake model / optimal |",
             "|---|---|---|---|---|---|---|"]
    for r in first:
        card = {1: "A", 10: "10-K"}.get(r["first_card"], str(r["first_card"]))
        lines.append(f"| {card} | {r['share']:.3f} | {r['model_ev']:+.3f} | {r['optimal_ev']:+.3f} | {r['gap']:+.3f} "
                     f"[{r['gap_low']:+.3f}, {r['gap_high']:+.3f}] | {r['contribution']:+.4f} | "
                     f"{r['model_stake']:.1f} / {r['optimal_stake']:.1f} |")
    lines += ["", f"Costly decisions (exact action values, infinite deck; {costly['rounds_read']:,} rounds read, "
              f"{costly['total_chips_per_round']:.4f} chips per round in all):", "",
              "| hand | cards | stake (initial) | last buy | model | optimal | decisions | chips lost / decision | chips / round |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in costly["rows"]:
        hand = f"{'soft' if r['soft'] else 'hard'} {r['total']}" + (f" (pair of {r['pair']})" if r["pair"] else "") + \
            (", twisted" if r["twisted"] else "") + (", split" if r["split_hand"] else "")
        lines.append(f"| {hand} | {r['cards']} | {r['stake']} ({r['initial']}) | {r['last_buy']} | {r['model']} | "
                     f"{r['optimal']} | {r['decisions']:,} | {r['chips_per_decision']:.3f} | {r['chips_per_round']:.4f} |")
    return "\n".join(lines)


def format_branches(rows: list[dict[str, Any]]) -> str:
    lines = ["Draw prices under the model's own play (paired on the same pack, per chip of initial stake):", "",
             "| hand | cards | decisions | buy max − twist, 95% CI | buy min − twist, 95% CI | model buys |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        top = f"{r['buy_max_minus_twist']:+.3f} [{r['buy_max_low']:+.3f}, {r['buy_max_high']:+.3f}]"
        low = f"{r['buy_min_minus_twist']:+.3f} [{r['buy_min_low']:+.3f}, {r['buy_min_high']:+.3f}]"
        lines.append(f"| {r['hand']} | {r.get('cards', 2)} | {r['decisions']:,} | {top} | {low} | {r['model_buys']:.0%} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.diagnose", description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="a player checkpoint (.zip) or run directory")
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--banker", default="banker_threshold")
    parser.add_argument("--rounds", type=int, default=300_000,
                        help="paired rounds of the first view (default 300,000); the costly decisions are read off "
                             "the protocol's fixed deals (48 steps of 4,096 tables), whatever --rounds and --seed")
    parser.add_argument("--seed", type=int, default=1, help="seed of the first view's and the third view's deals")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--branches", type=int, default=0,
                        help="also value twist against the buys at this many decisions (third view)")
    parser.add_argument("--branch-cards", type=int, nargs="+", default=[2],
                        help="the hands (by number of cards) whose draws the third view values (default 2)")
    parser.add_argument("--out", default=None, help="write both views as JSON here")
    args = parser.parse_args(argv)
    require_minimums(parser, ("--rounds", args.rounds, 1), ("--seed", args.seed, 0), ("--top", args.top, 1),
                     ("--branches", args.branches, 0))
    for cards in args.branch_cards:  # a decision to draw comes at two cards or more: 0 or 1 would search in vain
        require_minimums(parser, ("--branch-cards", cards, 2))
    require_file_out(parser, "--out", args.out)
    model = Path(args.run) / "model.zip" if Path(args.run).is_dir() else Path(args.run)
    try:
        rules = resolve_rules(args.rules)
        from agents.checkpoint import read_config
        from pontoon_tools.evaluation import check_role

        from pontoon_tools.evaluation import check_scripted_role

        # a player policy in the banker's seat would play the default banker under its own name
        check_scripted_role(args.banker, "banker", f"--banker {args.banker}")
        check_role(args.banker, "banker", f"--banker {args.banker}")
        read_config(model)  # a missing checkpoint, or one without its config: one message, before the work
        check_role(model, "player")
        first = by_first_card(model, rules, args.banker, args.rounds, args.seed)
        costly = costly_decisions(model, rules, args.banker, args.top)
    except (ValueError, OSError) as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    print(format_tables(first, costly))
    branches = draw_branches(model, rules, args.banker, args.branches, args.seed, args.branch_cards) \
        if args.branches > 0 else []
    if branches:
        print("\n" + format_branches(branches))
    elif args.branches > 0:
        # Say why the third view is missing rather than print nothing: no hand of those sizes had
        # twist and buy both legal where the model drew (under pagat a hand stops at five cards).
        cards = ", ".join(str(n) for n in sorted(set(args.branch_cards)))
        print(f"\nno draw decision with twist and buy both legal at a hand of {cards} cards in "
              f"{1000 * args.branches:,} rounds: the third view is empty")
    if args.out:
        write_json({"model": str(model), "rounds": args.rounds, "seed": args.seed, "by_first_card": first,
                    "costly": costly, "branches": branches}, Path(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
