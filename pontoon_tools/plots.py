"""Charts of policies and results: strategy charts, the banker's drawing chart, EV bars, learning curves.

Strategy charts are *probes*: each cell is a real round dealt from a stacked pack (``new_round(deck=...)``)
and played up to the decision in question by :mod:`pontoon_env.game.runner` (the one loop through
which policies play), where the policy is asked what it would do. Every cell is therefore a legal,
reachable situation seen through the same :func:`~pontoon_env.game.observation.observe` filter as in
play, so a scripted policy and a trained model are charted in exactly the same way. The stacked
packs respect the pack the table really deals from (a second deck above seven players), and where a
pack runs short of the cards a cell would usually take, other cards of the same kind stand in, so
the charts are complete at every table size from 1 to 9 players.

* Player chart: rows are the hand's best total (hard 4–20, soft 12–20, and pairs), columns the
  number of cards and how the cards after the second came (bought face down, which keeps buying
  open, or twisted, which closes it); the cell shows the decision (S stick, T twist, b/B buy at the
  lowest/highest price, P split, D double). A strip above shows the initial stake the policy puts
  on each first card.
* Banker chart: columns are the banker's total, rows his hand (two or three cards, hard or soft)
  and the number of player hands still standing when he plays (the others went bust); the cell
  shows whether he draws.

All plotting uses matplotlib's non-interactive ``Agg`` backend and writes PNG files.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pontoon_env.game.actions import Action, ActionKind, LegalAction, Phase
from pontoon_env.game.cards import CARDS_PER_DECK, card_code
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import SeatView
from pontoon_env.game.policy import Policy
from pontoon_env.game.rules import Rules
from pontoon_env.game.runner import PolicyChooser, decide, play_decision, play_until

# Card values 1 (ace) .. 10; a ten-value card is drawn from tens and faces in turn.
_TEN_RANKS = (9, 10, 11, 12)
_CELL_COLOURS = {
    "S": "#d9534f",  # stick: red, as in basic-strategy charts
    "T": "#5cb85c",  # twist: green
    "b": "#9ecae1",  # buy at the lowest price: light blue
    "B": "#2171b5",  # buy at the highest price: dark blue
    "P": "#f0ad4e",  # split: orange
    "D": "#9b59b6",  # double: purple
    "?": "#cccccc",  # anything else
}


class DeckBuilder:
    """Hands out card codes by value without repeating a card more often than the pack holds it."""

    def __init__(self, decks: int) -> None:
        self.used: dict[int, int] = {}
        self.decks = decks

    def _codes(self, value: int) -> list[int]:
        ranks = _TEN_RANKS if value == 10 else (value - 1,)
        return [card_code(rank, suit) for rank, suit in itertools.product(ranks, range(4))]

    def left(self, value: int) -> int:
        """How many cards of ``value`` (1 = ace, 10 = any ten-value card) are still free."""
        return sum(self.decks - self.used.get(code, 0) for code in self._codes(value))

    def card(self, value: int, rank: int | None = None) -> int:
        """A card of ``value`` (1 = ace, 10 = any ten-value card; ``rank`` 0..12 asks for one rank)
        not yet exhausted."""
        codes = [card_code(rank, suit) for suit in range(4)] if rank is not None else self._codes(value)
        for code in codes:
            if self.used.get(code, 0) < self.decks:
                self.used[code] = self.used.get(code, 0) + 1
                return code
        raise ValueError(f"no card of value {value} left in a {self.decks}-deck pack")

    def filler(self, rng: np.random.Generator) -> int:
        """A random unused card (for the seats the probe does not look at)."""
        free = [code for code in range(CARDS_PER_DECK) if self.used.get(code, 0) < self.decks]
        code = int(rng.choice(free))
        self.used[code] = self.used.get(code, 0) + 1
        return code


def hand_values(total: int, soft: bool, n_cards: int) -> list[int] | None:
    """Card values (1 = ace) of an ``n_cards`` hand with best total ``total`` and softness ``soft``.

    Prefers values that are all different (so a two-card hand is not a pair, which would add a
    split option) and avoids tens early, so the first card stays an ordinary one. ``None`` when no
    such hand exists.
    """
    best: tuple[tuple[int, ...], tuple[int, ...]] | None = None
    others = n_cards - 1 if soft else n_cards
    target = total - 11 if soft else total
    low = 2
    for combo in itertools.product(range(low, 11), repeat=others):
        if sum(combo) != target:
            continue
        values = ((1,) if soft else ()) + combo
        if not soft and 1 in values:
            continue
        score = (-len(set(values)), max(values) - min(values))
        if best is None or score < best[0]:
            best = (score, values)  # type: ignore[assignment]
    if best is None:
        return None
    values = list(best[1])
    # Keep the ace (soft hands) as the first card; otherwise put the largest card last.
    rest = sorted(values[1:] if soft else values)
    return ([1] + rest) if soft else rest


def _decision_letter(action: Action, legal: Sequence[LegalAction]) -> str:
    kind = action.kind
    if kind == ActionKind.STICK:
        return "S"
    if kind == ActionKind.TWIST:
        return "T"
    if kind == ActionKind.SPLIT:
        return "P"
    if kind == ActionKind.DOUBLE:
        return "D"
    if kind == ActionKind.BUY:
        option = next(o for o in legal if o.kind == ActionKind.BUY)
        return "B" if action.amount == option.max_amount and option.max_amount > option.min_amount else "b"
    return "?"


def _passive(legal: Sequence[LegalAction]) -> Action:
    """The least committal legal action: no shoot, no double, keep the bank, minimum amounts."""
    for kind in (ActionKind.NO_SHOOT, ActionKind.NO_DOUBLE, ActionKind.KEEP_BANK, ActionKind.PASS,
                 ActionKind.STICK, ActionKind.STAND, ActionKind.TAKE_BANK):
        if any(o.kind == kind for o in legal):
            return Action(kind)
    return Action(legal[0].kind, legal[0].min_amount)


class Passive:
    """The seats a probe does not look at: always the least committal legal action (:func:`_passive`)."""

    name = "passive"
    sees_table = False

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        return _passive(legal)


class Scripted:
    """A probe's forced play for one seat: ``choose(game, legal)`` is the action (or ``None`` for
    the passive one). It reads the game, not a view, because it builds the stacked situation."""

    name = "probe script"
    sees_table = False

    def __init__(self, game: PontoonGame, choose: Any) -> None:
        self.game, self.choose = game, choose

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        action = self.choose(self.game, legal)
        return _passive(legal) if action is None else action


PASSIVE = Passive()


def _seating(policies: Mapping[int, Policy]) -> PolicyChooser:
    """The probe's seats: the given policies, every other seat passive."""
    return lambda seat, phase: policies.get(seat, PASSIVE)


def _play_to(game: PontoonGame, seat: int, phase: Phase, seats: PolicyChooser, rng: np.random.Generator) -> bool:
    """Play the round (through the runner) until ``seat`` is to act in ``phase``: True, or False
    if the round ends first."""
    while play_until(game, seats, rng, stop_seat=seat):
        if game.phase == phase:
            return True
        play_decision(game, seats, rng)
    return False


# --------------------------------------------------------------------------------------------------
# Player strategy chart
# --------------------------------------------------------------------------------------------------


@dataclass
class PlayerChart:
    """What a player policy does, by hand: ``cells[(panel, row)][column]`` is a decision letter."""

    columns: list[str]
    rows: list[tuple[str, str]]
    cells: dict[tuple[str, str], dict[str, str]] = field(default_factory=dict)
    stakes: dict[str, int] = field(default_factory=dict)
    """Initial stake (chips) on each first card (A..K), or {"-": s} when stakes precede the deal."""
    title: str = ""

    def as_text(self) -> str:
        """The chart as a text grid (``.`` where a cell has no decision), then the stakes."""
        grid = _text_grid("", list(self.columns), [(f"{p} {r}", [self.cells.get(key, {}).get(c, ".")
                                                                for c in self.columns])
                                                  for key in self.rows for p, r in [key]])
        stakes = "stakes: " + ", ".join(f"{card}:{stake}" for card, stake in self.stakes.items())
        return "\n".join([self.title, grid, stakes])


def _text_grid(corner: str, columns: list[str], rows: list[tuple[str, list[str]]]) -> str:
    """A text table whose every column is as wide as its widest entry (header included), so the
    headers sit over their cells whatever their length."""
    label_width = max([len(corner)] + [len(label) for label, _ in rows])
    widths = [max([len(column)] + [len(cells[j]) for _, cells in rows]) for j, column in enumerate(columns)]
    lines = [corner.ljust(label_width) + "  " + "  ".join(c.rjust(w) for c, w in zip(columns, widths))]
    for label, cells in rows:
        lines.append(label.ljust(label_width) + "  " + "  ".join(c.rjust(w) for c, w in zip(cells, widths)))
    return "\n".join(line.rstrip() for line in lines)


PLAYER_COLUMNS = ("2", "3 bought", "4 bought", "3 twisted", "4 twisted")


def probe_player(policy: Any, rules: Rules, num_players: int, *, banker_seat: int = 0,
                 table: Mapping[int, Any] | None = None, seed: int = 0, title: str = "") -> PlayerChart:
    """Chart ``policy`` in the first player seat (the banker's left) of a ``num_players`` table.

    ``table`` optionally drives other seats (by seat); by default they make the least committal
    choices. Each cell's hand is stacked so that its cards are exactly the ones named by the row
    and column; the stake is the policy's own choice for that first card.
    """
    rng = np.random.default_rng(seed)
    seat = (banker_seat + 1) % (num_players + 1)
    chart = PlayerChart(list(PLAYER_COLUMNS), [], title=title)
    # Soft 12 is only ace-ace, charted with the pairs.
    rows = [("hard", str(t)) for t in range(4, 21)] + [("soft", str(t)) for t in range(13, 21)]
    rows += [("pair", name) for name in ("A,A", "2,2", "3,3", "4,4", "5,5", "6,6", "7,7", "8,8", "9,9", "10,10")]
    chart.rows = rows
    for panel, label in rows:
        for column in PLAYER_COLUMNS:
            n_cards = int(column[0])
            if panel == "pair":
                if n_cards != 2:
                    continue
                value = 1 if label.startswith("A") else int(label.split(",")[0])
                values: list[int] | None = [value, value]
            else:
                values = hand_values(int(label), panel == "soft", n_cards)
            if values is None:
                continue
            letter = _probe_player_cell(policy, rules, num_players, seat, banker_seat, values,
                                        "twisted" in column, table or {}, rng)
            if letter is not None:
                chart.cells.setdefault((panel, label), {})[column] = letter
    chart.stakes = _probe_stakes(policy, rules, num_players, seat, banker_seat, table or {}, rng)
    return chart


def _table(rules: Rules, num_players: int, banker_seat: int) -> PontoonGame:
    """A fresh probe table; its rules are the ones it really plays (a second deck above seven
    players), so the stacked pack is built for the pack it deals from."""
    return PontoonGame(rules, num_players, rng=np.random.default_rng(0), banker=banker_seat)


def _stack(game: PontoonGame, seat_cards: list[int], banker_values: list[int],
           draws: list[int], rng: np.random.Generator) -> list[int]:
    """A pack order dealing ``seat_cards`` (card values, or ``(value, rank)`` for one rank) to the
    first player, ``banker_values`` to the banker and ``draws`` as the first player's next cards;
    the other players get random cards."""
    builder = DeckBuilder(game.rules.decks)
    mine = [builder.card(*v) if isinstance(v, tuple) else builder.card(v) for v in seat_cards]
    banker = [builder.card(v) for v in banker_values]
    extra = [builder.card(v) for v in draws]
    others = [[builder.filler(rng) for _ in range(2)] for _ in range(game.num_seats - 2)]
    deck = [mine[0]] + [o[0] for o in others] + [banker[0]] + [mine[1]] + [o[1] for o in others] + [banker[1]]
    return deck + extra


def _probe_player_cell(policy: Any, rules: Rules, num_players: int, seat: int, banker_seat: int,
                       values: list[int], twisted: bool, table: Mapping[int, Any],
                       rng: np.random.Generator) -> str | None:
    game = _table(rules, num_players, banker_seat)
    # The banker holds 10 + 7 (no natural, so the round reaches the player's turn).
    game.new_round(deck=_stack(game, values[:2], [10, 7], values[2:], rng))
    seats = dict(table)
    seats[seat] = policy  # the policy chooses its own stake for this first card
    # Up to the player's turn, then the forced draws that build the hand.
    if not _play_to(game, seat, Phase.PLAYER_TURN, _seating(seats), rng):
        return None
    for _ in values[2:]:
        # The probe itself builds the charted hand (these draws are the cell, not anyone's choice).
        legal = game.legal_actions()
        if twisted and any(o.kind == ActionKind.TWIST for o in legal):
            game.apply(Action(ActionKind.TWIST))
        elif not twisted and any(o.kind == ActionKind.BUY for o in legal):
            # Buy at the highest price, as the solver's chart does: a later buy may then cost as
            # much again (pagat caps each buy at the previous one).
            option = next(o for o in legal if o.kind == ActionKind.BUY)
            game.apply(Action(ActionKind.BUY, option.max_amount))
        else:
            return None
        if game.current_seat != seat or game.phase != Phase.PLAYER_TURN:
            return None
    legal = game.legal_actions()
    if len(legal) == 1 and legal[0].kind == ActionKind.STICK:
        return None  # a finished hand has nothing to decide
    return _decision_letter(decide(game, policy, rng), legal)


def _probe_stakes(policy: Any, rules: Rules, num_players: int, seat: int, banker_seat: int,
                  table: Mapping[int, Any], rng: np.random.Generator) -> dict[str, int]:
    from pontoon_env.game.cards import RANK_NAMES

    stakes: dict[str, int] = {}
    seats = dict(table)  # the charted seat is passive until its stake, which is the cell
    for rank in range(13):
        value = min(rank + 1, 10)
        game = _table(rules, num_players, banker_seat)
        # The first card is of this very rank (J, Q and K are charted apart from the 10).
        first = (value, rank) if value == 10 else value
        game.new_round(deck=_stack(game, [first, 7 if value != 7 else 6], [10, 7], [], rng))
        if _play_to(game, seat, Phase.STAKE, _seating(seats), rng):
            action = decide(game, policy, rng)
            stakes[RANK_NAMES[rank] if not rules.stake_before_deal else "-"] = action.amount
        if rules.stake_before_deal or rules.fixed_stake:
            break
    return stakes


# --------------------------------------------------------------------------------------------------
# Banker drawing chart
# --------------------------------------------------------------------------------------------------


@dataclass
class BankerChart:
    """P(draw) of a banker policy: ``cells[(panel, total)][standing]``."""

    standing: list[int]
    rows: list[tuple[str, str]]
    cells: dict[tuple[str, str], dict[int, float]] = field(default_factory=dict)
    title: str = ""

    def as_text(self) -> str:
        """The chart as a text grid: D (draws), S (stands) or ``.`` (no such cell) by standing hands."""
        rows = []
        for key in self.rows:
            cells = self.cells.get(key, {})
            rows.append((f"{key[0]} {key[1]:>2}",
                         [("D" if cells[k] > 0.5 else "S") if k in cells else "." for k in self.standing]))
        grid = _text_grid("standing hands:", [str(k) for k in self.standing], rows)
        return "\n".join([self.title, grid])


def probe_banker(policy: Any, rules: Rules, num_players: int, *, banker_seat: int = 0, seed: int = 0,
                 repeats: int = 1, title: str = "") -> BankerChart:
    """Chart whether ``policy`` draws, by the banker's total and the number of standing hands.

    Standing players stick on two face-down cards (10 + 7); the others bust by buying a ten on
    10 + 6. The banker's hand is stacked to each total with two cards (rows "2 cards") and with a
    third card drawn (rows "3 cards"). ``repeats`` > 1 averages a stochastic policy.
    """
    rng = np.random.default_rng(seed)
    standing = list(range(1, num_players + 1))
    rows = [(f"{n} cards hard", str(t)) for n in (2, 3) for t in range(4 if n == 2 else 7, 21)]
    rows += [(f"{n} cards soft", str(t)) for n in (2, 3) for t in range(13 if n == 2 else 15, 21)]
    chart = BankerChart(standing, rows, title=title)
    for panel, label in rows:
        n_cards = int(panel[0])
        values = hand_values(int(label), "soft" in panel, n_cards)
        if values is None:
            continue
        for k in standing:
            draws = []
            for _ in range(repeats):
                decision = _probe_banker_cell(policy, rules, num_players, banker_seat, values, k, rng)
                if decision is not None:
                    draws.append(decision)
            if draws:
                chart.cells.setdefault((panel, label), {})[k] = float(np.mean(draws))
    return chart


STANDING_HANDS = ((10, 7), (9, 8), (10, 8), (10, 9))
"""Two-card hands the standing players stick on, in order of preference: hard 17-19 without an ace
or a pair. Their cards are face down, so the banker sees the same whichever is dealt; the later ones
stand in when a small pack runs out of sevens."""
BUSTING_HANDS = ((10, 6), (9, 7), (10, 5), (9, 6), (8, 7))
"""Two-card hands (hard 15-16) the other players bust from with one more card, in order of preference."""


def _banker_cell_deck(game: PontoonGame, banker_values: list[int], standing: int) -> list[int] | None:
    """The stacked pack of one banker-chart cell, or ``None`` if this pack cannot deal it.

    The banker's cards are set aside first (they are the cell); then each player, in turn order,
    gets the first of :data:`STANDING_HANDS` (the first ``standing`` players) or
    :data:`BUSTING_HANDS` the pack still holds, and each busting hand the highest card that busts
    it. Where the pack is big enough this is 10 + 7 for every standing hand, 10 + 6 and a ten for
    every busting one.
    """
    builder = DeckBuilder(game.rules.decks)
    reserved = Counter(banker_values)

    def first_available(candidates: Sequence[tuple[int, ...]]) -> tuple[int, ...] | None:
        for values in candidates:
            if all(builder.left(v) - reserved[v] >= n for v, n in Counter(values).items()):
                return values
        return None

    hands, totals = [], []
    for index in range(game.num_seats - 1):
        values = first_available(STANDING_HANDS if index < standing else BUSTING_HANDS)
        if values is None:
            return None
        hands.append([builder.card(v) for v in values])
        totals.append(sum(values))
    banker = [builder.card(v) for v in banker_values[:2]]
    reserved.subtract(banker_values[:2])
    bust_cards = []
    for total in totals[standing:]:
        card = first_available([(v,) for v in range(10, 21 - total, -1)])
        if card is None:
            return None
        bust_cards.append(builder.card(card[0]))
    banker_draws = [builder.card(v) for v in banker_values[2:]]
    return [h[0] for h in hands] + [banker[0]] + [h[1] for h in hands] + [banker[1]] + bust_cards + banker_draws


def _stand_or_bust(stands: bool) -> Any:
    """A charted table's player: sticks on its two cards, or buys (at the lowest price) or twists
    until it busts; passive in every other phase."""

    def choose(game: PontoonGame, legal: Sequence[LegalAction]) -> Action | None:
        if game.phase != Phase.PLAYER_TURN:
            return None
        if stands:
            return Action(ActionKind.STICK)
        option = next((o for o in legal if o.kind == ActionKind.BUY), None)
        return Action(ActionKind.BUY, option.min_amount) if option else Action(ActionKind.TWIST)

    return choose


def _build_banker_hand(n_cards: int) -> Any:
    """The charted banker while his stacked hand is built: he draws up to ``n_cards`` cards."""

    def choose(game: PontoonGame, legal: Sequence[LegalAction]) -> Action | None:
        if game.phase == Phase.BANKER_TURN and len(game.banker_hands[game.active_hand_index].cards) < n_cards:
            return Action(ActionKind.DRAW)
        return None

    return choose


def _probe_banker_cell(policy: Any, rules: Rules, num_players: int, banker_seat: int, banker_values: list[int],
                       standing: int, rng: np.random.Generator) -> float | None:
    game = _table(rules, num_players, banker_seat)
    deck = _banker_cell_deck(game, banker_values, standing)
    if deck is None:
        return None  # not enough cards of a value in this pack
    game.new_round(deck=deck)
    forced_stand = set(game.player_order()[:standing])
    seats = {seat: Scripted(game, _stand_or_bust(seat in forced_stand)) for seat in game.player_order()}
    seats[banker_seat] = Scripted(game, _build_banker_hand(len(banker_values)))
    choose = _seating(seats)
    # Through the runner up to the banker's decision on his stacked hand (the forced play above).
    while play_until(game, choose, rng, stop_seat=banker_seat):
        hand = game.banker_hands[game.active_hand_index] if game.phase == Phase.BANKER_TURN else None
        if hand is not None and len(hand.cards) >= len(banker_values):
            if not any(o.kind == ActionKind.DRAW for o in game.legal_actions()):
                return None
            return 1.0 if decide(game, policy, rng).kind == ActionKind.DRAW else 0.0
        play_decision(game, choose, rng)
    return None


# --------------------------------------------------------------------------------------------------
# Plotting
# --------------------------------------------------------------------------------------------------


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_player_chart(chart: PlayerChart, path: Path) -> Path:
    """The player chart as a coloured grid (one colour per decision), with the stake strip on top."""
    plt = _pyplot()
    from matplotlib.patches import Patch

    columns = chart.columns
    rows = chart.rows
    fig_height = 2.0 + 0.28 * len(rows)
    fig, (ax_stake, ax) = plt.subplots(2, 1, figsize=(7.5, fig_height),
                                       gridspec_kw={"height_ratios": [1.2, len(rows) / 4]})
    # Stake strip: the stake on each first card.
    cards = list(chart.stakes)
    stakes = [chart.stakes[c] for c in cards]
    ax_stake.bar(range(len(cards)), stakes, color="#2171b5")
    ax_stake.set_xticks(range(len(cards)), cards)
    ax_stake.set_ylabel("stake")
    ax_stake.set_title("initial stake by first card" if cards != ["-"] else "initial stake (before the deal)", fontsize=9)
    # Decision grid.
    for i, key in enumerate(rows):
        for j, column in enumerate(columns):
            letter = chart.cells.get(key, {}).get(column)
            if letter is None:
                continue
            ax.add_patch(plt.Rectangle((j, i), 1, 1, color=_CELL_COLOURS.get(letter, "#cccccc"), ec="white"))
            ax.text(j + 0.5, i + 0.5, letter, ha="center", va="center", fontsize=8, color="black")
    ax.set_xlim(0, len(columns))
    ax.set_ylim(len(rows), 0)
    ax.set_xticks([j + 0.5 for j in range(len(columns))], [f"{c} cards" if c == "2" else c for c in columns], fontsize=8)
    ax.set_yticks([i + 0.5 for i in range(len(rows))], [f"{p} {r}" for p, r in rows], fontsize=7)
    ax.tick_params(length=0)
    legend = [Patch(color=_CELL_COLOURS[k], label=v) for k, v in
              (("S", "stick"), ("T", "twist"), ("b", "buy (min)"), ("B", "buy (max)"), ("P", "split"), ("D", "double"))]
    ax.legend(handles=legend, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    fig.suptitle(chart.title or "player strategy chart", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


def plot_banker_chart(chart: BankerChart, path: Path) -> Path:
    """The banker's P(draw) as a grid: columns are his total, rows his hand (two or three cards,
    hard or soft) and the number of player hands still standing."""
    plt = _pyplot()
    panels = list(dict.fromkeys(panel for panel, _ in chart.rows))
    totals = sorted({int(total) for _, total in chart.rows})
    rows = [(panel, k) for panel in panels for k in chart.standing]
    grid = np.full((len(rows), len(totals)), np.nan)
    for i, (panel, k) in enumerate(rows):
        for j, total in enumerate(totals):
            value = chart.cells.get((panel, str(total)), {}).get(k)
            if value is not None:
                grid[i, j] = value
    fig, ax = plt.subplots(figsize=(1.5 + 0.42 * len(totals), 1.4 + 0.3 * len(rows)))
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=1, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(totals)):
            if not np.isnan(grid[i, j]):
                ax.text(j, i, "D" if grid[i, j] > 0.5 else "S", ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(totals)), [str(t) for t in totals], fontsize=8)
    ax.set_xlabel("banker's total (D = draw, S = stand)")
    ax.set_yticks(range(len(rows)), [f"{panel}, {k} standing" for panel, k in rows], fontsize=7)
    fig.colorbar(image, ax=ax, label="P(draw)", fraction=0.03)
    ax.set_title(chart.title or "banker drawing chart", fontsize=10)
    fig.tight_layout()
    return _save(fig, path)


POSITIVE, NEGATIVE = "#2171b5", "#d9534f"
"""Bar colours of a value above (blue) and below (red) zero, in every panel."""


def sign_colours(values: Sequence[float]) -> list[str]:
    """One colour per value, by its sign (:data:`POSITIVE` for >= 0, :data:`NEGATIVE` below)."""
    return [POSITIVE if value >= 0 else NEGATIVE for value in values]


def ev_bars_figure(rows: Sequence[Mapping[str, Any]], title: str = "EV per round (stake units)",
                   key: str = "ev") -> Any:
    """The figure of :func:`plot_ev_bars` (a matplotlib ``Figure``; the caller closes it)."""
    plt = _pyplot()
    labels = [str(row["policy"]) for row in rows]
    means = np.array([row[key] for row in rows])
    low = means - np.array([row[f"{key}_ci_low"] for row in rows])
    high = np.array([row[f"{key}_ci_high"] for row in rows]) - means
    paired = all("first_minus_this" in row for row in rows) and len(rows) > 1
    panels = 2 if paired else 1
    fig, axes = plt.subplots(panels, 1, figsize=(8, 1.0 + panels * (0.9 + 0.4 * len(rows))), squeeze=False)
    ax = axes[0][0]
    ax.barh(range(len(rows)), means, xerr=[low, high], color=sign_colours(means), capsize=4)
    ax.set_yticks(range(len(rows)), labels, fontsize=8)
    ax.axvline(0, color="black", lw=0.8)
    ax.invert_yaxis()
    ax.set_xlabel("EV per round, stake units (95% CI)")
    ax.set_title(title, fontsize=10)
    if paired:
        ax2 = axes[1][0]
        diff = np.array([row["first_minus_this"] for row in rows[1:]])
        dlow = diff - np.array([row["first_minus_this_ci_low"] for row in rows[1:]])
        dhigh = np.array([row["first_minus_this_ci_high"] for row in rows[1:]]) - diff
        # Coloured by sign like the EV panel: a difference below zero (the first policy does
        # worse) must not look like a win.
        ax2.barh(range(len(rows) - 1), diff, xerr=[dlow, dhigh], color=sign_colours(diff), capsize=4)
        ax2.set_yticks(range(len(rows) - 1), [f"{labels[0]} − {lab}" for lab in labels[1:]], fontsize=8)
        ax2.axvline(0, color="black", lw=0.8)
        ax2.invert_yaxis()
        ax2.set_xlabel("paired difference, same cards (95% CI)")
        ax2.set_title("paired comparison", fontsize=10)
    fig.tight_layout()
    return fig


def _save(fig: Any, path: Path) -> Path:
    plt = _pyplot()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_ev_bars(rows: Sequence[Mapping[str, Any]], path: Path, title: str = "EV per round (stake units)",
                 key: str = "ev") -> Path:
    """Bars of each row's ``ev`` with its 95% CI as error bars (and paired differences if present),
    coloured by sign in both panels."""
    return _save(ev_bars_figure(rows, title, key), path)


def learning_curve_figure(history: Sequence[Mapping[str, Any]], title: str = "learning curve") -> Any:
    """The figure of :func:`plot_learning_curve` (a matplotlib ``Figure``; the caller closes it)."""
    plt = _pyplot()
    if not history:
        raise ValueError("the eval history is empty: nothing to plot (train with --eval-rounds > 0)")
    steps = np.array([point["timesteps"] for point in history])
    tables = sorted({key.rsplit("/", 1)[0] for key in history[0] if key.endswith("/ev")})
    fig, (ax, ax_diff) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for index, table in enumerate(tables):
        colour = f"C{index}"
        ev = np.array([p[f"{table}/ev"] for p in history])
        ax.plot(steps, ev, marker="o", color=colour, label=f"learner {table}")
        ax.fill_between(steps, [p[f"{table}/ev_ci_low"] for p in history],
                        [p[f"{table}/ev_ci_high"] for p in history], color=colour, alpha=0.15,
                        label=f"learner 95% CI ({table})")
        for key in history[0]:
            if key.startswith(f"{table}/minus_") and not key.endswith(("_ci_low", "_ci_high")):
                name = key[len(table) + len("/minus_"):]
                ax.axhline(history[0][f"{table}/{name}_ev"], color=colour, ls="--", lw=1, label=f"{name} {table}")
                diff = np.array([p[key] for p in history])
                ax_diff.plot(steps, diff, marker="o", color=colour, label=f"learner − {name} ({table})")
                ax_diff.fill_between(steps, [p[f"{key}_ci_low"] for p in history],
                                     [p[f"{key}_ci_high"] for p in history], color=colour, alpha=0.15,
                                     label=f"paired 95% CI ({table})")
    # Every point and every band is shown: matplotlib's limits already hold them all (an early,
    # untrained point far below the rest is part of the curve, not an outlier to clip).
    ax.axhline(0, color="black", lw=0.6)
    ax.set_ylabel("EV per round, stake units")
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7)
    ax_diff.axhline(0, color="black", lw=0.6)
    ax_diff.set_ylabel("paired difference (same cards)")
    ax_diff.set_xlabel("training steps (decisions)")
    ax_diff.legend(fontsize=7)
    fig.tight_layout()
    return fig


def plot_learning_curve(history: Sequence[Mapping[str, Any]], path: Path, title: str = "learning curve") -> Path:
    """The learning curve of a training run, from its ``eval_history``.

    Top: the learner's EV per round with its 95% confidence band at each eval table, and the
    scripted reference on the same seeds dashed. Bottom: the paired difference learner − reference
    on the same cards, with its band, which shows learning without the noise of the cards. The
    legend names every line and band; no point or band is clipped.
    """
    return _save(learning_curve_figure(history, title), path)


__all__ = [
    "BankerChart",
    "PlayerChart",
    "ev_bars_figure",
    "hand_values",
    "learning_curve_figure",
    "sign_colours",
    "plot_banker_chart",
    "plot_ev_bars",
    "plot_learning_curve",
    "plot_player_chart",
    "probe_banker",
    "probe_player",
]
