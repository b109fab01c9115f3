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
    assert "| hand | cards | decisions | buy max − twist" in format_branches(rows)


def test_draw_branches_value_later_cards_and_stop_where_none_come() -> None:
    """``cards`` picks the hands by their number of cards: a player that buys its third card
    (``threshold:buy=11`` buys on 11 or less) reaches three-card hands that may still buy; one that
    only ever twists never does, and the search stops after ``max_rounds`` with no rows."""
    rules = resolve_rules("pagat")
    rows = draw_branches("threshold:buy=11", rules, "banker_threshold", 15, seed=3, cards=(3,))
    assert rows and {r["cards"] for r in rows} == {3} and sum(r["decisions"] for r in rows) == 15
    assert "| hand | cards | decisions |" in format_branches(rows)
    never = draw_branches("threshold:buy=0", rules, "banker_threshold", 5, seed=3, cards=(3,), max_rounds=200)
    assert never == []
