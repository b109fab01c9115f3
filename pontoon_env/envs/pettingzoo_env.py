"""
# Pontoon (PettingZoo AEC)

| Creation           | `from pontoon_env.envs.pettingzoo_env import env; env(rules="pagat", num_players=4)` |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete                                                         |
| Parallel API       | No (turn-based)                                                  |
| Manual Control     | No                                                               |
| Agents             | `agents = ['seat_0', ..., 'seat_N']` (N = `num_players`)          |
| Agents             | `num_players + 1` (the banker is an agent too)                   |
| Action Shape       | Discrete({N_ACTIONS}) with the default levels                    |
| Action Values      | [0, {MAX_ACTION}]                                                |
| Observation Shape  | `{"observation": ({OBS_SIZE},), "action_mask": ({N_ACTIONS},)}` (`pagat`, 4 players) |
| Observation Values | bounded floats (see the index table), mask in {0, 1}            |

The whole Pontoon table as a multi-agent environment: the banker and every player are agents,
named by seat (``seat_0`` .. ``seat_N``). Seats keep their names when the bank changes hands; who
banks this round is marked in each observation (``table.is_banker`` and the ``seat[k].is_banker``
flags). Every rule preset of ``RULES.md`` and every option is available through ``rules`` and
``rule_options``.

### Observation Space

A dictionary: ``"observation"`` is the same ``float32`` vector as the Gymnasium environment
(:class:`pontoon_env.encoding.ObservationEncoder`): what that seat may see and nothing more;
``"action_mask"`` (``int8``) marks the legal action ids of the agent to move and is all zeros for
every other agent. The layout for ``pagat`` with four players:

{OBSERVATION_TABLE}

### Action Space

The same ids as the Gymnasium environment (:class:`pontoon_env.encoding.ActionTable`); with the
default levels for ``pagat``:

{ACTION_TABLE}

An id that is not legal raises :class:`pontoon_env.IllegalActionError` naming the agent and the
legal ids.

### Rewards

After every step each agent receives its net chips since its previous reward divided by
``rules.min_stake`` (stakes, buys, splits, shoot bets, kitty, bank sales, antes). Over an episode
an agent's rewards sum to its ledger total divided by ``min_stake``.

### Episode End

After ``num_rounds`` rounds every agent is terminated. A deal in which nobody has a decision (a
Vingt-Un natural can settle every hand at once) is played through, credited at the next step, and
not counted. The pack, the bank and the kitty carry over between the rounds of an episode as the
rules say; ``reset(options={"deck": [...]})`` stacks the first round (other option keys are
ignored, as PettingZoo's API test passes arbitrary ones).

### Version History

* v0: Initial version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from pontoon_env.game.actions import IllegalActionError
from pontoon_env.encoding import ActionTable, Level, ObservationEncoder
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.envs.gymnasium_env import RulesSpec, action_id, render_image, render_text, require_int, resolve_rules
from pontoon_env.game.observation import observe
from pontoon_env.game.rules import make_rules

MAX_SILENT_ROUNDS = 1000
"""Deals in a row without any decision before the environment gives up (it never happens in play)."""


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment wrapped like PettingZoo's classic games (bounds and call-order checks)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def agent_name(seat: int) -> str:
    """The agent name of a seat: ``seat_0``, ``seat_1`` ..."""
    return f"seat_{seat}"


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """Every seat of a Pontoon table as an AEC agent (see the module docstring).

    Args:
        rules: preset name, :class:`~pontoon_env.Rules` or dict of options; ``rule_options`` on top.
        num_players: player seats besides the banker, 1–9.
        num_rounds: rounds in an episode.
        stake_levels, buy_levels, shoot_levels, kitty_levels, sale_levels, bid_levels: amount levels
            of the action table (:class:`~pontoon_env.encoding.ActionTable`).
        render_mode: ``"ansi"``, ``"human"`` or ``"rgb_array"`` (drawn from the side of the agent to move).
    """

    metadata = {
        "render_modes": ["ansi", "human", "rgb_array"],
        "name": "pontoon_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        rules: RulesSpec = "pagat",
        rule_options: Mapping[str, Any] | None = None,
        num_players: int = 4,
        num_rounds: int = 1,
        stake_levels: Sequence[Level] | None = None,
        buy_levels: Sequence[Level] | None = None,
        shoot_levels: Sequence[Level] | None = None,
        kitty_levels: Sequence[Level] | None = None,
        sale_levels: Sequence[Level] | None = None,
        bid_levels: Sequence[Level] | None = None,
        render_mode: str | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            rules,
            rule_options,
            num_players,
            num_rounds,
            stake_levels,
            buy_levels,
            shoot_levels,
            kitty_levels,
            sale_levels,
            bid_levels,
            render_mode,
        )
        super().__init__()
        require_int("num_players", num_players, 1, MAX_PLAYERS)
        require_int("num_rounds", num_rounds, 1)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: expected one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )
        # The engine adds a second deck above seven players; ask it rather than repeat the rule.
        self.rules = PontoonGame(resolve_rules(rules, rule_options), num_players, seed=0, banker=0).rules
        self.num_players = num_players
        self.num_rounds = num_rounds
        self.render_mode = render_mode
        self.table = ActionTable(
            self.rules,
            stake_levels=stake_levels,
            buy_levels=buy_levels,
            shoot_levels=shoot_levels,
            kitty_levels=kitty_levels,
            sale_levels=sale_levels,
            bid_levels=bid_levels,
        )
        self.encoder = ObservationEncoder(self.rules, num_players + 1)
        self.possible_agents = [agent_name(seat) for seat in range(num_players + 1)]
        self.agents = self.possible_agents[:]
        low, high = self.encoder.bounds()
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(self.table.n,), dtype=np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.table.n) for agent in self.possible_agents}
        self._np_random: np.random.Generator | None = None
        self._game: PontoonGame | None = None
        self._reward_ref: list[int] = []
        self._rounds_counted = 0
        self._decided_this_round = False
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.agents[0]

    # ------------------------------------------------------------------------------ AEC API

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    @property
    def action_names(self) -> list[str]:
        """The readable name of every action id."""
        return list(self.table.names)

    @property
    def game(self) -> PontoonGame:
        """The table being played."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        options = options or {}
        game_seed = int(self._np_random.integers(2**63 - 1))
        self._game = PontoonGame(self.rules, self.num_players, seed=game_seed)
        self._reward_ref = list(self._game.balances)
        self._rounds_counted = 0
        self._decided_this_round = False
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self._game.new_round(deck=options.get("deck"), bottom=options.get("bottom", ()))
        self._play_to_decision()
        self.agent_selection = agent_name(self._game.current_seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        game = self.game
        mask = np.zeros(self.table.n, dtype=np.int8)
        if not game.is_round_over and game.current_seat == seat and not self.terminations.get(agent, True):
            mask[self.table.mask(game.legal_actions())] = 1
        return {"observation": self.encoder.encode(observe(game, seat)), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        index = action_id(action, self.table.n)
        legal = game.legal_actions()
        try:
            decision = self.table.decode(index, legal)
        except IllegalActionError as error:
            raise IllegalActionError(f"agent {agent}: {error}") from None
        self._cumulative_rewards[agent] = 0
        game.apply(decision)
        self._decided_this_round = True
        reports = self._play_to_decision()
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = (game.balances[seat] - self._reward_ref[seat]) / self.rules.min_stake
            if reports:
                self.infos[name] = {
                    "settlement": reports[-1],
                    "round_net": reports[-1]["net"].get(str(seat), 0),
                }
            else:
                self.infos[name] = {}
        self._reward_ref = list(game.balances)
        if game.is_round_over:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = self.agents[0]
        else:
            self.agent_selection = agent_name(game.current_seat)
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        if self.render_mode is None:
            from gymnasium import logger

            logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        game = self.game
        seat = game.current_seat if game.current_seat >= 0 else game.banker_seat_of_round
        if self.render_mode == "rgb_array":
            return render_image(game, seat)
        text = render_text(game, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None

    # ---------------------------------------------------------------------------- rounds

    def _play_to_decision(self) -> list[dict[str, Any]]:
        """Deal on after a finished round while rounds remain; return the finished rounds' reports.

        A round in which somebody decided counts toward ``num_rounds``; one without any decision
        is played through and does not count.
        """
        game = self.game
        reports: list[dict[str, Any]] = []
        silent = 0
        while game.is_round_over:
            reports.append(game.round_report())
            if self._decided_this_round:
                self._rounds_counted += 1
            else:
                silent += 1
                if silent > MAX_SILENT_ROUNDS:
                    raise RuntimeError(f"no seat had a decision in {MAX_SILENT_ROUNDS} rounds")
            if self._rounds_counted >= self.num_rounds:
                break
            game.new_round()
            self._decided_this_round = False
        return reports


def _docs() -> str:
    encoder = ObservationEncoder(make_rules("pagat"), 5)
    table = ActionTable(make_rules("pagat"))
    return (
        (__doc__ or "")
        .replace("{OBSERVATION_TABLE}", encoder.markdown_table())
        .replace("{ACTION_TABLE}", table.markdown_table())
        .replace("{N_ACTIONS}", str(table.n))
        .replace("{MAX_ACTION}", str(table.n - 1))
        .replace("{OBS_SIZE}", str(encoder.size))
    )


__doc__ = _docs()
