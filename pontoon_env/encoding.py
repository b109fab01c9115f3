"""Fixed-size encodings for learning: one discrete action table and one flat observation vector.

Both the Gymnasium environment (:mod:`pontoon_env.envs.gymnasium_env`), the PettingZoo environment
(:mod:`pontoon_env.envs.pettingzoo_env`) and a trained model sitting at a table
(:class:`agents.model.ModelPolicy`) use these two classes, so a model trained in one place plays
in the others without translation.

:class:`ActionTable`
    One ``Discrete(n)`` numbering of every decision of every preset. Kinds that take no amount
    (``stick``, ``twist``, ``draw`` ...) get one id each. Kinds that take chips (stake, buy, shoot
    bet, kitty, reserve price, bid) get a few *levels* each. A level is an ``int`` (that many chips),
    ``"min"`` / ``"max"`` (the smallest / largest amount legal now) or a ``float`` in ``[0, 1]``
    (that fraction of the way from the smallest to the largest legal amount). The amount is clipped
    into the legal range; when two levels of a kind give the same amount only the first is legal,
    so every legal id means a different action. The layout is the same for every preset: ids of
    kinds a preset never uses are simply never legal.

:class:`ObservationEncoder`
    A ``float32`` vector built only from a :class:`~pontoon_env.game.observation.SeatView`, so it holds
    what that seat may see and nothing more. Values are scaled to small ranges (chips in units of
    the maximum stake, totals in units of 21, counts in units of a deck); :meth:`ObservationEncoder.bounds`
    gives the exact box and :meth:`ObservationEncoder.index_table` names every index.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Union

import numpy as np

from pontoon_env.game.actions import Action, ActionKind, IllegalActionError, LegalAction, Phase
from pontoon_env.game.cards import CARD_RANK, CARDS_PER_DECK, RANK_NAMES
from pontoon_env.game.hands import hand_total
from pontoon_env.game.observation import HIDDEN, HandView, SeatView
from pontoon_env.game.rules import Rules

Level = Union[int, float, str]
"""An amount level: chips (``int``), ``"min"``/``"max"``, or a fraction of the legal range (``float``)."""

# ------------------------------------------------------------------------------------------ actions

#: The order of the action table: amount kinds expand into their levels in place.
ACTION_ORDER: tuple[ActionKind, ...] = (
    ActionKind.STAKE,
    ActionKind.STICK,
    ActionKind.TWIST,
    ActionKind.BUY,
    ActionKind.SPLIT,
    ActionKind.DOUBLE,
    ActionKind.SHOOT,
    ActionKind.NO_SHOOT,
    ActionKind.DOUBLE_STAKES,
    ActionKind.NO_DOUBLE,
    ActionKind.DRAW,
    ActionKind.STAND,
    ActionKind.BANKER_SPLIT,
    ActionKind.KITTY,
    ActionKind.KEEP_BANK,
    ActionKind.SELL_BANK,
    ActionKind.BID,
    ActionKind.PASS,
    ActionKind.TAKE_BANK,
    ActionKind.DECLINE_BANK,
)

_PREFIX = {
    ActionKind.STAKE: "stake",
    ActionKind.BUY: "buy",
    ActionKind.SHOOT: "shoot",
    ActionKind.KITTY: "kitty",
    ActionKind.SELL_BANK: "sell",
    ActionKind.BID: "bid",
}
_LEVEL_FIELD = {
    ActionKind.STAKE: "stake",
    ActionKind.BUY: "buy",
    ActionKind.SHOOT: "shoot",
    ActionKind.KITTY: "kitty",
    ActionKind.SELL_BANK: "sale",
    ActionKind.BID: "bid",
}
DEFAULT_STAKE_LEVEL_COUNT = 4

KIND_MEANING: dict[ActionKind, str] = {
    ActionKind.STAKE: "player: initial stake of that many chips",
    ActionKind.STICK: "player: stop drawing to this hand",
    ActionKind.TWIST: "player: a card face up, the stake unchanged (vingt-un: draw)",
    ActionKind.BUY: "player: a card face down for that many more chips",
    ActionKind.SPLIT: "player: play a pair as two hands",
    ActionKind.DOUBLE: "player (casino): double the stake once, on 2-4 cards; the hand may keep hitting",
    ActionKind.SHOOT: "player (Shoot): a shoot bet against the kitty",
    ActionKind.NO_SHOOT: "player (Shoot): no shoot bet after the stakes",
    ActionKind.DOUBLE_STAKES: "banker (1850, 1939): double every stake after seeing his first card",
    ActionKind.NO_DOUBLE: "banker (1850, 1939): leave the stakes",
    ActionKind.DRAW: "banker: draw a card",
    ActionKind.STAND: "banker: stop drawing",
    ActionKind.BANKER_SPLIT: "banker (1850): play a pair as two hands",
    ActionKind.KITTY: "banker (Shoot): put up / add to the kitty",
    ActionKind.KEEP_BANK: "banker: keep the bank (no sale)",
    ActionKind.SELL_BANK: "banker: offer the bank for sale with that reserve price",
    ActionKind.BID: "player: bid for the bank",
    ActionKind.PASS: "player: no bid for the bank",
    ActionKind.TAKE_BANK: "player (2011): take the bank after a pontoon",
    ActionKind.DECLINE_BANK: "player (2011): leave the bank where it is",
}
"""What each action kind does, for the generated action tables."""


@dataclass(frozen=True)
class ActionLevels:
    """The amount levels of every amount kind: the one type every interface takes and saves.

    Each field is a sequence of levels (see the module docstring) or ``None`` for the default of
    :func:`default_levels`. Build one from a dict with :meth:`parse` (``{"stake": (1, 5, 10)}``);
    :meth:`resolved` fills in the defaults for a rule set; :meth:`config` is its JSON form.
    """

    stake: tuple[Level, ...] | None = None
    buy: tuple[Level, ...] | None = None
    shoot: tuple[Level, ...] | None = None
    kitty: tuple[Level, ...] | None = None
    sale: tuple[Level, ...] | None = None
    bid: tuple[Level, ...] | None = None

    def __post_init__(self) -> None:
        for name in LEVEL_FIELDS:
            levels = getattr(self, name)
            if levels is None:
                continue
            if isinstance(levels, (str, bytes)) or not isinstance(levels, Iterable):
                raise ValueError(f"action_levels[{name!r}]: expected a sequence of levels, got {levels!r}")
            checked = tuple(_check_level(f"action_levels[{name!r}]", level) for level in levels)
            if not checked:
                raise ValueError(f"action_levels[{name!r}]: expected at least one level")
            object.__setattr__(self, name, checked)

    @classmethod
    def parse(cls, spec: ActionLevels | Mapping[str, Sequence[Level] | None] | None) -> ActionLevels:
        """An :class:`ActionLevels` from ``None``, itself, or a dict keyed by field name.

        Raises:
            ValueError: an unknown key or a malformed level (naming both).
        """
        if spec is None:
            return cls()
        if isinstance(spec, ActionLevels):
            return spec
        if not isinstance(spec, Mapping):
            raise ValueError(
                f"action_levels: expected a dict keyed by {list(LEVEL_FIELDS)} or an ActionLevels, got {spec!r}"
            )
        unknown = sorted(str(key) for key in spec if key not in LEVEL_FIELDS)
        if unknown:
            raise ValueError(f"action_levels: unknown keys {unknown}; expected some of {list(LEVEL_FIELDS)}")
        for key, value in spec.items():
            if isinstance(value, (str, bytes)) or not (value is None or isinstance(value, Iterable)):
                # a bare level ("max", 4) would be read as its characters, or fail obscurely
                raise ValueError(f"action_levels[{key!r}]: expected a list of levels (e.g. ['min', 'max']), "
                                 f"got {value!r}")
        return cls(**{key: (None if value is None else tuple(value)) for key, value in spec.items()})

    def resolved(self, rules: Rules) -> ActionLevels:
        """These levels with every ``None`` replaced by the default for ``rules``."""
        defaults = default_levels(rules)
        return ActionLevels(**{name: getattr(self, name) or getattr(defaults, name) for name in LEVEL_FIELDS})

    def config(self) -> dict[str, list[Level] | None]:
        """The levels as plain lists (for a checkpoint's JSON config)."""
        return {name: None if getattr(self, name) is None else list(getattr(self, name)) for name in LEVEL_FIELDS}


LEVEL_FIELDS: tuple[str, ...] = ("stake", "buy", "shoot", "kitty", "sale", "bid")


def default_levels(rules: Rules) -> ActionLevels:
    """The default amount levels of each amount kind under ``rules``.

    * stakes: four chip amounts spread evenly over ``[min_stake, max_stake]`` (fewer if they
      coincide), so the learner bets in fixed, readable amounts;
    * buys: the smallest and the largest legal buy (``buy:min`` is "buy one for the initial stake"
      in ``pagat``, ``buy:max`` the doubling first buy);
    * shoot bets and the kitty: the smallest, half-way and largest amounts;
    * the reserve price of a sale and bids: nothing / 2 / 5 maximum stakes (a bid's ``min`` is the
      lowest bid accepted now).
    """
    spread = np.linspace(rules.min_stake, rules.max_stake, DEFAULT_STAKE_LEVEL_COUNT)
    stakes = tuple(sorted({int(round(value)) for value in spread}))
    two, five = 2 * rules.max_stake, 5 * rules.max_stake
    return ActionLevels(
        stake=stakes,
        buy=("min", "max"),
        shoot=("min", 0.5, "max"),
        kitty=("min", 0.5, "max"),
        sale=(0, two, five),
        bid=("min", two, five),
    )


def _check_level(argument: str, level: object) -> Level:
    if isinstance(level, str) and level in ("min", "max"):
        return level
    if isinstance(level, (int, np.integer)) and not isinstance(level, (bool, np.bool_)):
        if int(level) < 0:
            raise ValueError(f"{argument}: chip levels must be >= 0, got {level!r}")
        return int(level)
    if isinstance(level, (float, np.floating)):
        if not 0.0 <= float(level) <= 1.0:
            raise ValueError(f"{argument}: fraction levels must be in [0, 1], got {level!r}")
        return float(level)
    raise ValueError(
        f"{argument}: a level is a number of chips (int), 'min', 'max' or a fraction of the legal range "
        f"(float in [0, 1]); got {level!r}"
    )


def level_name(kind: ActionKind, level: Level) -> str:
    """The readable name of one amount level, e.g. ``stake:5``, ``buy:max``, ``shoot:50%``."""
    prefix = _PREFIX[kind]
    if isinstance(level, str):
        return f"{prefix}:{level}"
    if isinstance(level, float):
        return f"{prefix}:{level * 100:g}%"
    return f"{prefix}:{level}"


def resolve_amount(level: Level | None, low: int, high: int) -> int:
    """The chips a level stands for when the legal range is ``[low, high]``."""
    if level is None:
        return 0
    if level == "min":
        return low
    if level == "max":
        return high
    if isinstance(level, float):
        return low + int(round(level * (high - low)))
    return min(max(int(level), low), high)


@dataclass(frozen=True)
class ActionSlot:
    """One id of the table: an action kind and, for amount kinds, its level."""

    kind: ActionKind
    level: Level | None
    name: str


class ActionTable:
    """The discrete action ids of every decision (see the module docstring).

    Args:
        rules: the rules the table sizes its chip levels for.
        levels: the amount levels (:class:`ActionLevels` or a dict); ``None`` fields take
            :func:`default_levels`.

    Raises:
        ValueError: a malformed level, or two levels of one kind with the same name.
    """

    def __init__(self, rules: Rules, levels: ActionLevels | Mapping[str, Sequence[Level] | None] | None = None) -> None:
        self.rules = rules
        self.levels: ActionLevels = ActionLevels.parse(levels).resolved(rules)
        slots: list[ActionSlot] = []
        for kind in ACTION_ORDER:
            if kind in _PREFIX:
                for level in getattr(self.levels, _LEVEL_FIELD[kind]):
                    slots.append(ActionSlot(kind, level, level_name(kind, level)))
            else:
                slots.append(ActionSlot(kind, None, kind.name.lower()))
        self.slots: tuple[ActionSlot, ...] = tuple(slots)
        self.names: list[str] = [slot.name for slot in slots]
        if len(set(self.names)) != len(self.names):
            duplicates = sorted({name for name in self.names if self.names.count(name) > 1})
            raise ValueError(f"action levels give duplicate action names {duplicates}; give each level once")
        self.n = len(slots)
        self._ids_by_kind: dict[ActionKind, tuple[int, ...]] = {
            kind: tuple(index for index, slot in enumerate(slots) if slot.kind == kind)
            for kind in ACTION_ORDER
        }
        self._index = {name: index for index, name in enumerate(self.names)}
        self._decisions: dict[tuple[LegalAction, ...], tuple[Mapping[int, Action], np.ndarray]] = {}

    def __len__(self) -> int:
        return self.n

    def index(self, name: str) -> int:
        """The id of the action called ``name`` (e.g. ``"stick"``, ``"buy:max"``).

        Raises:
            KeyError: naming the unknown action and listing the valid names.
        """
        try:
            return self._index[name]
        except KeyError:
            raise KeyError(f"unknown action name {name!r}; expected one of {self.names}") from None

    def config(self) -> dict[str, list[Level] | None]:
        """The levels as plain lists (for a checkpoint's JSON config)."""
        return self.levels.config()

    def legal_ids(self, legal: Sequence[LegalAction]) -> dict[int, Action]:
        """Every legal id with the action it stands for now (of equal amounts, the first id wins).

        Environments compute this once per decision and derive the mask (:meth:`mask_of`) and the
        decoding from it.
        """
        chosen: dict[int, Action] = {}
        for option in legal:
            used: set[int] = set()
            for action_id in self._ids_by_kind[option.kind]:
                amount = resolve_amount(self.slots[action_id].level, option.min_amount, option.max_amount)
                if amount in used:
                    continue
                used.add(amount)
                chosen[action_id] = Action(option.kind, amount)
        return chosen

    def decision(self, legal: Sequence[LegalAction]) -> tuple[Mapping[int, Action], np.ndarray]:
        """The legal ids (as :meth:`legal_ids`) and their mask, computed once per distinct set of
        legal actions and shared afterwards: both are read-only (the mask cannot be written)."""
        key = tuple(legal)
        cached = self._decisions.get(key)
        if cached is None:
            if len(self._decisions) > 10_000:  # finite bankrolls make amounts vary: stay bounded
                self._decisions.clear()
            ids = self.legal_ids(legal)
            mask = self.mask_of(ids)
            mask.flags.writeable = False
            cached = self._decisions[key] = (ids, mask)
        return cached

    def mask_of(self, ids: Iterable[int]) -> np.ndarray:
        """Boolean mask of shape ``(n,)`` with ``ids`` set."""
        mask = np.zeros(self.n, dtype=bool)
        mask[list(ids)] = True
        return mask

    def mask(self, legal: Sequence[LegalAction]) -> np.ndarray:
        """Boolean mask of shape ``(n,)``: True for the ids legal now."""
        return self.mask_of(self.legal_ids(legal))

    def illegal_message(self, action_id: int, ids: Mapping[int, Action]) -> str:
        """Why ``action_id`` cannot be played now, listing the legal ids (for errors and infos)."""
        if not 0 <= action_id < self.n:
            return f"action id {action_id} is out of range 0..{self.n - 1}"
        offered = ", ".join(f"{index}={self.names[index]}" for index in sorted(ids)) or "none (round over)"
        return f"action {action_id} ({self.names[action_id]}) is not legal now; legal: {offered}"

    def decode(self, action_id: int, legal: Sequence[LegalAction]) -> Action:
        """The engine :class:`Action` that ``action_id`` stands for now.

        Raises:
            IllegalActionError: the id is out of range or not legal now; the message lists the legal ids.
        """
        chosen = self.legal_ids(legal)
        if action_id in chosen:
            return chosen[action_id]
        raise IllegalActionError(self.illegal_message(action_id, chosen))

    def markdown_table(self) -> str:
        """Every id as a Markdown table: id, name, what it does."""
        lines = ["| id | action | meaning |", "|---|---|---|"]
        for index, slot in enumerate(self.slots):
            lines.append(f"| {index} | `{slot.name}` | {KIND_MEANING[slot.kind]} |")
        return "\n".join(lines)

    def describe(self, legal: Sequence[LegalAction]) -> str:
        """The legal ids and names now, e.g. ``"1=stick, 2=twist"``."""
        return ", ".join(f"{index}={self.names[index]}" for index in sorted(self.legal_ids(legal)))


# ------------------------------------------------------------------------------------- observations

RANKS = len(RANK_NAMES)
PHASES = len(Phase)
CHIP_CAP = 100.0
"""Kitty, shoot bets and shoot room are given in maximum stakes and clipped here."""
STAKE_CAP = 32.0
"""A hand's stake in maximum stakes is clipped here (no preset comes near it)."""
TOTAL_CAP = 1.5
"""Totals are given in units of 21; a bust total stays below 31/21."""
BALANCE_SCALE = 10.0
"""Balances are squashed as ``x / (1 + |x|)`` of ``chips / (BALANCE_SCALE * max_stake)``."""


class ObsField(NamedTuple):
    """One named part of the observation vector."""

    name: str
    slice: slice
    meaning: str


class _Field(NamedTuple):
    name: str
    offset: int
    size: int
    low: float
    high: float
    meaning: str


class Block(NamedTuple):
    """A group of fields, repeated ``count`` times with a fixed ``stride`` (hands, seats)."""

    name: str
    start: int
    count: int
    stride: int
    fields: tuple[_Field, ...]
    meaning: str


def _block_fields(spec: Sequence[tuple[str, int, float, float, str]]) -> tuple[tuple[_Field, ...], int]:
    fields, offset = [], 0
    for name, size, low, high, meaning in spec:
        fields.append(_Field(name, offset, size, low, high, meaning))
        offset += size
    return tuple(fields), offset


_MULTISET_WEIGHT: tuple[int, ...] = (
    *(1 << (5 * CARD_RANK[code]) for code in range(CARDS_PER_DECK)),
    1 << (5 * RANKS),
)
"""Per card code, a weight whose sum over a hand's cards identifies the hand's multiset of ranks
(5 bits of count per rank, so up to 31 of a rank); the last entry, read by index ``HIDDEN`` (-1),
counts face-down cards. What a hand's cards say in an observation (rank counts, hidden cards,
card count, total, softness) depends on that multiset only, not on the cards' order or suits."""

_CACHE_BOUND = 50_000
"""Entries each of an encoder's memos of encoded pieces may hold before it is cleared."""

_STRUCTS: dict[int, struct.Struct] = {}
_FLOAT32 = np.dtype(np.float32)
"""The vector's dtype as an object (``np.frombuffer`` would convert ``np.float32`` on every call)."""


def _float32_bytes(values: list[float]) -> bytes:
    """``values`` as the bytes of a ``float32`` array. ``struct`` rounds as numpy's cast does (both
    are C's double -> float conversion) at half the cost; past float32's range it refuses, and
    numpy (which gives inf, capped later) decides."""
    packer = _STRUCTS.get(len(values))
    if packer is None:
        packer = _STRUCTS[len(values)] = struct.Struct(f"={len(values)}f")
    try:
        return packer.pack(*values)
    except OverflowError:
        with np.errstate(over="ignore"):  # inf on purpose: the encoder caps it at the field's high
            return np.array(values, dtype=np.float32).tobytes()


class ObservationEncoder:
    """Encode a :class:`SeatView` as a flat ``float32`` vector of a fixed size.

    The layout depends on the rules (how many hands a player or the banker can hold after splits,
    the number of decks) and on the number of seats; :meth:`index_table` and
    :meth:`markdown_table` document it. Other seats are given relative to the observer: slot 1 is
    the seat on the observer's left, and so on round the table, with the banker's slot flagged.

    Args:
        rules: the rules of the table.
        num_seats: players plus the banker.
    """

    def __init__(self, rules: Rules, num_seats: int) -> None:
        if not isinstance(num_seats, int) or num_seats < 2:
            raise ValueError(f"num_seats: expected an integer >= 2, got {num_seats!r}")
        self.rules = rules
        self.num_seats = num_seats
        self.player_hands = rules.max_split_hands if rules.split != "none" else 1
        self.banker_hands = rules.max_split_hands if rules.dealer_may_split else 1
        self.own_hands = max(self.player_hands, self.banker_hands)
        self.max_cards = 5 if rules.five_card_trick else 22
        deck_high = float(rules.decks)
        chip_cap, stake_cap = CHIP_CAP, STAKE_CAP
        flag = (0.0, 1.0)
        table_spec = [
            ("phase", PHASES, *flag, "one-hot of the round's phase (pontoon_env.Phase order)"),
            ("is_banker", 1, *flag, "1 if this seat is the banker this round"),
            ("to_act", 1, *flag, "1 if this seat decides now"),
            ("stakes_doubled", 1, *flag, "1 if the banker doubled every stake this round (1850, 1939)"),
            (
                "seen_ranks",
                RANKS,
                *flag,
                "cards of each rank (A..K) seen face up since the last shuffle / (4 x decks)",
            ),
            ("cards_in_pack", 1, *flag, "cards left in the pack / (52 x decks)"),
            ("kitty", 1, 0.0, chip_cap, "Shoot: chips in the kitty / max_stake"),
            ("shoot_room", 1, 0.0, chip_cap, "Shoot: kitty less outstanding shoot bets / max_stake"),
            ("balance", 1, -1.0, 1.0, "this seat's chips, squashed: x/(1+|x|), x = chips/(10 x max_stake)"),
        ]
        own_spec = [
            ("present", 1, *flag, "1 if this hand exists"),
            ("active", 1, *flag, "1 if this is the hand being played now by this seat"),
            ("ranks", RANKS, 0.0, deck_high, "cards of each rank this seat can see in the hand / 4"),
            (
                "hidden",
                1,
                *flag,
                "cards of the hand this seat has not looked at / 2 (the banker's own cards)",
            ),
            ("num_cards", 1, *flag, f"cards in the hand / {self.max_cards}"),
            ("total", 1, 0.0, TOTAL_CAP, "best total of the cards seen / 21"),
            ("soft", 1, *flag, "1 if an ace counts 11 in that total"),
            ("stake", 1, 0.0, stake_cap, "chips staked on the hand / max_stake"),
            ("initial", 1, 0.0, stake_cap, "initial stake / max_stake"),
            ("last_buy", 1, 0.0, stake_cap, "price of the last buy / max_stake (0 before any buy)"),
            ("buys", 1, 0.0, 4.0, "cards bought / 3"),
            ("twisted", 1, *flag, "1 after a twist (no more buying)"),
            ("doubled", 1, *flag, "1 after a casino double"),
            ("split", 1, *flag, "1 if the hand came from a split"),
            ("shoot", 1, 0.0, chip_cap, "shoot bets on the hand / max_stake"),
            ("done", 1, *flag, "1 once the hand is finished"),
            ("bust", 1, *flag, "1 if the hand went bust"),
            ("declared", 1, *flag, "1 if the hand is a declared natural"),
        ]
        banker_spec = [
            ("present", 1, *flag, "1 if the banker holds this hand"),
            ("ranks", RANKS, 0.0, deck_high, "cards of each rank of the hand this seat can see / 4"),
            ("hidden", 1, *flag, "cards of the hand hidden from this seat / 2"),
            ("num_cards", 1, *flag, f"cards in the hand / {self.max_cards}"),
            ("total", 1, 0.0, TOTAL_CAP, "best total of the cards this seat can see / 21"),
            ("soft", 1, *flag, "1 if an ace counts 11 in that total"),
            ("split", 1, *flag, "1 if the banker split a pair into this hand (1850)"),
            ("done", 1, *flag, "1 once the banker stopped drawing to this hand"),
        ]
        seat_spec = [
            ("is_banker", 1, *flag, "1 if that seat is the banker this round"),
            (
                "in_round",
                1,
                *flag,
                "1 if that seat plays hands this round (0 for the banker or a seat sitting out)",
            ),
            ("balance", 1, -1.0, 1.0, "that seat's chips, squashed like the own balance"),
        ]
        other_hand_spec = [
            ("present", 1, *flag, "1 if the hand exists"),
            ("num_cards", 1, *flag, f"cards in the hand / {self.max_cards}"),
            ("known_cards", 1, *flag, f"cards of the hand this seat can see / {self.max_cards}"),
            ("total", 1, 0.0, TOTAL_CAP, "best total of the visible cards / 21"),
            ("soft", 1, *flag, "1 if an ace counts 11 in that visible total"),
            ("stake", 1, 0.0, stake_cap, "stake on the hand / max_stake (public)"),
            ("buys", 1, 0.0, 4.0, "cards bought (face down) / 3"),
            ("twisted", 1, *flag, "1 after a twist"),
            ("doubled", 1, *flag, "1 after a casino double"),
            ("split", 1, *flag, "1 if the hand came from a split"),
            ("shoot", 1, 0.0, chip_cap, "shoot bets on the hand / max_stake"),
            ("bust", 1, *flag, "1 if the hand is known to have gone bust"),
            ("declared", 1, *flag, "1 if the hand is a declared natural"),
        ]
        table_fields, table_size = _block_fields(table_spec)
        own_fields, self._own_stride = _block_fields(own_spec)
        banker_fields, self._banker_stride = _block_fields(banker_spec)
        other_hand_fields, self._other_hand_stride = _block_fields(other_hand_spec)
        seat_fields, seat_header = _block_fields(seat_spec)
        hands_fields = tuple(
            _Field(
                f"hand[{h}].{field.name}",
                seat_header + h * self._other_hand_stride + field.offset,
                field.size,
                field.low,
                field.high,
                field.meaning,
            )
            for h in range(self.player_hands)
            for field in other_hand_fields
        )
        seat_fields = seat_fields + hands_fields
        self._seat_stride = seat_header + self.player_hands * self._other_hand_stride
        ranks_fields, _ = _block_fields(
            [
                (
                    "ranks",
                    RANKS,
                    0.0,
                    float(max(1, num_seats - 1)) * deck_high,
                    "visible cards of each rank in the other players' hands this round / 4",
                )
            ]
        )
        blocks: list[Block] = []
        start = 0
        for name, count, stride, fields, meaning in (
            ("table", 1, table_size, table_fields, "the round and the table"),
            (
                "own",
                self.own_hands,
                self._own_stride,
                own_fields,
                "this seat's hands (the banker's hands when this seat is the banker), in play order",
            ),
            (
                "banker",
                self.banker_hands,
                self._banker_stride,
                banker_fields,
                "the banker's hands as this seat sees them",
            ),
            ("others", 1, RANKS, ranks_fields, "the other players' visible cards, summed"),
            (
                "seat",
                num_seats - 1,
                self._seat_stride,
                seat_fields,
                "the other seats, slot k = the k-th seat to this seat's left",
            ),
        ):
            blocks.append(Block(name, start, count, stride, fields, meaning))
            start += count * stride
        self.blocks: tuple[Block, ...] = tuple(blocks)
        self.size = start
        low = np.zeros(self.size, dtype=np.float32)
        high = np.zeros(self.size, dtype=np.float32)
        for block in self.blocks:
            for repeat in range(block.count):
                for field in block.fields:
                    begin = block.start + repeat * block.stride + field.offset
                    low[begin : begin + field.size] = field.low
                    high[begin : begin + field.size] = field.high
        self.low, self.high = low, high
        self._table, self._own, self._banker, self._others, self._seats = (
            block.start for block in self.blocks
        )
        self._hand_values: dict[HandView, Any] = {}
        """Another seat's hand's encoded bytes and the ranks of its visible cards, by view (a hand's
        encoding depends on nothing else, and the others' hands repeat from one decision to the next)."""
        self._flag_bytes: dict[tuple[Phase, bool, bool, bool], bytes] = {}
        """The phase one-hot and the table's three flags, as bytes, by their values."""
        self._scale_chips = 1.0 / rules.max_stake
        self._scale_seen = 1.0 / (4 * rules.decks)
        self._scale_pack = 1.0 / (CARDS_PER_DECK * rules.decks)
        self._scale_cards = 1.0 / self.max_cards
        self._balance_unit = BALANCE_SCALE * rules.max_stake
        # encode() joins the vector's bytes from packed pieces and cached hand encodings: writing
        # a dozen small slices into a numpy array, each from a Python list, cost more than the rest.
        # Seat headers (flags, squashed chips) and rank counts are small numbers: plain packers.
        self._header_struct = struct.Struct(f"={seat_header}f")
        self._ranks_struct = struct.Struct(f"={RANKS}f")
        # A rank's count (seen since the shuffle, or shown in the others' hands) as float32 bytes,
        # scaled: 0 .. 4 x decks, all a pack holds. Joined per rank, they are the packed block.
        counts = range(4 * rules.decks + 1)
        self._seen_count_bytes = tuple(struct.pack("=f", count * self._scale_seen) for count in counts)
        self._quarter_bytes = tuple(struct.pack("=f", count * 0.25) for count in counts)
        # The seen ranks' and the others' summed ranks' bytes by their counts: they change a few
        # times a round, and a look-up costs a tenth of joining 13 pieces.
        self._seen_bytes: dict[tuple[int, ...], bytes] = {}
        self._ranks_bytes: dict[tuple[int, ...], bytes] = {}
        self._no_ranks = bytes(4 * RANKS)
        # An own hand's ``present`` and ``active`` flags and what its cards say, as bytes, by the
        # multiset of ranks and hidden cards (:data:`_MULTISET_WEIGHT`: all that piece depends on),
        # one dictionary per ``active``; a banker's hand's ``present`` and its cards' piece.
        self._own_active: dict[int, bytes] = {}
        self._own_idle: dict[int, bytes] = {}
        self._banker_cards: dict[int, bytes] = {}
        # stake, initial, last_buy, buys, twisted, doubled, split, shoot, done, bust, declared
        self._own_tail = struct.Struct("=11f")
        self._banker_tail = {
            (split, done): _float32_bytes([float(split), float(done)]) for split in (False, True) for done in (False, True)
        }
        """The ``split`` and ``done`` fields of a banker's hand."""
        self._own_pad = [
            bytes(4 * self._own_stride * (self.own_hands - n)) for n in range(self.own_hands + 1)
        ]
        self._banker_pad = [
            bytes(4 * self._banker_stride * (self.banker_hands - n)) for n in range(self.banker_hands + 1)
        ]
        self._other_pad = [
            bytes(4 * self._other_hand_stride * (self.player_hands - n)) for n in range(self.player_hands + 1)
        ]

    # ---------------------------------------------------------------------------- documentation

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """Copies of the lower and upper bounds of every index (for a ``gymnasium.spaces.Box``)."""
        return self.low.copy(), self.high.copy()

    def index_table(self) -> list[ObsField]:
        """Every field of the vector: ``(name, slice, meaning)``, in order, repeats expanded."""
        rows = []
        for block in self.blocks:
            for repeat in range(block.count):
                prefix = (
                    block.name
                    if block.count == 1
                    else f"{block.name}[{repeat + (1 if block.name == 'seat' else 0)}]"
                )
                for field in block.fields:
                    begin = block.start + repeat * block.stride + field.offset
                    rows.append(
                        ObsField(f"{prefix}.{field.name}", slice(begin, begin + field.size), field.meaning)
                    )
        return rows

    _PACKERS = ("_header_struct", "_ranks_struct", "_own_tail")
    """The encoder's ``struct.Struct`` packers, which pickle cannot copy: kept as their formats."""

    def __getstate__(self) -> dict[str, Any]:
        # copy.deepcopy and pickle (an env's snapshot, a Ray worker) copy the encoder: the packers
        # go as their format strings and are built again.
        state = self.__dict__.copy()
        for name in self._PACKERS:
            state[name] = state[name].format
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        for name in self._PACKERS:
            state[name] = struct.Struct(state[name])
        self.__dict__.update(state)

    def markdown_table(self) -> str:
        """The layout as Markdown: one table of blocks, then each block's fields with offsets."""
        lines = [
            f"Observation size: **{self.size}** (`{self.rules.preset}`, {self.num_seats} seats).",
            "",
            "| indices | block | repeats | stride | meaning |",
            "|---|---|---|---|---|",
        ]
        for block in self.blocks:
            end = block.start + block.count * block.stride
            lines.append(
                f"| {block.start}–{end - 1} | `{block.name}` | {block.count} | {block.stride} "
                f"| {block.meaning} |"
            )
        for block in self.blocks:
            lines += [
                "",
                f"Block `{block.name}` (offsets within one repeat):",
                "",
                "| offset | field | size | range | meaning |",
                "|---|---|---|---|---|",
            ]
            for field in block.fields:
                if (
                    block.name == "seat"
                    and field.name.startswith("hand[")
                    and not field.name.startswith("hand[0]")
                ):
                    continue
                shown = field.name.replace("hand[0].", "hand[h].") if block.name == "seat" else field.name
                offset = (
                    f"{field.offset} + h×{self._other_hand_stride}"
                    if field.name.startswith("hand[0]")
                    else str(field.offset)
                )
                lines.append(
                    f"| {offset} | `{shown}` | {field.size} | [{field.low:g}, {field.high:g}] "
                    f"| {field.meaning} |"
                )
        return "\n".join(lines)

    # ---------------------------------------------------------------------------------- encoding

    def encode(self, view: SeatView) -> np.ndarray:
        """The observation vector of ``view`` (a new ``float32`` array within :meth:`bounds`).

        Each block is written in the order of its field spec in ``__init__`` (:meth:`_own_values`,
        :meth:`_banker_values`, :meth:`_other_values` list a hand's fields in one piece); the
        tests read values back through :meth:`index_table`, so the two cannot drift apart. The
        vector is assembled as ``float32`` bytes (``struct`` rounds as a numpy cast does): the
        pieces that take few values (the phase and flags, the seen ranks, what a hand's cards
        say, another seat's hand) are packed once and cached, the chips packed per call, absent
        hands zeros.
        """
        # The table block in three pieces: the phase and the three flags and the seen ranks
        # repeat from one decision to the next (bytes built once each); the chips are packed by
        # the checked packer (they may be any size).
        flags_key = (view.phase, view.is_banker, view.to_act, view.stakes_doubled)
        flags = self._flag_bytes.get(flags_key)
        if flags is None:
            values = [0.0] * PHASES
            values[int(view.phase)] = 1.0
            values += [float(view.is_banker), float(view.to_act), float(view.stakes_doubled)]
            flags = self._flag_bytes[flags_key] = _float32_bytes(values)
        seen_ranks = view.seen_ranks
        seen_bytes = self._seen_bytes.get(seen_ranks)
        if seen_bytes is None:
            seen_bytes = self._seen_piece(seen_ranks)
        chips = self._scale_chips
        balances = view.balances
        x = balances[view.seat] / self._balance_unit
        parts = [
            flags,
            seen_bytes,
            _float32_bytes([view.cards_in_pack * self._scale_pack, view.kitty * chips, view.shoot_room * chips,
                            x / (1.0 + abs(x))]),
        ]

        # Own and banker hands: the flags before the cards with what the cards say (cached by the
        # cards: a memo of whole hand views missed more often than it hit), then the hand's chips.
        own = view.own_hands[: self.own_hands]
        active_hand = view.active_hand if view.to_act else -1
        tail = self._own_tail
        for index, hand in enumerate(own):
            cache = self._own_active if index == active_hand else self._own_idle
            key = sum(map(_MULTISET_WEIGHT.__getitem__, hand.cards))
            head = cache.get(key)
            if head is None:
                head = self._card_piece(cache, key, hand.cards, (1.0, float(index == active_hand)))
            parts.append(head)
            try:
                parts.append(tail.pack(hand.stake * chips, hand.initial * chips, hand.last_buy * chips,
                                       hand.buys / 3.0, hand.twisted, hand.doubled, hand.split, hand.shoot * chips,
                                       hand.done, hand.bust, hand.declared))
            except OverflowError:  # past float32's range: numpy's inf, capped below (as _float32_bytes)
                parts.append(_float32_bytes(self._own_values(hand, False)[-11:]))
        parts.append(self._own_pad[len(own)])
        banker_hands = view.banker_hands[: self.banker_hands]
        banker_cache, banker_tail = self._banker_cards, self._banker_tail
        for hand in banker_hands:
            key = sum(map(_MULTISET_WEIGHT.__getitem__, hand.cards))
            head = banker_cache.get(key)
            if head is None:
                head = self._card_piece(banker_cache, key, hand.cards, (1.0,))
            parts.append(head)
            parts.append(banker_tail[hand.split, hand.done])
        parts.append(self._banker_pad[len(banker_hands)])
        ranks_at = len(parts)
        parts.append(self._no_ranks)  # the others' rank counts, replaced below if any card shows

        memo = self._hand_values
        if len(memo) > _CACHE_BOUND:  # the others' hand views repeat a lot; keep their memo bounded
            memo.clear()
        counts: list[int] | None = None
        num_seats, player_hands, banker = self.num_seats, self.player_hands, view.banker
        header, other_pad, unit = self._header_struct, self._other_pad, self._balance_unit
        in_round: dict[int, tuple[HandView, ...]] = dict(view.players)
        for slot in range(1, num_seats):  # slot k: the k-th seat to this seat's left
            seat = (view.seat + slot) % num_seats
            hands = in_round.get(seat, ())
            chips_x = balances[seat] / unit  # _squash written out: once per seat per step
            parts.append(header.pack(seat == banker, bool(hands), chips_x / (1.0 + abs(chips_x))))
            if not hands:
                parts.append(other_pad[0])
                continue
            hands = hands[:player_hands]
            for hand in hands:
                # with its bytes, the ranks of the hand's visible cards (for the summed counts)
                entry = memo.get(hand)
                if entry is None:
                    entry = memo[hand] = (
                        _float32_bytes(self._other_values(hand)),
                        [CARD_RANK[card] for card in hand.cards if card != HIDDEN],
                    )
                parts.append(entry[0])
                if entry[1]:
                    if counts is None:
                        counts = [0] * RANKS
                    for rank in entry[1]:
                        counts[rank] += 1
            parts.append(other_pad[len(hands)])
        if counts is not None:
            ranks_key = tuple(counts)
            ranks_bytes = self._ranks_bytes.get(ranks_key)
            if ranks_bytes is None:
                ranks_bytes = self._ranks_piece(ranks_key)
            parts[ranks_at] = ranks_bytes
        # chips beyond the caps; every value is >= its low by construction (a new, owned array)
        return np.minimum(np.frombuffer(b"".join(parts), dtype=_FLOAT32), self.high)

    def _seen_piece(self, seen_ranks: tuple[int, ...]) -> bytes:
        """The seen ranks' bytes, kept in their memo (bounded like the others)."""
        if len(self._seen_bytes) > _CACHE_BOUND:
            self._seen_bytes.clear()
        try:  # each count's bytes from a table: no per-count arithmetic
            piece = b"".join(map(self._seen_count_bytes.__getitem__, seen_ranks))
        except IndexError:  # more of a rank than the pack holds: not from the engine, but encode it
            piece = _float32_bytes([count * self._scale_seen for count in seen_ranks])
        self._seen_bytes[seen_ranks] = piece
        return piece

    def _ranks_piece(self, counts: tuple[int, ...]) -> bytes:
        """The other players' summed visible ranks as bytes, kept in their memo."""
        if len(self._ranks_bytes) > _CACHE_BOUND:
            self._ranks_bytes.clear()
        try:
            piece = b"".join(map(self._quarter_bytes.__getitem__, counts))
        except IndexError:  # as for the seen ranks: more of a rank than the pack holds
            piece = self._ranks_struct.pack(*[count * 0.25 for count in counts])
        self._ranks_bytes[counts] = piece
        return piece

    def _card_piece(self, cache: dict[int, bytes], key: int, cards: tuple[int, ...], head: tuple[float, ...]) -> bytes:
        """``head`` and :meth:`_card_values` of ``cards`` as bytes, kept in ``cache`` under ``key``."""
        if len(cache) > _CACHE_BOUND:  # a few thousand rank multisets occur; a bound all the same
            cache.clear()
        piece = cache[key] = _float32_bytes([*head, *self._card_values(cards)])
        return piece

    def _squash(self, chips: int) -> float:
        """A balance squashed into (-1, 1) (the reference; :meth:`encode` writes it out inline)."""
        x = chips / self._balance_unit
        return x / (1.0 + abs(x))

    @staticmethod
    def _rank_counts(known: Sequence[int]) -> list[float]:
        counts = [0.0] * RANKS
        for card in known:
            counts[CARD_RANK[card]] += 0.25
        return counts

    def _card_values(self, cards: tuple[int, ...]) -> list[float]:
        """What a hand's cards say, as the own and the banker blocks both encode it: visible ranks,
        hidden cards, card count, the visible cards' total and softness."""
        known = [card for card in cards if card != HIDDEN]
        total, soft = hand_total(known)
        return [
            *self._rank_counts(known),
            (len(cards) - len(known)) / 2.0,
            len(cards) * self._scale_cards,
            total / 21.0,
            float(soft),
        ]

    def _own_values(self, hand: HandView, active: bool) -> list[float]:
        """An own hand's fields in one list (the reference the packed pieces of :meth:`encode` are
        tested against)."""
        chips = self._scale_chips
        return [
            1.0,
            float(active),
            *self._card_values(hand.cards),
            hand.stake * chips,
            hand.initial * chips,
            hand.last_buy * chips,
            hand.buys / 3.0,
            float(hand.twisted),
            float(hand.doubled),
            float(hand.split),
            hand.shoot * chips,
            float(hand.done),
            float(hand.bust),
            float(hand.declared),
        ]

    def _banker_values(self, hand: HandView) -> list[float]:
        """A banker's hand's fields in one list (the reference for :meth:`encode`'s pieces)."""
        return [
            1.0,
            *self._card_values(hand.cards),
            float(hand.split),
            float(hand.done),
        ]

    def _other_values(self, hand: HandView) -> list[float]:
        # A player's `done` is left out on purpose: a hand that stops by itself at 21 would tell
        # the table that a face-down card made 21 before the player's turn visibly ends.
        known = [card for card in hand.cards if card != HIDDEN]
        total, soft = hand_total(known)
        chips = self._scale_chips
        return [
            1.0,
            len(hand.cards) * self._scale_cards,
            len(known) * self._scale_cards,
            total / 21.0,
            float(soft),
            hand.stake * chips,
            hand.buys / 3.0,
            float(hand.twisted),
            float(hand.doubled),
            float(hand.split),
            hand.shoot * chips,
            float(hand.bust),
            float(hand.declared),
        ]
