"""The one policy interface every seat driver satisfies, and the uniformly random policy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from pontoon_env.game.actions import Action, LegalAction
from pontoon_env.game.observation import SeatView


@runtime_checkable
class Policy(Protocol):
    """Chooses an action for one seat.

    ``view`` is everything the seat may see, ``legal`` the legal actions with their amount ranges,
    ``rng`` the only source of randomness a policy may use (so that seeded runs repeat exactly).
    A trained model satisfies it through :class:`agents.model.ModelPolicy`, which encodes the view
    and the legal actions the way the environments do.
    """

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action: ...


class RandomPolicy:
    """Uniformly random over legal action kinds, then uniformly over the kind's amounts."""

    name = "random"

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        option = legal[int(rng.integers(len(legal)))]
        amount = int(rng.integers(option.min_amount, option.max_amount + 1))
        return Action(option.kind, amount)
