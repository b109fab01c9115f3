"""Build a policy from a short text spec: ``"threshold:stick=16,buy=11"``, ``"banker_smart"``, a path.

A spec is a policy name, optionally followed by ``:`` and comma-separated ``key=value`` parameters,
or the path of a trained model checkpoint (a ``.zip`` file, loaded by :mod:`agents.model`)::

    >>> from agents.registry import make_policy
    >>> from pontoon_env import make_rules
    >>> make_policy("threshold:stick=17,buy=0", make_rules("pagat"))
    ThresholdPlayer(stick_at=17, buy_at_or_below=0, ...)  # doctest: +SKIP

Every error names what was wrong and lists the valid choices.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.banker_smart import BankerSmart
from agents.base import Policy, RandomPolicy
from agents.scripted import BankerThreshold, CasinoDealer, ThresholdPlayer
from pontoon_env.game.rules import Rules, RulesError, make_rules, resolve_rules


class PolicySpecError(ValueError):
    """A policy spec that names no known policy, or gives it an unknown or invalid parameter."""


# ---------------------------------------------------------------------------- value parsers


_DIGITS = "[0-9]+"
"""A number in a spec: plain ASCII digits (what ``int()`` takes besides, such as ``1_6``, is refused)."""


def _int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not re.fullmatch(r"-?" + _DIGITS, text):  # int() also takes '1_6', '+16' and other scripts' digits
            raise ValueError
        value = int(text)
        if not low <= value <= high:
            raise ValueError
        return value

    parse.__doc__ = f"an integer in {low}..{high}"
    return parse


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # nan made banker_smart never draw
        raise ValueError
    return value


_float.__doc__ = "a finite number"


def _bool(text: str) -> bool:
    lowered = text.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError


_bool.__doc__ = "true/false (also 1/0, yes/no, on/off)"


def _choice(*choices: str, chips: bool = False) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if text.lower() in choices:  # case as for the names and the true/false values
            return text.lower()
        if chips and re.fullmatch(_DIGITS, text):
            return int(text)
        raise ValueError

    parse.__doc__ = " or ".join(repr(choice) for choice in choices) + (
        " or a number of chips" if chips else ""
    )
    return parse


_SPLIT_SETS = {"aces_eights": (0, 7), "aces": (0,), "none": (), "all": tuple(range(13))}


def _split(text: str) -> tuple[int, ...]:
    if text.lower() not in _SPLIT_SETS:
        raise ValueError
    return _SPLIT_SETS[text.lower()]


_split.__doc__ = " or ".join(repr(name) for name in _SPLIT_SETS)


def _double(text: str) -> tuple[int, ...]:
    text = text.lower()
    # Words only for on/off: "1" and "0" read as switches here but as totals in "10/11" (and a
    # total of 1 or 0 cannot be doubled), so they are refused rather than guessed.
    if text in ("off", "none", "no", "false"):
        return ()
    if text in ("on", "yes", "true"):
        return (10, 11)
    parts = text.split("/")
    if not all(re.fullmatch(_DIGITS, part) for part in parts):
        raise ValueError
    totals = tuple(int(part) for part in parts)
    if not all(2 <= total <= 21 for total in totals):
        raise ValueError
    return totals


_double.__doc__ = "'on' (10/11), 'off', or totals joined by '/' such as 9/10/11"


# ---------------------------------------------------------------------------- the registry


@dataclass(frozen=True)
class Param:
    """One spec parameter: the constructor keyword it sets, its parser and a description."""

    keyword: str
    parse: Callable[[str], Any]
    help: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    """A named policy: how to build it and which parameters it takes."""

    build: Callable[..., Policy]
    help: str
    params: dict[str, Param] = field(default_factory=dict)
    needs_rules: bool = False
    role: str = "player"


def _optimal(rules: Rules, **kwargs: Any) -> Policy:
    from agents.optimal import OptimalPlayer  # lazy: solving takes a moment, only when asked for

    return OptimalPlayer(rules, **kwargs)


REGISTRY: dict[str, Entry] = {
    "random": Entry(RandomPolicy, "uniformly random over the legal actions and their amounts", role="any"),
    "threshold": Entry(
        ThresholdPlayer,
        "player: sticks at a total, buys small totals, bets by the first card",
        {
            "stick": Param(
                "stick_at", _int(0, 21), "smallest hard total to stick on (default 16)", ("stick_at",)
            ),
            "buy": Param(
                "buy_at_or_below",
                _int(0, 21),
                "buy at this total or less, 0 never (default 11)",
                ("buy_at_or_below",),
            ),
            "amount": Param(
                "buy_amount",
                _choice("max", "min", chips=True),
                "price of a buy (default max)",
                ("buy_amount",),
            ),
            "bet": Param(
                "bet",
                _choice("first_card", "min", "max", chips=True),
                "initial stake: max on an ace/ten first card, else min (default first_card)",
            ),
            "soft": Param(
                "soft_stick_at",
                _int(0, 21),
                "smallest soft total to stick on (default = stick)",
                ("soft_stick_at",),
            ),
            "split": Param("split_ranks", _split, "pairs to split (default aces_eights)", ("split_ranks",)),
            "double": Param(
                "double_on", _double, "two-card totals to casino-double (default 10/11)", ("double_on",)
            ),
            "shoot": Param("shoot", _choice("none", "modest"), "shoot bets (default none)"),
        },
    ),
    "casino_dealer": Entry(CasinoDealer, "banker: hits soft 17 and below, stands on hard 17+", role="banker"),
    "banker_threshold": Entry(
        BankerThreshold,
        "banker: draws below a total, keeps the bank, minimum kitty",
        {
            "stand": Param("stand", _int(0, 22), "stand on this total or more (default 17)"),
            "double_ace": Param(
                "double_on_ace",
                _bool,
                "double all stakes on an ace first card (default false)",
                ("double_on_ace",),
            ),
            "kitty": Param("kitty", _choice("min", "max", chips=True), "kitty to put up (default min)"),
        },
        role="banker",
    ),
    "banker_smart": Entry(
        BankerSmart,
        "banker: draws when the expected chips of drawing beat standing, given the visible hands",
        {
            "double_ace": Param(
                "double_on_ace",
                _bool,
                "double all stakes on an ace first card (default true)",
                ("double_on_ace",),
            ),
            "kitty": Param("kitty", _choice("min", "max", chips=True), "kitty to put up (default min)"),
            "margin": Param("margin", _float, "chips by which drawing must beat standing (default 0)"),
            "shoot_weight": Param("shoot_weight", _float, "weight of shoot bets for the banker (default 1)"),
        },
        needs_rules=True,
        role="banker",
    ),
    "optimal": Entry(
        _optimal,
        "player: the exact solver's best play against a banker standing on a total (not Vingt-Un)",
        {"stand": Param("stand", _int(2, 22), "the banker rule it is optimal against (default 17)")},
        needs_rules=True,
    ),
}

def _best_response(rules: Rules, player: str = "threshold") -> Policy:
    from agents.banker_response import BankerBestResponse  # lazy: the solver runs once, when asked for

    return BankerBestResponse(rules, player)


REGISTRY["banker_best_response"] = Entry(
    _best_response,
    "banker: the exact best response (infinite deck) to one fixed player at a one-player table",
    {"player": Param("player", _choice("threshold", "optimal"), "the player it answers (default threshold)")},
    needs_rules=True,
    role="banker",
)

POLICY_NAMES: list[str] = list(REGISTRY)
"""Every policy name :func:`make_policy` accepts (besides a checkpoint path)."""


def describe_policies() -> str:
    """A text list of the policy names, what they do and their parameters (for ``--help``)."""
    lines = []
    for name, entry in REGISTRY.items():
        lines.append(f"{name}: {entry.help}")
        for key, param in entry.params.items():
            lines.append(f"    {key}=<{param.parse.__doc__}>  {param.help}")
    lines.append("<path>.zip: a trained model checkpoint (agents.model.ModelPolicy)")
    lines.append("runs/<name> of train_rllib.py: an RLlib checkpoint (agents.rllib_policy; needs the rllib extra)")
    return "\n".join(lines)


def _parse_params(name: str, entry: Entry, text: str) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    valid = ", ".join(entry.params) or "none"
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, raw = item.partition("=")
        key, raw = key.strip().lower(), raw.strip()
        if not sep or not key or not raw:
            raise PolicySpecError(
                f"policy {name!r}: expected key=value parameters, got {item!r} (valid: {valid})"
            )
        param = entry.params.get(key) or next((p for p in entry.params.values() if key in p.aliases), None)
        if param is None:
            raise PolicySpecError(f"policy {name!r} has no parameter {key!r}; valid parameters: {valid}")
        if param.keyword in kwargs:  # stick=15,stick_at=18 kept the last one without a word
            raise PolicySpecError(f"policy {name!r}: parameter {key!r} is given twice (or with its alias) in {text!r}")
        try:
            kwargs[param.keyword] = param.parse(raw)
        except ValueError:
            raise PolicySpecError(
                f"policy {name!r}: parameter {key!r} expects {param.parse.__doc__}, got {raw!r}"
            ) from None
    return kwargs


def make_policy(
    spec: str | Policy, rules: Rules | str, *, num_players: int | None = None, role: str | None = None
) -> Policy:
    """Return the policy a spec names.

    Args:
        spec: a name in :data:`POLICY_NAMES`, optionally with parameters (``"threshold:stick=16,buy=11"``),
            a path to a ``.zip`` model checkpoint, or a policy object (returned as it is).
        rules: the rules the policy will play (some policies read the settlement table from them).
        num_players: player seats at the table, passed on to a checkpoint's model policy and
            checked against a policy's ``max_players`` (``banker_best_response`` answers one).
        role: the role of the seat (``"player"`` or ``"banker"``), when known: a checkpoint trained
            for the other role is refused (:class:`agents.model.ModelPolicy`'s ``role``).

    Raises:
        PolicySpecError: unknown name or parameter, an invalid parameter value, or a table too large
            for the policy.
    """
    try:
        rules = resolve_rules(rules)  # a dict of options, as the engine takes; anything else refused here
    except RulesError as error:
        raise PolicySpecError(str(error)) from error
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)):
            return spec
        raise PolicySpecError(
            f"policy: expected a spec string or an object with act(), got {type(spec).__name__}"
            + (" (an object with act_batch() alone can drive a BatchedEngine seat, not an environment's opponent)"
               if callable(getattr(spec, "act_batch", None)) else "")
        )
    text = spec.strip()
    if not text:
        raise PolicySpecError(f"policy: expected a policy name such as 'threshold' ({', '.join(POLICY_NAMES)}) "
                              "or a checkpoint path, got an empty spec")
    name, _, params = text.partition(":")
    name = name.strip().lower()
    entry = REGISTRY.get(name)
    if entry is None:
        from agents.rllib_policy import policy_from_spec  # Ray is imported only to load a checkpoint

        try:
            rllib_policy = policy_from_spec(text, rules, num_players)
        except ValueError as error:  # RLlibCheckpointError: preset, table size or action layout
            raise PolicySpecError(str(error)) from error
        if rllib_policy is not None:
            return rllib_policy
    if entry is None and Path(text).exists():
        from agents.banker_belief import is_belief_run, load_belief_banker

        if is_belief_run(text):
            try:
                return load_belief_banker(text, rules)
            except ValueError as error:  # unreadable, malformed, or learnt under other rules
                raise PolicySpecError(str(error)) from error
    if entry is None and Path(text).is_dir() and not (Path(text) / "model.zip").exists():
        raise PolicySpecError(f"policy {text!r}: a folder that holds no model.zip (a run directory of train.py "
                              f"has one); expected a policy name ({', '.join(POLICY_NAMES)}) or a checkpoint path")
    if entry is None and (text.lower().endswith(".zip") or Path(text).exists()):
        return _load_checkpoint(text, rules, num_players, role)
    path_part = text.partition(":")[0].strip()
    if entry is None and params and (Path(path_part).exists() or Path(path_part + ".zip").exists()):
        # "runs/x/model.zip:stick=16" said "unknown policy 'runs/x/model.zip'" of a file that is there.
        raise PolicySpecError(
            f"policy {text!r}: {path_part!r} is a model checkpoint, and a checkpoint takes no parameters "
            f"(got {params.strip()!r}); give its path alone"
        )
    if entry is None:
        raise PolicySpecError(
            f"unknown policy {name!r}: expected one of {POLICY_NAMES} (optionally name:key=value,...) "
            "or the path of a .zip model checkpoint"
        )
    kwargs = _parse_params(name, entry, params)
    try:
        policy = entry.build(rules, **kwargs) if entry.needs_rules else entry.build(**kwargs)
    except ModuleNotFoundError as error:
        raise PolicySpecError(f"policy {name!r} is not available: {error}") from error
    except (TypeError, ValueError) as error:
        raise PolicySpecError(f"policy {name!r}: {error}") from error
    limit = getattr(policy, "max_players", None)
    if num_players is not None and limit is not None and num_players > limit:
        raise PolicySpecError(
            f"policy {name!r} plays at a table of at most {limit} player seat{'s' if limit != 1 else ''}; "
            f"num_players is {num_players}"
        )
    return policy


def _load_checkpoint(path: str, rules: Rules, num_players: int | None, role: str | None = None) -> Policy:
    """A trained model's policy; the model module is imported only when a checkpoint is asked for."""
    if not Path(path).exists():
        raise PolicySpecError(f"model checkpoint {path!r} does not exist (expected a .zip saved by training)")
    from agents.model import ModelPolicy

    kwargs: dict[str, Any] = {} if num_players is None else {"num_players": num_players}
    if role is not None:
        kwargs["role"] = role
    try:
        return ModelPolicy(path, rules, **kwargs)
    except ValueError as error:  # agents.model.CheckpointError: other rules, table size, bad file
        raise PolicySpecError(str(error)) from error  # the checkpoint module's message names the path


def default_player_policy(rules: Rules | str) -> Policy:
    """The default opponent in a player seat: ``ThresholdPlayer()`` (stick 16, buy 11 or less)."""
    return ThresholdPlayer()


def default_banker_policy(rules: Rules | str) -> Policy:
    """The default banker: the casino dealer under a fixed dealer rule, else ``BankerThreshold(17)``."""
    rules = make_rules(rules) if isinstance(rules, str) else rules
    if rules.dealer_rule == "hit_soft_17":
        return CasinoDealer()
    return BankerThreshold()
