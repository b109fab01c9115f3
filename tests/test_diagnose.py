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


def test_the_command_refuses_hand_sizes_no_draw_comes_at() -> None:
    # A hand decides to draw at two cards or more: --branch-cards 1 would search 1,000 rounds in vain.
    import pytest

    from pontoon_tools.diagnose import main

    with pytest.raises(SystemExit) as exit_info:
        main(["runs/none/model.zip", "--branches", "1", "--branch-cards", "2", "1"])
    assert exit_info.value.code == 2


def test_the_command_says_when_the_third_view_found_nothing(tmp_path, capsys) -> None:
    # Before: with --branch-cards 9 (no pagat hand draws at nine cards) the command printed the
    # first two views and nothing at all for the third, as if --branches had not been given.
    import torch

    from pontoon_tools.diagnose import main
    from pontoon_tools.training import Trainer, TrainSettings

    torch.set_num_threads(1)
    settings = TrainSettings(role="player", timesteps=64, seats=1, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                             eval_rounds=0, progress=False, net_arch=[8], warm_start="none", out=str(tmp_path / "p"))
    model = Trainer(settings, "player", tmp_path / "p").run()
    assert main([str(model), "--rounds", "20", "--top", "1", "--branches", "1", "--branch-cards", "9"]) == 0
    out = capsys.readouterr().out
    assert "no draw decision with twist and buy both legal at a hand of 9 cards in 1,000 rounds" in out
