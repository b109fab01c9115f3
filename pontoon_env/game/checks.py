"""Argument checks shared by the game's public entry points: each error names the parameter, what
was expected and what was given (``num_players=True`` is not one player)."""

from __future__ import annotations

import numpy as np


def require_int(name: str, value: object, low: int, high: int | None = None) -> int:
    """Return ``value`` as an ``int``, or raise ``ValueError`` naming ``name`` unless it is an
    integer (not a bool) in ``low..high``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        expected = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"{name}: expected {expected}, got {value!r} ({type(value).__name__})")
    if value < low or (high is not None and value > high):
        expected = f"an integer in {low}..{high}" if high is not None else f"an integer >= {low}"
        raise ValueError(f"{name}: expected {expected}, got {value!r}")
    return int(value)


def require_bool(name: str, value: object) -> bool:
    """Return ``value`` as a ``bool``, or raise ``ValueError`` naming ``name`` unless it is one
    (the string ``"False"`` is truthy: taking it as True would turn a switch on silently)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}: expected True or False, got {value!r} ({type(value).__name__})")
    return bool(value)


def require_finite(name: str, value: object) -> float:
    """Return ``value`` as a ``float``, or raise ``ValueError`` naming ``name`` unless it is a
    finite real number (not a bool)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name}: expected a finite number, got {value!r} ({type(value).__name__})")
    if not np.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")
    return float(value)


def require_choice(name: str, value: object, choices: tuple[object, ...]) -> None:
    """Raise ``ValueError`` naming ``name`` unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise ValueError(f"{name}: expected one of {list(choices)}, got {value!r}")
