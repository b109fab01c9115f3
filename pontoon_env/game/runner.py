"""The one loop that lets policies play: a decision, the other seats up to a seat's turn, a round.

Everything that plays policies through the engine uses these functions: the Gymnasium environment
(the other seats between two decisions of the learner), the evaluation and the EV tables (whole
rounds), the strategy charts (up to a probed seat's decision), terminal play and the imitation
warm start. Each decision goes through :func:`decide`: the seat's view from
:func:`~pontoon_env.game.observation.observe` (the only way a policy sees the table), the policy's
``act``, and a check that the answer is a legal :class:`~pontoon_env.game.actions.Action`.

Seats are given policies by a :data:`Seating`: a sequence indexed by seat, a mapping seat ->
policy, or a function ``(seat, phase) -> policy`` (so a seat can be driven by one policy as a
player and another when it banks). Random numbers come from one generator or one per seat
(independent streams keep paired comparisons exact: what one seat does never shifts the numbers
another seat gets).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Union

import numpy as np

from pontoon_env.game.actions import Action, IllegalActionError, Phase
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import observe
from pontoon_env.game.policy import Policy

_ROUND_OVER = Phase.ROUND_OVER
"""Read as a module global: an enum member read through its class costs several times more."""

BANKER_PHASES = frozenset({Phase.KITTY, Phase.BANK_SALE, Phase.BANKER_DOUBLE, Phase.BANKER_TURN})
"""Decisions taken by the banker; every other decision is a player's."""

PolicyChooser = Callable[[int, Phase], Policy]
"""``(seat, phase) -> policy``: who decides for ``seat`` in a decision of ``phase``."""
Seating = Union[Sequence[Policy], Mapping[int, Policy], PolicyChooser]  # noqa: UP007 (a runtime alias)
Generators = Union[np.random.Generator, Sequence[np.random.Generator]]  # noqa: UP007


class PolicyError(RuntimeError):
    """A seat's policy failed: it returned something that is not an action, or an illegal one."""


def chooser(policies: Seating, num_seats: int) -> PolicyChooser:
    """Turn a :data:`Seating` into a ``(seat, phase) -> policy`` function, checking it covers every seat.

    Raises:
        ValueError: a sequence of the wrong length, or a mapping missing a seat or naming an unknown one.
    """
    if callable(policies) and not isinstance(policies, (Sequence, Mapping)):
        return policies
    if isinstance(policies, Mapping):
        missing = [seat for seat in range(num_seats) if seat not in policies]
        extra = [seat for seat in policies if not (isinstance(seat, int) and 0 <= seat < num_seats)]
        if missing or extra:
            raise ValueError(
                f"policies: expected one policy for each seat 0..{num_seats - 1}; missing {missing}, unknown {extra}"
            )
        seated = [policies[seat] for seat in range(num_seats)]
    else:
        seated = list(policies)
        if len(seated) != num_seats:
            raise ValueError(f"policies: expected {num_seats} policies (one per seat), got {len(seated)}")
    return lambda seat, phase: seated[seat]


def policy_rng(seed: int | None) -> np.random.Generator:
    """The policies' random stream of a table seeded ``seed``: a child of ``seed``'s seed sequence,
    so it never repeats a table's pack stream (``default_rng(seed + 1)`` was the pack stream of
    the table seeded ``seed + 1``); ``None``: fresh entropy."""
    if seed is None:
        return np.random.default_rng()
    return np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])


def _generator(rng: Generators, seat: int) -> np.random.Generator:
    return rng if isinstance(rng, np.random.Generator) else rng[seat]


def _name(policy: Policy, label: str | None) -> str:
    return label or str(getattr(policy, "name", type(policy).__name__))


def decide(game: PontoonGame, policy: Policy, rng: np.random.Generator, label: str | None = None) -> Action:
    """The current seat's decision by ``policy`` (not applied; :func:`play_decision` applies it).

    Raises:
        PolicyError: the answer is not an :class:`Action` (names the policy, the seat and the phase).
    """
    seat = game.current_seat
    view = observe(game, seat, table=getattr(policy, "sees_table", True))
    action = policy.act(view, game.legal_actions(), rng)
    if not isinstance(action, Action):
        raise PolicyError(
            f"policy {_name(policy, label)!r} in seat {seat} returned {action!r}, not a pontoon_env.Action "
            f"(phase {game.phase.name})"
        )
    return action


def play_decision(
    game: PontoonGame, policies: PolicyChooser, rng: Generators, label: str | None = None
) -> Action:
    """Let the seat to act decide by its policy and apply the decision; returns it.

    Raises:
        PolicyError: the policy's answer is not a legal action (the engine's reason included); the
            game is left as it was.
    """
    seat = game.current_seat
    policy = policies(seat, game.phase)
    action = decide(game, policy, _generator(rng, seat), label)
    try:
        game.apply(action)
    except IllegalActionError as error:
        raise PolicyError(f"policy {_name(policy, label)!r} in seat {seat} chose an illegal action: {error}") from error
    return action


def play_until(game: PontoonGame, policies: PolicyChooser, rng: Generators, stop_seat: int | None = None) -> bool:
    """Play decisions until ``stop_seat`` is to act (True) or the round is over (False).

    The same decisions as calling :func:`play_decision` in a loop (the same view, legal list,
    checks and error messages), written out in one frame: this loop plays every other seat
    between two steps of an environment, and the two extra calls per decision were a visible
    share of a step.
    """
    one_generator = isinstance(rng, np.random.Generator)
    while game.phase != _ROUND_OVER:
        seat = game.current_seat
        if seat == stop_seat:
            return True
        policy = policies(seat, game.phase)
        view = observe(game, seat, table=getattr(policy, "sees_table", True))
        action = policy.act(view, game.legal_actions(), rng if one_generator else rng[seat])  # type: ignore[index]
        if not isinstance(action, Action):
            raise PolicyError(
                f"policy {_name(policy, None)!r} in seat {seat} returned {action!r}, not a pontoon_env.Action "
                f"(phase {game.phase.name})"
            )
        try:
            game.apply(action)
        except IllegalActionError as error:
            raise PolicyError(
                f"policy {_name(policy, None)!r} in seat {seat} chose an illegal action: {error}"
            ) from error
    return False


def play_round(
    game: PontoonGame,
    policies: Seating,
    rng: Generators,
    *,
    deck: Sequence[str | int] | None = None,
    bottom: Sequence[str | int] = (),
) -> list[int]:
    """Deal the next round (optionally from a stacked ``deck``), play it out, return every seat's
    result (:meth:`PontoonGame.seat_result`: chips plus owned kitty, D22)."""
    choose = chooser(policies, game.num_seats)
    game.new_round(deck=deck, bottom=bottom)
    play_until(game, choose, rng)
    return game.ledger.results(game.num_seats)


def keep_banker(game: PontoonGame, banker: int, dealer_rounds: int) -> None:
    """Put the bank back with ``banker`` between rounds (for tables that keep every seat in one role).

    The rules may pass the bank (a pontoon, a sale, a rotation, a 2011 take-over offer); measuring
    a policy *in a role* needs it back. ``dealer_rounds`` counts on as if the bank had stayed (the
    1850 brûlet and misericorde look at a dealer's first round).
    """
    if game.banker != banker or game.take_over_candidates:
        game.banker = banker
        game.take_over_candidates = []
        game.dealer_rounds = dealer_rounds + 1
