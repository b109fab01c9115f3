"""Scripted policies: simple, documented rules of thumb for every seat of every preset.

Each class satisfies :class:`agents.base.Policy`. A policy is written for one role (player or
banker), but the bank can change hands between rounds, so every scripted policy also plays the other
role sensibly: a player policy placed in the banker's seat banks like ``BankerThreshold(17)`` and a
banker policy placed in a player's seat plays like ``ThresholdPlayer()``. Whatever a policy decides is
checked against the legal actions before it is returned; anything it has no rule for, or a choice
that turns out not to be legal, falls back to the first legal action at its smallest amount, so a
scripted policy never returns an illegal action.

Which phases belong to which role:

* player phases: ``STAKE``, ``SHOOT_BET``, ``PLAYER_TURN``, ``BANK_BID``, ``TAKE_BANK``;
* banker phases: ``KITTY``, ``BANK_SALE``, ``BANKER_DOUBLE``, ``BANKER_TURN``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal, Optional, Union

import numpy as np

from pontoon_env.game.checks import require_bool, require_int
from pontoon_env.game.actions import Action, ActionKind, LegalAction, Phase
from pontoon_env.game.legality import casino_dealer_draws
from pontoon_env.game.cards import CARD_RANK, CARD_VALUE
from pontoon_env.game.hands import hand_total
from pontoon_env.game.observation import HIDDEN, HandView, SeatView

PLAYER_PHASES = frozenset({Phase.STAKE, Phase.SHOOT_BET, Phase.PLAYER_TURN, Phase.BANK_BID, Phase.TAKE_BANK})
BANKER_PHASES = frozenset({Phase.KITTY, Phase.BANK_SALE, Phase.BANKER_DOUBLE, Phase.BANKER_TURN})

AmountChoice = Union[Literal["min", "max"], int]  # noqa: UP007 (a runtime alias)
"""How a policy sizes an amount: the smallest, the largest, or a fixed number of chips (clamped)."""

Decision = Optional[Action]  # noqa: UP045 (a runtime alias)
"""A phase handler's answer; ``None`` means "no rule here": the first legal action is used."""

# Enum members read through their class cost about 5x a module global (EnumType.__getattr__, Python
# 3.11); the per-decision rules below read these (actions are immutable tuples, safe to share).
_SPLIT, _DOUBLE, _SHOOT, _STICK, _BUY, _TWIST, _DRAW, _STAND = (
    ActionKind.SPLIT,
    ActionKind.DOUBLE,
    ActionKind.SHOOT,
    ActionKind.STICK,
    ActionKind.BUY,
    ActionKind.TWIST,
    ActionKind.DRAW,
    ActionKind.STAND,
)
_SPLIT_ACTION, _DOUBLE_ACTION = Action(_SPLIT), Action(_DOUBLE)
_STICK_ACTION, _TWIST_ACTION = Action(_STICK), Action(_TWIST)
_DRAW_ACTION, _STAND_ACTION = Action(_DRAW), Action(_STAND)

_HANDLER_NAMES: dict[Phase, str] = {phase: "on_" + phase.name.lower() for phase in Phase}
"""Each phase's handler method name, built once (``Phase.name`` is a property, read per decision)."""


# ---------------------------------------------------------------------------- small helpers


def first_legal(legal: Sequence[LegalAction]) -> Action:
    """The first legal action at its smallest amount: the fallback every scripted policy shares."""
    if not legal:
        raise ValueError("no legal actions: the round is over (call new_round) or the seat is not to act")
    option = legal[0]
    return Action(option.kind, option.min_amount)


def find(legal: Sequence[LegalAction], kind: ActionKind) -> LegalAction | None:
    """The legal option of ``kind``, or ``None`` when that kind is not legal now."""
    for option in legal:
        if option.kind == kind:
            return option
    return None


def sized(option: LegalAction, choice: AmountChoice) -> Action:
    """An action of ``option``'s kind with its amount chosen by ``choice`` and clamped to the range."""
    if choice == "min":
        amount = option.min_amount
    elif choice == "max":
        amount = option.max_amount
    else:
        amount = min(max(int(choice), option.min_amount), option.max_amount)
    return Action(option.kind, amount)


def is_legal(action: Action, legal: Sequence[LegalAction]) -> bool:
    """True when ``action`` is allowed by one of the ``legal`` options."""
    kind, amount = action
    for option in legal:
        if option.kind == kind and option.min_amount <= amount <= option.max_amount:
            return True
    return False


def active_hand(view: SeatView) -> HandView | None:
    """The hand this seat is playing now (its first hand outside its turn), or ``None``."""
    if not view.own_hands:
        return None
    index = view.active_hand if 0 <= view.active_hand < len(view.own_hands) else 0
    return view.own_hands[index]


def _check_amount_choice(name: str, choice: AmountChoice) -> AmountChoice:
    if choice in ("min", "max") or (isinstance(choice, int) and not isinstance(choice, bool) and 0 <= choice <= 2**62):
        return choice
    raise ValueError(f"{name}: expected 'min', 'max' or a number of chips in 0..2**62, got {choice!r}")


# ---------------------------------------------------------------------------- the base class


class ScriptedPolicy:
    """Dispatches each decision to a method named after its phase and guards legality.

    Subclasses override the ``on_<phase>`` methods of their role; :meth:`other_role` supplies the
    policy used for the other role's phases. Each method returns an :class:`Action` or ``None``.
    """

    name = "scripted"
    role: Literal["player", "banker"] = "player"
    sees_table = False
    """Scripted rules read only their own seat's hands (and the banker's): the cheap view will do."""

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        if not legal:
            return first_legal(legal)  # raises with a clear message
        phase = view.phase
        phase_role = "banker" if phase in BANKER_PHASES else "player"
        if phase_role != self.role:
            return self.other_role().act(view, legal, rng)
        handler: Callable[[SeatView, Sequence[LegalAction], np.random.Generator], Decision] | None = getattr(
            self, _HANDLER_NAMES[phase], None
        )
        action = handler(view, legal, rng) if handler is not None else None
        if action is None or not is_legal(action, legal):
            return first_legal(legal)
        return action

    def other_role(self) -> ScriptedPolicy:
        """The policy that plays the other role's phases (a bank can change hands)."""
        return default_banker() if self.role == "player" else default_player()

    def __repr__(self) -> str:
        params = ", ".join(f"{key}={value!r}" for key, value in vars(self).items() if not key.startswith("_"))
        return f"{type(self).__name__}({params})"


# ---------------------------------------------------------------------------- players


class ThresholdPlayer(ScriptedPolicy):
    """A player who sticks on a fixed total, buys small totals and bets by the first card.

    Its rules, in the order it applies them on its turn:

    1. **split** a pair whose rank is in ``split_ranks`` (aces and eights by default) when legal;
    2. **casino double** a two-card hard total in ``double_on`` (10 or 11) when legal;
    3. a **shoot bet** before the 4th card only with ``shoot="modest"`` and a 3-card total of 11 or
       less (it cannot go bust, and the bet forbids sticking before the 4th card);
    4. **stick** at ``stick_at`` or more (``soft_stick_at`` for a soft total) when sticking is legal:
       the rules' own minimum (``stick_min``) always wins, so ``stick_at=13`` under ``pagat``
       sticks at 15;
    5. **buy** with a total of ``buy_at_or_below`` or less when buying is legal (for the largest or
       the smallest legal price, ``buy_amount``); otherwise **twist**.

    Other player decisions: the initial stake is sized by ``bet`` (``"first_card"``: the maximum on
    an ace or a ten-value first card, the minimum otherwise or before any card is dealt; ``"min"``,
    ``"max"`` or a fixed number of chips); the first shoot bet is none, or with ``shoot="modest"``
    one initial stake (within the room in the kitty) on an ace or ten-value first card; it never
    bids for a bank on sale and takes the bank when offered (the bank has the edge). In a banker
    seat it banks like ``BankerThreshold(17)``.

    Args:
        stick_at: smallest hard total to stick on.
        buy_at_or_below: buy rather than twist at this total or less (0 never buys).
        buy_amount: ``"max"`` or ``"min"`` legal price (or a fixed number of chips, clamped).
        bet: initial stake sizing, see above.
        soft_stick_at: smallest soft total to stick on (default ``stick_at``).
        split_ranks: rank indices (0 = ace .. 12 = king) to split when legal.
        double_on: two-card hard totals to casino-double when legal.
        shoot: ``"none"`` or ``"modest"``.
    """

    name = "threshold"
    role = "player"

    def __init__(
        self,
        stick_at: int = 16,
        buy_at_or_below: int = 11,
        buy_amount: AmountChoice = "max",
        bet: Literal["first_card", "min", "max"] | int = "first_card",
        soft_stick_at: int | None = None,
        split_ranks: Sequence[int] = (0, 7),
        double_on: Sequence[int] = (10, 11),
        shoot: Literal["none", "modest"] = "none",
    ) -> None:
        # Whole numbers only: a total of 16.5 would be compared as such here and read as 16 by the
        # batched engine, which plays the same policy natively.
        stick_at = require_int("stick_at", stick_at, 0, 21)
        buy_at_or_below = require_int("buy_at_or_below", buy_at_or_below, 0, 21)
        if soft_stick_at is not None:
            soft_stick_at = require_int("soft_stick_at", soft_stick_at, 0, 21)
        if bet != "first_card":
            _check_amount_choice("bet", bet)  # type: ignore[arg-type]
        if shoot not in ("none", "modest"):
            raise ValueError(f"shoot: expected 'none' or 'modest', got {shoot!r}")
        bad_ranks = [rank for rank in split_ranks if isinstance(rank, (bool, np.bool_))
                     or not isinstance(rank, (int, np.integer)) or not 0 <= rank <= 12]
        if bad_ranks:
            raise ValueError(f"split_ranks: expected rank indices 0 (ace) .. 12 (king), got {bad_ranks}")
        split_ranks = [int(rank) for rank in split_ranks]
        double_on = [require_int("double_on", total, 0, 21) for total in double_on]
        self.stick_at = stick_at
        self.buy_at_or_below = buy_at_or_below
        self.buy_amount = _check_amount_choice("buy_amount", buy_amount)
        self.bet = bet
        self.soft_stick_at = stick_at if soft_stick_at is None else soft_stick_at
        self.split_ranks = frozenset(split_ranks)
        self.double_on = frozenset(double_on)
        self.shoot = shoot

    # -- bets before the play

    def on_stake(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Decision:
        option = find(legal, ActionKind.STAKE)
        if option is None:
            return None
        if self.bet != "first_card":
            return sized(option, self.bet)  # type: ignore[arg-type]
        hand = active_hand(view)
        strong = hand is not None and _strong_first_card(hand)
        return sized(option, "max" if strong else "min")

    def on_shoot_bet(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        shoot = find(legal, ActionKind.SHOOT)
        hand = active_hand(view)
        if self.shoot == "modest" and shoot is not None and hand is not None and _strong_first_card(hand):
            return sized(shoot, max(1, hand.initial))
        return Action(ActionKind.NO_SHOOT)

    # -- the hand

    def on_player_turn(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        hand = active_hand(view)
        if hand is None:
            return None
        cards = hand.known_cards  # a player sees every card of his own hands
        total, soft = hand_total(cards)
        count = len(cards)
        # Each rule tests the hand before it looks a kind up in the legal list (`find` is pure,
        # so the order of the tests does not change the answer): most decisions need one look-up.
        if count == 2:
            if CARD_RANK[cards[0]] in self.split_ranks and find(legal, _SPLIT):
                return _SPLIT_ACTION
            if not soft and total in self.double_on and find(legal, _DOUBLE):
                return _DOUBLE_ACTION
        target = self.soft_stick_at if soft else self.stick_at
        # A shoot bet before the 4th card commits the hand to drawing it, so only bet when the
        # hand would draw anyway and cannot go bust.
        if self.shoot == "modest" and count == 3 and total <= 11 and total < target:
            shoot = find(legal, _SHOOT)
            if shoot is not None:
                return sized(shoot, max(1, hand.initial))
        if total >= target and find(legal, _STICK):
            return _STICK_ACTION
        if total <= self.buy_at_or_below:
            buy = find(legal, _BUY)
            if buy is not None:
                return sized(buy, self.buy_amount)
        if find(legal, _TWIST):
            return _TWIST_ACTION
        if find(legal, _STICK):
            return _STICK_ACTION
        return None

    # -- the same rules for the exact solver

    def solver_policy(self) -> Callable[[Any], str]:
        """These rules as a :data:`pontoon_env.solver.PolicyFn` (the solver's symbolic moves), so the
        solver can value this player exactly and compute the banker's best response to it.

        The solver knows buys only at either end of their range, so a fixed number of chips for
        ``buy_amount`` is refused; pairs are told by value, which is the rank here except for
        ten-value cards (split only as identical ranks by ``split="rank"``).
        """
        if self.buy_amount not in ("min", "max"):
            raise ValueError(f"solver_policy: buy_amount must be 'min' or 'max', got {self.buy_amount!r}")
        split_values = {min(rank + 1, 10) for rank in self.split_ranks}
        stick_at, soft_stick_at, buy_at, double_on = (
            self.stick_at,
            self.soft_stick_at,
            self.buy_at_or_below,
            self.double_on,
        )
        wanted_buy = "buy_max" if self.buy_amount == "max" else "buy_min"

        def policy(decision: Any) -> str:
            legal = decision.legal
            if "split" in legal and decision.n_cards == 2 and decision.pair_value in split_values:
                return "split"
            if "double" in legal and decision.n_cards == 2 and not decision.soft and decision.total in double_on:
                return "double"
            target = soft_stick_at if decision.soft else stick_at
            if decision.total >= target and "stick" in legal:
                return "stick"
            if decision.total <= buy_at:
                if wanted_buy in legal:
                    return wanted_buy
                if "buy_max" in legal:  # a one-price buy: min and max are the same chips
                    return "buy_max"
            if "twist" in legal:
                return "twist"
            return "stick"

        return policy

    def stake_choice(self, rules: Any) -> dict[int, int]:
        """The initial stake this player puts up for each first-card value (1 = ace .. 10)."""
        low, high = rules.min_stake, rules.max_stake
        if rules.fixed_stake:  # the engine stakes the minimum for every player (no stake decision)
            return dict.fromkeys(range(1, 11), low)
        if self.bet == "first_card":
            return {value: high if value in (1, 10) and not rules.stake_before_deal else low for value in range(1, 11)}
        chips = {"min": low, "max": high}.get(self.bet, self.bet)  # type: ignore[arg-type]
        return dict.fromkeys(range(1, 11), min(max(int(chips), low), high))

    # -- the bank between rounds

    def on_bank_bid(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Decision:
        return Action(ActionKind.PASS)

    def on_take_bank(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        return Action(ActionKind.TAKE_BANK)


def _strong_first_card(hand: HandView) -> bool:
    """An ace or a ten-value first card: the cards that make pontoons."""
    if not hand.cards or hand.cards[0] == HIDDEN:
        return False
    return CARD_VALUE[hand.cards[0]] in (1, 10)


# ---------------------------------------------------------------------------- bankers


class BankerThreshold(ScriptedPolicy):
    """A banker who draws below a fixed total and otherwise keeps things simple.

    * **banker's turn**: draw while the total is below ``stand`` (best total, soft or hard), then
      stand; never plays a pair as two hands (1850);
    * **banker's double** (1850, 1939): doubles every stake only with ``double_on_ace`` and an ace
      as his first card (the card with the best chance of a natural), otherwise leaves them;
    * **kitty** (Shoot): puts up the ``kitty`` amount (the minimum by default; adding to a kitty
      that is still there means adding the minimum, 0);
    * **bank sale**: always keeps the bank.

    In a player's seat it plays like ``ThresholdPlayer()``.
    """

    name = "banker_threshold"
    role = "banker"

    def __init__(self, stand: int = 17, double_on_ace: bool = False, kitty: AmountChoice = "min") -> None:
        self.stand = require_int("stand", stand, 0, 22)  # whole: the batched engine reads it as an integer
        self.double_on_ace = require_bool("double_on_ace", double_on_ace)  # the string "no" is truthy
        self.kitty = _check_amount_choice("kitty", kitty)

    def draws(self, total: int, soft: bool) -> bool:
        """Whether to draw on ``total`` (``soft`` when an ace counts 11)."""
        return total < self.stand

    def on_banker_turn(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        if len(legal) == 1:  # a fixed dealer rule (casino) leaves one choice
            return first_legal(legal)
        hand = active_hand(view)
        if hand is None:
            return None
        total, soft = hand_total(hand.known_cards)
        draws = self.draws(total, soft)
        return (_DRAW_ACTION if draws else _STAND_ACTION) if find(legal, _DRAW if draws else _STAND) else None

    def on_banker_double(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        hand = active_hand(view)
        first = hand.cards[0] if hand is not None and hand.cards else HIDDEN
        if self.double_on_ace and first != HIDDEN and CARD_RANK[first] == 0:
            return Action(ActionKind.DOUBLE_STAKES)
        return Action(ActionKind.NO_DOUBLE)

    def on_kitty(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Decision:
        option = find(legal, ActionKind.KITTY)
        return sized(option, self.kitty) if option is not None else None

    def on_bank_sale(
        self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator
    ) -> Decision:
        return Action(ActionKind.KEEP_BANK)


class CasinoDealer(BankerThreshold):
    """The casino dealer's fixed rule: hits soft 17 and below, stands on hard 17 and above.

    Under the ``casino`` preset the engine forces this rule anyway (one legal action at a time);
    this policy plays the same rule in the free-drawing presets so that they can be compared.
    Other banker decisions as :class:`BankerThreshold` with its defaults.
    """

    name = "casino_dealer"

    def __init__(self) -> None:
        super().__init__(stand=17)

    def draws(self, total: int, soft: bool) -> bool:
        return casino_dealer_draws(total, soft)


# ---------------------------------------------------------------------------- role-aware pairs


class RoleSplit:
    """Plays ``player`` in the player phases and ``banker`` in the banker phases.

    Useful when the bank passes between rounds and a seat driven by one policy (say a trained
    player model) must sometimes bank.

    Both must be policy objects (with ``act(view, legal, rng)``); a spec string such as
    ``"threshold"`` is refused here, since building one needs the rules: pass
    ``agents.registry.make_policy(spec, rules)`` instead.
    """

    name = "role_split"

    def __init__(self, player: object, banker: object) -> None:
        self.player = _check_policy("player", player)
        self.banker = _check_policy("banker", banker)

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        policy = self.banker if view.phase in BANKER_PHASES else self.player
        return policy.act(view, legal, rng)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"RoleSplit(player={self.player!r}, banker={self.banker!r})"


def _check_policy(name: str, policy: object) -> object:
    """``policy`` if it is a policy object (a callable ``act``), else a ``TypeError`` naming ``name``
    (a spec string or None would otherwise fail mid-round, at the first decision of that role)."""
    if isinstance(policy, type) or not callable(getattr(policy, "act", None)):
        hint = (
            " (a spec string needs the rules: build the policy with agents.registry.make_policy(spec, rules))"
            if isinstance(policy, str)
            else " (an instance, not the class)" if isinstance(policy, type) else ""
        )
        raise TypeError(
            f"{name}: expected a policy (an object with act(view, legal, rng)), "
            f"got {policy!r} ({type(policy).__name__}){hint}"
        )
    return policy


_DEFAULTS: dict[str, ScriptedPolicy] = {}


def default_player() -> ThresholdPlayer:
    """The shared default player policy (``ThresholdPlayer()``), created on first use."""
    if "player" not in _DEFAULTS:
        _DEFAULTS["player"] = ThresholdPlayer()
    return _DEFAULTS["player"]  # type: ignore[return-value]


def default_banker() -> BankerThreshold:
    """The shared default banker policy (``BankerThreshold(17)``), created on first use."""
    if "banker" not in _DEFAULTS:
        _DEFAULTS["banker"] = BankerThreshold()
    return _DEFAULTS["banker"]  # type: ignore[return-value]
