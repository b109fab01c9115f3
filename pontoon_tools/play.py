"""Play Pontoon in the terminal against scripted (or trained) seats.

::

    python -m pontoon_tools.play --rules pagat --players 3 --seat 1 --seed 0 \\
        --opponents threshold:stick=16 --option stick_min=16

You sit at ``--seat``; every other seat is played by ``--opponents`` in the player phases and by
``--banker-policy`` whenever it holds the bank (the bank can pass, to you too). At each of your
decisions the table is printed from your seat (face-down cards as ``??``) with the legal actions
numbered; type a number or an action name, with an amount where the action takes one
(``3 4`` or ``buy 4``). At the end of each round the settlement is explained hand by hand, with
every chip transfer of the ledger. ``q`` quits.

The human seat is a :class:`~pontoon_env.game.policy.Policy` like every other
(:class:`TerminalPlayer`: its ``act`` shows the table and asks), so the whole table is played by
:func:`pontoon_env.game.runner.play_decision`, the one loop every seat of every table goes through.
:func:`play` takes ``input_fn`` and ``print_fn`` so that a test can drive a session with scripted
input; the command line is derived from :class:`PlaySettings` (:mod:`pontoon_tools.settings`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon_env.envs.render import card_text, describe_option, render_ansi
from pontoon_env.game.actions import AMOUNT_KINDS, Action, ActionKind, LegalAction
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import HIDDEN, SeatView, observe, seat_report
from pontoon_env.game.rules import PRESETS, Rules, RulesError, make_rules
from pontoon_env.game.runner import play_decision, policy_rng
from pontoon_tools.settings import build_parser, from_args, parse_option, plural, setting

InputFn = Callable[[str], str]
PrintFn = Callable[[str], Any]

_VERBS = {
    ActionKind.STAKE: "stakes {amount}",
    ActionKind.DOUBLE_STAKES: "doubles all stakes",
    ActionKind.NO_DOUBLE: "leaves the stakes as they are",
    ActionKind.SHOOT: "places a shoot bet of {amount}",
    ActionKind.NO_SHOOT: "places no shoot bet",
    ActionKind.STICK: "sticks",
    ActionKind.TWIST: "twists",
    ActionKind.BUY: "buys a card for {amount}",
    ActionKind.SPLIT: "splits",
    ActionKind.DOUBLE: "doubles",
    ActionKind.DRAW: "draws",
    ActionKind.STAND: "stands",
    ActionKind.BANKER_SPLIT: "plays his pair as two hands",
    ActionKind.KITTY: "puts {amount} in the kitty",
    ActionKind.KEEP_BANK: "keeps the bank",
    ActionKind.SELL_BANK: "puts the bank up for sale (reserve {amount})",
    ActionKind.BID: "bids {amount} for the bank",
    ActionKind.PASS: "passes",
    ActionKind.TAKE_BANK: "takes the bank",
    ActionKind.DECLINE_BANK: "declines the bank",
}


class QuitGame(Exception):
    """The player asked to stop (``q``, ``quit`` or the end of the input)."""


def describe_action(seat: int, action: Action, banker: int) -> str:
    """One line saying what a seat did, e.g. ``"seat 2 buys a card for 4"``."""
    who = f"banker (seat {seat})" if seat == banker else f"seat {seat}"
    return f"{who} " + _VERBS[action.kind].format(amount=action.amount)


def _read(input_fn: InputFn, prompt: str) -> str:
    try:
        text = input_fn(prompt)
    except EOFError:
        raise QuitGame from None
    if text is None:
        raise QuitGame
    text = text.strip()
    if text.lower() in ("q", "quit", "exit"):
        raise QuitGame
    return text


def _whole_number(text: str) -> int | None:
    """``text`` as a whole number of plain ASCII digits (an optional minus sign first), else ``None``:
    ``str.isdigit`` also accepts ``'²'`` and ``int`` refuses it, and ``'--3'`` passed a sign strip."""
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else None


def _parse_choice(text: str, legal: Sequence[LegalAction]) -> tuple[LegalAction, int | None] | str:
    """The option and amount a line of input chooses, or an error message."""
    parts = text.replace("=", " ").replace(":", " ").split()
    if not parts:
        return "please type the number of an action (or its name)"
    head, rest = parts[0].lower(), parts[1:]
    option: LegalAction | None = None
    number = _whole_number(head)
    if number is not None:
        if not 1 <= number <= len(legal):
            return f"{number} is not on the list: type a number from 1 to {len(legal)}"
        option = legal[number - 1]
    else:
        matches = [candidate for candidate in legal if candidate.kind.name.lower().startswith(head)]
        exact = [candidate for candidate in matches if candidate.kind.name.lower() == head]
        if exact:
            option = exact[0]
        elif len(matches) == 1:
            option = matches[0]
        elif matches:
            names = ", ".join(candidate.kind.name.lower() for candidate in matches)
            return f"{head!r} could mean {names}: type more of the name or the number"
        else:
            names = ", ".join(candidate.kind.name.lower() for candidate in legal)
            return f"{head!r} is not a legal action now; choose one of: {names}"
    if len(rest) > 1:
        return "type an action and at most one amount, e.g. '3 4' or 'buy 4'"
    if option.kind not in AMOUNT_KINDS:
        if rest:
            return f"{option.kind.name.lower()} takes no amount"
        return option, None
    if not rest:
        return option, None
    amount = _whole_number(rest[0])
    if amount is None:
        return f"the amount must be a whole number of chips, got {rest[0]!r}"
    if not option.min_amount <= amount <= option.max_amount:
        return (
            f"{option.kind.name.lower()} takes {option.min_amount}..{option.max_amount} chips, not {amount}"
        )
    return option, amount


def ask_action(
    game: PontoonGame, seat: int, input_fn: InputFn, print_fn: PrintFn, legal: Sequence[LegalAction] | None = None
) -> Action:
    """Show the table from ``seat`` and read a legal action, asking again until one is given."""
    legal = list(game.legal_actions() if legal is None else legal)
    print_fn("")
    print_fn(render_ansi(game, seat))
    print_fn("Your options:")
    for number, option in enumerate(legal, start=1):
        print_fn(f"  {number}) {describe_option(option)}")
    while True:
        parsed = _parse_choice(_read(input_fn, "Your choice (q quits): "), legal)
        if isinstance(parsed, str):
            print_fn(f"  ! {parsed}")
            continue
        option, amount = parsed
        if amount is None and option.kind in AMOUNT_KINDS:
            if option.min_amount == option.max_amount:
                amount = option.min_amount
            else:
                while amount is None:
                    chips = _whole_number(_read(input_fn, f"  how many chips ({option.min_amount}..{option.max_amount})? "))
                    if chips is not None and option.min_amount <= chips <= option.max_amount:
                        amount = chips
                    else:
                        print_fn(f"  ! type a whole number from {option.min_amount} to {option.max_amount}")
        return Action(option.kind, amount or 0)


class TerminalPlayer:
    """A person at the terminal as a :class:`~pontoon_env.game.policy.Policy`: ``act`` prints the
    table from the seat with the legal actions numbered and reads a choice (:func:`ask_action`).

    It holds the game to print it (the view alone does not say how to draw the table); it decides
    nothing itself, so what it may see is still exactly what the printed view shows.
    """

    name = "you"

    def __init__(self, game: PontoonGame, seat: int, input_fn: InputFn, print_fn: PrintFn) -> None:
        self.game, self.seat, self.input_fn, self.print_fn = game, seat, input_fn, print_fn

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        return ask_action(self.game, self.seat, self.input_fn, self.print_fn, legal)


def final_board(game: PontoonGame, seat: int | None = None) -> str:
    """The table once the round is settled as ``seat`` may see it: every hand's cards and class in
    words (a five-card trick says so, not just its total), its stake and what it won or lost, and
    every seat's chips. Cards the seat may not see stay ``??`` (a busted hand handed in face down
    where the preset keeps busts hidden); with no seat, every card."""
    report = _report(game, seat)
    banker = report["banker"]
    rows: list[tuple[str, str, str]] = []
    for index, hand in enumerate(report["banker_hands"]):  # type: ignore[arg-type]
        name = f"Banker seat {banker}" + (" (you)" if banker == seat else "") if index == 0 else f"  hand {index + 1}"
        rows.append((name, " ".join(hand["cards"]), class_text(hand["hand_class"], hand["total"])))
    for record in report["hands"]:  # type: ignore[union-attr]
        you = " (you)" if record["seat"] == seat else ""
        name = f"Player seat {record['seat']}{you}" if record["hand"] == 0 else f"  hand {record['hand'] + 1}"
        payout = record["payout"]
        verdict = f"won {payout}" if payout > 0 else (f"lost {-payout}" if payout < 0 else "stand-off")
        shoot = f", shoot {record['shoot']}" if record["shoot"] else ""
        rows.append((name, " ".join(record["cards"]) or "(no cards)",
                     f"{class_text(record['hand_class'], record['total'])}, stake {record['stake']}{shoot}: {verdict}"))
    name_width = max(len(row[0]) for row in rows)
    card_width = max(len(row[1]) for row in rows)
    lines = [f"Pontoon [{game.rules.preset}]  round {game.round_index}  settled"]
    lines += [f"  {name:<{name_width}} | {cards:<{card_width}} | {text}" for name, cards, text in rows]
    lines.append("chips: " + "  ".join(f"seat {index} {chips:+d}" for index, chips in enumerate(game.balances)))
    return "\n".join(lines)


def explain_settlement(game: PontoonGame, seat: int | None = None) -> str:
    """The round's settlement in words, as ``seat`` may see it (:func:`final_board`): each hand's
    class, total, stake and payout, then the ledger."""
    report = _report(game, seat)
    banker = report["banker"]
    lines = ["", "=== settlement ==="]
    for index, hand in enumerate(report["banker_hands"]):  # type: ignore[arg-type]
        name = f"banker (seat {banker})" + (" (you)" if banker == seat else "")
        suffix = f" hand {index + 1}" if len(report["banker_hands"]) > 1 else ""  # type: ignore[arg-type]
        lines.append(
            f"{name}{suffix}: {' '.join(hand['cards'])} -> {class_text(hand['hand_class'], hand['total'])}"
        )
    for record in report["hands"]:  # type: ignore[union-attr]
        who = f"seat {record['seat']}" + (" (you)" if record["seat"] == seat else "")
        shoot = f", shoot bet {record['shoot']}" if record["shoot"] else ""
        payout = record["payout"]
        verdict = f"won {payout}" if payout > 0 else (f"lost {-payout}" if payout < 0 else "stand-off")
        cards = " ".join(record["cards"]) or "(no cards)"
        lines.append(
            f"{who} hand {record['hand'] + 1}: {cards} -> "
            f"{class_text(record['hand_class'], record['total'])}, stake {record['stake']}{shoot}: {verdict}"
        )
    lines.append("ledger:")
    for transfer in report["ledger"]:  # type: ignore[union-attr]
        lines.append(
            f"  {_party(transfer['payer'], banker)} pays {_party(transfer['payee'], banker)} "
            f"{transfer['amount']} ({transfer['reason'].replace('_', ' ')})"
        )
    if not report["ledger"]:
        lines.append("  (no chips moved)")
    lines.append(
        "this round: "
        + ", ".join(f"seat {index} {game.seat_result(index):+d}" for index in range(game.num_seats))
    )
    lines.append(
        "totals:     " + ", ".join(f"seat {index} {chips:+d}" for index, chips in enumerate(game.balances))
    )
    if game.banker != banker:
        lines.append(f"the bank passes to seat {game.banker}")
    return "\n".join(lines)


def _dealt_card(game: PontoonGame, viewer: int, acting: int, hand_index: int, action: Action) -> str:
    """``": 5S"`` naming the card a twist, buy or draw just dealt, when ``viewer`` may see it."""
    if action.kind not in (ActionKind.TWIST, ActionKind.BUY, ActionKind.DRAW):
        return ""
    view = observe(game, viewer)
    if action.kind == ActionKind.DRAW:
        hands = view.banker_hands
    else:
        hands = next((hands for player_seat, hands in view.players if player_seat == acting), ())
    if not 0 <= hand_index < len(hands) or not hands[hand_index].cards:
        return ""
    card = hands[hand_index].cards[-1]
    return f": {card_text(card)}" if card != HIDDEN else ""


def _report(game: PontoonGame, seat: int | None) -> dict[str, Any]:
    """The settled round as ``seat`` may see it (the filter of every seat's view), or all of it."""
    return game.round_report() if seat is None else seat_report(game, seat)


def class_text(hand_class: str, total: int | None) -> str:
    """A hand's class in words: ``"18"``, ``"bust (24)"``, ``"five-card trick (19)"``, ``"pontoon"``;
    a hand whose cards the seat may not see: ``"bust"`` when known to be, else ``"face down"``."""
    if hand_class == "hidden":
        return "face down"
    if hand_class == "total":
        return f"total {total}"
    if hand_class == "bust":
        return "bust" if total is None else f"bust ({total})"
    if hand_class == "five_card_trick":
        return f"five-card trick ({total})"
    if hand_class == "twenty_one":
        return "21"
    return hand_class.replace("_", " ")


def _party(party: object, banker: object) -> str:
    if party == banker:
        return f"banker (seat {party})"
    return f"seat {party}" if isinstance(party, int) else str(party)


def play(
    rules: Rules | str = "pagat",
    num_players: int = 3,
    seat: int = 1,
    seed: int | None = None,
    opponents: str | Any = "threshold",
    banker_policy: str | Any | None = None,
    first_banker: int | None = 0,
    *,
    max_rounds: int | None = None,
    input_fn: InputFn = input,
    print_fn: PrintFn = print,
) -> PontoonGame:
    """Play rounds in the terminal until the player stops; return the game.

    Args:
        rules: rules or a preset name.
        num_players: player seats besides the banker.
        seat: the human's seat.
        seed: seeds the pack and the opponents.
        opponents: policy spec (or object) for the other seats' player decisions.
        banker_policy: policy spec (or object) for an opponent holding the bank (default: the
            preset's default banker).
        first_banker: the first banker's seat; ``None`` draws it as the preset says.
        max_rounds: stop after this many rounds without asking (``None``: ask after each round).
        input_fn: reads a line (``input`` by default; a test passes scripted answers).
        print_fn: prints a line.
    """
    from agents.registry import default_banker_policy, make_policy
    from agents.scripted import RoleSplit
    from pontoon_tools.evaluation import check_role, check_scripted_role

    # A policy of the other role would play that role's default under its own name.
    for spec, role, flag in ((opponents, "player", "--opponents"), (banker_policy, "banker", "--banker-policy")):
        if spec:
            check_scripted_role(spec, role, f"{flag} {spec}")
            check_role(spec, role, f"{flag} {spec}")

    rules = make_rules(rules) if isinstance(rules, str) else rules
    game = PontoonGame(rules, num_players, seed=seed, banker=first_banker)
    if not 0 <= seat < game.num_seats:
        raise ValueError(f"seat: expected a seat in 0..{game.num_seats - 1}, got {seat!r}")
    player = make_policy(opponents, rules, num_players=num_players)
    banker = (
        make_policy(banker_policy, rules, num_players=num_players)
        if banker_policy
        else default_banker_policy(rules)
    )
    others = RoleSplit(player=player, banker=banker)
    human = TerminalPlayer(game, seat, input_fn, print_fn)
    seating = lambda acting, phase: human if acting == seat else others  # noqa: E731
    rng = policy_rng(seed)
    print_fn(f"Pontoon, {rules.preset} rules: you are seat {seat}; seat {game.banker} holds the bank.")
    try:
        while True:
            game.new_round()
            print_fn(f"\n--- round {game.round_index}: seat {game.banker_seat_of_round} is the banker ---")
            while not game.is_round_over:
                acting, banker_seat, hand_index = game.current_seat, game.banker, game.active_hand_index
                action = play_decision(game, seating, rng)  # the runner: your choice or a policy's
                line = describe_action(acting, action, banker_seat) + (" (you)" if acting == seat else "")
                print_fn(line + _dealt_card(game, seat, acting, hand_index, action))
            print_fn("")
            print_fn(final_board(game, seat))
            print_fn(explain_settlement(game, seat))
            if max_rounds is not None:
                if game.round_index >= max_rounds:
                    break
                continue
            answer = _read(input_fn, "Play another round? [Y/n] ").lower()
            if answer.startswith("n"):
                break
    except QuitGame:
        print_fn("")
    # a round left part-way (quit at a prompt) is not counted as played
    finished = game.round_index - (0 if game.is_round_over else 1)
    unfinished = "" if game.is_round_over else " (the round you left is not counted)"
    print_fn(f"Goodbye. Your chips after {plural(finished, 'round')}{unfinished}: {game.balances[seat]:+d}")
    return game


@dataclass
class PlaySettings:
    """The options of ``python -m pontoon_tools.play``, each declared once (the CLI is derived)."""

    rules: str = setting("pagat", f"preset name: {', '.join(PRESETS)}", metavar="PRESET")
    players: int = setting(3, "player seats besides the banker")
    seat: int = setting(1, "your seat (seat 0 banks first)")
    seed: int | None = setting(None, "seed of the pack and the other seats (default: a fresh one each time)")
    opponents: str = setting("threshold", "policy spec of the other seats", metavar="SPEC")
    banker_policy: str | None = setting(None, "policy spec of an opponent banker (default: the preset's)",
                                        metavar="SPEC")
    first_banker: str = setting("0", "seat of the first banker, or 'draw' (as the preset says)", metavar="SEAT")
    rounds: int | None = setting(None, "play this many rounds without asking")
    options: dict[str, Any] = setting(help="override a rules option, e.g. stick_min=16 (repeatable)",
                                      default_factory=dict, flag="--option", metavar="NAME=VALUE",
                                      parse=parse_option, repeat=True)


def main(argv: Sequence[str] | None = None, input_fn: InputFn = input, print_fn: PrintFn = print) -> int:
    from agents.registry import PolicySpecError, describe_policies

    parser = build_parser(PlaySettings, prog="python -m pontoon_tools.play",
                          description="Play Pontoon in the terminal against scripted or trained seats.",
                          epilog="policies:\n" + describe_policies())
    args = from_args(PlaySettings, parser.parse_args(argv))
    try:
        if args.rounds is not None and args.rounds < 1:
            raise ValueError(f"--rounds: expected a positive number of rounds, got {args.rounds}")
        if args.seed is not None and args.seed < 0:
            raise ValueError(f"--seed: expected an integer >= 0, got {args.seed}")
        from pontoon_tools.settings import rules_from_flags

        rules = rules_from_flags(args.rules, args.options)
        first = None if args.first_banker == "draw" else _whole_number(args.first_banker)
        if args.first_banker != "draw" and (first is None or first < 0):  # '²' passed isdigit, then int() failed
            raise ValueError(f"--first-banker: expected a seat number or 'draw', got {args.first_banker!r}")
        seats = args.players + 1
        if not 1 <= args.players <= 9:
            raise ValueError(f"--players: expected 1..9 player seats, got {args.players}")
        for flag, value in (("--seat", args.seat), ("--first-banker", first)):
            if value is not None and not 0 <= value < seats:
                raise ValueError(f"{flag}: expected a seat in 0..{seats - 1}, got {value}")
        play(
            rules,
            args.players,
            args.seat,
            args.seed,
            args.opponents,
            args.banker_policy,
            first,
            max_rounds=args.rounds,
            input_fn=input_fn,
            print_fn=print_fn,
        )
    except (RulesError, PolicySpecError, ValueError) as error:
        if print_fn is print:  # errors go to stderr, as every other tool's
            print(f"{parser.prog}: error: {error}", file=sys.stderr)
        else:
            print_fn(f"error: {error}")
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
