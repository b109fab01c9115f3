"""Scripted (and trained) policies that can sit in any seat of a Pontoon table.

Every policy satisfies :class:`agents.base.Policy`: given what its seat may see
(:class:`pontoon_env.game.observation.SeatView`) and the legal actions, it returns an
:class:`pontoon_env.Action`. Build one from a short spec with :func:`agents.registry.make_policy`
(``"threshold:stick=16,buy=11"``, ``"banker_smart"``, a ``.zip`` checkpoint ...); play them through
the engine with :mod:`pontoon_env.game.runner`.
"""

from agents.banker_smart import BankerSmart
from agents.base import Policy, RandomPolicy
from agents.registry import (
    POLICY_NAMES,
    PolicySpecError,
    default_banker_policy,
    default_player_policy,
    make_policy,
)
from agents.scripted import BankerThreshold, CasinoDealer, RoleSplit, ThresholdPlayer


__all__ = [
    "POLICY_NAMES",
    "BankerSmart",
    "BankerThreshold",
    "CasinoDealer",
    "Policy",
    "PolicySpecError",
    "RandomPolicy",
    "RoleSplit",
    "ThresholdPlayer",
    "default_banker_policy",
    "default_player_policy",
    "make_policy",
]
