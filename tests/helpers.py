"""Small helpers for scripted, stacked-deck rule tests (and one for random play).

A script is a list of steps, each an action name (``"stick"``, ``"twist"``, ``"split"``,
``"stand"``, ``"draw"`` ...) or a ``(name, amount)`` pair (``("stake", 5)``, ``("buy", 4)``).
Names are :class:`~pontoon_env.ActionKind` members in lower case. Every step must be legal:
:meth:`PontoonGame.apply` raises otherwise, so a script doubles as a check of the legal sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from pontoon_env import Action, ActionKind, PontoonGame, make_rules
from pontoon_env.game.cards import parse_card
from pontoon_env.game.observation import SeatView
from pontoon_env.game.rules import Rules

Step = str | tuple[str, int]


def new_game(
    preset: str = "pagat", players: int = 1, *, seed: int = 0, banker: int = 0, **overrides
) -> PontoonGame:
    """A game of ``preset`` (with option ``overrides``) where ``banker`` deals and seats follow."""
    return PontoonGame(make_rules(preset, **overrides), num_players=players, seed=seed, banker=banker)


def action(step: Step) -> Action:
    """Turn a script step into an :class:`Action`."""
    if isinstance(step, str):
        return Action(ActionKind[step.upper()])
    name, amount = step
    return Action(ActionKind[name.upper()], amount)


def play(game: PontoonGame, script: Iterable[Step]) -> PontoonGame:
    """Apply every step of ``script`` in order (each must be legal) and return the game."""
    for step in script:
        game.apply(action(step))
    return game


def deal(
    preset: str = "pagat",
    deck: Sequence[str] = (),
    script: Iterable[Step] = (),
    *,
    players: int = 1,
    bottom: Sequence[str] = (),
    seed: int = 0,
    banker: int = 0,
    **overrides,
) -> PontoonGame:
    """Start a game, stack the pack with ``deck``, start a round and play ``script``."""
    game = new_game(preset, players, seed=seed, banker=banker, **overrides)
    game.new_round(deck=list(deck), bottom=list(bottom))
    return play(game, script)


def legal(game: PontoonGame) -> dict[str, tuple[int, int]]:
    """The legal actions now, as ``{name: (min_amount, max_amount)}``."""
    return {
        option.kind.name.lower(): (option.min_amount, option.max_amount) for option in game.legal_actions()
    }


def kinds(game: PontoonGame) -> set[str]:
    """The names of the legal action kinds now."""
    return set(legal(game))


def nets(game: PontoonGame) -> dict[int, int]:
    """Every seat's result in this round's ledger: chips plus the kitty it owns (D22)."""
    return {seat: game.seat_result(seat) for seat in range(game.num_seats)}


def chips(game: PontoonGame) -> dict[int, int]:
    """Every seat's plain chip change in this round's ledger (the kitty counted as elsewhere)."""
    return {seat: game.ledger.chips(seat) for seat in range(game.num_seats)}


def reasons(game: PontoonGame) -> list[tuple[object, object, int, str]]:
    """The round's ledger as plain tuples ``(payer, payee, amount, reason)``."""
    return [(t.payer, t.payee, t.amount, t.reason) for t in game.ledger]


def codes(cards: Sequence[str]) -> tuple[int, ...]:
    """Card codes of card names."""
    return tuple(parse_card(card) for card in cards)


def hand(game: PontoonGame, seat: int, index: int = 0):
    """The ``index``-th hand of the player in ``seat``."""
    for player in game.players:
        if player.seat == seat:
            return player.hands[index]
    raise KeyError(seat)


def hands(game: PontoonGame, seat: int) -> list:
    """Every hand of the player in ``seat``."""
    for player in game.players:
        if player.seat == seat:
            return player.hands
    raise KeyError(seat)


def random_play_views(rules: Rules, rounds: int, seed: int = 0) -> Iterator[SeatView]:
    """Heads-up rounds (``banker_threshold`` in seat 0, ``random`` in seat 1), one fresh table per
    round (seeded by its index): yields seat 1's full view before each of its decisions, the
    decision not yet applied."""
    import numpy as np

    from agents.registry import make_policy
    from pontoon_env.game.observation import observe
    from pontoon_env.game.runner import decide  # (imported here: the rule tests need none of these)

    policies = [make_policy("banker_threshold", rules), make_policy("random", rules)]
    rng = np.random.default_rng(seed)
    for r in range(rounds):
        game = PontoonGame(rules, 1, seed=r, banker=0)
        game.new_round()
        while not game.is_round_over:
            seat = game.current_seat
            action = decide(game, policies[seat], rng)
            if seat == 1:
                yield observe(game, 1)
            game.apply(action)


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int | np.ndarray:
    """A uniformly random legal id of one mask (an int), or of each row of a stack of masks (an
    array): the random masked play the environment tests drive their tables with."""
    mask = np.asarray(mask)
    if mask.ndim == 1:
        return int(rng.choice(np.flatnonzero(mask)))
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask])
