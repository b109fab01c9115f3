"""The one interface every seat driver satisfies, and the uniformly random policy.

A policy sees only what its seat may see (:class:`~pontoon_env.game.observation.SeatView`, built by
:func:`~pontoon_env.game.observation.observe`, the single hidden-information filter) and the legal
actions with their amount ranges, and draws randomness only from the generator it is given, so a
seeded run repeats exactly. Scripted agents (:mod:`agents`), trained models
(:class:`agents.model.ModelPolicy`) and a human at the terminal all satisfy it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from pontoon_env.game.actions import Action, LegalAction
from pontoon_env.game.observation import SeatView


@runtime_checkable
class Policy(Protocol):
    """Chooses an action for one seat: ``act(view, legal, rng) -> Action``.

    ``view`` is everything the seat may see, ``legal`` the legal actions with their amount ranges,
    ``rng`` the only source of randomness a policy may use.

    A policy may set a class attribute ``sees_table = False`` when it looks only at its own seat
    (its hands, the banker's hands, the table's chips): the runner then builds the cheaper view
    (:func:`~pontoon_env.game.observation.observe` with ``table=False``).
    """

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action: ...


class RandomPolicy:
    """Uniformly random over legal action kinds, then uniformly over the kind's amounts."""

    name = "random"
    sees_table = False

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        option = legal[int(rng.integers(len(legal)))]
        amount = int(rng.integers(option.min_amount, option.max_amount + 1))
        return Action(option.kind, amount)
