"""What the Gymnasium, vector and PettingZoo environments share: action checking, opponent specs
and the ``info`` levels.

``info_level`` decides how much of a finished round an environment puts in ``info``; the default
holds only what the seat may see (the same filter as the observation,
:func:`pontoon_env.game.observation.seat_report`):

* ``"basic"`` (default): the action mask, seat, role, chips, and when a round ends the seat's
  result in it (``round_result``) and who banked it (``banker``). No round report is built (the cheap choice for training).
* ``"seat"``: also ``settlement``, the round's report as the seat sees it (face-down cards ``??``).
* ``"full"``: the umpire's report (:meth:`PontoonGame.round_report`) with every card, face-down
  ones included. It leaks hidden information: for debugging and analysis, never for learning.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from agents.registry import default_banker_policy, default_player_policy, make_policy
from pontoon_env.game.actions import Phase
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.observation import seat_report
from pontoon_env.game.policy import Policy
from pontoon_env.game.rules import Rules
from pontoon_env.game.runner import BANKER_PHASES

InfoLevel = Literal["basic", "seat", "full"]
INFO_LEVELS: tuple[str, ...] = ("basic", "seat", "full")
IllegalMode = Literal["penalty", "raise"]
ILLEGAL_MODES: tuple[str, ...] = ("penalty", "raise")
PolicySpec = Any
"""A policy: an object with ``act(view, legal, rng)``, a registry name such as ``"threshold"``, or a
``.zip`` checkpoint path."""


def action_id(action: object, n: int, where: str = "action") -> int:
    """Validate a Gymnasium action and return it as an ``int`` id; ``where`` names it in the error
    (``"action"``, or ``"action of agent <name>"`` in the PettingZoo table).

    Raises:
        TypeError: the action is not one integer (a float, a string, an array of several values).
        ValueError: the integer is outside ``0..n-1``.
    """
    if type(action) is int and 0 <= action < n:  # the usual id (bool is not int by type): no checks left
        return action
    value = action
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"{where}: expected one integer id, got an array of shape {value.shape}")
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"{where}: expected an integer id in 0..{n - 1} (see env.unwrapped.action_names), "
            f"got {action!r} of type {type(action).__name__}"
        )
    if not 0 <= int(value) < n:
        raise ValueError(f"{where}: id {int(value)} is out of range 0..{n - 1}")
    return int(value)


def round_info(game: PontoonGame, seat: int, level: str) -> dict[str, Any]:
    """What ``info`` says about the round that just ended, from ``seat``'s side, at ``level``."""
    info: dict[str, Any] = {"round_result": game.seat_result(seat), "banker": game.banker_seat_of_round}
    if level == "seat":
        info["settlement"] = seat_report(game, seat)
    elif level == "full":
        info["settlement"] = game.round_report()
    return info


class Opponents:
    """The policies of the seats the learner does not play, resolved once at construction.

    ``specs`` is ``None`` (the registry's defaults: ``threshold`` players and the rules' default
    banker), one spec for every other player, or a dict with seat numbers and/or the keys
    ``"players"`` and ``"banker"``. A seat's own spec drives all its decisions (both roles when the
    bank moves); otherwise ``"banker"`` drives banker decisions and ``"players"`` player decisions.
    A misspelt spec fails here, when the environment is made, not at the first ``reset``.

    Raises:
        ValueError: an unknown key, or a spec the registry cannot build (its message names it).
    """

    def __init__(self, specs: PolicySpec | Mapping[Any, PolicySpec] | None, rules: Rules, num_players: int) -> None:
        given: dict[Any, PolicySpec]
        if specs is None:
            given = {}
        elif isinstance(specs, Mapping):
            given = {}
            for key, spec in specs.items():
                if isinstance(key, np.integer):  # a seat from numpy (np.arange ...) is a seat
                    key = int(key)
                valid_seat = isinstance(key, int) and not isinstance(key, bool) and 0 <= key <= num_players
                if not valid_seat and key not in ("players", "banker"):
                    raise ValueError(f"opponents: keys are seats 0..{num_players}, 'players' or 'banker'; got {key!r}")
                given[key] = spec
        else:
            given = {"players": specs}
        # "players" and "banker" decide in one role only, so a checkpoint trained for the other one
        # is refused here; a seat's own spec may play both roles when the bank moves.
        def build(spec: PolicySpec, role: str | None = None) -> Policy:
            return make_policy(spec, rules, num_players=num_players, role=role)

        self.players: Policy = build(given["players"], "player") if "players" in given else default_player_policy(rules)
        self.banker: Policy = build(given["banker"], "banker") if "banker" in given else default_banker_policy(rules)
        self.seats: dict[int, Policy] = {key: build(spec) for key, spec in given.items() if isinstance(key, int)}

    def policy(self, seat: int, banker: bool) -> Policy:
        """The policy that decides for ``seat`` in a banker (``banker``) or player decision."""
        return self(seat, Phase.BANKER_TURN if banker else Phase.PLAYER_TURN)

    def __call__(self, seat: int, phase: Phase) -> Policy:
        """The policy that decides for ``seat`` in ``phase``: :meth:`policy` as the runner's
        :data:`~pontoon_env.game.runner.PolicyChooser` (asked at every opponent decision, so
        written out rather than one call more)."""
        own = self.seats.get(seat)
        if own is not None:
            return own
        return self.banker if phase in BANKER_PHASES else self.players
