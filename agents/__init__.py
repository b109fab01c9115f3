"""Scripted (and trained) policies that can sit in any seat of a Pontoon table.

Every policy satisfies :class:`agents.base.Policy`: given what its seat may see
(:class:`pontoon_env.observation.SeatView`) and the legal actions, it returns an
:class:`pontoon_env.Action`.
"""

from agents.base import Policy, RandomPolicy

__all__ = ["Policy", "RandomPolicy"]
