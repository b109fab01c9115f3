"""The policy interface and the random policy, defined in the game layer and re-exported here for
the agents (:mod:`pontoon_env.game.policy`)."""

from pontoon_env.game.policy import Policy, RandomPolicy

__all__ = ["Policy", "RandomPolicy"]
