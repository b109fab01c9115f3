"""The table engine: one banker, 1–9 players, every step of every preset of docs/rules.md.

:class:`PontoonGame` is a state machine in the OpenSpiel mould. The static rules live in
:class:`~pontoon_env.game.rules.Rules`; this module holds the state and its transitions; what each seat
may see is :mod:`pontoon_env.game.observation`. At every decision point the game says whose turn it is
(:attr:`PontoonGame.current_seat`), which decision it is (:attr:`PontoonGame.phase`) and which
actions are legal with their amounts (:meth:`PontoonGame.legal_actions`); :meth:`PontoonGame.apply`
applies one. Cards come only from the :class:`~pontoon_env.game.cards.Pack`, the round's single source of
chance, which a test can stack with a scripted order::

    >>> from pontoon_env import PontoonGame, Action, ActionKind, make_rules
    >>> game = PontoonGame(make_rules("pagat"), num_players=1, seed=0, banker=0)
    >>> game.new_round(deck=["9S", "7H", "KD", "8C"])  # player 9, banker 7; then K and 8
    >>> game.apply(Action(ActionKind.STAKE, 2)); game.apply(Action(ActionKind.STICK))

Chips only move through :meth:`PontoonGame._pay`, which records every transfer in the
:class:`~pontoon_env.game.ledger.Ledger`, so chips are conserved by construction, every movement has
a reason, and a seat's result is the ledger's (:meth:`PontoonGame.seat_result`). Which moves a hand
has comes from :mod:`pontoon_env.game.legality`; this module only sequences the round.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Union

import numpy as np

from pontoon_env.game import legality
from pontoon_env.game.actions import AMOUNT_KINDS, Action, ActionKind, IllegalActionError, LegalAction, Phase
from pontoon_env.game.cards import CARD_RANK, CARD_VALUE, CARDS_PER_DECK, DeckError, Pack, card_name, parse_cards
from pontoon_env.game.hands import (
    BLACKJACK,
    MAX_DRAWING_PIPS,
    TOTALS_BY_PIPS,
    HandClass,
    HandResult,
    HandStat,
    is_natural,
    values_total,
)
from pontoon_env.game.ledger import KITTY, POOL, Ledger, Party, Transfer
from pontoon_env.game.checks import require_int
from pontoon_env.game.rules import Rules, RulesSpec, resolve_rules
from pontoon_env.game.settlement import banker_natural_at_deal, standing_hand_payout

__all__ = ["KITTY", "MAX_PLAYERS", "POOL", "Hand", "Party", "PlayerState", "PontoonGame", "Transfer"]

MAX_PLAYERS = 9
BANK_PRICE_STAKES = 20
"""The largest reserve or bid for the bank, in maximum stakes (§9b: discrete bids)."""

# Enum members read through their class go through EnumType.__getattr__'s slot (about 5x a module
# global on Python 3.11); the per-decision paths below read these aliases instead.
_PLAYER_TURN, _BANKER_TURN, _ROUND_OVER = Phase.PLAYER_TURN, Phase.BANKER_TURN, Phase.ROUND_OVER
_STAKE, _TAKE_BANK, _BANK_BID = Phase.STAKE, Phase.TAKE_BANK, Phase.BANK_BID
_PLAYER_SEAT_PHASES = frozenset({Phase.STAKE, Phase.SHOOT_BET, Phase.PLAYER_TURN})
_BANKER_SEAT_PHASES = frozenset({Phase.BANK_SALE, Phase.KITTY, Phase.BANKER_DOUBLE, Phase.BANKER_TURN})
_STICK, _TWIST, _BUY, _DOUBLE, _SPLIT, _SHOOT = (
    ActionKind.STICK,
    ActionKind.TWIST,
    ActionKind.BUY,
    ActionKind.DOUBLE,
    ActionKind.SPLIT,
    ActionKind.SHOOT,
)
_DRAW, _STAND, _STAKE_KIND = ActionKind.DRAW, ActionKind.STAND, ActionKind.STAKE
_make = tuple.__new__
"""Builds a named tuple from one plain tuple, skipping its Python-level ``__new__`` (hot paths)."""


@dataclass(slots=True)
class Hand:
    """One hand on the table, a player's or the banker's."""

    cards: list[int]
    public: list[bool]
    """Per card: dealt or turned face up, so every seat has seen it."""
    stake: int = 0
    initial: int = 0
    split: bool = False
    last_buy: int = 0
    buys: int = 0
    twisted: bool = False
    doubled: bool = False
    shoot: int = 0
    fourth_shoot: bool = False
    own_shoot: bool = False
    done: bool = False
    bust: bool = False
    settled: bool = False
    """Paid or collected already (bust, a natural paid at the deal, the banker's natural)."""
    declared: bool = False
    """A natural laid down: publicly known to be a pontoon."""
    returned: bool = False
    """Its cards already went back to the pack (a bust)."""
    payout: int = 0
    """Net chips this hand won (+) or lost (-) for its player."""
    pips: int = field(default=0, init=False)
    """Sum of the card values with aces as 1, kept up to date as cards come and go."""
    has_ace: bool = field(default=False, init=False)
    best_total: int = field(default=0, init=False)
    """The best total (:func:`~pontoon_env.game.hands.values_total` of the pips), kept up to date on
    every card so that the many reads of a hand's total per decision cost an attribute read."""
    soft: bool = field(default=False, init=False)
    """An ace counts 11 in :attr:`best_total`."""

    def __post_init__(self) -> None:
        if self.cards:  # every round starts its hands empty, where the defaults are right
            self._recount()

    def _recount(self) -> None:
        """Pip count and total from the cards (a hand built with cards, or one that lost a card)."""
        self.pips = sum(CARD_VALUE[card] for card in self.cards)
        self.has_ace = any(CARD_VALUE[card] == 1 for card in self.cards)
        self.best_total, self.soft = values_total(self.pips, self.has_ace)

    def add(self, card: int, face_up: bool) -> None:
        """Add a card (the only way cards enter a hand, so the pip count and total stay right)."""
        self.cards.append(card)
        self.public.append(face_up)
        value = CARD_VALUE[card]
        self.pips += value
        if value == 1:
            self.has_ace = True
        pips = self.pips
        if pips <= MAX_DRAWING_PIPS:  # always, in play: a table read instead of a call per card
            self.best_total, self.soft = TOTALS_BY_PIPS[self.has_ace][pips]
        else:
            self.best_total, self.soft = values_total(pips, self.has_ace)

    def remove_last(self) -> tuple[int, bool]:
        """Take the last card out (to split a pair); returns the card and whether it was face up."""
        card = self.cards.pop()
        public = self.public.pop()
        self._recount()
        return card, public

    def total_soft(self) -> tuple[int, bool]:
        """Best total and whether an ace counts 11 (see :func:`pontoon_env.game.hands.values_total`)."""
        return self.best_total, self.soft

    def total(self) -> int:
        return self.best_total

    def stat(self) -> HandStat:
        """The hand's :class:`~pontoon_env.game.hands.HandStat`, what the rules of play look at."""
        return _make(
            HandStat,
            (
                self.best_total,
                self.soft,
                len(self.cards),
                self.split,
                self.twisted,
                self.buys,
                self.last_buy,
                self.doubled,
                self.initial,
                self.stake,
            ),
        )


@dataclass(slots=True)
class PlayerState:
    """A player's place in the round."""

    seat: int
    hands: list[Hand] = field(default_factory=list)
    active: int = 0
    sitting_out: bool = False


@dataclass(frozen=True)
class HandRecord:
    """A settled hand, for the round's report."""

    seat: int
    hand: int
    cards: tuple[str, ...]
    hand_class: str
    total: int
    stake: int
    shoot: int
    payout: int


class PontoonGame:
    """A Pontoon table that plays round after round under one rule set.

    Args:
        rules: the rule set (a :class:`Rules`, or a preset name).
        num_players: player seats besides the banker, 1–9. More than 7 players with a one-deck
            preset play with two decks (D18).
        seed: seed of the game's :class:`numpy.random.Generator` (ignored when ``rng`` is given).
        rng: a generator to use instead.
        banker: seat of the first banker; ``None`` draws one as the preset says, seeded.
    """

    def __init__(
        self,
        rules: RulesSpec,
        num_players: int,
        seed: int | None = None,
        *,
        rng: np.random.Generator | None = None,
        banker: int | None = None,
    ) -> None:
        rules = resolve_rules(rules)
        num_players = require_int("num_players", num_players, 1, MAX_PLAYERS)
        if num_players > 7 and rules.decks == 1:
            rules = rules.replace(decks=2)
        self.rules = rules
        self.num_seats = num_players + 1
        self.rng = _generator(seed, rng)
        self.pack = Pack(rules.decks, self.rng)
        self.balances = [rules.bankroll] * self.num_seats
        self.kitty = 0
        self.pool = 0
        self.seen = [0] * 13
        """Rank counts of cards shown face up since the last shuffle."""
        self._fresh = len(self.pack)
        """Cards still in the pack that were there at the last shuffle (see :meth:`_restart_seen`)."""
        self.dealer_rounds = 0
        """Rounds the current banker has dealt (misericorde and the brûlet look at the first)."""
        self.round_index = 0
        self.take_over_candidates: list[int] = []
        if banker is None:
            banker = self._draw_first_banker()
        else:
            banker = require_int("banker", banker, 0, self.num_seats - 1)
        self.banker = banker
        self.ledger = Ledger()
        self.players: list[PlayerState] = []
        self._seated: list[PlayerState] = []
        """The round's players who are not sitting out (see :meth:`_active_players`)."""
        self.banker_hands: list[Hand] = []
        self.phase = Phase.ROUND_OVER
        self._to_act = -1
        """The seat that decides now, fixed whenever the round stops at a decision (see :meth:`_run`)."""
        self._moves_cache: dict[object, tuple[LegalAction, ...]] = {}
        """Legal hand moves by (hand statistic, context): :mod:`legality` is pure in them."""
        self._player_results: dict[tuple[int, int, bool], HandResult] = {}
        self._banker_results: dict[tuple[int, int, bool], HandResult] = {}
        """Classes of hands by (best total, cards, split), all that a class depends on (the arguments
        of :func:`~pontoon_env.game.hands.classify_stat` besides the rules): settlement classifies
        every hand of every round, and a few hundred keys cover every hand there is."""
        self._steps: list[Callable[[PontoonGame], bool]] = []
        self._steps_cache: tuple[tuple[bool, Rules], list[Callable[[PontoonGame], bool]]] | None = None
        self._legal: list[LegalAction] | None = None
        """Legal actions at the current decision, computed once (policies ask, then apply)."""
        self._step = 0
        self._turn = 0
        self._round_started = False
        self._stacked: tuple[list[int], list[int]] | None = None
        self.banker_seat_of_round = banker
        self._banker_active = 0
        self._banker_looked = 0
        self._shoot_out = 0
        self._stakes_doubled = False

    @property
    def active_hand_index(self) -> int:
        """Index of the hand being played now (a player's split hand or a dealer's hand)."""
        phase = self.phase
        if phase == _PLAYER_TURN:
            return self.players[self._turn].active
        if phase == _BANKER_TURN:
            return self._banker_active
        return 0

    @property
    def banker_cards_known_to_banker(self) -> int:
        """How many of his own cards the banker has looked at (rules differ on when he may)."""
        return self._banker_looked

    @property
    def shoot_room(self) -> int:
        """Chips still open for shoot bets: the kitty less the shoot bets outstanding."""
        return max(0, self.kitty - self._shoot_out)

    @property
    def stakes_doubled(self) -> bool:
        """The banker doubled every stake this round (1850, 1939)."""
        return self._stakes_doubled

    # ------------------------------------------------------------------ public API

    @property
    def total_chips(self) -> int:
        """All chips at the table: seats, kitty and pool (constant while chips are conserved)."""
        return sum(self.balances) + self.kitty + self.pool

    @property
    def is_round_over(self) -> bool:
        return self.phase == _ROUND_OVER

    @property
    def current_seat(self) -> int:
        """The seat that decides now (``-1`` when the round is over)."""
        return self._to_act

    def _seat_to_act(self) -> int:
        phase = self.phase
        if phase in _PLAYER_SEAT_PHASES:  # the common case first
            return self.players[self._turn].seat
        if phase == _ROUND_OVER:
            return -1
        if phase in _BANKER_SEAT_PHASES:
            return self.banker
        if phase == _TAKE_BANK:
            return self.take_over_candidates[0]
        if phase == _BANK_BID:
            return self._bidders[self._turn]
        return self.players[self._turn].seat

    def player_order(self) -> list[int]:
        """Player seats in turn order, from the banker's left."""
        return [*range(self.banker + 1, self.num_seats), *range(self.banker)]  # round the table

    def new_round(self, deck: Sequence[str | int] | None = None, bottom: Sequence[str | int] = ()) -> None:
        """Start the next round and play it up to the first decision.

        Args:
            deck: cards from the top of the pack in dealing order (first card to each player from
                the banker's left, then the banker, then second cards, then draws as they happen).
                Cards not listed follow in shuffled order.
            bottom: cards to put at the bottom of the pack (the brûlet looks at the bottom card).
                Where a brûlet is checked before the deal (``vingt_un_1850``, a new dealer's first
                round), ``deck``'s first card is the brûlet's top card (E31): dealt when it makes no
                natural with the bottom card, burned with it otherwise, when the deal starts at
                ``deck``'s second card. Give ``bottom`` to decide which.

        Raises:
            DeckError: a malformed deck (unknown card, more copies than the decks hold).
            RuntimeError: the previous round is not over.
        """
        if self.phase != _ROUND_OVER:
            raise RuntimeError(f"new_round: the current round is still in phase {self.phase.name}")
        if bottom is None:
            bottom = ()
        stacked = None
        if deck is not None or len(bottom):  # len(): a numpy array has no truth value
            top = parse_cards(() if deck is None else deck, self.rules.decks, "deck")
            under = parse_cards(bottom, self.rules.decks, "bottom")
            parse_cards(top + under, self.rules.decks, "deck and bottom together")
            self.pack.stack(top, under)
            self.seen = [0] * 13
            self._fresh = len(self.pack)
            stacked = (top, under)
        self._stacked = stacked
        """This round's scripted order until its first card is dealt (a new dealer's shuffle before
        the deal keeps it: the caller asked for these cards in this deal)."""
        self.round_index += 1
        self.ledger = Ledger()
        self.players = []
        self._seated = []
        self.banker_hands = []
        self._round_had_natural = False
        self._natural_holders: list[int] = []
        self._banker_natural = False
        self._shoot_out = 0
        self._stakes_doubled = False
        self._sale_reserve = -1
        self._bids: dict[int, int] = {}
        self._bidders: list[int] = []
        self._banker_looked = 0
        self._asked: set[str] = set()
        # The step list depends only on the rules and on a pending take-over offer: built once
        # per combination (rules are immutable; a caller may swap ``self.rules`` for another).
        key = (bool(self.take_over_candidates), self.rules)
        cached = self._steps_cache
        if cached is None or cached[0][0] != key[0] or cached[0][1] is not key[1]:
            if cached is not None and cached[0][1] is not key[1]:  # new rules: what was cached is void
                self._forget_rules()
            cached = self._steps_cache = (key, [_STEPS[name] for name in self._round_steps()])
        self._steps = cached[1]
        self._legal = None
        self._step = 0
        self._turn = 0
        self._round_started = True
        self.phase = _STAKE  # provisional; _run sets the real phase
        self._run()

    def _forget_rules(self) -> None:
        """Empty the caches of what :mod:`legality` answered under the previous rules."""
        self._moves_cache.clear()
        self._player_results.clear()
        self._banker_results.clear()

    def legal_actions(self) -> list[LegalAction]:
        """The actions the current seat may take now, each with its range of amounts."""
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[LegalAction]:
        phase = self.phase
        if phase == _PLAYER_TURN:
            player = self.players[self._turn]
            return self._player_legal(player, player.hands[player.active])
        if phase == _BANKER_TURN:
            return self._banker_legal(self.banker_hands[self._banker_active])
        if phase == _STAKE:
            seat = self.players[self._turn].seat
            return [LegalAction(ActionKind.STAKE, *legality.stake_range(self.rules, self._free(seat)))]
        if phase == Phase.SHOOT_BET:
            return self._shoot_legal(self.players[self._turn].seat, first=True)
        if phase == Phase.BANKER_DOUBLE:
            return [LegalAction(ActionKind.DOUBLE_STAKES), LegalAction(ActionKind.NO_DOUBLE)]
        if phase == Phase.KITTY:
            return [LegalAction(ActionKind.KITTY, *legality.kitty_range(self.rules, self.kitty))]
        if phase == Phase.BANK_SALE:
            return [LegalAction(ActionKind.KEEP_BANK), LegalAction(ActionKind.SELL_BANK, 0, self._max_price)]
        if phase == Phase.BANK_BID:
            seat = self._bidders[self._turn]
            low = max(self._sale_reserve, max(self._bids.values(), default=-1) + 1, 0)
            high = self._cap(seat, self._max_price)
            legal = [LegalAction(ActionKind.PASS)]
            if low <= high:
                legal.append(LegalAction(ActionKind.BID, low, high))
            return legal
        if phase == Phase.TAKE_BANK:
            return [LegalAction(ActionKind.TAKE_BANK), LegalAction(ActionKind.DECLINE_BANK)]
        return []

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the current seat and play on to the next decision.

        Raises:
            IllegalActionError: the action is not legal now; the state is left unchanged.
            TypeError: ``action`` is not an :class:`Action`.
        """
        if type(action) is not Action and not isinstance(action, Action):
            raise TypeError(f"action: expected a pontoon_env.Action, got {type(action).__name__} {action!r}")
        kind, amount = action
        if type(kind) is not ActionKind:
            try:
                if not _plain_integer(kind):  # a float, a bool or another enum is no action kind
                    raise TypeError(kind)
                kind = ActionKind(kind)
            except (ValueError, TypeError):
                raise IllegalActionError(
                    f"action {tuple(action)!r}: kind must be a pontoon_env.ActionKind "
                    f"(0..{len(ActionKind) - 1}, e.g. ActionKind.STICK), got {kind!r}"
                ) from None
            action = Action(kind, amount)
        if type(amount) is not int:  # the common case is a plain int: check the rest only then
            if not _plain_integer(amount):
                raise IllegalActionError(f"action {action}: amounts are whole chips, got {amount!r}")
            action = Action(kind, int(amount))  # a numpy integer or an int subclass: a plain int kept
            amount = action.amount
        legal = self._legal
        if legal is not None or not self._plainly_legal(kind, amount):
            if legal is None:
                legal = self._legal = self._compute_legal()
            for option in legal:
                if option.kind == kind and option.min_amount <= amount <= option.max_amount:
                    break
            else:
                if self.phase == Phase.ROUND_OVER:
                    raise IllegalActionError(f"action {action}: the round is over; call new_round() first")
                offered = ", ".join(_describe(option) for option in legal)
                raise IllegalActionError(
                    f"action {action} is not legal for seat {self.current_seat} in phase {self.phase.name}: "
                    f"{self._why_illegal(action, legal)}; legal now: {offered}"
                )
        _APPLY[self.phase](self, action)
        self._run()

    def _plainly_legal(self, kind: ActionKind, amount: int) -> bool:
        """True when the action is certainly in :meth:`legal_actions`, from the same predicates of
        :mod:`legality` the list is built from, for the commonest moves (stick, twist, stake, the
        banker's draw and stand). A caller that applies without asking for the list (a policy
        reading the game, a replay) then skips building it; False only means "look at the list",
        which also gives the error message."""
        phase = self.phase
        rules = self.rules
        if phase == _PLAYER_TURN:
            if amount or (kind != _STICK and kind != _TWIST):
                return False
            player = self.players[self._turn]
            hand = player.hands[player.active]
            total, soft = hand.best_total, hand.soft
            if kind == _TWIST:  # legality.twist_denial
                return legality.may_draw(total, soft, len(hand.cards), rules)
            # with the engine's shoot_waiting (see _hand_context)
            return legality.may_stick(total, rules, hand.fourth_shoot and len(hand.cards) == 3)
        if phase == _BANKER_TURN:
            if amount or (kind != _DRAW and kind != _STAND):
                return False
            if rules.dealer_rule != "hit_soft_17":  # legality.banker_moves: stand and draw are both open
                return True
            total, soft = self.banker_hands[self._banker_active].total_soft()
            return kind == (_DRAW if legality.casino_dealer_draws(total, soft) else _STAND)
        if phase == _STAKE and kind == _STAKE_KIND:
            low, high = legality.stake_range(rules, self._free(self.players[self._turn].seat))
            return low <= amount <= high
        return False

    def clone(self) -> PontoonGame:
        """An independent copy of the whole game, generator state included."""
        return copy.deepcopy(self)

    def card_count(self) -> int:
        """Cards in the pack, on the used pile and in hands (always ``52 * decks``)."""
        in_hands = sum(
            len(hand.cards)
            for hand in self._all_hands()
            if not hand.returned
        )
        return len(self.pack) + len(self.pack.discards) + in_hands

    def round_report(self) -> dict[str, object]:
        """The round's settlement: each hand's class, total, stake and payout, the ledger, and every
        seat's result (``"result"``: chips plus owned kitty, D22; ``"kitty"`` and ``"pool"``: how
        much those piles changed).

        It lists every card, face down ones included: it is the umpire's record, not what a seat
        may see (:func:`pontoon_env.game.observation.observe` is).
        """
        hands = [
            HandRecord(
                seat=player.seat,
                hand=index,
                cards=tuple(card_name(card) for card in hand.cards),
                hand_class=self.hand_result(hand).hand_class.name.lower(),
                total=hand.total(),
                stake=hand.stake,
                shoot=hand.shoot,
                payout=hand.payout,
            )
            for player in self.players
            for index, hand in enumerate(player.hands)
        ]
        banker = [
            {
                "cards": [card_name(card) for card in hand.cards],
                "hand_class": self.banker_result(hand).hand_class.name.lower(),
                "total": hand.total(),
            }
            for hand in self.banker_hands
        ]
        return {
            "banker": self.banker_seat_of_round,
            "banker_hands": banker,
            "hands": [record.__dict__ for record in hands],
            "ledger": self.ledger.as_dicts(),
            "result": {str(seat): value for seat, value in enumerate(self.ledger.results(self.num_seats))},
            "kitty": self.ledger.chips(KITTY),
            "pool": self.ledger.chips(POOL),
        }

    def round_counts(self) -> dict[str, list[int]]:
        """Per seat, what the round's hands came to: ``hands`` played, chips ``staked`` (players),
        the ``initial`` stake of the first hand, and how many hands were ``busts``, ``pontoons`` and
        five-card ``tricks`` (the banker's included) — the per-round statistics of an evaluation."""
        seats = self.num_seats
        counts = {name: [0] * seats for name in ("hands", "staked", "initial", "busts", "pontoons", "tricks")}
        classes = [(player.seat, hand, self.hand_result(hand).hand_class) for player in self.players for hand in player.hands]
        banker = self.banker_seat_of_round
        classes += [(banker, hand, self.banker_result(hand).hand_class) for hand in self.banker_hands]
        for seat, hand, hand_class in classes:
            counts["hands"][seat] += 1
            counts["busts"][seat] += hand_class == HandClass.BUST
            counts["pontoons"][seat] += hand_class == HandClass.PONTOON
            counts["tricks"][seat] += hand_class == HandClass.FIVE_CARD_TRICK
        for player in self.players:
            for hand in player.hands:
                counts["staked"][player.seat] += hand.stake
            if player.hands:
                counts["initial"][player.seat] = player.hands[0].initial
        return counts

    def seat_result(self, seat: int) -> int:
        """``seat``'s result in this round: its chip change plus its kitty's (D22), from the ledger."""
        return self.ledger.result(require_int("seat", seat, 0, self.num_seats - 1))

    def hand_result(self, hand: Hand) -> HandResult:
        """Classify a player's hand under these rules."""
        key = (hand.best_total, len(hand.cards), hand.split)
        result = self._player_results.get(key)
        if result is None:
            result = self._player_results[key] = legality.player_result(hand.stat(), self.rules)
        return result

    def banker_result(self, hand: Hand) -> HandResult:
        """Classify a banker's hand (a dealer's split hand never counts as a natural)."""
        key = (hand.best_total, len(hand.cards), hand.split)
        result = self._banker_results.get(key)
        if result is None:
            result = self._banker_results[key] = legality.banker_result(hand.stat(), self.rules)
        return result

    # ------------------------------------------------------------------ the round's steps

    def _round_steps(self) -> list[str]:
        rules = self.rules
        steps = []
        if self.take_over_candidates:
            steps.append("take_bank")
        if rules.bank_sale:
            steps.append("bank_sale")
        steps.append("seat_players")
        if rules.shoot:
            steps.append("kitty")
        if rules.brulet:
            steps.append("brulet")
        if rules.stake_before_deal:
            steps.append("stakes")
        steps.append("deal_first")
        if not rules.stake_before_deal:
            steps.append("stakes")
        if rules.banker_double:
            steps.append("banker_double")
        if rules.shoot:
            steps.append("shoot_bets")
        steps += ["deal_second", "naturals", "player_turns", "reveal_banker", "banker_turn", "settle", "end_round"]
        return steps

    def _run(self) -> None:
        """Run automatic steps until a decision is needed or the round is over."""
        self._legal = None
        steps = self._steps
        last = len(steps)
        index = self._step
        while index < last:
            if not steps[index](self):
                self._to_act = self._seat_to_act()
                return
            index += 1
            self._step = index
            self._turn = 0
        self.phase = _ROUND_OVER
        self._to_act = -1

    def _step_take_bank(self) -> bool:
        if not self.take_over_candidates:
            return True
        self.phase = Phase.TAKE_BANK
        return False

    def _apply_take_bank(self, action: Action) -> None:
        candidate = self.take_over_candidates.pop(0)
        if action.kind == ActionKind.TAKE_BANK:
            self._change_banker(candidate)
            self.take_over_candidates = []

    def _step_bank_sale(self) -> bool:
        if self._sale_reserve == -1:
            self.phase = Phase.BANK_SALE
            return False
        if self._sale_reserve >= 0 and self._turn < len(self._bidders):
            self.phase = Phase.BANK_BID
            return False
        if self._bids:
            buyer = max(self._bids, key=lambda seat: (self._bids[seat], -self._bidders.index(seat)))
            self._pay(buyer, self.banker, self._bids[buyer], "bank_sale")
            self._change_banker(buyer)
        return True

    @property
    def _max_price(self) -> int:
        return BANK_PRICE_STAKES * self.rules.max_stake

    def _apply_bank_sale(self, action: Action) -> None:
        if action.kind == ActionKind.KEEP_BANK:
            self._sale_reserve = -2
        else:
            self._sale_reserve = action.amount
            self._bidders = [seat for seat in self.player_order() if self._cap(seat, self._max_price) >= 0]

    def _apply_bank_bid(self, action: Action) -> None:
        if action.kind == ActionKind.BID:
            self._bids[self._bidders[self._turn]] = action.amount
        self._turn += 1

    def _step_seat_players(self) -> bool:
        self.banker_seat_of_round = self.banker
        min_stake = self.rules.min_stake
        players = []
        for seat in self.player_order():
            sitting_out = self._cap(seat, min_stake) < min_stake
            # positional: matching a dataclass's keywords costs more than the rest of the call
            players.append(PlayerState(seat, [] if sitting_out else [Hand([], [])], 0, sitting_out))
        self.players = players
        self._seated = [player for player in players if not player.sitting_out]
        self.banker_hands = [Hand([], [])]
        self._banker_active = 0
        return True

    def _ask_once(self, phase: Phase) -> bool:
        """Stop once at a one-off decision ``phase``; True when it has been answered."""
        if phase.name in self._asked:
            return True
        self._asked.add(phase.name)
        self.phase = phase
        return False

    def _step_kitty(self) -> bool:
        return self._ask_once(Phase.KITTY)

    def _apply_kitty(self, action: Action) -> None:
        self._pay(self.banker, KITTY, action.amount, "kitty")

    def _step_brulet(self) -> bool:
        if self.dealer_rounds != 0:
            return True
        for player in self._active_players():
            self._pay(player.seat, POOL, self.rules.ante, "brulet_ante")
        if len(self.pack) < 2:
            self._shuffle_and_cut()
        top, bottom = self.pack.cards[0], self.pack.cards[-1]
        if is_natural([top, bottom]):
            self.pack.draw()
            self.pack.remove_bottom()
            self._fresh = min(self._fresh - 1, len(self.pack))
            self.pack.discard([top, bottom])
            self._see(top)
            self._see(bottom)
            self._pay(POOL, self.banker, self.pool, "brulet")
        return True

    def _step_stakes(self) -> bool:
        players = self.players
        seats = len(players)
        turn = self._turn
        while turn < seats:
            player = players[turn]
            if not player.sitting_out and not player.hands[0].initial:
                if not self.rules.fixed_stake:
                    self._turn = turn
                    self.phase = _STAKE
                    return False
                self._set_stake(player.hands[0], self.rules.min_stake)
            turn += 1
        self._turn = turn
        return True

    @staticmethod
    def _set_stake(hand: Hand, stake: int) -> None:
        hand.stake = hand.initial = stake

    def _apply_stake(self, action: Action) -> None:
        self._set_stake(self.players[self._turn].hands[0], action.amount)
        self._turn += 1

    def _step_deal_first(self) -> bool:
        self._stacked = None
        for player in self._active_players():
            self._deal(player.hands[0], face_up=False)
        self._deal(self.banker_hands[0], face_up=False)
        return True

    def _step_banker_double(self) -> bool:
        self._banker_looked = max(self._banker_looked, 1)
        return self._ask_once(Phase.BANKER_DOUBLE)

    def _apply_banker_double(self, action: Action) -> None:
        if action.kind == ActionKind.DOUBLE_STAKES:
            self._stakes_doubled = True
            for player in self._active_players():
                hand = player.hands[0]
                hand.stake *= 2
                hand.initial *= 2

    def _step_shoot_bets(self) -> bool:
        while self._turn < len(self.players):
            player = self.players[self._turn]
            if player.sitting_out or len(self._shoot_legal(player.seat, first=True)) == 1:
                self._turn += 1
                continue
            self.phase = Phase.SHOOT_BET
            return False
        return True

    def _apply_shoot_bet(self, action: Action) -> None:
        if action.kind == ActionKind.SHOOT:
            self._place_shoot(self.players[self._turn].hands[0], action.amount)
        self._turn += 1

    def _step_deal_second(self) -> bool:
        for player in self._active_players():
            self._deal(player.hands[0], face_up=False)
        self._deal(self.banker_hands[0], face_up=False)
        if self.rules.banker_looks == "at_deal":
            self._banker_looked = 2
        return True

    def _step_naturals(self) -> bool:
        rules = self.rules
        banker_hand = self.banker_hands[0]
        self._banker_natural = is_natural(banker_hand.cards)
        naturals = [player for player in self._active_players() if is_natural(player.hands[0].cards)]
        self._natural_holders = [player.seat for player in naturals]
        if naturals or self._banker_natural:
            self._round_had_natural = True
        for player in naturals:
            hand = player.hands[0]
            hand.declared = True
            hand.done = True
            self._reveal(hand, only_first=rules.natural_shown == "ace")

        if rules.natural_paid_by_all and naturals:
            # The first natural in rotation is paid by every other participant; other natural
            # holders (the dealer's natural included) pay nothing (§6, D20).
            winner = naturals[0]
            stake = winner.hands[0].stake
            paid = rules.natural_paid_at_deal * stake
            if not self._banker_natural:
                self._pay(self.banker, winner.seat, paid, "natural")
                winner.hands[0].payout += paid
            # The winner's hand is settled here, so its shoot bet is too: it beat the banker
            # unless he holds a natural as well (then nothing passes between them).
            self._close_shoot(winner.seat, winner.hands[0], None if self._banker_natural else True)
            for player in self._active_players():
                if player is winner:
                    continue
                hand = player.hands[0]
                if is_natural(hand.cards):
                    hand.settled = True
                    self._close_shoot(player.seat, hand, None)  # pays nothing, is paid nothing: a push
                    continue
                self._pay(player.seat, winner.seat, paid, "natural")
                hand.payout -= paid
                winner.hands[0].payout += paid
            winner.hands[0].settled = True
            return True

        if rules.banker_natural_at_deal and self._banker_natural:
            self._reveal(banker_hand)
            banker_hand.done = True
            for player in self._active_players():
                hand = player.hands[0]
                multiple = banker_natural_at_deal(rules, is_natural(hand.cards))
                self._settle_hand(player.seat, hand, multiple * hand.stake, "banker_natural")
                self._close_shoot(player.seat, hand, False)
                hand.done = True
            return True

        if rules.natural_paid_at_deal and not self._banker_natural:
            for player in naturals:
                hand = player.hands[0]
                self._settle_hand(player.seat, hand, rules.natural_paid_at_deal * hand.stake, "natural")
                self._close_shoot(player.seat, hand, True)  # a hand that beats the banker wins its shoot bet (§4)
        return True

    def _step_player_turns(self) -> bool:
        players = self.players
        seats = len(players)
        turn = self._turn
        while turn < seats:
            player = players[turn]
            if not player.sitting_out:
                hands = player.hands  # a split adds hands during the turn: their count is read each time
                while player.active < len(hands):
                    hand = hands[player.active]
                    if not hand.done:
                        if not self._hand_finished(hand):
                            self._turn = turn
                            self.phase = _PLAYER_TURN
                            return False
                        hand.done = True
                    player.active += 1
            turn += 1
        self._turn = turn
        return True

    def _hand_finished(self, hand: Hand) -> bool:
        return not legality.may_draw(hand.best_total, hand.soft, len(hand.cards), self.rules)

    def _apply_player_turn(self, action: Action) -> None:
        player = self.players[self._turn]
        hand = player.hands[player.active]
        kind = action.kind
        if kind == _STICK:
            hand.done = True
        elif kind == _TWIST:
            hand.twisted = True
            self._player_draw(player, hand, face_up=self.rules.twist_face_up)
        elif kind == _BUY:
            hand.stake += action.amount
            hand.last_buy = action.amount
            hand.buys += 1
            self._player_draw(player, hand, face_up=False)
        elif kind == _DOUBLE:
            # The casino double comes with one card, face up ("doubles the bet and deals you a
            # card"); the hand may keep hitting afterwards. Without the card a made hand could
            # double and stand.
            hand.stake *= 2
            hand.doubled = True
            self._player_draw(player, hand, face_up=True)
        elif kind == _SPLIT:
            self._split(player, hand)
        elif kind == _SHOOT:
            if len(hand.cards) == 3:
                hand.fourth_shoot = True
            else:
                hand.own_shoot = True
            self._place_shoot(hand, action.amount)

    def _split(self, player: PlayerState, hand: Hand) -> None:
        moved, moved_public = hand.remove_last()
        new_hand = Hand(
            cards=[moved], public=[True], stake=hand.initial, initial=hand.initial, split=True
        )
        hand.split = True
        # Split cards lie face up; a re-split hand's first card is already showing (count it once).
        if not hand.public[0]:
            hand.public[0] = True
            self._see(hand.cards[0])
        if not moved_public:
            self._see(moved)
        player.hands.insert(player.active + 1, new_hand)
        self._deal(hand, face_up=False)
        self._deal(new_hand, face_up=False)

    def _player_draw(self, player: PlayerState, hand: Hand, face_up: bool) -> None:
        self._deal(hand, face_up=face_up)
        if hand.best_total > BLACKJACK:
            hand.bust = True
            hand.done = True
            if self.rules.reveal_busts:
                self._reveal(hand)
            self._settle_hand(player.seat, hand, -hand.stake, "bust")
            self._close_shoot(player.seat, hand, False)
            hand.returned = True
            if self.rules.pack == "carry_over":
                self.pack.to_bottom(hand.cards)
            else:
                self.pack.discard(hand.cards)

    def _step_reveal_banker(self) -> bool:
        """The banker turns up his cards; with no hand left standing he has nothing to play for."""
        self._reveal_banker()
        self._banker_looked = len(self.banker_hands[0].cards)
        if all(hand.settled for player in self.players for hand in player.hands):
            for hand in self.banker_hands:
                hand.done = True
        return True

    def _step_banker_turn(self) -> bool:
        while self._banker_active < len(self.banker_hands):
            banker_hand = self.banker_hands[self._banker_active]
            if not banker_hand.done and self._banker_finished(banker_hand):
                banker_hand.done = True
            if not banker_hand.done:
                self.phase = _BANKER_TURN
                return False
            self._banker_active += 1
        self._banker_active = len(self.banker_hands) - 1
        return True

    def _banker_finished(self, hand: Hand) -> bool:
        return legality.banker_stops(hand.best_total, len(hand.cards), self.rules)

    def _apply_banker_turn(self, action: Action) -> None:
        hand = self.banker_hands[self._banker_active]
        kind = action.kind
        if kind == _DRAW:
            self._deal(hand, face_up=True)
        elif kind == _STAND:
            hand.done = True
        else:  # BANKER_SPLIT
            moved, _ = hand.remove_last()
            hand.split = True
            new_hand = Hand(cards=[moved], public=[True], split=True)
            self.banker_hands.insert(self._banker_active + 1, new_hand)
            self._deal(hand, face_up=True)
            self._deal(new_hand, face_up=True)

    def _step_settle(self) -> bool:
        rules = self.rules
        banker_results = [self.banker_result(hand) for hand in self.banker_hands]
        for player in self.players:
            for hand in player.hands:
                if hand.settled:
                    continue
                self._reveal(hand)
                result = self.hand_result(hand)
                chips = 0
                for banker_result in banker_results:
                    multiple = standing_hand_payout(rules, result, banker_result)
                    chips += multiple * hand.stake
                    if hand.shoot:  # tested here: the showdown settles every hand of every round
                        self._close_shoot(player.seat, hand, multiple > 0)
                self._settle_hand(player.seat, hand, chips, "settlement")
        return True

    def _step_end_round(self) -> bool:
        rules = self.rules
        # an unsplit hand's natural was dealt, and _step_naturals saw it; a split hand may make one later
        had_pontoon = self._round_had_natural or any(
            hand.split and is_natural(hand.cards) for player in self.players for hand in player.hands
        )
        old_banker = self.banker
        next_banker = self._next_banker()
        hands = self._all_hands()
        used = [card for hand in hands if not hand.returned for card in hand.cards]
        for hand in hands:
            hand.returned = True
        if rules.pack == "carry_over":
            self.pack.to_bottom(used)
        else:
            self.pack.discard(used)
        reshuffle = (
            rules.pack == "fresh_each_round"
            or (had_pontoon and rules.shuffle_after_pontoon)
            or (rules.pack == "cut_card" and len(self.pack) < (1 - rules.cut_card_fraction) * rules.decks * CARDS_PER_DECK)
            or (rules.pack == "deal_on" and next_banker != old_banker)
        )
        if reshuffle:
            self._shuffle_and_cut()
        if next_banker != old_banker:
            if rules.bank_take_over_optional:
                self.take_over_candidates = [next_banker] + [
                    seat for seat in self._pontoon_candidates() if seat != next_banker
                ]
                self.dealer_rounds += 1
            else:
                self._change_banker(next_banker)
        else:
            self.dealer_rounds += 1
        return True

    # ------------------------------------------------------------------ rules helpers

    def _pontoon_candidates(self) -> list[int]:
        """Players who made a (non-split) pontoon that passes the bank, in priority order."""
        if self._banker_natural:
            return []  # D16: the bank does not pass when the banker also had a pontoon
        if not self._round_had_natural:
            return []  # an unsplit pontoon is a hand's first two cards: _step_naturals saw none
        return [
            player.seat
            for player in self.players
            if not player.sitting_out and player.hands and self._holds_unsplit_natural(player)
        ]

    def _holds_unsplit_natural(self, player: PlayerState) -> bool:
        hand = player.hands[0]
        return len(player.hands) == 1 and not hand.split and is_natural(hand.cards)

    def _next_banker(self) -> int:
        mode = self.rules.bank_passing
        if mode == "pontoon":
            candidates = self._pontoon_candidates()
            return candidates[0] if candidates else self.banker
        if mode == "natural_holder":
            return self._natural_holders[0] if self._natural_holders else self.banker
        if mode == "rotate_on_natural":
            if not self._round_had_natural:
                return self.banker
            if self.rules.misericorde and self.dealer_rounds == 0:
                return self.banker
            if self.rules.old_mode:
                return self._natural_holders[0] if self._natural_holders else self.banker
            return (self.banker + 1) % self.num_seats
        return self.banker

    def _change_banker(self, seat: int) -> None:
        if self.rules.shoot and self.kitty:
            self._pay(KITTY, self.banker, self.kitty, "kitty_return")
        self.banker = seat
        self.dealer_rounds = 0
        if self.rules.pack == "deal_on" and self._round_started and self.phase != Phase.ROUND_OVER:
            self._shuffle_and_cut()  # a new dealer shuffles (1800); the sale happens before the deal
            if self._stacked is not None:  # a stacked round still deals the cards it was given
                self.pack.stack(*self._stacked)
                self.seen = [0] * 13
                self._fresh = len(self.pack)

    def _hand_context(self, player: PlayerState, hand: Hand) -> tuple[bool, int, int, bool]:
        """What the legality functions need besides the hand: a pair, hands held, free chips, and a
        fourth-card shoot bet waiting for its card."""
        cards = hand.cards
        return (
            len(cards) == 2 and legality.pair_splits(CARD_RANK[cards[0]], CARD_RANK[cards[1]], self.rules),
            len(player.hands),
            self._free(player.seat),
            hand.fourth_shoot and len(cards) == 3,
        )

    def _player_legal(self, player: PlayerState, hand: Hand) -> list[LegalAction]:
        stat = hand.stat()
        context = self._hand_context(player, hand)
        key = (stat, context)
        moves = self._moves_cache.get(key)
        if moves is None:  # legality is pure in (stat, context): most decisions repeat one seen before
            if len(self._moves_cache) > 50_000:  # finite bankrolls make free chips vary: stay bounded
                self._moves_cache.clear()
            pair, hands_held, free_chips, shoot_waiting = context
            moves = self._moves_cache[key] = tuple(
                legality.player_moves(
                    stat, self.rules, pair=pair, hands_held=hands_held, free_chips=free_chips, shoot_waiting=shoot_waiting
                )
            )
        if self.rules.shoot and legality.player_may_draw(stat, self.rules):
            return [*moves, *self._shoot_legal(player.seat, first=False, hand=hand, player=player)]
        return list(moves)

    def _why_illegal(self, action: Action, legal: list[LegalAction]) -> str:
        """Why ``action`` is not legal now, for the error message: the legality module's own words."""
        for option in legal:
            if option.kind == action.kind:
                if option.kind not in AMOUNT_KINDS:
                    return f"{option.kind.name.lower()} takes no amount, got {action.amount}"
                return f"the amount must be in {option.min_amount}..{option.max_amount}, got {action.amount}"
        kind, rules = action.kind, self.rules
        reason: str | None = None
        if self.phase == Phase.PLAYER_TURN:
            player = self.players[self._turn]
            hand = player.hands[player.active]
            if kind == ActionKind.SHOOT and rules.shoot:
                reason = "a shoot bet needs room in the kitty and comes before a 4th card or on a split hand"
            else:
                pair, hands_held, free_chips, shoot_waiting = self._hand_context(player, hand)
                reason = legality.player_move_denial(
                    kind,
                    hand.stat(),
                    rules,
                    pair=pair,
                    hands_held=hands_held,
                    free_chips=free_chips,
                    shoot_waiting=shoot_waiting,
                )
        elif self.phase == Phase.BANKER_TURN:
            hand = self.banker_hands[self._banker_active]
            reason = legality.banker_move_denial(
                kind, hand.stat(), rules, pair=self._banker_pair(hand), hands_held=len(self.banker_hands)
            )
        return reason or f"{kind.name.lower()} is not a decision of this phase under these rules"

    def _shoot_legal(
        self, seat: int, first: bool, hand: Hand | None = None, player: PlayerState | None = None
    ) -> list[LegalAction]:
        room = legality.shoot_room(self.kitty, self._shoot_out, self._free(seat))
        if first:
            legal = [LegalAction(ActionKind.NO_SHOOT)]
            if room >= 1:
                legal.append(LegalAction(ActionKind.SHOOT, 1, room))
            return legal
        assert hand is not None and player is not None
        stat = hand.stat()
        later = player.hands.index(hand) > 0
        if room >= 1 and (
            legality.fourth_card_shoot_open(stat, hand.fourth_shoot)
            or legality.split_hand_shoot_open(stat, later, hand.own_shoot, hand.shoot)
        ):
            return [LegalAction(ActionKind.SHOOT, 1, room)]
        return []

    def _banker_pair(self, hand: Hand) -> bool:
        cards = hand.cards
        return len(cards) == 2 and legality.banker_pair_splits(CARD_RANK[cards[0]], CARD_RANK[cards[1]], self.rules)

    def _banker_legal(self, hand: Hand) -> list[LegalAction]:
        return legality.banker_moves(
            hand.stat(), self.rules, pair=self._banker_pair(hand), hands_held=len(self.banker_hands)
        )

    # ------------------------------------------------------------------ chips and cards

    def _cap(self, seat: int, wanted: int) -> int:
        """``wanted`` limited by the seat's bankroll when bankrolls are finite."""
        if self.rules.bankroll == 0:
            return wanted
        committed = sum(h.stake + h.shoot for p in self.players if p.seat == seat for h in p.hands if not h.settled)
        return min(wanted, self.balances[seat] - committed)

    def _free(self, seat: int) -> int:
        """Chips ``seat`` has not yet committed this round (unlimited bankrolls: a huge number)."""
        if self.rules.bankroll == 0:  # what _cap answers, without the call (every player decision asks)
            return legality.UNLIMITED
        return self._cap(seat, legality.UNLIMITED)

    def _pay(self, payer: Party, payee: Party, amount: int, reason: str) -> None:
        """Move ``amount`` chips and record it; every chip movement goes through here. The kitty
        belongs to the banker of the moment (D22)."""
        if amount <= 0 or payer == payee:
            return
        self.ledger.record(payer, payee, amount, reason, self.banker)
        if type(payer) is int and type(payee) is int:  # seat to seat, most movements: _adjust inline
            balances = self.balances
            balances[payer] -= amount
            balances[payee] += amount
        else:
            self._adjust(payer, -amount)
            self._adjust(payee, amount)

    def _adjust(self, party: Party, amount: int) -> None:
        if party == KITTY:
            self.kitty += amount
        elif party == POOL:
            self.pool += amount
        else:
            self.balances[party] += amount  # type: ignore[index]

    def _settle_hand(self, seat: int, hand: Hand, chips: int, reason: str) -> None:
        """Settle a hand between its player and the banker: ``chips`` > 0 the banker pays."""
        if chips > 0:
            self._pay(self.banker, seat, chips, reason)
        elif chips < 0:
            self._pay(seat, self.banker, -chips, reason)
        hand.payout += chips
        hand.settled = True

    def _place_shoot(self, hand: Hand, amount: int) -> None:
        hand.shoot += amount
        self._shoot_out += amount

    def _close_shoot(self, seat: int, hand: Hand, won: bool | None) -> None:
        """Settle a hand's shoot bet with the kitty: won, lost, or a push (``None``: no chips
        move). It stops holding room in the kitty either way: a bust's or a banker natural's
        loss at once, a natural paid at the deal with its hand, the rest at the showdown."""
        if not hand.shoot:
            return
        if won is True:
            self._pay(KITTY, seat, hand.shoot, "shoot_win")
        elif won is False:
            self._pay(seat, KITTY, hand.shoot, "shoot_loss")
        self._shoot_out -= hand.shoot

    def _deal(self, hand: Hand, face_up: bool) -> None:
        if self._fresh <= 0:
            self._restart_seen()
        card = self.pack.draw()
        self._fresh -= 1
        hand.add(card, face_up)
        if face_up:
            self.seen[CARD_RANK[card]] += 1  # as _see (inline: most cards come through here)

    def _see(self, card: int) -> None:
        """Count a card shown face up in the public memory (:attr:`seen`)."""
        self.seen[CARD_RANK[card]] += 1

    def _reveal(self, hand: Hand, only_first: bool = False) -> None:
        """Turn a hand's cards face up (``only_first``: the ace of a declared pagat pontoon)."""
        public, seen = hand.public, self.seen
        for index, card in enumerate(hand.cards):
            if only_first and CARD_RANK[card] != 0:
                continue
            if not public[index]:
                public[index] = True
                seen[CARD_RANK[card]] += 1  # as _see (inline: every hand is revealed at settlement)

    def _reveal_banker(self) -> None:
        for hand in self.banker_hands:
            self._reveal(hand)

    def _restart_seen(self) -> None:
        """The deal has run through every card that was in the pack at the last shuffle.

        What comes next was seen before (a carry-over pack coming round again) or is the used pile
        shuffled back in (deal-on), so the public memory starts again from the cards face up on
        the table; otherwise a card would be counted twice.
        """
        self.seen = [0] * 13
        for hand in self._all_hands():
            if not hand.returned:
                for card, public in zip(hand.cards, hand.public):
                    if public:
                        self._see(card)
        self._fresh = len(self.pack) or len(self.pack.discards)

    def _shuffle_and_cut(self) -> None:
        self.pack.shuffle()
        self.pack.cut()
        self.seen = [0] * 13
        self._fresh = len(self.pack)

    def _active_players(self) -> list[PlayerState]:
        """The players who play this round (who sits out is settled when the players are seated)."""
        return self._seated

    def _all_hands(self) -> list[Hand]:
        return [hand for player in self.players for hand in player.hands] + self.banker_hands

    def _draw_first_banker(self) -> int:
        """Choose the first banker as the preset says: a random seat, or cards dealt from a separate
        pack shuffled by the game's own generator (the table's pack is left as it is)."""
        method = self.rules.first_banker
        if method == "random":
            return int(self.rng.integers(self.num_seats))
        order = self.rng.permutation(CARDS_PER_DECK).tolist()
        if method == "high_card":
            # Each seat cuts a card; aces rank high, as when cutting for deal.
            cuts = order[: self.num_seats]
            strength = [(CARD_RANK[card] - 1) % 13 for card in cuts]
            return int(np.argmax(strength))
        wanted = 0 if method == "first_ace" else 10
        for index, card in enumerate(order):
            if CARD_RANK[card] == wanted:
                return index % self.num_seats
        raise DeckError("no card of the wanted rank in the pack")  # pragma: no cover - a deck has four


def _plain_integer(value: object) -> bool:
    """An integer that means a number: not a bool, not an enum member (``Phase.PLAYER_TURN`` is an int)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_, enum.Enum))


def _generator(seed: object, rng: object) -> np.random.Generator:
    """The table's random stream: ``rng`` itself, or a new one from ``seed`` (None: fresh entropy).

    Raises:
        ValueError: both given, a seed that is not a non-negative integer, or an ``rng`` that is not
            a ``numpy.random.Generator`` (a legacy ``RandomState`` lacks what the pack calls).
    """
    if rng is not None:
        if seed is not None:
            raise ValueError(f"seed and rng: give one of them, got seed={seed!r} and an rng")
        if not isinstance(rng, np.random.Generator):
            raise ValueError(
                f"rng: expected a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}"
            )
        return rng
    if seed is not None and not isinstance(seed, np.random.SeedSequence):
        seed = require_int("seed", seed, 0)
    return np.random.default_rng(seed)


def _describe(option: LegalAction) -> str:
    name = option.kind.name.lower()
    if option.max_amount or option.kind in (ActionKind.KITTY, ActionKind.SELL_BANK, ActionKind.BID):
        return f"{name}[{option.min_amount}..{option.max_amount}]"
    return name


def describe_legal(options: Sequence[LegalAction]) -> str:
    """A short text list of legal actions, e.g. ``"stick, twist, buy[5..10]"``."""
    return ", ".join(_describe(option) for option in options)



_STEPS: dict[str, Callable[[PontoonGame], bool]] = {
    name[len("_step_"):]: function for name, function in vars(PontoonGame).items() if name.startswith("_step_")
}
"""The round's automatic steps by name; each returns False when it stops at a decision."""

_APPLY: dict[Phase, Callable[[PontoonGame, Action], None]] = {
    phase: vars(PontoonGame)["_apply_" + phase.name.lower()] for phase in Phase if phase != Phase.ROUND_OVER
}
"""How each decision phase applies its action."""
