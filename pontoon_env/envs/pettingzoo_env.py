"""
# Pontoon (PettingZoo AEC)

| Creation           | `from pontoon_env.envs.pettingzoo_env import env; env(rules="pagat", num_players=4)` |
|--------------------|------------------------------------------------------------------|
| Actions            | Discrete                                                         |
| Parallel API       | No (turn-based)                                                  |
| Manual Control     | No                                                               |
| Agents             | `agents = ['seat_0', ..., 'seat_N']` (N = `num_players`)          |
| Number of Agents   | `num_players + 1` (the banker is an agent too)                   |
| Action Shape       | Discrete({N_ACTIONS}) with the default levels                    |
| Action Values      | [0, {MAX_ACTION}]                                                |
| Observation Shape  | `{"observation": ({OBS_SIZE},), "action_mask": ({N_ACTIONS},)}` (`pagat`, 4 players) |
| Observation Values | bounded floats (see the index table), mask in {0, 1}            |

The whole Pontoon table as a multi-agent environment: the banker and every player are agents,
named by seat (``seat_0`` .. ``seat_N``). Seats keep their names when the bank changes hands; who
banks this round is marked in each observation (``table.is_banker`` and the ``seat[k].is_banker``
flags). Every rule preset of ``docs/rules.md`` and every option is available through ``rules`` and
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
legal ids (``illegal_action="raise"``, the default here, as an AEC loop usually masks); with
``illegal_action="penalty"`` it ends the episode instead: the offending agent gets
``illegal_penalty``, every agent is terminated and ``infos[agent]["illegal_action"]`` says why
(PettingZoo's ``TerminateIllegalWrapper`` behaviour). A non-integer or out-of-range action raises
``TypeError`` / ``ValueError`` naming the value and the range.

### Rewards

After every step each agent receives its result since its previous reward divided by
``rules.min_stake``, from the round's ledger: chips won or lost (stakes, buys, splits, shoot bets,
bank sales, antes) plus the change of the kitty it owns as banker (D22). Over an episode an
agent's rewards sum to its results, the figure the Gymnasium environment and ``evaluate.py`` use.

### Information

``infos[agent]`` gathers what ended since that agent last acted, as ``_cumulative_rewards``
gathers the chips: ``rounds``, one report per round (``round_result``, that agent's result in it,
and ``banker``), and the last round's report at the top level too; it is emptied when the agent
acts. So every agent reads every round's result through ``last()``, and the results it reads sum
to its rewards. ``info_level="seat"`` adds the round's report as that agent's seat may see it,
``"full"`` the umpire's report with every card (it leaks hidden information: debugging only).

### Episode End

After ``num_rounds`` rounds every agent is terminated, or sooner with finite bankrolls when no
player can cover the minimum stake. A deal in which nobody has a decision (a
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

from pontoon_env.encoding import ActionLevels, ActionTable, Level, ObservationEncoder
from pontoon_env.envs.common import ILLEGAL_MODES, INFO_LEVELS, IllegalMode, InfoLevel, action_id, round_info
from pontoon_env.envs.gymnasium_env import parse_deck_options
from pontoon_env.envs.render import render_ansi, render_rgb
from pontoon_env.game.actions import IllegalActionError
from pontoon_env.game.cards import parse_cards
from pontoon_env.game.checks import require_choice, require_finite, require_int
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.game.observation import observe
from pontoon_env.game.rules import RulesSpec, make_rules, resolve_rules

MAX_SILENT_ROUNDS = 1000
"""Deals in a row without any decision before the environment gives up (it never happens in play)."""


def env(**kwargs: Any) -> AECEnv:
    """The AEC environment wrapped like PettingZoo's classic games (call-order checks). The raw
    environment checks actions itself, with errors naming the value and the range, so PettingZoo's
    bare ``AssertOutOfBoundsWrapper`` is not used."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def agent_name(seat: int) -> str:
    """The agent name of a seat: ``seat_0``, ``seat_1`` ..."""
    return f"seat_{seat}"


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo's naming convention
    """Every seat of a Pontoon table as an AEC agent (see the module docstring).

    Args:
        rules: preset name, :class:`~pontoon_env.Rules` or dict of options; ``rule_options`` on top.
        num_players: player seats besides the banker, 1–9.
        num_rounds: rounds in an episode.
        action_levels: amount levels of the action table, a dict such as ``{"stake": (1, 5, 10)}``
            or an :class:`~pontoon_env.encoding.ActionLevels`.
        illegal_action: ``"raise"`` (default) or ``"penalty"``; ``illegal_penalty``: its reward.
        info_level: ``"basic"`` (default), ``"seat"`` or ``"full"`` (see Information).
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
        action_levels: ActionLevels | Mapping[str, Sequence[Level] | None] | None = None,
        illegal_action: IllegalMode = "raise",
        illegal_penalty: float = -1.0,
        info_level: InfoLevel = "basic",
        render_mode: str | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            rules,
            rule_options,
            num_players,
            num_rounds,
            action_levels,
            illegal_action,
            illegal_penalty,
            info_level,
            render_mode,
        )
        super().__init__()
        num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
        require_int("num_rounds", num_rounds, 1)
        require_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        illegal_penalty = require_finite("illegal_penalty", illegal_penalty)
        require_choice("info_level", info_level, INFO_LEVELS)
        if render_mode is not None:
            require_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))
        # The engine adds a second deck above seven players; ask it rather than repeat the rule.
        self.rules = PontoonGame(resolve_rules(rules, rule_options), num_players, seed=0, banker=0).rules
        self.num_players = num_players
        self.num_rounds = num_rounds
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.info_level = info_level
        self.render_mode = render_mode
        self.table = ActionTable(self.rules, action_levels)
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
        self._ledger_pos = 0
        self._pending: list[int] = []
        self._rounds_counted = 0
        self._decided_this_round = False
        self._carried: list[list[dict[str, Any]]] = []
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
        options = dict(options or {})
        # PettingZoo's API test passes arbitrary keys: only the deck keys are read (and checked),
        # and a bad deck is refused before anything changes (the seed stream included).
        deck, bottom = parse_deck_options({key: options[key] for key in ("deck", "bottom") if key in options})
        if deck is not None or bottom:
            parse_cards(list(deck or ()) + list(bottom), self.rules.decks, name="reset options 'deck'/'bottom'")
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        stacked = deck is not None or bool(bottom)
        before = (self._game, self._ledger_pos, self._pending, self._rounds_counted, self._decided_this_round,
                  self._carried)
        for _attempt in range(MAX_SILENT_ROUNDS):
            game = PontoonGame(self.rules, self.num_players, seed=int(self._np_random.integers(2**63 - 1)))
            game.new_round(deck=deck, bottom=bottom)
            self._game = game
            self._ledger_pos = 0
            self._pending = [0] * game.num_seats
            self._rounds_counted = 0
            self._decided_this_round = False
            self._carried = self._play_to_decision()
            if not game.is_round_over:
                break
            # With finite bankrolls, the deals played through before any decision left no player
            # able to stake: no episode to hand out, so deal a fresh table (as the Gymnasium env
            # does) - unless the caller stacked this deal, which another table would silently drop.
            if stacked:
                (self._game, self._ledger_pos, self._pending, self._rounds_counted, self._decided_this_round,
                 self._carried) = before
                raise ValueError("reset options 'deck'/'bottom': the stacked deal leaves no seat able to act "
                                 f"(with bankroll {self.rules.bankroll}, nobody can stake after it); stack another")
        else:
            raise RuntimeError(f"no seat had a decision at {MAX_SILENT_ROUNDS} fresh tables; check the bankroll")
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.agent_selection = agent_name(game.current_seat)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        if agent not in self.possible_agents:
            raise ValueError(f"agent: expected one of {self.possible_agents}, got {agent!r}")
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
        index = action_id(action, self.table.n, where=f"action of agent {agent}")
        ids = self.table.legal_ids(game.legal_actions())
        if index not in ids:
            message = f"agent {agent}: " + self.table.illegal_message(index, ids)
            if self.illegal_action == "raise":  # refused before anything changes
                raise IllegalActionError(message)
            self._cumulative_rewards[agent] = 0
            self.rewards = {name: (self.illegal_penalty if name == agent else 0.0) for name in self.agents}
            self.infos[agent] = {"illegal_action": message}
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            return
        game.apply(ids[index])
        self._cumulative_rewards[agent] = 0
        self.infos[agent] = {}  # what the agent read before acting; its reward restarts too
        self._decided_this_round = True
        # Deals played through at reset() are credited now (their chips are in the pending sums).
        reports = self._carried + self._play_to_decision()
        self._carried = []
        results = game.ledger.results(game.num_seats, self._ledger_pos)
        self._ledger_pos = len(game.ledger)
        for seat, name in enumerate(self.possible_agents):
            self.rewards[name] = (self._pending[seat] + results[seat]) / self.rules.min_stake
            if reports:
                # An agent's info gathers the rounds ended since it last acted, as its cumulative
                # reward gathers their chips: last() shows each agent every round result.
                info = self.infos[name]
                rounds = info.get("rounds", []) + [report[seat] for report in reports]
                info.update(reports[-1][seat])
                info["rounds"] = rounds
        self._pending = [0] * game.num_seats
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
            return render_rgb(game, seat)
        text = render_ansi(game, seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None

    # ---------------------------------------------------------------------------- rounds

    def _play_to_decision(self) -> list[list[dict[str, Any]]]:
        """Deal on after a finished round while rounds remain; return the finished rounds' reports.

        A round in which somebody decided counts toward ``num_rounds``; one without any decision
        is played through and does not count.
        """
        game = self.game
        reports: list[list[dict[str, Any]]] = []
        silent = 0
        while game.is_round_over:
            reports.append([round_info(game, seat, self.info_level) for seat in range(game.num_seats)])
            if self._decided_this_round:
                self._rounds_counted += 1
            else:
                silent += 1
                if silent > MAX_SILENT_ROUNDS:
                    raise RuntimeError(f"no seat had a decision in {MAX_SILENT_ROUNDS} rounds")
            if self._rounds_counted >= self.num_rounds or self._no_player_can_stake():
                break
            # Credit what is left of the finished round before its ledger goes.
            for seat, result in enumerate(game.ledger.results(game.num_seats, self._ledger_pos)):
                self._pending[seat] += result
            if self.render_mode == "human":  # a watcher sees each round settle, not only the last
                self.render()
            game.new_round()
            self._ledger_pos = 0
            self._decided_this_round = False
        return reports


    def _no_player_can_stake(self) -> bool:
        """With finite bankrolls: no seat but the next round's banker can cover the minimum stake
        (dealing on would play rounds nobody decides in, for ever)."""
        game, rules = self.game, self.rules
        if rules.bankroll <= 0:
            return False
        return all(game.balances[seat] < rules.min_stake for seat in range(game.num_seats) if seat != game.banker)


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
