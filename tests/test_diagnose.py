"""The diagnosis of a trained player (pontoon_tools/diagnose.py): the draw-price branches."""

from __future__ import annotations

import numpy as np

from pontoon_env.game.rules import resolve_rules
from pontoon_tools.diagnose import draw_branches, format_branches


def test_draw_branches_replay_the_same_cards_from_each_price() -> None:
    """A player whose later play ignores its stake (``threshold``) plays the same cards on from a
    twist and from either buy, so each branch's result is the twist's per chip times the chips on
    the hand: under pagat (a first buy costs 1 or 2 initial stakes) the dearest buy's difference is
    exactly twice the cheapest's; N decisions are valued, all of them where the policy drew."""
    rows = draw_branches("threshold", resolve_rules("pagat"), "banker_threshold", 40, seed=3)
    assert sum(r["decisions"] for r in rows) == 40
    assert all(r["hand"].split()[0] in ("hard", "soft") for r in rows)
    top = np.array([r["buy_max_minus_twist"] for r in rows])
    low = np.array([r["buy_min_minus_twist"] for r in rows])
    assert np.allclose(top, 2 * low) and np.abs(top).max() > 0
    assert all(0.0 <= r["model_buys"] <= 1.0 for r in rows)
    assert "| hand | decisions | buy max − twist" in format_branches(rows)
