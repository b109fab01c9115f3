"""Gymnasium environment: one learning seat at a whole Pontoon table.

The docstring of :class:`PontoonEnv` follows Gymnasium's environment pages (Description, Action
Space, Observation Space, Rewards, Episode End, Arguments, Version History). The observation index
table in it is generated from :class:`~pontoon_env.encoding.ObservationEncoder` when this module is
imported, so it cannot drift from the code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from pontoon_env.game.actions import Action, IllegalActionError, Phase
from pontoon_env.encoding import ActionTable, Level, ObservationEncoder
from pontoon_env.game.engine import MAX_PLAYERS, PontoonGame
from pontoon_env.game.observation import SeatView, observe
from pontoon_env.game.rules import PRESETS, Rules, RulesError, make_rules

Role = Literal["player", "banker"]
PolicySpec = Any
"""A policy: an object with ``act(view, legal, rng)``, a registry name such as ``"threshold"``, or a
``.zip`` checkpoint path."""
RulesSpec = Union[str, Rules, Mapping[str, Any]]

BANKER_PHASES = frozenset({Phase.KITTY, Phase.BANK_SALE, Phase.BANKER_DOUBLE, Phase.BANKER_TURN})
"""Decisions taken by the banker; every other decision is a player's."""
MAX_SKIPPED_ROUNDS = 1000
"""Rounds ``reset`` may deal through looking for a decision of the learner before giving up."""


class PolicyError(RuntimeError):
    """A seat's driving policy failed: it returned an illegal action or something not an action."""


def resolve_rules(rules: RulesSpec, rule_options: Mapping[str, Any] | None = None) -> Rules:
    """Build :class:`Rules` from a preset name, a :class:`Rules` or a dict of options.

    A dict may name its base preset under ``"preset"`` (default ``"pagat"``); every other key is a
    rules option. ``rule_options`` are applied on top.

    Raises:
        RulesError: an unknown preset or option, or an invalid value (the message names it).
    """
    options = dict(rule_options or {})
    if isinstance(rules, Rules):
        return make_rules(rules, **options)
    if isinstance(rules, str):
        return make_rules(rules, **options)
    if isinstance(rules, Mapping):
        given = dict(rules)
        preset = given.pop("preset", "pagat")
        given.update(options)
        if preset in PRESETS:
            return make_rules(preset, **given)
        try:  # a custom rule set saved with every option (e.g. in a checkpoint's config)
            return Rules(preset=str(preset), **given)
        except TypeError as error:
            raise RulesError(f"rules dict for preset {preset!r}: {error}") from None
    raise RulesError(
        f"rules: expected a preset name, a Rules or a dict of options, got {type(rules).__name__}"
    )


def resolve_policy(spec: PolicySpec, rules: Rules, num_players: int) -> tuple[Any, str]:
    """Return ``(policy, label)`` for a spec, through :mod:`agents.registry` when it is installed."""
    label = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
    try:
        from agents.registry import make_policy  # lazy: the agents package sits above the engine
    except ImportError:
        make_policy = None
    if make_policy is not None:
        return make_policy(spec, rules, num_players=num_players), str(label)
    if not isinstance(spec, str) and callable(getattr(spec, "act", None)):
        return spec, str(label)
    if spec == "random":
        from agents.base import RandomPolicy

        return RandomPolicy(), "random"
    if isinstance(spec, str) and spec.endswith(".zip"):
        from agents.model import ModelPolicy

        return ModelPolicy(spec, rules, num_players=num_players), spec
    raise ValueError(
        f"policy {spec!r}: agents.registry is not available, so only 'random', a .zip "
        "checkpoint or an object with act() can drive a seat"
    )


def default_policy(rules: Rules, banker: bool) -> tuple[Any, str]:
    """The default opponent of a role: the registry's default, else the random policy."""
    try:
        from agents.registry import default_banker_policy, default_player_policy
    except ImportError:
        from agents.base import RandomPolicy

        return RandomPolicy(), "random"
    policy = default_banker_policy(rules) if banker else default_player_policy(rules)
    return policy, getattr(policy, "name", type(policy).__name__)


def require_int(name: str, value: object, low: int, high: int | None = None) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is an integer in ``low..high``."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < low
        or (high is not None and value > high)
    ):
        expected = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"{name}: expected {expected}, got {value!r}")


def action_id(action: object, n: int) -> int:
    """Validate a Gymnasium action and return it as an ``int`` id.

    Raises:
        TypeError: the action is not an integer (a float, a string, an array of several values).
        ValueError: the integer is outside ``0..n-1``.
    """
    value = action
    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise TypeError(f"action: expected one integer id, got an array of shape {value.shape}")
        value = value.reshape(()).item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"action: expected an integer id in 0..{n - 1} (see env.unwrapped.action_names), "
            f"got {action!r} of type {type(action).__name__}"
        )
    if not 0 <= int(value) < n:
        raise ValueError(f"action: id {int(value)} is out of range 0..{n - 1}")
    return int(value)


def render_text(game: PontoonGame, seat: int) -> str:
    """The table as text from ``seat``'s side, by :mod:`pontoon_env.envs.render` when it is there."""
    try:
        from pontoon_env.envs.render import render_ansi
    except ImportError:
        return _fallback_text(game, seat)
    return render_ansi(game, seat)


def render_image(game: PontoonGame, seat: int) -> np.ndarray:
    """The table as an ``(H, W, 3)`` ``uint8`` image, by :mod:`pontoon_env.envs.render` when it is there."""
    try:
        from pontoon_env.envs.render import render_rgb
    except ImportError:
        return _fallback_image(_fallback_text(game, seat))
    return render_rgb(game, seat)


def _fallback_text(game: PontoonGame, seat: int) -> str:
    from pontoon_env.game.cards import card_name

    view = observe(game, seat)

    def cards(hand: Any) -> str:
        return " ".join("??" if card < 0 else card_name(card) for card in hand.cards) or "-"

    lines = [f"round {view.round_index}  phase {view.phase.name}  seat {seat}  banker {view.banker}"]
    for hand in view.banker_hands:
        lines.append(f"  banker: {cards(hand)}")
    for player_seat, hands in view.players:
        for hand in hands:
            lines.append(f"  seat {player_seat}: {cards(hand)}  stake {hand.stake}")
    lines.append(f"  chips: {list(view.balances)}")
    return "\n".join(lines)


def _fallback_image(text: str) -> np.ndarray:
    """A plain green table sized to the text (only while :mod:`pontoon_env.envs.render` is absent)."""
    lines = text.splitlines() or [""]
    image = np.zeros((14 * len(lines) + 8, 8 * max(len(line) for line in lines) + 8, 3), dtype=np.uint8)
    image[..., 1] = 96
    return image


class PontoonEnv(gym.Env):
    """Pontoon from one seat: the learner plays against policy-driven seats at a full table.

    ## Description
    Pontoon is the British banking card game of the 21 family: a banker plays against 1–9
    players, who may *buy* cards face down for extra stakes or *twist* them face up, and whose
    pontoons (ace + ten) and five-card tricks beat the banker's totals. The rules of every preset
    of ``RULES.md`` are available (``pagat``, ``shoot``, ``casino``, ``vingt_un_1800``,
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
    ones are given by ``env.action_masks()`` (for sb3-contrib's ``MaskablePPO``), by
    ``info["action_mask"]`` and, with ``dict_observation=True``, inside the observation. An
    illegal id raises :class:`~pontoon_env.IllegalActionError` naming the legal ids (or, with
    ``illegal_action="penalty"``, ends the episode with reward ``illegal_penalty``); a non-integer
    action raises ``TypeError``.

    ## Observation Space
    ``Box(low, high, (size,), float32)`` built only from what the learner's seat may see
    (:func:`pontoon_env.game.observation.observe`): its own cards, totals and stakes, the cards the
    others have shown, everyone's stakes, buys and chips, the banker's exposed cards, the ranks
    seen since the last shuffle, the kitty and the phase. With ``dict_observation=True`` it is
    ``Dict({"observation": Box, "action_mask": MultiBinary(n)})``. The layout for ``pagat`` with
    four players (size and repeats change with the preset and the number of players):

    {OBSERVATION_TABLE}

    ## Rewards
    The learner's net chips over the step, divided by ``rules.min_stake``: stakes won or lost
    (split hands, buys and doubles included), shoot bets, kitty payments, bank sales, antes. Chips
    that move while the other seats play are credited to the learner's next step, so the rewards
    of an episode sum to the learner's ledger total over the episode's round(s) divided by
    ``min_stake``.

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
    then draws); ``"bottom"`` puts cards at the bottom of the pack.

    ## Episode End
    * Termination (``episode="round"``): the round is settled.
    * Termination (``episode="session"``): the learner cannot cover the minimum stake, or no other
      player can; with ``illegal_action="penalty"``: an illegal action.
    * Truncation (``episode="session"``): ``session_rounds`` rounds were played.

    ## Information
    ``info["action_mask"]`` always; ``info["seat"]``, ``info["role"]``, ``info["balance"]``; when a
    round ends during the step, ``info["settlement"]`` (the round's report:
    :meth:`PontoonGame.round_report`), ``info["ledger"]`` (its transfers) and ``info["round_net"]``
    (the learner's chips in it); ``info["rounds"]`` lists every report finished during the step.

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
    * ``stake_levels``, ``buy_levels``, ``shoot_levels``, ``kitty_levels``, ``sale_levels``,
      ``bid_levels``: amount levels (:class:`~pontoon_env.encoding.ActionTable`).
    * ``illegal_action``: ``"raise"`` or ``"penalty"``; ``illegal_penalty``: its reward.
    * ``dict_observation``: observation as ``{"observation", "action_mask"}``.
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
        stake_levels: Sequence[Level] | None = None,
        buy_levels: Sequence[Level] | None = None,
        shoot_levels: Sequence[Level] | None = None,
        kitty_levels: Sequence[Level] | None = None,
        sale_levels: Sequence[Level] | None = None,
        bid_levels: Sequence[Level] | None = None,
        illegal_action: Literal["raise", "penalty"] = "raise",
        illegal_penalty: float = -1.0,
        dict_observation: bool = False,
        render_mode: str | None = None,
    ) -> None:
        base_rules = resolve_rules(rules, rule_options)
        if role not in ("player", "banker"):
            raise ValueError(f"role: expected 'player' or 'banker', got {role!r}")
        require_int("num_players", num_players, 1, MAX_PLAYERS)
        if learner_seat is not None:
            low, high = (1, num_players) if role == "player" else (0, 0)
            require_int(f"learner_seat (role {role!r}; seat 0 is the first banker)", learner_seat, low, high)
        if episode not in ("round", "session"):
            raise ValueError(f"episode: expected 'round' or 'session', got {episode!r}")
        require_int("session_rounds", session_rounds, 1)
        if bankroll is not None:
            require_int("bankroll", bankroll, 1)
        if illegal_action not in ("raise", "penalty"):
            raise ValueError(f"illegal_action: expected 'raise' or 'penalty', got {illegal_action!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode: expected one of {self.metadata['render_modes']} or None, got {render_mode!r}"
            )

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
        self._opponent_specs = self._check_opponents(opponents)
        self._policies: dict[tuple[int, bool], tuple[Any, str]] = {}

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
        self._reward_ref = 0
        self._round_start_balance = 0
        self._session_start = 0

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
        import dataclasses

        return {
            "rules": dataclasses.asdict(self.rules),
            "num_players": self.num_players,
            "role": self.role,
            "obs_size": self.encoder.size,
            "n_actions": self.table.n,
            "action_names": self.action_names,
            "dict_observation": self.dict_observation,
            "episode": self.episode,
            **self.table.config(),
        }

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the legal action ids now (all False once the episode is over)."""
        if self._game is None or self._done:
            return np.zeros(self.table.n, dtype=bool)
        return self.table.mask(self._game.legal_actions())

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        deck, bottom = self._parse_options(options)
        skipped = 0
        fresh = seed is not None or not self._table_reusable()
        for _attempt in range(MAX_SKIPPED_ROUNDS):
            if fresh:
                self._new_game()
            self._draw_learner_seat()
            if fresh:
                self._session_start = self.game.balances[self._seat]
            self._start_round(deck, bottom)
            deck, bottom = None, ()
            reports, ended, _ = self._advance()
            skipped += len(reports)
            if not ended:
                break
            fresh = True
        else:
            raise RuntimeError(
                f"no decision for the learner in {MAX_SKIPPED_ROUNDS} sessions; check the session settings"
            )
        self._done = False
        # Round episodes credit only the round the learner plays; a session credits every chip.
        self._reward_ref = self._round_start_balance if self.episode == "round" else self._session_start
        info = self._info([])
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
        legal = game.legal_actions()
        if not self.table.mask(legal)[index]:
            message = (
                f"action {index} ({self.table.names[index]}) is not legal for seat {self._seat} in phase "
                f"{game.phase.name}; legal now: {self.table.describe(legal)}"
            )
            if self.illegal_action == "raise":
                raise IllegalActionError(message)
            self._done = True
            info = self._info([])
            info["illegal_action"] = message
            info["action_mask"] = np.zeros(self.table.n, dtype=bool)
            return self._observation(), self.illegal_penalty, True, False, info
        game.apply(self.table.decode(index, legal))
        self._acted_this_round = True
        reports, terminated, truncated = self._advance()
        self._done = terminated or truncated
        balance = game.balances[self._seat]
        reward = (balance - self._reward_ref) / self.rules.min_stake
        self._reward_ref = balance
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info(reports)

    def render(self) -> Any:
        if self.render_mode is None:
            gym.logger.warn(
                "render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'"
            )
            return None
        if self._game is None:
            raise RuntimeError("call reset() before render()")
        if self.render_mode == "rgb_array":
            return render_image(self._game, self._seat)
        text = render_text(self._game, self._seat)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self._game = None

    # ---------------------------------------------------------------------------- the table

    def _parse_options(self, options: dict[str, Any] | None) -> tuple[Sequence[Any] | None, Sequence[Any]]:
        options = dict(options or {})
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

    def _table_reusable(self) -> bool:
        """Round episodes deal on at the same table (pack, seen cards and chips carry over) while
        the last round was finished and every seat can still play; anything else starts afresh."""
        game = self._game
        if self.episode != "round" or game is None or not game.is_round_over:
            return False
        return not any(self._broke(seat) for seat in range(game.num_seats))

    def _new_game(self) -> None:
        """A fresh table: seeds for the cards and for the opponents come from ``np_random``."""
        game_seed, policy_seed = (int(value) for value in self.np_random.integers(2**63 - 1, size=2))
        self._game = PontoonGame(self.rules, self.num_players, seed=game_seed, banker=0)
        self._policy_rng = np.random.default_rng(policy_seed)
        self._rounds_played = 0

    def _draw_learner_seat(self) -> None:
        """The banker's seat for the banker role, else ``learner_seat`` or a seat drawn per episode."""
        if self.role == "banker":
            self._seat = self.game.banker if self.bank_rotation else 0
        elif self.learner_seat is not None:
            self._seat = self.learner_seat
        elif self.episode == "round" or self._rounds_played == 0:
            players = [seat for seat in range(self.game.num_seats) if seat != self.game.banker]
            self._seat = players[int(self.np_random.integers(len(players)))]

    def _start_round(self, deck: Sequence[Any] | None = None, bottom: Sequence[Any] = ()) -> None:
        game = self.game
        self._round_start_balance = game.balances[self._seat]
        self._acted_this_round = False
        self._rounds_played += 1
        game.new_round(deck=deck, bottom=bottom)

    def _advance(self) -> tuple[list[dict[str, Any]], bool, bool]:
        """Play the other seats until the learner decides or the episode ends.

        Returns the reports of the rounds finished meanwhile, and (terminated, truncated).
        """
        game = self.game
        reports: list[dict[str, Any]] = []
        while True:
            if game.is_round_over:
                report = game.round_report()
                report["round_net"] = game.seat_net(self._seat)
                reports.append(report)
                if self.episode == "round":
                    if self._acted_this_round:
                        return reports, True, False
                    if len(reports) > MAX_SKIPPED_ROUNDS:
                        raise RuntimeError(f"the learner had no decision in {MAX_SKIPPED_ROUNDS} rounds")
                    self._round_start_balance = game.balances[self._seat]
                else:
                    if self._broke(self._seat) or self._table_empty():
                        return reports, True, False
                    if self._rounds_played >= self.session_rounds:
                        return reports, False, True
                self._start_round()
                continue
            seat = game.current_seat
            if seat == self._seat:
                return reports, False, False
            self._play_other(seat)

    def _broke(self, seat: int) -> bool:
        return self.rules.bankroll > 0 and self.game.balances[seat] < self.rules.min_stake

    def _table_empty(self) -> bool:
        """No player besides the learner can cover a stake (with finite bankrolls)."""
        game = self.game
        others = [seat for seat in range(game.num_seats) if seat != self._seat and seat != game.banker]
        if self._seat == game.banker:
            return all(self._broke(seat) for seat in others)
        return False

    def _play_other(self, seat: int) -> None:
        game = self.game
        legal = game.legal_actions()
        policy, label = self._policy(seat, banker=game.phase in BANKER_PHASES)
        action = policy.act(observe(game, seat), legal, self._policy_rng)
        if not isinstance(action, Action):
            raise PolicyError(
                f"policy {label!r} in seat {seat} returned {action!r}, not a pontoon_env.Action "
                f"(phase {game.phase.name})"
            )
        try:
            game.apply(action)
        except IllegalActionError as error:
            raise PolicyError(f"policy {label!r} in seat {seat} chose an illegal action: {error}") from error

    # ---------------------------------------------------------------------------- opponents

    def _check_opponents(self, opponents: Any) -> dict[Any, PolicySpec]:
        if opponents is None:
            return {}
        if isinstance(opponents, Mapping):
            specs: dict[Any, PolicySpec] = {}
            for key, spec in opponents.items():
                valid_seat = (
                    isinstance(key, int) and not isinstance(key, bool) and 0 <= key <= self.num_players
                )
                if not valid_seat and key not in ("players", "banker"):
                    raise ValueError(
                        f"opponents: keys are seats 0..{self.num_players}, 'players' or 'banker'; got {key!r}"
                    )
                specs[key] = spec
            return specs
        return {"players": opponents}

    def _policy(self, seat: int, banker: bool) -> tuple[Any, str]:
        key = (seat, banker)
        if key not in self._policies:
            specs = self._opponent_specs
            spec = specs.get(seat, specs.get("banker" if banker else "players"))
            if spec is None:
                self._policies[key] = default_policy(self.rules, banker)
            else:
                self._policies[key] = resolve_policy(spec, self.rules, self.num_players)
        return self._policies[key]

    # ------------------------------------------------------------------------ observations

    def _view(self) -> SeatView:
        return observe(self.game, self._seat)

    def _observation(self) -> Any:
        vector = self.encoder.encode(self._view())
        if not self.dict_observation:
            return vector
        return {"observation": vector, "action_mask": self.action_masks().astype(np.int8)}

    def _info(self, reports: list[dict[str, Any]]) -> dict[str, Any]:
        game = self.game
        info: dict[str, Any] = {
            "action_mask": self.action_masks(),
            "seat": self._seat,
            "role": "banker" if game.banker_seat_of_round == self._seat else "player",
            "balance": game.balances[self._seat],
            "round_index": game.round_index,
        }
        if reports:
            last = reports[-1]
            info["settlement"] = last
            info["ledger"] = [dict(entry) for entry in last["ledger"]]
            info["round_net"] = last["round_net"]
            info["rounds"] = reports
        return info


def _observation_table_for_docs() -> str:
    encoder = ObservationEncoder(make_rules("pagat"), 5)
    rows = encoder.markdown_table().splitlines()
    return "\n    ".join(rows)


PontoonEnv.__doc__ = (PontoonEnv.__doc__ or "").replace("{OBSERVATION_TABLE}", _observation_table_for_docs())
