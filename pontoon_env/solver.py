"""Exact solver: one player seat against a banker who draws by a fixed rule, over an infinite deck.

The deck is infinite: every card is an ace, 2, ..., 9 with probability 1/13 each and a ten-value
card with probability 4/13, independently of everything dealt before. The banker's drawing rule
depends only on his own hand (:class:`BankerRule`), so his final hand is independent of the player's
and every player hand can be valued by expectimax over the hand's sufficient statistic
(best total, softness, number of cards, whether it twisted, its stake and last buy, ...).

The solver restates no rule: which moves a hand has, when it stops, which pairs split and what
class a finished hand is come from :mod:`pontoon_env.game.legality` (over the same
:class:`~pontoon_env.game.hands.HandStat` the engine builds), and payouts from
:func:`pontoon_env.game.settlement.standing_hand_payout`, so the solver and the engine cannot
disagree on what is allowed or who wins what.

Public API
----------
* :func:`solve` → :class:`Solution`: optimal EV (per initial stake unit and with the
  first-card stake choice), per-first-card EVs, and the optimal policy as a lookup
  (:meth:`Solution.action_values`, :meth:`Solution.best_action`, :meth:`Solution.decide`,
  :meth:`Solution.as_policy`).
* :func:`evaluate_player_policy`: the exact EV of any fixed policy over :class:`Decision`.
* :func:`banker_best_response` → :class:`BankerResponse`: the banker's optimal drawing rule against
  a fixed player policy, given his own hand and what he sees of the player's hand.
* :func:`scripted_move` / :func:`scripted_stake`: the solved policy as symbolic moves from cards.
* :func:`strategy_chart`: a text chart of the optimal play.
* :func:`threshold_policy`: "stick at k or more, else twist" baselines.

Modelling decisions (where docs/rules.md leaves the solver a choice) are listed in the docstring of
:func:`solve`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

import numpy as np

from pontoon_env.game import legality
from pontoon_env.game.actions import ActionKind
from pontoon_env.game.cards import CARD_RANK, CARD_VALUE, CARDS_PER_DECK, RANK_PROBABILITY, VALUE_PROBABILITY, VALUES, rank_of_value
from pontoon_env.game.hands import (
    BLACKJACK,
    HandClass,
    HandResult,
    HandStat,
    add_card,
    first_card_total,
    hand_total,
)
from pontoon_env.game.checks import require_bool, require_int
from pontoon_env.game.rules import Rules, resolve_rules
from pontoon_env.game.settlement import banker_natural_at_deal, standing_hand_payout

__all__ = [
    "ACTIONS",
    "BankerResponse",
    "BankerRule",
    "Decision",
    "HandState",
    "PolicyFn",
    "Signal",
    "Solution",
    "banker_best_response",
    "banker_outcomes",
    "default_banker_rule",
    "evaluate_player_policy",
    "representative_values",
    "scripted_move",
    "scripted_stake",
    "solve",
    "strategy_chart",
    "threshold_policy",
]

Move = Literal["stick", "twist", "buy_min", "buy_max", "double", "split"]
StakeMove = Literal["stake_min", "stake_max"]

#: Every play move, in the order used to break exact ties (prefer the simpler move).
ACTIONS: tuple[str, ...] = ("stick", "twist", "buy_min", "buy_max", "double", "split")
_LETTER = {"stick": "S", "twist": "T", "buy_min": "b", "buy_max": "B", "double": "D", "split": "P"}

#: Card values 1 (ace) .. 10 (any ten-value card) and their infinite-deck probabilities
#: (:data:`pontoon_env.game.cards.VALUE_PROBABILITY`).
P_VALUE = VALUE_PROBABILITY
#: Probability that a card has one given rank (what a same-rank pair needs).
P_RANK = RANK_PROBABILITY

SUPPORTED_SETTLEMENTS = ("pagat", "casino", "pontoon_1939", "pontoon_2011")
_TIE = 1e-12  # EV differences below this are ties, broken by ACTIONS order


# --------------------------------------------------------------------------------------------------
# Public data types
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BankerRule:
    """A banker who draws by a fixed rule on his own hand.

    He draws while his best total is below ``stand_on``; with ``hit_soft`` he also draws on a soft
    ``stand_on`` (the casino dealer: ``BankerRule(17, hit_soft=True)`` hits soft 17 and stands on
    hard 17). He always stops at 21, at a bust, and at five cards when the rules let him make a
    five-card trick (``five_card_trick`` and ``dealer_five_card_trick``); otherwise he draws on by
    the rule past five cards.

    ``double_on`` only matters where the rules have the banker's double (``pontoon_1939``): the
    values (1 = ace, 10 = ten-value) of his first card on which he doubles all stakes.
    """

    stand_on: int = 17
    hit_soft: bool = False
    double_on: frozenset[int] = frozenset({1, 10})

    def __post_init__(self) -> None:
        require_int("BankerRule.stand_on", self.stand_on, 2, 22)  # 17.5 or '17' were taken (or failed later)
        require_bool("BankerRule.hit_soft", self.hit_soft)  # the string 'no' is truthy
        if isinstance(self.double_on, (str, bytes)) or not isinstance(self.double_on, Iterable):
            raise ValueError(f"BankerRule.double_on: expected a set of card values 1..10, got {self.double_on!r}")
        try:
            object.__setattr__(self, "double_on", frozenset(self.double_on))
        except TypeError:  # an unhashable member ([[1]]): "unhashable type: 'list'" named nothing
            raise ValueError(f"BankerRule.double_on: expected a set of card values 1..10, got {self.double_on!r}") from None
        if any(isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer))
               for value in self.double_on):  # {True} and {1.0} equal 1: taken for the ace
            raise ValueError(f"BankerRule.double_on: expected a set of card values 1..10, got {set(self.double_on)!r}")
        if not self.double_on <= set(VALUES):
            raise ValueError(
                f"BankerRule.double_on must hold card values 1..10, got {sorted(self.double_on)}"
            )

    def draws(self, total: int, soft: bool) -> bool:
        """True when the banker draws on this (not yet stopped) hand."""
        return total < self.stand_on or (self.hit_soft and soft and total == self.stand_on)


def default_banker_rule(rules: Rules | str) -> BankerRule:
    """The casino dealer's rule (:func:`pontoon_env.game.legality.casino_dealer_draws`) for
    ``dealer_rule='hit_soft_17'``; otherwise stand on any 17."""
    rules = _as_rules(rules)
    return BankerRule(legality.CASINO_DEALER_STANDS, hit_soft=rules.dealer_rule == "hit_soft_17")


class HandState(NamedTuple):
    """Sufficient statistic of one player hand in play. Stakes are in chips.

    A hard hand holding an ace can never turn soft again (its pip sum is already over 11), so
    ``(total, soft)`` is all the DP needs to know about the cards.
    """

    total: int
    soft: bool
    n_cards: int
    twisted: bool = False
    stake: int = 1
    last_buy: int = 0  # chips of the previous buy (0 = none yet); caps the next buy under pagat rules
    doubled: bool = False  # the casino double was used on this hand
    split_hand: bool = False  # the hand was formed by splitting


@dataclass(frozen=True)
class Decision:
    """Everything a fixed player policy may look at (what :data:`PolicyFn` receives).

    ``legal`` lists the legal moves. ``pair_value`` is the value of a splittable pair's cards (1 for
    aces, 10 for a ten-value pair) and 0 elsewhere; ``hands`` (hands held, 1 before any split) and
    ``pending_pairs`` (other, not yet played split hands that are pairs too) are tracked only at such
    pair decisions and are 1 and 0 elsewhere. Stakes are chips as on the table (after a banker's
    double, so ``initial_stake`` is then the doubled stake).
    """

    total: int
    soft: bool
    n_cards: int
    legal: tuple[str, ...]
    pair_value: int = 0
    twisted: bool = False
    stake: int = 1
    initial_stake: int = 1
    last_buy: int = 0
    doubled: bool = False
    split_hand: bool = False
    hands: int = 1
    pending_pairs: int = 0
    banker_doubled: bool = False

    @property
    def state(self) -> HandState:
        """The hand's :class:`HandState`."""
        return HandState(
            self.total,
            self.soft,
            self.n_cards,
            self.twisted,
            self.stake,
            self.last_buy,
            self.doubled,
            self.split_hand,
        )


PolicyFn = Callable[[Decision], str]
"""A fixed player policy: returns one of ``decision.legal``."""

BankerStrategy = Mapping[tuple[bool, "Signal", int, bool, int], bool]
"""A banker's drawing strategy given what he sees: ``(banker doubled, signal, total, soft, n_cards)
-> draws``, the form :class:`BankerResponse` holds. Keys it lacks follow the fixed
:class:`BankerRule` (his forced stops always apply). A strategy read off a trained banker plugs in
here, so the player's exact best response to it measures its exploitability."""


class Signal(NamedTuple):
    """What the banker sees of the player's standing hands when he plays (for best responses).

    Unsplit hand: its number of cards, its stake (buys are visible) and whether it was laid down as
    a pontoon; the values of face-up (twisted) cards are not used. After a split the banker is
    modelled as seeing only that the player split (``split=True``, other fields 0): a coarser
    signal, so the response is a lower bound on what a banker seeing every split hand could do.
    """

    split: bool
    n_cards: int = 0
    stake: int = 0
    pontoon: bool = False


# --------------------------------------------------------------------------------------------------
# Hand arithmetic on sufficient statistics
# --------------------------------------------------------------------------------------------------


_first = first_card_total
_add = add_card


def _fill(count: int, target: int, low: int) -> list[int] | None:
    """``count`` values in ``[low, 10]`` summing to ``target``, or None if impossible."""
    if count == 0:
        return [] if target == 0 else None
    if not count * low <= target <= count * 10:
        return None
    values = [low] * count
    rest = target - count * low
    for i in range(count):
        step = min(10 - low, rest)
        values[i] += step
        rest -= step
    return values


def representative_values(total: int, soft: bool, n_cards: int) -> list[int] | None:
    """Card values of some hand with this best total, softness and size; None if none exists."""
    pip = total - 10 if soft else total
    if soft:
        rest = _fill(n_cards - 1, pip - 1, 1)
        return None if rest is None else [1, *rest]
    no_ace = _fill(n_cards, pip, 2)
    if no_ace is not None:
        return no_ace
    if pip + 10 > BLACKJACK:  # a hard hand may hold aces only when they cannot count 11
        rest = _fill(n_cards - 1, pip - 1, 1)
        if rest is not None:
            return [1, *rest]
    return None


# --------------------------------------------------------------------------------------------------
# The model: rules-derived tables shared by every DP of one (rules, banker rule) pair
# --------------------------------------------------------------------------------------------------


@dataclass
class _Context:
    """One branch of what the player knows about the banker before playing.

    ``prob``: probability of the branch. ``natural_prob``: the banker's natural ends the round at the
    deal (``pagat``, ``casino``). The player plays with probability ``prob - natural_prob`` against
    ``banker_probs`` (banker final-hand distribution, conditioned on reaching play). ``initial`` is
    the initial stake in chips in this branch (doubled by a banker's double).
    """

    prob: float
    natural_prob: float
    first_values: tuple[int, ...]
    banker_start: dict[tuple[int, bool], float]
    banker_probs: np.ndarray
    banker_pontoon_prob: float  # P(banker natural | playing in this branch) (settled at the table)
    initial: int
    banker_doubled: bool


class _Model:
    """Tables that depend only on the rules and the banker rule: classifications, banker outcomes."""

    def __init__(self, rules: Rules, banker_rule: BankerRule) -> None:
        if rules.settlement not in SUPPORTED_SETTLEMENTS:
            raise ValueError(
                f"the solver supports settlements {list(SUPPORTED_SETTLEMENTS)}, got {rules.settlement!r}"
            )
        if rules.shoot:
            raise ValueError("the solver does not model shoot bets (rules.shoot=True)")
        self.rules = rules
        self.banker_rule = banker_rule
        self._player_results: dict[tuple[int, int, bool], HandResult] = {}
        self._banker_results: dict[tuple[int, int], HandResult] = {}
        self.banker_index: dict[HandResult, int] = {}
        self._enumerate_banker_results()
        self._payout_vectors: dict[HandResult, np.ndarray] = {}

    # -- classification and stops (pontoon_env.game.legality) -----------------------------------------

    def player_result(self, total: int, soft: bool, n_cards: int, split_hand: bool) -> HandResult:
        """The :class:`HandResult` of a finished player hand (:func:`legality.player_result`)."""
        key = (total, n_cards, split_hand)
        result = self._player_results.get(key)
        if result is None:
            stat = HandStat(total, soft, n_cards, split_hand)
            result = self._player_results[key] = legality.player_result(stat, self.rules)
        return result

    def banker_result(self, total: int, soft: bool, n_cards: int) -> HandResult:
        """The :class:`HandResult` of a finished banker hand (:func:`legality.banker_result`)."""
        key = (total, n_cards)
        result = self._banker_results.get(key)
        if result is None:
            result = self._banker_results[key] = legality.banker_result(HandStat(total, soft, n_cards), self.rules)
        return result

    def banker_stops(self, total: int, n_cards: int) -> bool:
        """Forced stop (:func:`legality.banker_hand_stops`): 21, bust, or his card limit."""
        return legality.banker_hand_stops(HandStat(total, False, n_cards), self.rules)

    def _enumerate_banker_results(self) -> None:
        """Index every banker final hand any drawing rule could reach (vectors are over these)."""
        frontier = {_add(*_first(a), b) for a in VALUES for b in VALUES}
        states = {(t, s, 2) for t, s in frontier}
        todo = list(states)
        while todo:
            total, soft, n = todo.pop()
            result = self.banker_result(total, soft, n)
            self.banker_index.setdefault(result, len(self.banker_index))
            if self.banker_stops(total, n):
                continue
            for v in VALUES:
                nxt = (*_add(total, soft, v), n + 1)
                if nxt not in states:
                    states.add(nxt)
                    todo.append(nxt)
        self.banker_list: list[HandResult] = sorted(self.banker_index, key=self.banker_index.get)

    def payout_vector(self, result: HandResult) -> np.ndarray:
        """``standing_hand_payout`` of a player result against every banker result (per stake)."""
        vector = self._payout_vectors.get(result)
        if vector is None:
            vector = np.array(
                [standing_hand_payout(self.rules, result, b) for b in self.banker_list], dtype=float
            )
            self._payout_vectors[result] = vector
        return vector

    # -- the banker's fixed rule --------------------------------------------------------------------

    def banker_start(
        self, first_values: Collection[int], exclude_natural: bool
    ) -> dict[tuple[int, bool], float]:
        """Distribution of the banker's two-card (total, soft), given his first card is in
        ``first_values`` and, with ``exclude_natural``, that he holds no natural. Normalised."""
        dist: dict[tuple[int, bool], float] = {}
        for a in first_values:
            for b in VALUES:
                if exclude_natural and {a, b} == {1, 10}:
                    continue
                key = _add(*_first(a), b)
                dist[key] = dist.get(key, 0.0) + P_VALUE[a] * P_VALUE[b]
        norm = sum(dist.values())
        return {key: p / norm for key, p in dist.items()}

    def banker_final(
        self,
        start: dict[tuple[int, bool], float],
        rule: BankerRule | None = None,
        draws: Callable[[int, bool, int], bool] | None = None,
    ) -> np.ndarray:
        """Distribution of the banker's final hand (over ``banker_list``) under a fixed rule, or
        under ``draws(total, soft, n_cards)`` (a strategy's drawing rule for one signal)."""
        if draws is None:
            fixed = rule or self.banker_rule
            draws = lambda total, soft, n: fixed.draws(total, soft)  # noqa: E731
        memo: dict[tuple[int, bool, int], np.ndarray] = {}

        def final(total: int, soft: bool, n: int) -> np.ndarray:
            key = (total, soft, n)
            if key in memo:
                return memo[key]
            if self.banker_stops(total, n) or not draws(total, soft, n):
                out = np.zeros(len(self.banker_list))
                out[self.banker_index[self.banker_result(total, soft, n)]] = 1.0
            else:
                out = sum(P_VALUE[v] * final(*_add(total, soft, v), n + 1) for v in VALUES)
            memo[key] = out
            return out

        return sum(p * final(total, soft, 2) for (total, soft), p in start.items())

    def contexts(self, stake: int) -> list[_Context]:
        """The branches of the deal before the player plays (banker's double, banker's natural)."""
        rules = self.rules
        ends = rules.banker_natural_at_deal
        if rules.banker_double:
            branches = [
                (False, tuple(v for v in VALUES if v not in self.banker_rule.double_on)),
                (True, tuple(v for v in VALUES if v in self.banker_rule.double_on)),
            ]
        else:
            branches = [(False, VALUES)]
        out = []
        for doubled, firsts in branches:
            prob = sum(P_VALUE[v] for v in firsts)
            if prob == 0.0:
                continue
            # P(natural | first card in firsts): an ace needs a ten next, a ten needs an ace.
            nat = sum(
                P_VALUE[a] * (P_VALUE[10] if a == 1 else P_VALUE[1] if a == 10 else 0.0) for a in firsts
            )
            nat /= prob
            start = self.banker_start(firsts, exclude_natural=ends)
            probs = self.banker_final(start)
            pontoon = sum(
                p for b, p in zip(self.banker_list, probs, strict=True) if b.hand_class == HandClass.PONTOON
            )
            out.append(
                _Context(
                    prob=prob,
                    natural_prob=prob * nat if ends else 0.0,
                    first_values=firsts,
                    banker_start=start,
                    banker_probs=probs,
                    banker_pontoon_prob=pontoon,
                    initial=stake * (2 if doubled else 1),
                    banker_doubled=doubled,
                )
            )
        return out

    # -- splitting ----------------------------------------------------------------------------------

    def can_split(self, value: int) -> bool:
        """Whether a pair of cards of ``value`` may be split (:func:`legality.pair_splits`)."""
        rank = rank_of_value(value)
        return legality.pair_splits(rank, rank, self.rules)

    def pair_prob(self, value: int) -> float:
        """P(a new card pairs with a card of ``value``): same rank (1/13) or same value."""
        return P_VALUE[value] if self.rules.split == "value" else P_RANK


# --------------------------------------------------------------------------------------------------
# Values: floats, or "measures" (what the player gets as a function of the banker's final hand)
# --------------------------------------------------------------------------------------------------


class _Measure:
    """Expected player payoff in chips split by what the banker sees.

    ``const`` is what no banker play can change (busts, naturals paid at the deal); ``parts[signal]``
    is a vector over banker final hands: the expected chips the player gets from hands showing
    ``signal`` if the banker finishes with that hand. Linear, like the float values.
    """

    __slots__ = ("const", "parts")

    def __init__(self, const: float = 0.0, parts: dict[Signal, np.ndarray] | None = None) -> None:
        self.const = const
        self.parts = parts or {}

    def __add__(self, other: _Measure) -> _Measure:
        parts = dict(self.parts)
        for key, vec in other.parts.items():
            parts[key] = parts[key] + vec if key in parts else vec
        return _Measure(self.const + other.const, parts)

    def scaled(self, k: float) -> _Measure:
        return _Measure(self.const * k, {key: vec * k for key, vec in self.parts.items()})


Value = float | _Measure


def _wsum(terms: Iterable[tuple[float, Value]], measure: bool) -> Value:
    """Probability-weighted sum of values."""
    if not measure:
        return float(sum(p * v for p, v in terms))  # type: ignore[operator]
    out = _Measure()
    for p, v in terms:
        if p:
            out = out + v.scaled(p)  # type: ignore[union-attr]
    return out


# --------------------------------------------------------------------------------------------------
# The player's DP in one context
# --------------------------------------------------------------------------------------------------

PairKey = tuple[str, int, int, int, bool]


class _SeatDP:
    """Expectimax (or fixed-policy evaluation) of the player's hands in one :class:`_Context`.

    Three modes: optimal (``policy`` and ``follow`` None: max over moves, recording the argmax);
    fixed policy (``policy``: the move it returns); measure (``follow``: replay the moves another
    DP recorded, computing :class:`_Measure` values for the banker's best response).
    """

    def __init__(
        self,
        model: _Model,
        ctx: _Context,
        policy: PolicyFn | None = None,
        follow: _SeatDP | None = None,
        strategy: BankerStrategy | None = None,
    ) -> None:
        self.model = model
        self.rules = model.rules
        self.ctx = ctx
        self.initial = ctx.initial
        self.policy = policy
        self.follow = follow
        self.measure = follow is not None
        self.strategy = strategy
        self.values: dict[object, Value] = {}
        self.actions: dict[object, str] = {}
        self.options: dict[object, dict[str, float]] = {}
        self._stand: dict[HandResult, float] = {}
        self._finals: dict[Signal, np.ndarray] = {}

    # -- leaves -------------------------------------------------------------------------------------

    def stand_ev(self, result: HandResult) -> float:
        """Expected payout multiple of a standing hand against this context's banker."""
        ev = self._stand.get(result)
        if ev is None:
            ev = float(self.model.payout_vector(result) @ self.ctx.banker_probs)
            self._stand[result] = ev
        return ev

    def stat(self, s: HandState) -> HandStat:
        """The engine's hand statistic of a DP state (what the legality functions read)."""
        return HandStat(
            s.total, s.soft, s.n_cards, s.split_hand, s.twisted, 0, s.last_buy, s.doubled, self.initial, s.stake
        )

    def terminal(self, s: HandState) -> bool:
        return legality.player_hand_stops(self.stat(s), self.rules)

    def final_for(self, signal: Signal) -> np.ndarray:
        """The banker's final-hand distribution when he plays :attr:`strategy` against ``signal``
        (his fixed rule where the strategy says nothing)."""
        probs = self._finals.get(signal)
        if probs is None:
            strategy, fixed, doubled = self.strategy, self.model.banker_rule, self.ctx.banker_doubled
            assert strategy is not None

            def draws(total: int, soft: bool, n: int) -> bool:
                move = strategy.get((doubled, signal, total, soft, n))
                return fixed.draws(total, soft) if move is None else bool(move)

            probs = self._finals[signal] = self.model.banker_final(self.ctx.banker_start, draws=draws)
        return probs

    def leaf(self, s: HandState) -> Value:
        """A hand that stops: bust (loses its stake at once) or stands to be settled."""
        if s.total > BLACKJACK:
            return _Measure(-float(s.stake)) if self.measure else -float(s.stake)
        result = self.model.player_result(s.total, s.soft, s.n_cards, s.split_hand)
        if not self.measure and self.strategy is None:
            return s.stake * self.stand_ev(result)
        signal = (
            Signal(True)
            if s.split_hand
            else Signal(False, s.n_cards, s.stake, result.hand_class == HandClass.PONTOON)
        )
        if not self.measure:
            return s.stake * float(self.model.payout_vector(result) @ self.final_for(signal))
        return _Measure(0.0, {signal: s.stake * self.model.payout_vector(result)})

    # -- moves --------------------------------------------------------------------------------------

    def buy_range(self, s: HandState) -> tuple[int, int]:
        """Chips a buy may add (:func:`legality.buy_limits`): pagat [initial, 2x initial] then
        [initial, previous]; else [1, initial]."""
        return legality.buy_limits(self.stat(s), self.rules)

    def legal(self, s: HandState) -> tuple[str, ...]:
        """Legal play moves at a non-terminal hand (splitting is handled at pair nodes), from
        :func:`legality.player_moves` with buys at either end of their range."""
        moves = []
        for option in legality.player_moves(self.stat(s), self.rules):
            kind = option.kind
            if kind == ActionKind.STICK:
                moves.append("stick")
            elif kind == ActionKind.TWIST:
                moves.append("twist")
            elif kind == ActionKind.BUY:
                # "buy_min" is offered only when it differs from "buy_max" (e.g. not at a 1-chip stake).
                low, high = option.min_amount, option.max_amount
                moves += ["buy_min", "buy_max"] if low < high else ["buy_max"]
            elif kind == ActionKind.DOUBLE:
                moves.append("double")
        return tuple(moves)

    def successors(self, s: HandState, move: str) -> list[tuple[float, HandState]]:
        """The next hand states (with probabilities) after a drawing move."""
        if move == "twist":
            stake, last_buy, twisted, doubled = s.stake, s.last_buy, True, s.doubled
        elif move in ("buy_min", "buy_max"):
            low, high = self.buy_range(s)
            amount = low if move == "buy_min" else high
            stake, last_buy, twisted, doubled = s.stake + amount, amount, False, s.doubled
        elif move == "double":  # the stake doubles and a card is dealt; hitting may go on (CZ)
            stake, last_buy, twisted, doubled = 2 * s.stake, s.last_buy, s.twisted, True
        else:
            raise ValueError(f"{move!r} is not a drawing move")
        return [
            (
                P_VALUE[v],
                HandState(
                    *_add(s.total, s.soft, v), s.n_cards + 1, twisted, stake, last_buy, doubled, s.split_hand
                ),
            )
            for v in VALUES
        ]

    def q(self, s: HandState, move: str) -> Value:
        """Value of making ``move`` at ``s``."""
        if move == "stick":
            return self.leaf(s)
        return _wsum(((p, self.value(t)) for p, t in self.successors(s, move)), self.measure)

    def choose(
        self, key: object, decision: Callable[[], Decision], options: dict[str, Callable[[], Value]]
    ) -> Value:
        """Pick a move by the mode (max / fixed policy / replay) and return its value."""
        if self.follow is not None:
            return options[self.follow.actions[key]]()
        if self.policy is not None:
            d = decision()
            move = self.policy(d)
            if move not in options:
                raise ValueError(f"policy returned {move!r}, not one of the legal moves {d.legal} at {d}")
            self.actions[key] = move
            return options[move]()
        values = {move: float(thunk()) for move, thunk in options.items()}  # type: ignore[arg-type]
        best = max(values.values())
        move = next(m for m in options if values[m] >= best - _TIE)
        self.actions[key] = move
        self.options[key] = values
        return values[move]

    def decision(self, s: HandState, legal: tuple[str, ...], **extra: int) -> Decision:
        return Decision(
            s.total,
            s.soft,
            s.n_cards,
            legal,
            twisted=s.twisted,
            stake=s.stake,
            initial_stake=self.initial,
            last_buy=s.last_buy,
            doubled=s.doubled,
            split_hand=s.split_hand,
            banker_doubled=self.ctx.banker_doubled,
            **extra,
        )

    def value(self, s: HandState) -> Value:
        """Value of a hand (no split available) played from ``s`` on."""
        cached = self.values.get(s)
        if cached is not None:
            return cached
        if self.terminal(s):
            out = self.leaf(s)
        else:
            legal = self.legal(s)
            out = self.choose(
                s, lambda: self.decision(s, legal), {m: (lambda m=m: self.q(s, m)) for m in legal}
            )
        self.values[s] = out
        return out

    # -- pairs and splits ---------------------------------------------------------------------------

    def pair_state(self, value: int, split_hand: bool) -> HandState:
        return HandState(*_add(*_first(value), value), 2, stake=self.initial, split_hand=split_hand)

    def pair_node(self, value: int, hands: int, pairs: int, split_hand: bool) -> Value:
        """A pair hand with ``hands`` hands held and ``pairs`` unplayed pair hands (this one included).

        Non-split moves play this hand and leave the other ``pairs - 1`` pairs to :meth:`pairs_value`;
        the other, non-pair split hands are already counted by whoever dealt them.
        """
        key: PairKey = ("pair", value, hands, pairs, split_hand)
        cached = self.values.get(key)
        if cached is not None:
            return cached
        s = self.pair_state(value, split_hand)
        legal = self.legal(s)
        options: dict[str, Callable[[], Value]] = {
            m: (lambda m=m: self._plus(self.q(s, m), self.pairs_value(value, hands, pairs - 1)))
            for m in legal
        }
        if legality.split_denial(self.stat(s), self.rules, pair=True, hands_held=hands) is None:
            options["split"] = lambda: self.split_value(value, hands, pairs)
            legal = (*legal, "split")
        out = self.choose(
            key,
            lambda: self.decision(s, legal, pair_value=value, hands=hands, pending_pairs=pairs - 1),
            options,
        )
        self.values[key] = out
        return out

    def _plus(self, a: Value, b: Value) -> Value:
        return a + b  # type: ignore[operator]

    def pairs_value(self, value: int, hands: int, pairs: int) -> Value:
        """Value of ``pairs`` unplayed split pair hands (interchangeable: only their count matters)."""
        if pairs == 0:
            return _Measure() if self.measure else 0.0
        return self.pair_node(value, hands, pairs, split_hand=True)

    def split_value(self, value: int, hands: int, pairs: int) -> Value:
        """Split the current pair: two hands of one card each, each dealt one more card at once."""
        q = self.model.pair_prob(value)
        nonpair = self.nonpair_value(value)
        terms = [(2.0, nonpair)]
        for j in range(3):  # j of the two new hands are pairs again
            terms.append(
                (
                    math.comb(2, j) * q**j * (1 - q) ** (2 - j),
                    self.pairs_value(value, hands + 1, pairs - 1 + j),
                )
            )
        return _wsum(terms, self.measure)

    def nonpair_value(self, value: int) -> Value:
        """Expected value of one split hand of ``value`` whose second card does not pair it
        (unnormalised: the pair case contributes 0 here and is valued as a pending pair)."""
        key = ("nonpair", value)
        cached = self.values.get(key)
        if cached is not None:
            return cached
        q = self.model.pair_prob(value)
        first = _first(value)
        terms = []
        for v in VALUES:
            p = P_VALUE[v] - (q if v == value else 0.0)
            if p > 1e-15:
                terms.append(
                    (p, self.value(HandState(*_add(*first, v), 2, stake=self.initial, split_hand=True)))
                )
        out = _wsum(terms, self.measure)
        self.values[key] = out
        return out

    # -- the deal -----------------------------------------------------------------------------------

    def natural_at_deal(self) -> Value:
        """A player's (unsplit) natural when the rules pay it at the deal (1939: 3, unless the
        banker, whose natural is only revealed at settlement, holds one too)."""
        paid = self.rules.natural_paid_at_deal
        model = self.model
        natural = model.player_result(21, True, 2, False)
        banker_nat = model.banker_result(21, True, 2)
        p_nat = self.ctx.banker_pontoon_prob
        chips = self.initial * (
            paid * (1.0 - p_nat) + p_nat * standing_hand_payout(self.rules, natural, banker_nat)
        )
        return _Measure(chips) if self.measure else chips

    def root(self, first: int, second: int, pair: bool) -> Value:
        """Value of the initial two-card hand (a pair only when ``pair`` and splitting is allowed)."""
        total, soft = _add(*_first(first), second)
        if total == BLACKJACK and self.rules.natural_paid_at_deal:
            return self.natural_at_deal()
        if pair and self.model.can_split(first):
            return self.pair_node(first, 1, 1, split_hand=False)
        return self.value(HandState(total, soft, 2, stake=self.initial))

    def first_card(self, first: int) -> Value:
        """Expected value (chips) of the round once the player holds ``first``, given play is reached."""
        key = ("first", first)
        cached = self.values.get(key)
        if cached is not None:
            return cached
        terms = []
        for second in VALUES:
            p = P_VALUE[second]
            if second == first and self.model.can_split(first):
                q = self.model.pair_prob(first)
                terms.append((q, self.root(first, second, True)))
                p -= q
            if p > 1e-15:
                terms.append((p, self.root(first, second, False)))
        out = _wsum(terms, self.measure)
        self.values[key] = out
        return out


# --------------------------------------------------------------------------------------------------
# Solving and evaluating
# --------------------------------------------------------------------------------------------------


def _deal_const(model: _Model, ctx: _Context, first: int) -> float:
    """Chips the player gets, in expectation, from the banker's natural ending the round at the deal
    (weighted by its probability in this branch); 0 where it is settled at the table."""
    if not ctx.natural_prob:
        return 0.0
    chips = sum(
        P_VALUE[second] * banker_natural_at_deal(model.rules, {first, second} == {1, 10}) for second in VALUES
    )
    return ctx.natural_prob * chips * ctx.initial


class _Solver:
    """Lazily built DPs of one (rules, banker rule, player policy), one per (initial stake, context)."""

    def __init__(
        self,
        rules: Rules,
        banker_rule: BankerRule,
        policy: PolicyFn | None = None,
        strategy: BankerStrategy | None = None,
    ) -> None:
        self.model = _Model(rules, banker_rule)
        self.policy = policy
        self.strategy = strategy
        self._dps: dict[int, list[tuple[_Context, _SeatDP]]] = {}

    def dps(self, stake: int) -> list[tuple[_Context, _SeatDP]]:
        if stake not in self._dps:
            self._dps[stake] = [
                (ctx, _SeatDP(self.model, ctx, self.policy, strategy=self.strategy))
                for ctx in self.model.contexts(stake)
            ]
        return self._dps[stake]

    def dp_for(self, initial: int, banker_doubled: bool) -> _SeatDP:
        """The DP whose context has this (table) initial stake and banker's-double flag."""
        stake = initial // 2 if banker_doubled else initial
        if banker_doubled and initial % 2:
            raise ValueError(f"after a banker's double the initial stake is even, got {initial}")
        for ctx, dp in self.dps(stake):
            if ctx.banker_doubled == banker_doubled:
                return dp
        raise ValueError(f"no branch with banker_doubled={banker_doubled} under these rules and banker rule")

    def first_card_chips(self, stake: int, first: int) -> float:
        """Expected chips of the round given the player's first card, at this initial stake."""
        total = 0.0
        for ctx, dp in self.dps(stake):
            play = ctx.prob - ctx.natural_prob
            value = float(dp.first_card(first))  # type: ignore[arg-type]
            total += _deal_const(self.model, ctx, first) + play * value
        return total

    def ev_per_unit(self, stake: int) -> tuple[float, dict[int, float]]:
        per_card = {v: self.first_card_chips(stake, v) / stake for v in VALUES}
        return sum(P_VALUE[v] * per_card[v] for v in VALUES), per_card


def _stake_sensitive(rules: Rules) -> bool:
    """Whether the per-unit EV depends on the stake size: only a 1-chip minimum buy breaks scaling."""
    return rules.allow_buy and rules.buy_limits == "initial"


def _as_rules(rules: Rules | str) -> Rules:
    """``rules`` as :class:`Rules` (a preset name or a dict of options too; anything else refused
    by name, not met later as an ``AttributeError``)."""
    return resolve_rules(rules)


def _check_banker_rule(rules: Rules, banker_rule: object) -> BankerRule:
    """``banker_rule``, or the rules' default for None; anything else refused by name (an ``int``
    such as 17 would otherwise fail deep in the DP as an ``AttributeError``)."""
    if banker_rule is None:
        return default_banker_rule(rules)
    if not isinstance(banker_rule, BankerRule):
        raise TypeError(f"banker_rule: expected a BankerRule (or None for the rules' default), got {banker_rule!r}")
    return banker_rule


def _check_stake(rules: Rules, stake: object) -> int:
    """The initial stake in chips: ``rules.min_stake`` for None, else an integer in the rules' range
    (0 would divide by zero, 2.5 or 11 would value a stake the game never takes)."""
    return rules.min_stake if stake is None else require_int("stake", stake, rules.min_stake, rules.max_stake)


def _check_policy_fn(name: str, policy: object, *, solution: bool = False) -> PolicyFn:
    """A player policy over :class:`Decision`: a callable (or, with ``solution``, a
    :class:`Solution`, played by its optimal policy); anything else refused by name rather than
    met at the first decision (None would otherwise evaluate the optimal policy instead)."""
    if solution and isinstance(policy, Solution):
        return policy.as_policy()
    if isinstance(policy, Solution):
        raise TypeError(f"{name}: expected a PolicyFn (a callable on a Decision), got a Solution: "
                        "pass solution.as_policy()")
    if not callable(policy) or isinstance(policy, type):
        expected = "a PolicyFn (a callable on a Decision returning one of its legal moves)"
        if solution:
            expected += ", a Solution, or None for the optimal policy"
        raise TypeError(f"{name}: expected {expected}, got {policy!r} ({type(policy).__name__})")
    return policy  # type: ignore[return-value]


@dataclass
class Solution:
    """The optimal player policy against a fixed banker rule, and its EVs.

    ``ev`` is the EV per initial stake unit at ``stake`` chips; ``first_card_ev`` the same per value of
    the first card (1 = ace .. 10 = ten-value). ``ev_stake_choice`` is the expected chips per round
    when the player stakes ``min_stake`` or ``max_stake`` by ``stake_choice`` (chosen on the first
    card, or before the deal where stakes come first), and ``mean_stake`` the expected initial
    stake in chips under that choice.
    """

    rules: Rules
    banker_rule: BankerRule
    stake: int
    ev: float
    first_card_ev: dict[int, float]
    ev_stake_choice: float
    mean_stake: float
    stake_choice: dict[int, str]
    first_card_ev_by_stake: dict[int, dict[int, float]]
    _solver: _Solver = field(repr=False)

    def action_values(
        self,
        state: HandState,
        *,
        initial_stake: int | None = None,
        pair_value: int = 0,
        hands: int = 1,
        pending_pairs: int = 0,
        banker_doubled: bool = False,
    ) -> dict[str, float]:
        """EV (per initial stake unit) of every legal move at a hand state.

        With ``pair_value`` the hand is a splittable pair, ``hands`` the number of hands held and
        ``pending_pairs`` other unplayed pair hands; the values then also count those pending pairs
        (played optimally), which shifts every move equally. ``initial_stake`` defaults to
        :attr:`stake` (doubled when ``banker_doubled``). A finished hand (21, bust, five cards) gets
        only ``stick``.
        """
        if initial_stake is None:
            initial_stake = self.stake * (2 if banker_doubled else 1)
        initial_stake = require_int("initial_stake", initial_stake, 1)
        if pair_value and not 1 <= pair_value <= 10:
            raise ValueError(f"pair_value: expected a card value 1 (ace) .. 10, or 0 for no pair, got {pair_value!r}")
        dp = self._solver.dp_for(initial_stake, banker_doubled)
        unit = initial_stake / (2 if banker_doubled else 1)  # the stake the player put up
        if dp.terminal(state):
            return {"stick": float(dp.leaf(state)) / unit}  # type: ignore[arg-type]
        if pair_value:
            if state.n_cards != 2:
                raise ValueError("a pair decision needs a two-card hand")
            key: PairKey = ("pair", pair_value, hands, pending_pairs + 1, state.split_hand)
            dp.pair_node(*key[1:])
            return {m: v / unit for m, v in dp.options[key].items()}
        dp.value(state)
        return {m: v / unit for m, v in dp.options[state].items()}

    def best_action(self, state: HandState, **kwargs: int | bool | None) -> tuple[str, float]:
        """The optimal move at ``state`` and its EV (see :meth:`action_values` for the arguments)."""
        values = self.action_values(state, **kwargs)  # type: ignore[arg-type]
        return _best(values, values)

    def decide(self, decision: Decision) -> tuple[str, float]:
        """The policy lookup: the best of ``decision.legal`` and its EV per initial stake unit."""
        values = self.action_values(
            decision.state,
            initial_stake=decision.initial_stake,
            pair_value=decision.pair_value if "split" in decision.legal else 0,
            hands=decision.hands,
            pending_pairs=decision.pending_pairs,
            banker_doubled=decision.banker_doubled,
        )
        return _best(values, decision.legal)

    def as_policy(self) -> PolicyFn:
        """The optimal policy as a :data:`PolicyFn` (for :func:`evaluate_player_policy` and
        :func:`banker_best_response`)."""
        return lambda decision: self.decide(decision)[0]


def _best(values: dict[str, float], allowed: Collection[str]) -> tuple[str, float]:
    """The highest-valued move among ``allowed``, exact ties going to the earlier move of ACTIONS."""
    usable = [m for m in ACTIONS if m in allowed and m in values]
    if not usable:
        raise ValueError(
            f"none of the moves {sorted(allowed)} is available here (values for {sorted(values)})"
        )
    best = max(values[m] for m in usable)
    move = next(m for m in usable if values[m] >= best - _TIE)
    return move, values[move]


def solve(
    rules: Rules | str,
    banker_rule: BankerRule | None = None,
    *,
    stake: int | None = None,
    banker_strategy: BankerStrategy | None = None,
) -> Solution:
    """Solve one player seat against ``banker_rule`` under ``rules`` exactly (infinite deck).

    Args:
        rules: a :class:`Rules` or a preset name (``pagat``, ``casino``, ``pontoon_1939``,
            ``pontoon_2011``, with any options).
        banker_rule: the banker's fixed drawing rule; defaults to :func:`default_banker_rule`.
        stake: the initial stake (chips) ``Solution.ev`` refers to; defaults to ``rules.min_stake``.
        banker_strategy: a banker who draws by what he sees (:data:`BankerStrategy`, e.g. read off
            a trained banker): the solution is then the player's exact best response to it, and
            its EV measures how much that banker can be exploited. The banker's double still
            follows ``banker_rule.double_on``.

    Modelling decisions:

    * Buy amounts are taken at the ends of their range (``buy_min``/``buy_max``): for a fixed
      sequence of moves the EV is linear in each amount and the ranges chain ([initial, previous]),
      so an optimum sits at a vertex where every buy is one of the range ends.
    * Under ``buy_limits='initial'`` the smallest buy is one chip, so the per-unit EV depends on the
      stake; the stake choice compares ``min_stake`` and ``max_stake`` only.
    * Split hands are each dealt their second card at the split (RULES §3); the player sees them all,
      so re-split decisions know how many other pair hands are waiting.
    * The banker's double (1939) doubles the initial stake, and buy limits follow the doubled stake;
      the player sees whether the banker doubled, which tells him about the banker's first card.
    * The casino double doubles the stake and deals one card; the hand may go on hitting.
    * A four-card hand "totalling 11 or less" (2011) uses the best total, as the stick minimum does.
    """
    rules = _as_rules(rules)
    banker_rule = _check_banker_rule(rules, banker_rule)
    stake = _check_stake(rules, stake)
    solver = _Solver(rules, banker_rule, strategy=banker_strategy)
    ev, per_card = solver.ev_per_unit(stake)
    by_stake = {stake: per_card}
    # A strategy may answer the stake it sees (in chips): per-unit EVs no longer scale.
    sensitive = _stake_sensitive(rules) or banker_strategy is not None
    for s in (rules.min_stake, rules.max_stake):
        if s not in by_stake:
            by_stake[s] = solver.ev_per_unit(s)[1] if sensitive else per_card
    low, high = rules.min_stake, rules.max_stake
    choice: dict[int, str] = {}
    chips = 0.0
    mean = 0.0
    if rules.stake_before_deal or rules.fixed_stake:
        evs = {s: sum(P_VALUE[v] * by_stake[s][v] for v in VALUES) for s in (low, high)}
        pick = high if not rules.fixed_stake and high * evs[high] > low * evs[low] else low
        choice = {v: "stake_max" if pick == high and high != low else "stake_min" for v in VALUES}
        chips, mean = pick * evs[pick], float(pick)
    else:
        for v in VALUES:
            use_high = high * by_stake[high][v] > low * by_stake[low][v]
            s = high if use_high else low
            choice[v] = "stake_max" if use_high else "stake_min"
            chips += P_VALUE[v] * s * by_stake[s][v]
            mean += P_VALUE[v] * s
    return Solution(rules, banker_rule, stake, ev, per_card, chips, mean, choice, by_stake, solver)


def evaluate_player_policy(
    rules: Rules | str,
    banker_rule: BankerRule | None,
    policy_fn: PolicyFn,
    *,
    stake: int | None = None,
    banker_strategy: BankerStrategy | None = None,
    stake_choice: Mapping[int, int] | None = None,
) -> float:
    """The exact EV per initial stake unit of a fixed player policy (same DP, no max).

    ``policy_fn`` is called once per distinct :class:`Decision` and must return one of its
    ``legal`` moves. ``stake``: the initial stake in chips (default ``rules.min_stake``).
    ``banker_strategy``: against a banker who draws by what he sees (see :func:`solve`).
    ``stake_choice``: the initial stake in chips for each first-card value (1 = ace .. 10), as a
    player who stakes by his first card does; the EV is then chips per round / ``min_stake``.
    """
    rules = _as_rules(rules)
    banker_rule = _check_banker_rule(rules, banker_rule)
    policy_fn = _check_policy_fn("policy_fn", policy_fn)
    stake = _check_stake(rules, stake)
    choice = None if stake_choice is None else _check_stake_choice(rules, stake_choice)
    solver = _Solver(rules, banker_rule, policy_fn, banker_strategy)
    if choice is not None:
        return sum(P_VALUE[v] * solver.first_card_chips(choice[v], v) for v in VALUES) / rules.min_stake
    return solver.ev_per_unit(stake)[0]


def _check_stake_choice(rules: Rules, stake_choice: Mapping[int, int]) -> dict[int, int]:
    """A stake for every first-card value, each a whole number of chips (not a bool) within the
    rules' stake range: 2.5 would be truncated, True taken as one chip."""
    if not isinstance(stake_choice, Mapping):
        raise TypeError("stake_choice: expected a mapping of first-card value (1..10) to stake, "
                        f"got {type(stake_choice).__name__}")
    missing = [value for value in VALUES if value not in stake_choice]
    if missing:
        raise ValueError(f"stake_choice: expected a stake for every first-card value 1..10, missing {missing}")
    checked = {
        value: require_int(f"stake_choice[{value}]", chips, rules.min_stake, rules.max_stake)
        for value, chips in stake_choice.items()
    }
    return {value: checked[value] for value in VALUES}


def threshold_policy(stick_at: int) -> PolicyFn:
    """Stick at a best total of ``stick_at`` or more (when sticking is legal), else twist; never
    buy, split or double."""
    stick_at = require_int("stick_at", stick_at, 0, 22)  # '16' failed at the first decision, 16.5 was taken

    def policy(d: Decision) -> str:
        return "stick" if "stick" in d.legal and d.total >= stick_at else "twist"

    policy.__name__ = f"stick_at_{stick_at}"
    return policy


# --------------------------------------------------------------------------------------------------
# The banker's best response
# --------------------------------------------------------------------------------------------------


@dataclass
class BankerResponse:
    """The banker's optimal drawing rule against a fixed player policy, and its EVs.

    ``banker_ev`` is the banker's EV per initial stake unit under the best response,
    ``fixed_rule_banker_ev`` his EV with the fixed :attr:`banker_rule` against the same player policy
    (so ``banker_ev >= fixed_rule_banker_ev``). ``draws`` tells the response's move.
    """

    rules: Rules
    banker_rule: BankerRule
    stake: int
    banker_ev: float
    fixed_rule_banker_ev: float
    signals: tuple[tuple[bool, Signal], ...]
    """Every (banker doubled, signal) the banker can meet with a hand still standing."""
    _draws: dict[tuple[bool, Signal, int, bool, int], bool] = field(repr=False)

    @property
    def player_ev(self) -> float:
        """The player's EV per initial stake unit against the best response."""
        return -self.banker_ev

    def draws(
        self, signal: Signal, total: int, soft: bool, n_cards: int, banker_doubled: bool = False
    ) -> bool:
        """Whether the best-responding banker draws on his ``(total, soft, n_cards)`` given ``signal``.

        Raises KeyError for a (signal, hand) the response never meets (no standing hand shows that
        signal, or the banker hand is finished or unreachable).
        """
        return self._draws[(banker_doubled, signal, total, soft, n_cards)]

    def chart(self, signal: Signal, banker_doubled: bool = False) -> str:
        """Text grid of the response for one signal: rows = banker totals, columns = cards 2..4."""
        lines = [f"banker response to {signal} (D draw, s stand, . n/a)", "total   2 3 4"]
        for soft in (False, True):
            for total in range(4 if not soft else 12, 21):
                cells = []
                for n in (2, 3, 4):
                    key = (banker_doubled, signal, total, soft, n)
                    cells.append("." if key not in self._draws else "D" if self._draws[key] else "s")
                lines.append(f"{'soft' if soft else 'hard'} {total:2d} " + " ".join(cells))
        return "\n".join(lines)


def banker_best_response(
    rules: Rules | str,
    banker_rule: BankerRule | None = None,
    policy: PolicyFn | Solution | None = None,
    *,
    stake: int | None = None,
    stake_choice: Mapping[int, int] | None = None,
) -> BankerResponse:
    """The banker's best drawing rule against a fixed player policy.

    The banker sees his own hand (total, softness, number of cards) and, of the player, the
    :class:`Signal` of his standing hand(s): card count, stake and whether it is a declared pontoon
    (for a split, only that the player split). Where the rules have the banker's double, the
    double itself stays ``banker_rule.double_on`` and the response is computed for each branch.

    ``policy``: a :data:`PolicyFn`, a :class:`Solution`, or None for the player's optimal policy
    against ``banker_rule`` (the player does not re-optimise against the response).
    ``stake_choice``: the player's initial stake for each first-card value (a player who stakes by
    his first card, as ``threshold`` does); the banker sees the stake, so the response differs by
    it, and the EVs are chips per round / ``min_stake`` (``stake`` is then ``min_stake``).
    """
    rules = _as_rules(rules)
    banker_rule = _check_banker_rule(rules, banker_rule)
    if policy is not None:
        policy = _check_policy_fn("policy", policy, solution=True)
    stake = _check_stake(rules, stake)
    if stake_choice is not None:
        choice = _check_stake_choice(rules, stake_choice)
        stake = rules.min_stake
    else:
        choice = dict.fromkeys(VALUES, stake)
    if policy is None:
        policy = solve(rules, banker_rule, stake=stake)
    policy_fn = policy.as_policy() if isinstance(policy, Solution) else policy
    solver = _Solver(rules, banker_rule, policy_fn)
    model = solver.model

    banker_chips = 0.0
    fixed_chips = 0.0
    draws: dict[tuple[bool, Signal, int, bool, int], bool] = {}
    signals: list[tuple[bool, Signal]] = []
    # The deal's branches (banker's double) are the same at every stake: pair them up by position.
    branches = zip(*(solver.dps(chips) for chips in sorted(set(choice.values()))))
    by_stake = {chips: index for index, chips in enumerate(sorted(set(choice.values())))}
    for branch in branches:
        ctx = branch[0][0]
        play = ctx.prob - ctx.natural_prob
        measure = _Measure()
        for first in VALUES:
            dp_ctx, dp = branch[by_stake[choice[first]]]
            dp.first_card(first)  # record the policy's moves
            part = _SeatDP(model, dp_ctx, follow=dp).first_card(first)
            measure = measure + part.scaled(P_VALUE[first])  # type: ignore[union-attr]
            banker_chips -= _deal_const(model, dp_ctx, first) * P_VALUE[first]
            fixed_chips -= _deal_const(model, dp_ctx, first) * P_VALUE[first]
        banker_chips -= play * measure.const
        fixed_chips -= play * measure.const
        for signal, vec in measure.parts.items():
            value, table = _banker_dp(model, ctx.banker_start, -vec)
            banker_chips += play * value
            fixed_chips += play * float(-vec @ ctx.banker_probs)
            signals.append((ctx.banker_doubled, signal))
            for (total, soft, n), move in table.items():
                draws[(ctx.banker_doubled, signal, total, soft, n)] = move
    return BankerResponse(
        rules, banker_rule, stake, banker_chips / stake, fixed_chips / stake, tuple(signals), draws
    )


def _banker_dp(
    model: _Model, start: dict[tuple[int, bool], float], reward: np.ndarray
) -> tuple[float, dict[tuple[int, bool, int], bool]]:
    """Maximise the banker's expected ``reward`` (a vector over his final hands) by drawing or
    standing on (total, soft, n); returns the value from ``start`` and the draw table."""
    memo: dict[tuple[int, bool, int], float] = {}
    table: dict[tuple[int, bool, int], bool] = {}

    def value(total: int, soft: bool, n: int) -> float:
        key = (total, soft, n)
        if key in memo:
            return memo[key]
        stand = float(reward[model.banker_index[model.banker_result(total, soft, n)]])
        if model.banker_stops(total, n):
            memo[key] = stand
            return stand
        draw = sum(P_VALUE[v] * value(*_add(total, soft, v), n + 1) for v in VALUES)
        table[key] = draw > stand + _TIE
        memo[key] = max(stand, draw)
        return memo[key]

    return sum(p * value(total, soft, 2) for (total, soft), p in start.items()), table


def banker_outcomes(rules: Rules | str, banker_rule: BankerRule | None = None) -> dict[HandResult, float]:
    """Distribution of the banker's final hand under his fixed rule, from a fresh deal (naturals
    included, no conditioning): useful for checks and charts."""
    rules = _as_rules(rules)
    model = _Model(rules, _check_banker_rule(rules, banker_rule))
    probs = model.banker_final(model.banker_start(VALUES, exclude_natural=False))
    return {b: float(p) for b, p in zip(model.banker_list, probs, strict=True) if p > 0}


# --------------------------------------------------------------------------------------------------
# Scripted use and charts
# --------------------------------------------------------------------------------------------------


def _is_pair(rules: Rules, cards: Sequence[int]) -> bool:
    return len(cards) == 2 and legality.pair_splits(CARD_RANK[cards[0]], CARD_RANK[cards[1]], rules)


def _is_card_code(card: object) -> bool:
    """Whether ``card`` is a card code of one deck, 0..51 (an integer, not a bool)."""
    return isinstance(card, (int, np.integer)) and not isinstance(card, bool) and 0 <= card < CARDS_PER_DECK


def scripted_move(
    solution: Solution,
    cards: Sequence[int],
    twisted: bool,
    last_buy: int,
    initial_stake: int,
    hands: int,
    legal: Collection[str],
    *,
    stake: int | None = None,
    doubled: bool = False,
    split_hand: bool | None = None,
    pending_pairs: int = 0,
    banker_doubled: bool = False,
) -> str:
    """The solved policy's move for a hand of card codes, among the ``legal`` symbolic moves.

    Args:
        cards: the hand's card codes.
        twisted: the hand has twisted (no more buying).
        last_buy: chips of the hand's previous buy, 0 if none.
        initial_stake: the initial stake in chips (as on the table, i.e. doubled after a banker's double).
        hands: hands the player holds (1 before any split).
        legal: legal moves among ``stick, twist, buy_min, buy_max, double, split``.
        stake: the hand's current stake in chips. Pass it when the hand has bought: if omitted it is
            taken as ``initial_stake`` plus ``last_buy`` (exact for at most one buy).
        doubled: the casino double was used on this hand.
        split_hand: the hand comes from a split (default: ``hands > 1``).
        pending_pairs: other unplayed split hands that are pairs too.
        banker_doubled: the banker doubled (1939).

    Returns the legal move with the highest EV (ties to the simpler move).
    """
    if not isinstance(solution, Solution):  # a preset name failed as "'str' object has no attribute 'rules'"
        raise TypeError(f"solution: expected a Solution from solve(), got {type(solution).__name__}")
    # The flags are checked as bools (the string 'no' is truthy and changed the move), the counts
    # as integers. One test of plain values first: an optimal seat asks at every decision.
    plain = (type(twisted) is bool and type(doubled) is bool and type(banker_doubled) is bool
             and (split_hand is None or type(split_hand) is bool) and type(hands) is int and hands >= 1
             and type(initial_stake) is int and initial_stake >= 1 and type(last_buy) is int and last_buy >= 0
             and type(pending_pairs) is int and pending_pairs >= 0
             and (stake is None or (type(stake) is int and stake >= 1)))
    if not plain:  # numpy values are converted; anything else is refused by name
        twisted, doubled, banker_doubled = (require_bool(name, value) for name, value in (
            ("twisted", twisted), ("doubled", doubled), ("banker_doubled", banker_doubled)))
        if split_hand is not None:
            split_hand = require_bool("split_hand", split_hand)
        hands = require_int("hands", hands, 1)
        initial_stake = require_int("initial_stake", initial_stake, 1)
        last_buy = require_int("last_buy", last_buy, 0)
        pending_pairs = require_int("pending_pairs", pending_pairs, 0)
        if stake is not None:
            stake = require_int("stake", stake, 1)
    if isinstance(cards, (str, bytes)) or not isinstance(cards, Sequence):
        raise ValueError(f"cards: expected the hand's card codes (integers 0..51), got {cards!r}")
    if not legal:
        raise ValueError("no legal moves")
    unknown = sorted(set(legal) - set(ACTIONS))
    if unknown:  # an unknown name could come back as the move (the fallback returns a legal one)
        raise ValueError(f"legal: expected moves among {list(ACTIONS)}, got {unknown}")
    if not cards or not all(_is_card_code(card) for card in cards):
        raise ValueError(f"cards: expected the hand's card codes (integers 0..51), got {list(cards)!r}")
    rules = solution.rules
    total, soft = hand_total(cards)
    split_hand = hands > 1 if split_hand is None else split_hand
    if stake is None:
        stake = initial_stake + last_buy
    state = HandState(total, soft, len(cards), twisted, stake, last_buy, doubled, split_hand)
    pair_value = 0
    if "split" in legal and _is_pair(rules, cards):
        pair_value = CARD_VALUE[cards[0]]
    values = solution.action_values(
        state,
        initial_stake=initial_stake,
        pair_value=pair_value,
        hands=hands,
        pending_pairs=pending_pairs,
        banker_doubled=banker_doubled,
    )
    if not any(m in values for m in legal):  # e.g. a finished hand offered only a move the DP lacks
        return next(iter(legal))
    return _best(values, legal)[0]


def scripted_stake(solution: Solution, first_card: int | None = None) -> StakeMove:
    """``stake_max`` or ``stake_min`` for the first card (a code; None where stakes precede the deal)."""
    if first_card is None:
        return "stake_max" if all(c == "stake_max" for c in solution.stake_choice.values()) else "stake_min"
    if not _is_card_code(first_card):
        raise ValueError(f"first_card: expected a card code 0..51 or None, got {first_card!r}")
    return solution.stake_choice[CARD_VALUE[first_card]]  # type: ignore[return-value]


def strategy_chart(
    solution: Solution,
    *,
    after: Literal["buy_max", "buy_min", "twist"] = "buy_max",
    split_hand: bool = False,
    banker_doubled: bool = False,
) -> str:
    """A text chart of the optimal move: rows = hard and soft totals and pairs, columns = cards 2..4.

    Hands of 3 or 4 cards are assumed to have drawn every card after the second by ``after``
    (``buy_max``: each buy at the maximum, ``buy_min``: at the minimum, ``twist``); under rules
    without buying the cards were simply twisted. Letters: S stick, T twist, B buy max, b buy min,
    D double, P split, ``.`` no such hand (or no decision).
    """
    if after not in ("buy_max", "buy_min", "twist"):
        raise ValueError(f"after: expected 'buy_max', 'buy_min' or 'twist', got {after!r}")
    rules = solution.rules
    s = solution.stake * (2 if banker_doubled else 1)
    dp = solution._solver.dp_for(s, banker_doubled)

    def state_for(total: int, soft: bool, n: int) -> HandState:
        if n == 2 or not rules.allow_buy or after == "twist":
            return HandState(total, soft, n, n > 2 and rules.allow_buy, s, 0, False, split_hand)
        stake, last = s, 0
        for _ in range(n - 2):
            low, high = dp.buy_range(HandState(total, soft, n, stake=stake, last_buy=last))
            last = high if after == "buy_max" else low
            stake += last
        return HandState(total, soft, n, False, stake, last, False, split_hand)

    header = (
        f"{rules.preset} vs banker stand_on={solution.banker_rule.stand_on}"
        f"{' hit soft' if solution.banker_rule.hit_soft else ''}, EV {solution.ev:+.4f}/unit"
        f"{', split hand' if split_hand else ''}{', banker doubled' if banker_doubled else ''}; "
        f"cards 3-4 after {after if rules.allow_buy else 'twist'}"
    )
    lines = [header, "          2  3  4"]
    for soft in (False, True):
        for total in range(12 if soft else 4, 21):
            cells = []
            for n in (2, 3, 4):
                if representative_values(total, soft, n) is None:
                    cells.append(".")
                    continue
                state = state_for(total, soft, n)
                cells.append(_LETTER[solution.best_action(state, banker_doubled=banker_doubled)[0]])
            lines.append(f"{'soft' if soft else 'hard'} {total:2d}   " + "  ".join(cells))
    model = solution._solver.model
    for value in VALUES:
        if not model.can_split(value):
            continue
        name = "A" if value == 1 else str(value)
        state = dp.pair_state(value, split_hand)
        move = solution.best_action(
            state, pair_value=value, hands=2 if split_hand else 1, banker_doubled=banker_doubled
        )[0]
        lines.append(f"pair {name:>2},{name:<2} {_LETTER[move]}")
    return "\n".join(lines)
