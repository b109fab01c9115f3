"""Rule sets as data: one typed, immutable, validated :class:`Rules` per preset of docs/rules.md.

Every rule a preset fixes is an option that can be overridden by name::

    >>> from pontoon_env.game.rules import make_rules
    >>> make_rules("pagat", stick_min=16, split_aces_only=True).stick_min
    16

Unknown options, out-of-range values and contradictory combinations raise :class:`RulesError`
naming the option, what was expected and what was given. ``docs/presets.md`` is generated from
:data:`PRESETS` by ``python -m pontoon_tools.docs``; a test fails when it is out of date.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, fields
from collections.abc import Mapping
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

import numpy as np

Settlement = Literal["pagat", "casino", "vingt_un_1800", "vingt_un_1850", "pontoon_1939", "pontoon_2011"]
SplitRule = Literal["none", "rank", "value"]
BuyLimits = Literal["none", "pagat", "initial"]
PackMode = Literal["carry_over", "deal_on", "fresh_each_round", "cut_card"]
BankPassing = Literal["none", "pontoon", "natural_holder", "rotate_on_natural"]
FirstBanker = Literal["random", "high_card", "first_ace", "first_jack"]
DealerRule = Literal["free", "hit_soft_17"]
SplitPontoon = Literal["pontoon", "21"]
BankerLooks = Literal["at_deal", "at_turn"]
NaturalShown = Literal["ace", "both"]
NaturalVsNatural = Literal["banker", "stand_off"]


class RulesError(ValueError):
    """An invalid rules option: unknown, out of range, or contradicting another option."""


@dataclass(frozen=True)
class Rules:
    """A complete, validated rule set. Build one with :func:`make_rules`.

    Each field is documented below with the section of docs/rules.md (§) or decision (D) it implements.
    """

    preset: str = "custom"
    """Name of the preset these rules started from (informational)."""
    settlement: Settlement = "pagat"
    """Which settlement tables and natural-handling scheme apply (§3–§9)."""
    decks: int = 1
    """Number of 52-card decks in the pack (D8, D18)."""
    min_stake: int = 1
    """Smallest stake, in chips."""
    max_stake: int = 10
    """Largest initial stake, in chips."""
    fixed_stake: bool = False
    """Every stake equals ``min_stake`` (Vingt-Un 1800, D11)."""
    stake_before_deal: bool = False
    """Stakes are placed before any card is dealt (casino, 1800) rather than on the first card."""
    banker_double: bool = False
    """The banker looks at his first card and may double all stakes (1850, 1939)."""
    bust_pays_double: bool = True
    """A banker bust pays double to pontoons and five-card tricks (D2; ``pagat`` scheme)."""
    split_pontoon: SplitPontoon = "pontoon"
    """Whether an ace + ten on a split hand ranks as a pontoon or as 21 (D3)."""
    five_card_trick: bool = True
    """The rule set knows the five-card trick; a hand stops at five cards."""
    five_card_trick_pays: int = 2
    """What a player's five-card trick wins (D15: 1 in ``pontoon_2011``)."""
    dealer_five_card_trick: bool = True
    """The banker can make a five-card trick (D9)."""
    allow_buy: bool = True
    """Players may buy cards face down for an extra stake."""
    buy_limits: BuyLimits = "pagat"
    """``pagat``: first buy in [1x, 2x] initial, later buys in [1x, previous]; ``initial``: each buy in
    [1 chip, initial stake] (1939, 2011); ``none`` when buying is off (D5)."""
    no_buy_fifth_at_or_below: int = 0
    """A four-card hand totalling this or less may not buy its fifth card; 0 disables (D6)."""
    stick_min: int = 15
    """Smallest total a player may stick on; 0 means no minimum (D17: the best total counts)."""
    split: SplitRule = "rank"
    """Which pairs may split: same rank, same value, or none."""
    split_aces_only: bool = False
    """Only aces may be split."""
    max_split_hands: int = 4
    """Most hands a player may hold after splits and re-splits (D10)."""
    double_allowed: bool = False
    """The casino double: once per hand on 2–4 cards, the stake doubles, hitting may go on."""
    draw_on_soft_21: bool = False
    """A soft 21 of three or four cards may still twist or (casino) double; a hard 21 and a two-card
    21 stop, and buying at 21 stays forbidden (D19, D4). The banker always stops at 21."""
    banker_looks: BankerLooks = "at_deal"
    """When the banker looks at his cards: with the second card (``at_deal``; his first card before
    that where he may double the stakes), or not before his turn (``at_turn``, 2011)."""
    natural_shown: NaturalShown = "ace"
    """How a declared natural is laid down: the ace face up and the ten face down (``ace``, pagat),
    or both cards face up (``both``)."""
    twist_face_up: bool = True
    """A twisted (drawn) card comes face up; ``False``: Vingt-Un draws are private (E3)."""
    banker_natural_at_deal: bool = True
    """The banker's natural is shown at the deal and ends the round (pagat, casino, Vingt-Un);
    ``False``: it waits for his turn and settles by the table (1939, 2011)."""
    banker_natural_wins: int = 2
    """Stakes a banker's natural at the deal takes from each player (pagat 2, casino 1)."""
    natural_vs_natural: NaturalVsNatural = "banker"
    """A player's natural against a banker's natural at the deal: pays like any hand (``banker``,
    E12) or stands off (``stand_off``, Vingt-Un, D12)."""
    natural_paid_at_deal: int = 0
    """Stakes a player's unsplit natural is paid at once when the banker has none (1939: 3,
    Vingt-Un: 2); 0: it waits for settlement."""
    natural_paid_by_all: bool = False
    """1800: the first natural in rotation is paid ``natural_paid_at_deal`` stakes by every other
    participant, players included; other naturals pay nothing (§6, D20)."""
    dealer_rule: DealerRule = "free"
    """``free``: the banker draws as he chooses; ``hit_soft_17``: the casino dealer's fixed rule."""
    dealer_may_split: bool = False
    """The dealer may also play a pair as separate hands (1850 "pairs and triplets")."""
    reveal_busts: bool = True
    """Busted hands are thrown in face up (False: handed to the banker face down, 2011)."""
    shoot: bool = False
    """Shoot Pontoon's kitty and shoot bets (§4)."""
    pack: PackMode = "carry_over"
    """Between rounds: ``carry_over`` (cards to the bottom unshuffled), ``deal_on`` (1800: deal on
    until the pack is used up, then shuffle the used cards), ``fresh_each_round`` (casino shoe
    shuffled every round), ``cut_card`` (shoe reshuffled once the cut card is reached)."""
    cut_card_fraction: float = 0.75
    """With ``pack="cut_card"``, the share of the shoe dealt before a reshuffle."""
    shuffle_after_pontoon: bool = True
    """After a round with a pontoon the pack is shuffled and cut (§3)."""
    bank_passing: BankPassing = "pontoon"
    """Who deals next: ``pontoon`` (a non-split player pontoon takes the bank, nearest the banker's
    left; D16), ``natural_holder`` (1800), ``rotate_on_natural`` (1850: clockwise after a natural),
    ``none``."""
    bank_take_over_optional: bool = False
    """The player entitled to the bank may decline it (2011)."""
    old_mode: bool = False
    """1850 "old mode": the natural's holder takes the deal instead of the next seat clockwise."""
    misericorde: bool = False
    """1850: a natural in a new dealer's first round does not pass the deal."""
    brulet: bool = False
    """1850 brûlet: antes to a pool, taken by the dealer when top and bottom cards form a natural."""
    ante: int = 1
    """Chips each player antes to the brûlet pool at a new dealer's first round."""
    bank_sale: bool = False
    """Between rounds the banker may auction the bank (§9b)."""
    first_banker: FirstBanker = "random"
    """How the first banker is chosen (seeded)."""
    bankroll: int = 0
    """Chips each seat starts a session with; 0 means unlimited."""

    def __post_init__(self) -> None:
        _validate(self)

    def replace(self, **overrides: Any) -> Rules:
        """Return a copy with ``overrides`` applied (validated like :func:`make_rules`)."""
        return make_rules(self, **overrides)

    @property
    def max_buy_total(self) -> int:
        """The most chips one hand can ever stake (initial plus every buy, doubles included)."""
        if self.five_card_trick:
            buys = 3  # the third, fourth and fifth cards: five cards end the hand
        else:
            # Without the trick a hand buys on while under 21: as many cards as the pack's
            # smallest add up to without passing 21 (eleven from one deck: A A A A 2 2 2 2 3 3 3).
            total = cards = 0
            for value in range(1, 11):
                fit = min(4 * self.decks * (4 if value == 10 else 1), (21 - total) // value)
                total, cards = total + fit * value, cards + fit
                if fit < 4 * self.decks:
                    break
            buys = cards - 2
        # pagat: each buy at most twice the initial stake (D5); initial: at most the initial stake
        per_buy = {"pagat": 2, "initial": 1}.get(self.buy_limits, 0)
        most = self.max_stake * (1 + per_buy * buys)
        # The banker's double doubles the initial stake (and so every later buy); the casino
        # double doubles the hand's stake once.
        return most * (2 if self.banker_double else 1) * (2 if self.double_allowed else 1)


def _option_types() -> dict[str, Any]:
    return get_type_hints(Rules)


OPTION_NAMES: tuple[str, ...] = tuple(field.name for field in fields(Rules))


def _check_type(name: str, value: Any, expected: Any) -> None:
    if get_origin(expected) is Literal:
        choices = get_args(expected)
        if value not in choices:
            raise RulesError(f"option {name!r}: expected one of {list(choices)}, got {value!r}")
    elif expected is bool:
        if not isinstance(value, bool):
            raise RulesError(f"option {name!r}: expected True or False, got {value!r}")
    elif expected is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise RulesError(f"option {name!r}: expected an integer, got {value!r}")
    elif expected is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise RulesError(f"option {name!r}: expected a number, got {value!r}")
    elif expected is str and not isinstance(value, str):
        raise RulesError(f"option {name!r}: expected a string, got {value!r}")


def _check_range(rules: Rules, name: str, low: float, high: float) -> None:
    value = getattr(rules, name)
    if not low <= value <= high:
        raise RulesError(f"option {name!r}: expected a value in [{low}, {high}], got {value!r}")


def _contradiction(message: str, **given: Any) -> RulesError:
    shown = ", ".join(f"{key}={value!r}" for key, value in given.items())
    return RulesError(f"contradictory options ({shown}): {message}")


def _validate(rules: Rules) -> None:
    for name, expected in _option_types().items():
        _check_type(name, getattr(rules, name), expected)
    _check_range(rules, "decks", 1, 8)
    _check_range(rules, "min_stake", 1, 1_000_000)
    _check_range(rules, "max_stake", 1, 1_000_000)
    _check_range(rules, "five_card_trick_pays", 1, 2)
    _check_range(rules, "no_buy_fifth_at_or_below", 0, 20)
    _check_range(rules, "stick_min", 0, 21)
    _check_range(rules, "max_split_hands", 1, 4)
    _check_range(rules, "cut_card_fraction", 0.1, 0.95)
    _check_range(rules, "ante", 0, 1_000_000)
    _check_range(rules, "bankroll", 0, 10**12)
    _check_range(rules, "banker_natural_wins", 1, 3)
    _check_range(rules, "natural_paid_at_deal", 0, 3)
    if rules.natural_paid_by_all and rules.natural_paid_at_deal == 0:
        raise _contradiction(
            "a natural paid by every participant needs natural_paid_at_deal >= 1",
            natural_paid_by_all=True,
            natural_paid_at_deal=0,
        )
    if 0 < rules.bankroll < rules.min_stake:
        raise _contradiction(
            "a finite bankroll must cover the minimum stake (0 means unlimited chips)",
            bankroll=rules.bankroll,
            min_stake=rules.min_stake,
        )
    if rules.min_stake > rules.max_stake:
        raise _contradiction(
            "min_stake must not exceed max_stake", min_stake=rules.min_stake, max_stake=rules.max_stake
        )
    if rules.allow_buy != (rules.buy_limits != "none"):
        raise _contradiction(
            "buying needs buy_limits 'pagat' or 'initial'; buy_limits='none' needs allow_buy=False",
            allow_buy=rules.allow_buy,
            buy_limits=rules.buy_limits,
        )
    if rules.split_aces_only and rules.split == "none":
        raise _contradiction("split_aces_only needs splitting enabled", split="none", split_aces_only=True)
    if rules.split != "none" and rules.max_split_hands < 2:
        raise _contradiction(
            "splitting needs max_split_hands >= 2 (use split='none' to forbid splits)",
            split=rules.split,
            max_split_hands=rules.max_split_hands,
        )
    if rules.fixed_stake and rules.banker_double:
        raise _contradiction("fixed stakes cannot be doubled", fixed_stake=True, banker_double=True)
    if rules.banker_looks == "at_turn" and rules.banker_double:
        raise _contradiction(
            "the banker doubles on his first card, which banker_looks='at_turn' forbids him to see before his turn",
            banker_looks="at_turn",
            banker_double=True,
        )
    if rules.stake_before_deal and rules.banker_double:
        raise _contradiction(
            "the banker's double follows stakes placed on the first card",
            stake_before_deal=True,
            banker_double=True,
        )
    if rules.shoot and rules.settlement != "pagat":
        raise _contradiction("shoot bets are defined for the pagat settlement", shoot=True, settlement=rules.settlement)
    if rules.dealer_may_split and rules.settlement != "vingt_un_1850":
        raise _contradiction(
            "a dealer's pairs are settled only under the 1850 rules",
            dealer_may_split=True,
            settlement=rules.settlement,
        )
    if rules.dealer_may_split and rules.max_split_hands < 2:
        raise _contradiction(
            "a dealer's split needs max_split_hands >= 2", dealer_may_split=True, max_split_hands=rules.max_split_hands
        )
    if rules.dealer_may_split and rules.dealer_rule != "free":
        raise _contradiction(
            "a dealer bound to a fixed drawing rule never chooses to split",
            dealer_may_split=True,
            dealer_rule=rules.dealer_rule,
        )
    if rules.brulet and rules.settlement != "vingt_un_1850":
        raise _contradiction("the brûlet belongs to the 1850 rules", brulet=True, settlement=rules.settlement)
    if rules.settlement in ("vingt_un_1800", "vingt_un_1850") and rules.five_card_trick:
        raise _contradiction(
            "the Vingt-Un rule sets know no five-card trick",
            settlement=rules.settlement,
            five_card_trick=True,
        )


_BASE = Rules()

PRESETS: dict[str, Rules] = {
    "pagat": dataclasses.replace(_BASE, preset="pagat", first_banker="high_card"),
    "shoot": dataclasses.replace(_BASE, preset="shoot", shoot=True, first_banker="high_card"),
    "casino": dataclasses.replace(
        _BASE,
        preset="casino",
        settlement="casino",
        decks=8,
        stake_before_deal=True,
        allow_buy=False,
        buy_limits="none",
        split="value",
        max_split_hands=3,
        double_allowed=True,
        dealer_rule="hit_soft_17",
        draw_on_soft_21=True,
        natural_shown="both",
        banker_natural_wins=1,
        pack="fresh_each_round",
        shuffle_after_pontoon=False,
        bank_passing="none",
        first_banker="random",
    ),
    "vingt_un_1800": dataclasses.replace(
        _BASE,
        preset="vingt_un_1800",
        settlement="vingt_un_1800",
        fixed_stake=True,
        stake_before_deal=True,
        five_card_trick=False,
        dealer_five_card_trick=False,
        allow_buy=False,
        buy_limits="none",
        stick_min=0,
        split="none",
        max_split_hands=1,
        reveal_busts=False,
        natural_shown="both",
        twist_face_up=False,
        natural_vs_natural="stand_off",
        natural_paid_at_deal=2,
        natural_paid_by_all=True,
        pack="deal_on",
        shuffle_after_pontoon=False,
        bank_passing="natural_holder",
        first_banker="first_ace",
    ),
    "vingt_un_1850": dataclasses.replace(
        _BASE,
        preset="vingt_un_1850",
        settlement="vingt_un_1850",
        banker_double=True,
        split_pontoon="21",
        five_card_trick=False,
        dealer_five_card_trick=False,
        allow_buy=False,
        buy_limits="none",
        stick_min=0,
        split="rank",
        max_split_hands=3,
        dealer_may_split=True,
        reveal_busts=False,
        natural_shown="both",
        twist_face_up=False,
        natural_vs_natural="stand_off",
        natural_paid_at_deal=2,
        pack="deal_on",
        shuffle_after_pontoon=False,
        bank_passing="rotate_on_natural",
        misericorde=True,
        brulet=True,
        first_banker="random",
    ),
    "pontoon_1939": dataclasses.replace(
        _BASE,
        preset="pontoon_1939",
        settlement="pontoon_1939",
        banker_double=True,
        split_pontoon="21",
        buy_limits="initial",
        stick_min=0,
        split="rank",
        max_split_hands=4,
        natural_shown="both",
        banker_natural_at_deal=False,
        natural_paid_at_deal=3,
        first_banker="high_card",
    ),
    "pontoon_2011": dataclasses.replace(
        _BASE,
        preset="pontoon_2011",
        settlement="pontoon_2011",
        five_card_trick_pays=1,
        buy_limits="initial",
        no_buy_fifth_at_or_below=11,
        stick_min=16,
        split="rank",
        split_aces_only=True,
        reveal_busts=False,
        banker_looks="at_turn",
        natural_shown="both",
        banker_natural_at_deal=False,
        bank_take_over_optional=True,
        first_banker="first_jack",
    ),
}
"""Every preset of docs/rules.md, by name."""


def make_rules(preset: str | Rules = "pagat", /, **overrides: Any) -> Rules:
    """Return the rules of ``preset`` (a name in :data:`PRESETS` or a :class:`Rules`) with overrides.

    Raises:
        RulesError: unknown preset or option, a value out of range, or contradictory options.
    """
    if isinstance(preset, Rules):
        base = preset
    elif isinstance(preset, str) and preset in PRESETS:
        base = PRESETS[preset]
    elif isinstance(preset, str):
        raise RulesError(f"unknown preset {preset!r}: expected one of {sorted(PRESETS)}")
    else:  # a dict of options belongs to resolve_rules; anything else is no preset
        raise RulesError(f"preset: expected a preset name or a Rules (a dict of options: resolve_rules), "
                         f"got {type(preset).__name__} {preset!r}")
    for name in overrides:
        if name not in OPTION_NAMES:
            raise RulesError(
                f"unknown rules option {name!r} for preset {base.preset!r}: expected one of {sorted(OPTION_NAMES)}"
            )
    return dataclasses.replace(base, **_plain_values(overrides))


def _plain_values(options: Mapping[str, Any]) -> dict[str, Any]:
    """numpy scalars (from a config sweep, an array of settings) as the plain values they hold."""
    return {name: value.item() if isinstance(value, np.generic) else value for name, value in options.items()}


RulesSpec = Union[str, Rules, Mapping[str, Any]]  # noqa: UP007 (a runtime alias)
"""A rule set as users give it: a preset name, a :class:`Rules`, or a dict of options."""


def resolve_rules(rules: RulesSpec, rule_options: Mapping[str, Any] | None = None) -> Rules:
    """Build :class:`Rules` from a preset name, a :class:`Rules` or a dict of options.

    A dict names its base preset under ``"preset"`` (default ``"pagat"``); every other key is a
    rules option. A dict whose ``"preset"`` is not a preset name must hold every option (a custom
    rule set saved whole, as a checkpoint's config does); otherwise it is a misspelt preset and is
    refused rather than silently built on defaults. ``rule_options`` are applied on top.

    Raises:
        RulesError: an unknown preset or option, or an invalid value (the message names it).
    """
    if rule_options is not None and not isinstance(rule_options, Mapping):
        raise RulesError(f"rule_options: expected a dict of options such as {{'stick_min': 16}}, "
                         f"got {type(rule_options).__name__} {rule_options!r}")
    options = dict(rule_options or {})
    if isinstance(rules, (Rules, str)):
        return make_rules(rules, **options)
    if isinstance(rules, Mapping):
        given = dict(rules)
        preset = given.pop("preset", "pagat")
        if not isinstance(preset, str):
            raise RulesError(f"rules dict: 'preset' is a preset name, got {type(preset).__name__} {preset!r}")
        if preset in PRESETS:
            return make_rules(preset, **{**given, **options})
        missing = sorted(set(OPTION_NAMES) - {"preset"} - set(given))
        if missing:
            raise RulesError(
                f"rules dict: unknown preset {preset!r}: expected one of {sorted(PRESETS)} (or a custom rule "
                f"set listing every option; missing {missing[:4]}{' ...' if len(missing) > 4 else ''})"
            )
        unknown = sorted(set(given) - set(OPTION_NAMES))
        if unknown:
            raise RulesError(f"rules dict: unknown options {unknown}: expected some of {sorted(OPTION_NAMES)}")
        return make_rules(Rules(preset=str(preset), **_plain_values(given)), **options)
    raise RulesError(f"rules: expected a preset name, a Rules or a dict of options, got {type(rules).__name__} {rules!r}")


def option_docs() -> dict[str, str]:
    """Return each option's documentation string, parsed from this module's source."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(Rules))
    docs: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, following in zip(body, body[1:]):
        if isinstance(node, ast.AnnAssign) and isinstance(following, ast.Expr):
            value = following.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                docs[node.target.id] = " ".join(value.value.split())  # type: ignore[attr-defined]
    return docs
