"""A banker who learns from the showdowns what the players' hands are, and stops optimally on it.

:class:`~agents.banker_smart.BankerSmart` decides by optimal stopping over his own draws against a
*belief* about every standing player hand, and that belief is a behaviour prior written by hand (a
player draws below the stick minimum, then with a logistic chance through 1/2 at 16). Against
players who do not play that way the prior is wrong, and so are his decisions. :class:`BeliefBanker`
keeps the stopping and the utility (one implementation: it *is* a ``BankerSmart``) and learns the
belief from play instead: a :class:`BeliefTable` counts, for every standing hand the banker has faced
at his turn, what it turned out to be at the showdown, keyed by what the banker could see of it.

What the banker sees of a hand (:func:`hand_keys`) is read at three levels of detail, each one's
counts smoothing the next (a hierarchical Dirichlet estimate with ``alpha`` pseudo-counts):

* ``fine``: the number of cards, every card's value in dealing order (0 for a face-down card), the
  split flag, the buys, whether it twisted, a declared natural, and the stake per initial stake;
* ``mid``: the number of cards, the sum and count of the visible values, split, buys, declared;
* ``coarse``: the number of cards, split, declared.

A hand no level has seen falls back to what its visible cards alone make (as ``banker_smart``'s own
fallback). Nothing else is built in: no prior about how players play, nothing from the solver. What
the table learns is specific to the players it was learnt against and the rules; the table size
barely matters (each hand is counted on its own), so a table learnt at one seat may play at four.

Files: :meth:`BeliefTable.save` writes JSON (``format``, the rules, the counts); :meth:`load` checks
it and refuses a corrupt or foreign file with a message naming the path and what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agents.banker_smart import BankerSmart, visible_result
from pontoon_env.game.cards import CARD_VALUE
from pontoon_env.game.checks import require_int
from pontoon_env.game.hands import HandClass, HandResult
from pontoon_env.game.observation import HIDDEN, HandView
from pontoon_env.game.rules import Rules, make_rules

FORMAT = "pontoon-banker-belief/1"
"""The ``format`` field of a belief file: what :meth:`BeliefTable.load` accepts."""

BELIEF_FILE = "belief.json"
"""The belief table's name in a run directory (``train.py --algo belief`` writes it)."""

LEVELS = ("coarse", "mid", "fine")
"""The key levels, coarsest first: each level's estimate is the prior of the next."""

Key = tuple[Any, ...]


def hand_keys(hand: HandView) -> tuple[Key, Key, Key]:
    """The ``(coarse, mid, fine)`` keys of what a seat sees of another seat's hand (module docstring)."""
    values = tuple(0 if card == HIDDEN else CARD_VALUE[card] for card in hand.cards)
    count = len(values)
    split, declared = bool(hand.split), bool(hand.declared)
    shown = [value for value in values if value]
    per_initial = hand.stake // hand.initial if hand.initial > 0 else hand.stake
    return (
        (count, split, declared),
        (count, sum(shown), len(shown), split, hand.buys, declared),
        (count, values, split, hand.buys, bool(hand.twisted), declared, per_initial),
    )


def _result_row(result: HandResult) -> list[Any]:
    return [result.hand_class.name, result.total, result.split, result.cards]


def _row_result(row: Any) -> HandResult:
    name, total, split, cards = row
    return HandResult(HandClass[name], int(total), bool(split), int(cards))


class BeliefTable:
    """Counts of standing hands' final results by what the banker saw of them (module docstring).

    Args:
        rules: the rules the counts were made under (a hand's result class depends on them).
        alpha: pseudo-counts with which a coarser level's estimate smooths the next.
    """

    def __init__(self, rules: Rules | str = "pagat", alpha: float = 20.0) -> None:
        if not alpha > 0:
            raise ValueError(f"alpha: expected a positive number of pseudo-counts, got {alpha!r}")
        self.rules = make_rules(rules) if isinstance(rules, str) else rules
        self.alpha = float(alpha)
        self.counts: list[dict[Key, dict[HandResult, int]]] = [{} for _ in LEVELS]
        self.hands = 0
        """Hands counted so far."""
        self._memo: dict[Key, dict[HandResult, float]] = {}

    # -- learning

    def add(self, hand: HandView, result: HandResult) -> None:
        """Count one showdown: ``hand`` as the banker saw it at his turn, ``result`` what it was."""
        for level, key in zip(self.counts, hand_keys(hand)):
            seen = level.setdefault(key, {})
            seen[result] = seen.get(result, 0) + 1
        self.hands += 1
        self._memo.clear()

    # -- the belief

    def belief(self, hand: HandView) -> dict[HandResult, float]:
        """The learnt distribution of ``hand``'s final result (probabilities summing to 1)."""
        keys = hand_keys(hand)
        found = self._memo.get(keys[2])
        if found is not None:
            return found
        estimate: dict[HandResult, float] = {}
        for level, key in zip(self.counts, keys):
            seen = level.get(key)
            if not seen:
                continue
            total = sum(seen.values())
            if not estimate:  # the coarsest level seen: its frequencies
                estimate = {result: count / total for result, count in seen.items()}
                continue
            weight = self.alpha / (total + self.alpha)
            smoothed = {result: probability * weight for result, probability in estimate.items()}
            for result, count in seen.items():
                smoothed[result] = smoothed.get(result, 0.0) + count / (total + self.alpha)
            estimate = smoothed
        if not estimate:
            estimate = {visible_result(hand, self.rules): 1.0}
        self._memo[keys[2]] = estimate
        return estimate

    # -- files

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "rules": self.rules.preset,
            "options": _options(self.rules),
            "alpha": self.alpha,
            "hands": self.hands,
            "counts": {
                name: [[list(_jsonable(key)), [[_result_row(r), c] for r, c in seen.items()]]
                       for key, seen in level.items()]
                for name, level in zip(LEVELS, self.counts)
            },
        }

    def save(self, path: str | Path) -> Path:
        path = Path(path)
        path.write_text(json.dumps(self.to_json()))
        return path

    @classmethod
    def load(cls, path: str | Path, rules: Rules | str | None = None) -> BeliefTable:
        """Read a table written by :meth:`save`; with ``rules``, refuse one made under other rules.

        Raises:
            ValueError: unreadable or malformed file, or other rules (the message names the path).
        """
        path = Path(path)
        try:
            data = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            raise ValueError(f"belief table {str(path)!r} is unreadable: {error}") from error
        if not isinstance(data, Mapping) or data.get("format") != FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise ValueError(f"belief table {str(path)!r}: expected format {FORMAT!r}, got {found!r}")
        options = data.get("options", {})
        if not isinstance(options, Mapping):  # a list gave a raw AttributeError ('list' has no 'items')
            raise ValueError(f"belief table {str(path)!r}: 'options': expected a JSON object of rules options, "
                             f"found {options!r} ({type(options).__name__})")
        try:
            saved = make_rules(data["rules"], **{name: _tuple(value) for name, value in options.items()})
            table = cls(saved, float(data["alpha"]))
            for name, level in zip(LEVELS, table.counts):
                for key, rows in data["counts"][name]:
                    level[_tuple(key)] = {_row_result(row): _count(path, name, key, count) for row, count in rows}
            table.hands = int(data["hands"])
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            if str(error).startswith("belief table "):  # _count's own message names the file already
                raise
            raise ValueError(f"belief table {str(path)!r} is malformed: {error!r}") from error
        if rules is not None:
            wanted = make_rules(rules) if isinstance(rules, str) else rules
            if _play_options(wanted) != _play_options(saved) or wanted.preset != saved.preset:
                raise ValueError(
                    f"belief table {str(path)!r} was learnt under other rules than this table's: "
                    f"{_differences(saved, wanted)} (learnt under {saved.preset!r}, the table plays {wanted.preset!r})"
                )
        return table


class BeliefBanker(BankerSmart):
    """``banker_smart``'s optimal stopping with the belief of a :class:`BeliefTable` (module docstring).

    Args:
        table: the learnt belief (its rules are the banker's).
        double_on_ace, kitty, margin, shoot_weight: as :class:`~agents.banker_smart.BankerSmart`.
    """

    name = "banker_belief"

    def __init__(self, table: BeliefTable, double_on_ace: bool = True, kitty: str | int = "min",
                 margin: float = 0.0, shoot_weight: float = 1.0) -> None:
        super().__init__(table.rules, double_on_ace=double_on_ace, kitty=kitty, margin=margin,
                         shoot_weight=shoot_weight)
        self.table = table

    def belief(self, hand: HandView) -> dict[HandResult, float]:
        return self.table.belief(hand)

    def __repr__(self) -> str:
        return f"BeliefBanker(rules={self.rules.preset!r}, hands={self.table.hands:,})"


def is_belief_run(path: str | Path) -> bool:
    """``path`` is a belief table file or a run directory holding one."""
    path = Path(path)
    return (path.is_dir() and (path / BELIEF_FILE).is_file()) or (path.is_file() and path.name.endswith(".json")
                                                                 and _looks_like_belief(path))


def load_belief_banker(path: str | Path, rules: Rules | str | None = None) -> BeliefBanker:
    """The banker of a belief run directory (or its ``belief.json``)."""
    path = Path(path)
    return BeliefBanker(BeliefTable.load(path / BELIEF_FILE if path.is_dir() else path, rules))


# ---------------------------------------------------------------------------------------- helpers


def _options(rules: Rules) -> dict[str, Any]:
    """The rule options a belief depends on, as JSON values (every field that differs from the preset)."""
    from dataclasses import fields

    base = make_rules(rules.preset)
    return {f.name: _jsonable(getattr(rules, f.name)) for f in fields(rules)
            if f.name != "preset" and getattr(rules, f.name) != getattr(base, f.name)}


def _play_options(rules: Rules) -> dict[str, Any]:
    """:func:`_options` without those that only decide who holds the bank between rounds
    (``BANK_MOVEMENT_OPTIONS``): a showdown does not depend on them, and the environments set them
    themselves (they keep the bank in one seat), so a belief fits a table whatever they are."""
    from agents.checkpoint import BANK_MOVEMENT_OPTIONS

    return {name: value for name, value in _options(rules).items() if name not in BANK_MOVEMENT_OPTIONS}


def _differences(saved: Rules, wanted: Rules) -> str:
    names = sorted(set(_play_options(saved)) | set(_play_options(wanted)))
    diff = [f"{name}={getattr(saved, name)!r} not {getattr(wanted, name)!r}" for name in names
            if getattr(saved, name) != getattr(wanted, name)]
    return ", ".join(diff) if diff else "another preset"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(item) for item in value]
    return value


def _count(path: Path, level: str, key: Any, count: Any) -> int:
    """A count of a saved table: a whole number of hands, never negative (a negative count was
    accepted and bent the belief's probabilities)."""
    try:
        return require_int(f"'counts' of level {level!r}, key {key!r} (hands)", count, 0)
    except ValueError as error:
        raise ValueError(f"belief table {str(path)!r}: {error}") from None


def _tuple(value: Any) -> Any:
    return tuple(_tuple(item) for item in value) if isinstance(value, list) else value


def _looks_like_belief(path: Path) -> bool:
    try:
        with path.open() as handle:
            return FORMAT in handle.read(200)
    except OSError:
        return False
