"""Gymnasium environment: one learning seat at a whole Pontoon table.

The docstring of :class:`PontoonEnv` follows Gymnasium's environment pages (Description, Action
Space, Observation Space, Rewards, Episode End, Arguments, Version History). The observation index
table in it is generated from :class:`~pontoon_env.encoding.ObservationEncoder` when this module is
imported, so it cannot drift from the code. The other seats are played between the learner's
decisions by :func:`pontoon_env.game.runner.play_until`, the loop every tool shares.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pontoon_env.encoding import ActionLevels, ActionTable, Level, ObservationEncoder
from pontoon_env.envs.common import (
    ILLEGAL_MODES,
    INFO_LEVELS,
    IllegalMode,
    InfoLevel,
    Opponents,
    PolicySpec,
    action_id,
    round_info,
)
from pontoon_env.envs.render import render_ansi, render_rgb
from pontoon_env.game.actions import IllegalActionError
from pontoon_env.game.cards import parse_cards
from pontoon_env.game.checks import require_bool, require_choice, require_finite, require_int
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.game.observation import SeatView, observe
from pontoon_env.game.rules import Rules, RulesSpec, make_rules, resolve_rules
from pontoon_env.game.runner import play_until

Role = Literal["player", "banker"]
MAX_SKIPPED_ROUNDS = 1000
"""Rounds ``reset`` may deal through looking for a decision of the learner before giving up."""


class PontoonEnv(gym.Env):
    """Pontoon from one seat: the learner plays against policy-driven seats at a full table.

    ## Description
    Pontoon is the British banking card game of the 21 family: a banker plays against 1–9
    players, who may *buy* cards face down for extra stakes or *twist* them face up, and whose
    pontoons (ace + ten) and five-card tricks beat the banker's totals. The rules of every preset
    of the rules specification (``docs/rules.md``) are available (``pagat``, ``shoot``, ``casino``, ``vingt_un_1800``,
    ``vingt_un_1850``, ``pontoon_1939``, ``pontoon_2011``), each with its options.

    One seat learns, as a player or as the banker (``role``). Every other seat is driven by a
    policy (a scripted agent, a registry name or a trained checkpoint); between two decisions of
    the learner the environment plays the other seats' decisions itself, so each ``step`` is one
    decision of the learner. With ``episode="round"`` an episode is one deal (like
    ``Blackjack-v1``); with ``episode="session"`` it is a run of rounds on one pack.

    ## Action Space
    ``Discrete(n)``: one id per decision of every preset, the same layout for every preset (32 ids
    with the default levels; ``env.unwrapped.action_names`` names them). Amount decisions come in
    levels: stakes in fixed chip amounts (``stake:1``, ``stake:4`` ...), buys as the smallest or
    largest legal price (``buy:min``, ``buy:max``), shoot bets and the kitty as min / half / max,
    the bank's reserve price and bids in chips. Only some ids are legal at any moment; the legal
    ones are given by ``env.unwrapped.action_masks()`` (for sb3-contrib's ``MaskablePPO``), by
    ``info["action_mask"]`` and, with ``dict_observation=True``, inside the observation. An
    illegal id ends the episode with reward ``illegal_penalty`` and ``info["illegal_action"]``
    saying why (``illegal_action="penalty"``, the default, as PettingZoo's
    ``TerminateIllegalWrapper`` and pgx do, so Gymnasium's and SB3's checkers pass); with
    ``illegal_action="raise"`` it raises :class:`~pontoon_env.IllegalActionError` naming the legal
    ids instead (for debugging). A non-integer action raises ``TypeError``.

    ## Observation Space
    ``Box(low, high, (size,), float32)`` built only from what the learner's seat may see
    (:func:`pontoon_env.game.observation.observe`): its own cards, totals and stakes, the cards the
    others have shown, everyone's stakes, buys and chips, the banker's exposed cards, the ranks
    seen since the last shuffle, the kitty and the phase. With ``dict_observation=True`` it is
    ``Dict({"observation": Box, "action_mask": MultiBinary(n)})``. The layout for ``pagat`` with
    four players (size and repeats change with the preset and the number of players):

    {OBSERVATION_TABLE}

    ## Rewards
    The learner's result over the step, divided by ``rules.min_stake``, taken from the round's
    ledger (:meth:`pontoon_env.game.ledger.Ledger.result`): its chips won or lost (stakes, buys,
    splits, doubles, shoot bets, bank sales, antes) plus, for a banker under Shoot rules, the
    change of his own kitty (D22). Chips that move while the other seats play are credited to the
    learner's next step, so the rewards of an episode sum to the seat's results over the
    episode's round(s) divided by ``min_stake``, the same figure ``evaluate.py`` reports.

    ## Starting State
    Seat 0 is the first banker. As a player the learner sits at ``learner_seat`` (1 = first to
    play, left of the banker), or at a seat drawn for each episode. ``reset`` deals and plays the
    other seats up to the learner's first decision. Round episodes deal on at the same table, as
    real players do: the pack (with the ranks seen since its last shuffle) and the chips carry over
    from one episode to the next; ``reset(seed=...)``, a finite bankroll running out or an episode
    abandoned mid-round start a fresh table. A deal in which the learner has nothing to decide
    (the banker's pontoon when stakes are fixed, every player bust before the banker's turn) is
    played through and another dealt; ``info["skipped_rounds"]`` counts them and they carry no
    reward. ``reset(options={"deck": ["AS", "KD", ...]})`` deals the next round from that card
    order (first card to each player from the banker's left, then the banker, then second cards,
    then draws); ``"bottom"`` puts cards at the bottom of the pack (under ``vingt_un_1850`` a new
    dealer's brûlet looks at the first listed card and the bottom one first: docs/decisions.md E31).

    ## Episode End
    * Termination (``episode="round"``): the round is settled.
    * Termination (``episode="session"``): the learner cannot cover the minimum stake, or no other
      player can.
    * Termination (either episode, ``illegal_action="penalty"``, the default): an illegal action.
    * Truncation (``episode="session"``): ``session_rounds`` rounds were played.

    ## Information
    ``info["action_mask"]`` always; ``info["seat"]``, ``info["role"]``, ``info["balance"]`` and
    ``info["round_index"]``; when a round ends during the step, ``info["round_result"]`` (the
    learner's result in it) and ``info["rounds"]`` (one entry per round finished during the step;
    in ``session`` episodes ``reset``'s info lists the rounds finished before the learner's first
    decision, whose chips the first step's reward carries).
    ``info_level`` adds the round's report: ``"seat"`` as the learner's seat may see it
    (:func:`pontoon_env.game.observation.seat_report`: face-down cards stay ``"??"``), ``"full"``
    the umpire's report with every card, which **leaks hidden information** (debugging only).

    ## Arguments
    ```python
    import gymnasium as gym
    import pontoon_env  # registers the ids

    env = gym.make("Pontoon-v0", rules="pagat", role="player", num_players=4)
    env = gym.make("PontoonBanker-v0", rules="shoot", opponents="threshold:stick=16,buy=11")
    ```
    * ``rules``: preset name, :class:`Rules` or dict of options (with an optional ``"preset"``);
      ``rule_options``: options applied on top (an unknown one raises :class:`RulesError`).
    * ``role``: ``"player"`` or ``"banker"``; ``num_players``: player seats, 1–9.
    * ``learner_seat``: for a player, its place from the banker's left (1..``num_players``);
      ``None`` draws it for each episode. For the banker, ``None`` or 0.
    * ``opponents``: ``None`` (the registry's defaults: ``threshold`` players and
      ``banker_threshold`` / ``casino_dealer`` banker), one spec for every other player, or a dict
      with seat numbers and/or the keys ``"players"`` and ``"banker"``. A seat's own spec drives all
      its decisions (both roles when the bank moves); otherwise ``"banker"`` drives banker
      decisions and ``"players"`` player decisions.
    * ``episode``: ``"round"`` or ``"session"``; ``session_rounds``: rounds in a session (a new
      table each session); ``bankroll``: chips each seat starts with when the rules' ``bankroll``
      is 0 (unlimited); stakes are then capped by what a seat holds.
    * ``bank_rotation``: ``False`` (default) keeps the learner in its role: the rules are played with
      ``bank_passing="none"`` and ``bank_sale=False``, so the bank never changes hands (in the
      deal-on presets the reshuffle a new dealer would make never happens). ``True`` plays the bank
      passing and sales of the rules; the learner then plays whichever role its seat holds.
    * ``action_levels``: amount levels, a dict such as ``{"stake": (1, 5, 10), "buy": ("max",)}``
      or an :class:`~pontoon_env.encoding.ActionLevels` (missing kinds take the defaults).
    * ``illegal_action``: ``"penalty"`` (default) or ``"raise"``; ``illegal_penalty``: its reward.
    * ``dict_observation``: observation as ``{"observation", "action_mask"}``.
    * ``info_level``: ``"basic"`` (default), ``"seat"`` or ``"full"`` (see Information).
    * ``render_mode``: ``"ansi"``, ``"human"`` (prints) or ``"rgb_array"``.

    ## Version History
    * v0: Initial version: every preset, both roles, round and session episodes.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        rules: RulesSpec = "pagat",
        rule_options: Mapping[str, Any] | None = None,
        role: Role = "player",
        num_players: int = 4,
        learner_seat: int | None = None,
        opponents: PolicySpec | Mapping[Any, PolicySpec] | None = None,
        episode: Literal["round", "session"] = "round",
        session_rounds: int = 10,
        bankroll: int | None = None,
        bank_rotation: bool = False,
        action_levels: ActionLevels | Mapping[str, Sequence[Level] | None] | None = None,
        illegal_action: IllegalMode = "penalty",
        illegal_penalty: float = -1.0,
        dict_observation: bool = False,
        info_level: InfoLevel = "basic",
        render_mode: str | None = None,
    ) -> None:
        base_rules = resolve_rules(rules, rule_options)
        require_choice("role", role, ("player", "banker"))
        num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
        if learner_seat is not None:
            low, high = (1, num_players) if role == "player" else (0, 0)
            # the checked int is kept: a numpy integer reached info["seat"] (no JSON)
            learner_seat = require_int(f"learner_seat (role {role!r}; seat 0 is the first banker)", learner_seat,
                                       low, high)
        require_choice("episode", episode, ("round", "session"))
        require_int("session_rounds", session_rounds, 1)
        if bankroll is not None:
            require_int("bankroll", bankroll, 1)
        bank_rotation = require_bool("bank_rotation", bank_rotation)
        dict_observation = require_bool("dict_observation", dict_observation)
        require_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        illegal_penalty = require_finite("illegal_penalty", illegal_penalty)
        require_choice("info_level", info_level, INFO_LEVELS)
        if render_mode is not None:
            require_choice("render_mode", render_mode, tuple(self.metadata["render_modes"]))

        overrides: dict[str, Any] = {}
        if bankroll is not None and base_rules.bankroll == 0:
            overrides["bankroll"] = bankroll
        if not bank_rotation:
            overrides.update(bank_passing="none", bank_sale=False)
        # The engine adds a second deck above seven players; ask it rather than repeat the rule.
        self.rules: Rules = PontoonGame(base_rules.replace(**overrides), num_players, seed=0, banker=0).rules
        self.role: Role = role
        self.num_players = num_players
        self.learner_seat = learner_seat
        self.episode = episode
        self.session_rounds = session_rounds
        self.bank_rotation = bool(bank_rotation)
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.dict_observation = bool(dict_observation)
        self.info_level = info_level
        self.render_mode = render_mode
        self.table = ActionTable(self.rules, action_levels)
        self.encoder = ObservationEncoder(self.rules, num_players + 1)
        self.opponents = Opponents(opponents, self.rules, num_players)

        low, high = self.encoder.bounds()
        box = spaces.Box(low=low, high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.table.n)
        self.observation_space = (
            spaces.Dict({"observation": box, "action_mask": spaces.MultiBinary(self.table.n)})
            if self.dict_observation
            else box
        )
        self._game: PontoonGame | None = None
        self._seat = 0
        self._policy_rng = np.random.default_rng(0)
        self._done = True
        self._acted_this_round = False
        self._rounds_played = 0
        self._ledger_pos = 0
        """Transfers of the current round already credited to the learner."""
        self._pending = 0
        """The learner's result not yet paid out as reward (from rounds finished between steps)."""
        self._ids: Mapping[int, Any] = {}
        """The legal ids of the learner's decision now, with the engine actions they stand for."""
        self._no_mask = np.zeros(self.table.n, dtype=bool)
        self._no_mask.flags.writeable = False
        self._mask = self._no_mask

    # ------------------------------------------------------------------------------ public API

    @property
    def action_names(self) -> list[str]:
        """The readable name of every action id, in id order."""
        return list(self.table.names)

    @property
    def game(self) -> PontoonGame:
        """The table being played (for inspection; stepping it directly desynchronises the env)."""
        if self._game is None:
            raise RuntimeError("call reset() first")
        return self._game

    @property
    def seat(self) -> int:
        """The learner's seat in the current episode."""
        return self._seat

    def checkpoint_config(self) -> dict[str, Any]:
        """What a trained model needs to play again: rules, table size, role and levels (JSON-able)."""
        return {
            "rules": dataclasses.asdict(self.rules),
            "num_players": self.num_players,
            "role": self.role,
            "obs_size": self.encoder.size,
            "n_actions": self.table.n,
            "action_names": self.action_names,
            "dict_observation": self.dict_observation,
            "episode": self.episode,
            "action_levels": self.table.config(),
        }

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal action ids now (all False once the episode is over); a new
        array each call, so a caller may keep or change it."""
        return self._mask.copy()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        # Options first: a refused reset leaves the env as it was, its random streams included.
        deck, bottom = parse_deck_options(options)
        if deck is not None or bottom:
            self._check_deck(deck, bottom)
        super().reset(seed=seed)
        skipped = 0
        fresh = seed is not None or not self._table_reusable()
        for _attempt in range(MAX_SKIPPED_ROUNDS):
            if fresh:
                self._new_game()
            self._draw_learner_seat()
            self._start_round(deck, bottom)
            deck, bottom = None, ()
            reports, terminated, truncated = self._advance()
            skipped += len(reports)
            if not (terminated or truncated):
                break
            # A session that ended (or ran its rounds out) before the learner's first decision
            # is no episode to hand out: deal a fresh table, as for a broke one.
            fresh = True
        else:
            raise RuntimeError(
                f"no decision for the learner in {MAX_SKIPPED_ROUNDS} sessions; check the session settings"
            )
        self._done = False
        if self.episode == "round":
            # A round episode credits only the round the learner plays (skipped deals carry nothing).
            self._pending = 0
        self._decision()
        # A session's rounds finished before the learner's first decision are part of its episode
        # (their chips are credited to the first step): info lists them, as a step's does.
        info = self._info(reports if self.episode == "session" else [])
        info["skipped_rounds"] = skipped if self.episode == "round" else 0
        if self.render_mode == "human":
            self.render()
        return self._observation(), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._game is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode is over; call reset() before step()")
        game = self._game
        index = action_id(action, self.table.n)
        decoded = self._ids.get(index)
        if decoded is None:
            message = self.illegal_message(index)
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._done = True
            self._ids, self._mask = {}, self._no_mask
            info = self._info([])
            info["illegal_action"] = message
            return self._observation(), self.illegal_penalty, True, False, info
        game.apply(decoded)
        self._acted_this_round = True
        try:
            reports, terminated, truncated = self._advance()
        except BaseException:
            # An opponent's policy failed (or the user interrupted) mid-round: the table is
            # half-played and its mask stale, so the episode is over until reset() deals again.
            self._done = True
            self._ids, self._mask = {}, self._no_mask
            raise
        self._done = terminated or truncated
        reward = (self._pending + game.ledger.result(self._seat, self._ledger_pos)) / self.rules.min_stake
        self._pending = 0
        self._ledger_pos = len(game.ledger)
        if self._done:
            self._ids, self._mask = {}, self._no_mask
        else:
            self._decision()
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info(reports)

    def illegal_message(self, action: int) -> str:
        """Why action id ``action`` is not legal now (the text :meth:`step` raises or puts in
        ``info["illegal_action"]``); only meaningful for an id the mask refuses."""
        phase = self._game.phase.name if self._game is not None else "none (no reset yet)"
        return f"seat {self._seat} in phase {phase}: " + self.table.illegal_message(action, self._ids)

    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return render_rgb(self._game, self._seat)
        text = render_ansi(self._game, self._seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None
        self._ids, self._mask = {}, self._no_mask  # no legal action at a closed table (step refuses)

    # ---------------------------------------------------------------------------- the table

    def _check_deck(self, deck: Sequence[Any] | None, bottom: Sequence[Any]) -> None:
        """Refuse a malformed stacked deck before anything changes (the running episode survives)."""
        parse_cards(list(deck or ()) + list(bottom), self.rules.decks, name="reset options 'deck'/'bottom'")

    def _table_reusable(self) -> bool:
        """Round episodes deal on at the same table (pack, seen cards and chips carry over) while
        the last round was finished and every seat can still play; anything else starts afresh."""
        game = self._game
        if self.episode != "round" or game is None or not game.is_round_over:
            return False
        if self.rules.bankroll <= 0:  # unlimited chips: nobody is ever broke (see _broke)
            return True
        return not any(self._broke(seat) for seat in range(game.num_seats))

    def _new_game(self) -> None:
        """A fresh table: seeds for the cards and for the opponents come from ``np_random``."""
        game_seed, policy_seed = (int(value) for value in self.np_random.integers(2**63 - 1, size=2))
        self._game = PontoonGame(self.rules, self.num_players, seed=game_seed, banker=0)
        self._policy_rng = np.random.default_rng(policy_seed)
        self._rounds_played = 0
        self._pending = 0
        self._ledger_pos = 0

    def _draw_learner_seat(self) -> None:
        """The banker's seat for the banker role, else ``learner_seat`` or a seat drawn per episode."""
        game = self.game
        if self.role == "banker":
            self._seat = game.banker if self.bank_rotation else 0
        elif self.learner_seat is not None:
            self._seat = self.learner_seat
        elif self.episode == "round" or self._rounds_played == 0:
            banker = game.banker
            players = [seat for seat in range(game.num_seats) if seat != banker]
            # one player seat leaves nothing to draw (and a draw costs a good part of a step)
            self._seat = players[int(self.np_random.integers(len(players)))] if len(players) > 1 else players[0]

    def _start_round(self, deck: Sequence[Any] | None = None, bottom: Sequence[Any] = ()) -> None:
        game = self._game
        if game.round_index:  # credit what is left of the finished round before its ledger goes
            self._pending += game.ledger.result(self._seat, self._ledger_pos)
        self._acted_this_round = False
        self._rounds_played += 1
        game.new_round(deck=deck, bottom=bottom)
        self._ledger_pos = 0

    def _advance(self) -> tuple[list[dict[str, Any]], bool, bool]:
        """Play the other seats until the learner decides or the episode ends.

        Returns what ``info`` says of each round finished meanwhile, and (terminated, truncated).
        """
        game = self._game
        reports: list[dict[str, Any]] = []
        seat = self._seat
        while True:
            if play_until(game, self.opponents, self._policy_rng, stop_seat=seat):
                return reports, False, False
            reports.append(round_info(game, seat, self.info_level))
            if self.episode == "round":
                if self._acted_this_round:
                    return reports, True, False
                if len(reports) > MAX_SKIPPED_ROUNDS:
                    raise RuntimeError(f"the learner had no decision in {MAX_SKIPPED_ROUNDS} rounds")
                if not self._table_reusable():
                    # A seat ran out of chips in a deal the learner had no part in: dealing on
                    # would seat fewer players, or none, for ever; reset() deals a fresh table.
                    return reports, True, False
                self._pending = 0
                self._ledger_pos = len(game.ledger)
            elif self._broke(seat) or self._table_empty():
                return reports, True, False
            elif self._rounds_played >= self.session_rounds:
                return reports, False, True
            if self.render_mode == "human":  # a watcher sees each round settle before the next deal
                self.render()
            self._start_round()

    def _broke(self, seat: int) -> bool:
        return self.rules.bankroll > 0 and self.game.balances[seat] < self.rules.min_stake

    def _table_empty(self) -> bool:
        """No player besides the learner can cover a stake (with finite bankrolls)."""
        game = self.game
        others = [seat for seat in range(game.num_seats) if seat != self._seat and seat != game.banker]
        if self._seat == game.banker:
            return all(self._broke(seat) for seat in others)
        return False

    # ------------------------------------------------------------------------ observations

    def _decision(self) -> None:
        """The learner's legal ids, computed once per decision (mask, decoding and info share them)."""
        self._ids, self._mask = self.table.decision(self._game.legal_actions())

    def _view(self) -> SeatView:
        return observe(self._game, self._seat)

    def _observation(self) -> Any:
        vector = self.encoder.encode(self._view())
        if not self.dict_observation:
            return vector
        return {"observation": vector, "action_mask": self._mask.astype(np.int8)}

    def _info(self, reports: list[dict[str, Any]]) -> dict[str, Any]:
        game = self._game
        info: dict[str, Any] = {
            "action_mask": self._mask.copy(),  # users keep infos: never share the cached mask
            "seat": self._seat,
            "role": "banker" if game.banker_seat_of_round == self._seat else "player",
            "balance": game.balances[self._seat],
            "round_index": game.round_index,
        }
        if reports:
            info.update(reports[-1])
            info["rounds"] = list(reports)
        return info


def parse_deck_options(options: Mapping[str, Any] | None) -> tuple[Sequence[Any] | None, Sequence[Any]]:
    """The ``deck`` and ``bottom`` of ``reset(options=...)``, checked to be lists of cards.

    Raises:
        ValueError: an unknown key, or a deck that is not a list (a string would be split into letters).
    """
    if options is None:  # the usual reset
        return None, ()
    if not isinstance(options, Mapping):  # a list of pairs was taken as a dict, a string failed in dict()
        raise ValueError(f"reset options: expected a dict such as {{'deck': ['AS', '10H']}}, got {options!r} "
                         f"({type(options).__name__})")
    options = dict(options)
    unknown = sorted(set(options) - {"deck", "bottom"})
    if unknown:
        raise ValueError(f"reset options: unknown keys {unknown}; expected 'deck' and/or 'bottom'")
    deck, bottom = options.get("deck"), options.get("bottom", ())
    for name, cards in (("deck", deck), ("bottom", bottom)):
        if cards is not None and (isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence)):
            raise ValueError(
                f"reset options: {name!r} must be a list of cards like ['AS', '10H'], got {cards!r}"
            )
    return deck, bottom or ()


def _observation_table_for_docs() -> str:
    encoder = ObservationEncoder(make_rules("pagat"), 5)
    rows = encoder.markdown_table().splitlines()
    return "\n    ".join(rows)


PontoonEnv.__doc__ = (PontoonEnv.__doc__ or "").replace("{OBSERVATION_TABLE}", _observation_table_for_docs())
