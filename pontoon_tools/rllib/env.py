"""The Pontoon table as an RLlib ``MultiAgentEnv`` whose agent ids carry the role of each decision.

Why not RLlib's own PettingZoo wrapper: it names agents by seat, and RLlib maps an agent id to one
policy for a whole episode. In Pontoon the bank moves: the first banker is drawn at random for
every table, a bank can be sold before the deal, and a natural can carry the bank to another seat
between rounds. A seat-named agent would therefore make banker decisions with the player policy.
Here each decision is made by the agent ``f"{role}_{seat}"``, where ``role`` is ``"banker"`` when
the seat to act banks at that moment (the ``table.is_banker`` flag of its own observation, so the
role is read from what the seat sees) and ``"player"`` otherwise. The policy mapping only has to
look at the prefix (:func:`module_for_agent`), and a seat that buys the bank mid-episode simply
goes on as a second agent id.

Observations are exactly those of the PettingZoo environment
(:class:`pontoon_env.encoding.ObservationEncoder` over
:func:`pontoon_env.game.observation.observe`, the only hidden-information filter), returned only
to the agent that acts next, as ``{"observations": float32 vector, "action_mask": float32 0/1}``
(the keys RLlib's masking modules use). Rewards are the PettingZoo rewards (net chips / min stake
after every step, the ledger's per-seat result), credited to the agent id of the seat's most recent
decision; chips that move before a seat's first decision (antes, a bank sale it took no part in)
are held and credited with its first decision, so an episode's rewards for a seat's agent ids add
up to that seat's result. A seat that never decides in an episode gets no agent and no reward.

An episode is ``num_rounds`` rounds of one table (default one round), as in the PettingZoo env.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from agents.rllib_support import require_ray

require_ray()

from ray.rllib.env.multi_agent_env import MultiAgentEnv  # noqa: E402 - after the clear Ray check

from pontoon_env.envs.pettingzoo_env import raw_env  # noqa: E402
from pontoon_env.envs.render import render_ansi  # noqa: E402
from agents.rllib_roles import (  # noqa: E402,F401 - re-exported: the env's agent ids
    ROLES,
    agent_id,
    module_for_agent,
    module_ids,
    parse_agent_id,
)

def make_aec(config: Mapping[str, Any]) -> raw_env:
    """The PettingZoo AEC table an ``env_config`` describes (rules, options, seats, rounds, action levels)."""
    return raw_env(
        rules=config.get("rules", "pagat"),
        rule_options=config.get("rule_options"),
        num_players=config.get("num_players", 4),  # raw_env checks them (a float or a bool is refused)
        num_rounds=config.get("num_rounds", 1),
        action_levels=config.get("action_levels"),
    )


class PontoonMultiAgentEnv(MultiAgentEnv):
    """Every seat of a Pontoon table as RLlib agents, one agent id per seat and role (module docstring).

    Args:
        config: ``rules`` (preset name or dict of options, default ``"pagat"``), ``rule_options``,
            ``num_players`` (default 4), ``num_rounds`` per episode (default 1) and
            ``action_levels`` (a dict such as ``{"stake": [1, 5, 10]}``, see
            :class:`pontoon_env.encoding.ActionLevels`). RLlib passes its ``EnvContext`` here, a dict too.
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.aec = make_aec(dict(config or {}))
        self.num_seats = self.aec.num_players + 1
        encoder, table = self.aec.encoder, self.aec.table
        self._banker_flag = next(row.slice.start for row in encoder.index_table() if row.name == "table.is_banker")
        low, high = encoder.bounds()
        space = spaces.Dict(
            {
                "observations": spaces.Box(low=low, high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0.0, high=1.0, shape=(table.n,), dtype=np.float32),
            }
        )
        self.possible_agents = [agent_id(role, seat) for seat in range(self.num_seats) for role in ROLES]
        self.agents = []
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {agent: spaces.Discrete(table.n) for agent in self.possible_agents}
        super().__init__()
        self._acting: str | None = None
        self._last_agent: list[str | None] = [None] * self.num_seats
        self._pending = [0.0] * self.num_seats

    # ------------------------------------------------------------------------------ helpers

    @property
    def game(self) -> Any:
        """The :class:`~pontoon_env.PontoonGame` being played (after :meth:`reset`)."""
        return self.aec.game

    @property
    def action_names(self) -> list[str]:
        """The readable name of every action id."""
        return self.aec.action_names

    def seat_observation(self, seat: int) -> dict[str, np.ndarray]:
        """What ``seat`` sees now, in this env's observation format (also for seats not to act)."""
        raw = self.aec.observe(self.aec.possible_agents[seat])
        return {"observations": raw["observation"], "action_mask": raw["action_mask"].astype(np.float32)}

    def _next_observation(self) -> tuple[dict[str, Any], str]:
        seat = self.game.current_seat
        obs = self.seat_observation(seat)
        role = "banker" if obs["observations"][self._banker_flag] > 0.5 else "player"
        self._acting = agent_id(role, seat)
        if self._acting not in self.agents:
            self.agents.append(self._acting)
        return {self._acting: obs}, self._acting

    # ---------------------------------------------------------------------------- MultiAgentEnv

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """A new table (a new first banker) and its first round; ``options={"deck": [...]}`` stacks it."""
        self.aec.reset(seed=seed, options=options)
        self.agents = []
        self._last_agent = [None] * self.num_seats
        self._pending = [0.0] * self.num_seats
        obs, acting = self._next_observation()
        return obs, {acting: {}}

    def step(
        self, action_dict: Mapping[str, Any]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        acting = self._acting
        if acting is None:
            raise RuntimeError("PontoonMultiAgentEnv: call reset() before step()")
        if acting not in action_dict:
            raise ValueError(
                f"action_dict: expected an action for the agent to move, {acting!r}; got {sorted(action_dict)}"
            )
        _, seat = parse_agent_id(acting)
        first_decision = self._last_agent[seat] is None
        # The table checks the action (one integer id, legal now) and refuses a bad one unchanged.
        self.aec.step(action_dict[acting])
        self._last_agent[seat] = acting
        rewards: dict[str, float] = {acting: 0.0}
        for other, name in enumerate(self.aec.possible_agents):
            reward = float(self.aec.rewards[name])
            owner = self._last_agent[other]
            if owner is None:
                self._pending[other] += reward
                continue
            if other == seat and first_decision:
                reward += self._pending[seat]
                self._pending[seat] = 0.0
            if reward or owner == acting:
                rewards[owner] = rewards.get(owner, 0.0) + reward
        if all(self.aec.terminations.values()):
            self._acting = None
            infos = {owner: {} for owner in rewards}
            return {}, rewards, {"__all__": True}, {"__all__": False}, infos
        obs, nxt = self._next_observation()
        return obs, rewards, {"__all__": False}, {"__all__": False}, {nxt: {}}

    def render(self) -> str:
        """The table as text, from the side of the seat to act."""
        game = self.game
        seat = game.current_seat if game.current_seat >= 0 else game.banker_seat_of_round
        return render_ansi(game, seat)
