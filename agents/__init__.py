"""Scripted (and trained) policies that can sit in any seat of a Pontoon table.

Every policy satisfies :class:`agents.base.Policy`: given what its seat may see
(:class:`pontoon_env.game.observation.SeatView`) and the legal actions, it returns an
:class:`pontoon_env.Action`. Build one from a short spec with :func:`agents.registry.make_policy`
(``"threshold:stick=16,buy=11"``, ``"banker_smart"``, a ``.zip`` checkpoint ...); play whole rounds
with :func:`pontoon_tools.ev_table.play_rounds`.
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


def __getattr__(name: str) -> object:
    # play_rounds is imported on first use, so that ``python -m pontoon_tools.ev_table`` does not find its
    # own module already imported by the package (runpy warns about that).
    if name == "play_rounds":
        from pontoon_tools.ev_table import play_rounds

        return play_rounds
    raise AttributeError(f"module 'agents' has no attribute {name!r}")


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
    "play_rounds",
]
