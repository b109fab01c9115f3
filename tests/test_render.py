"""Text and image rendering of a table, and what each seat's rendering hides."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import RandomPolicy
from pontoon_env import PRESETS, Action, ActionKind, PontoonGame, make_rules
from pontoon_env.game.observation import observe
from pontoon_env.envs.render import RGB_SHAPE, render_ansi, render_rgb


def _two_players_mid_round() -> PontoonGame:
    # pagat, banker seat 0; seats 1 and 2. Deal: 1, 2, banker, 1, 2, banker, then draws.
    game = PontoonGame(make_rules("pagat"), 2, seed=0, banker=0)
    game.new_round(deck=["7S", "QH", "9D", "8C", "5D", "10C", "3H"])
    game.apply(Action(ActionKind.STAKE, 2))
    game.apply(Action(ActionKind.STAKE, 3))
    game.apply(Action(ActionKind.BUY, 4))  # seat 1: 7 + 8 = 15, buys 3H face down for 4
    return game


def test_ansi_hides_the_cards_a_seat_may_not_see() -> None:
    game = _two_players_mid_round()
    seat1, seat2, everyone = render_ansi(game, 1), render_ansi(game, 2), render_ansi(game)
    # seat 1 sees its own three cards, not seat 2's nor the banker's
    assert "7S 8C 3H" in seat1 and "QH" not in seat1 and "9D" not in seat1 and "10C" not in seat1
    # seat 2 sees its own cards; seat 1's bought card and first cards stay hidden
    assert "QH 5D" in seat2 and "7S" not in seat2 and "3H" not in seat2 and "?? ?? ??" in seat2
    assert "stake 6" in seat2 and "1 bought (last for 4)" in seat2  # stakes and buys are public
    # the omniscient view shows every card
    for card in ("7S", "8C", "3H", "QH", "5D", "9D", "10C"):
        assert card in everyone


def test_ansi_lists_legal_actions_only_for_the_seat_to_act() -> None:
    game = _two_players_mid_round()
    assert game.current_seat == 1
    assert "legal: stick, twist, buy 2..4 chips" in render_ansi(game, 1)
    assert "legal:" not in render_ansi(game, 2) and "waiting for seat 1" in render_ansi(game, 2)
    assert "legal:" in render_ansi(game)


def test_ansi_matches_the_seat_view() -> None:
    game = _two_players_mid_round()
    view = observe(game, 2)
    hidden = sum(card == -1 for _, hands in view.players for hand in hands for card in hand.cards)
    hidden += sum(card == -1 for hand in view.banker_hands for card in hand.cards)
    assert render_ansi(game, 2).count("??") == hidden


def test_rgb_has_a_fixed_shape_and_differs_by_viewer() -> None:
    game = _two_players_mid_round()
    frames = [
        render_rgb(game, 1),
        render_rgb(game, 2),
        render_rgb(game),
        render_rgb(game, 2, use_pillow=False),
    ]
    for frame in frames:
        assert frame.shape == RGB_SHAPE and frame.dtype == np.uint8
    assert not np.array_equal(frames[0], frames[1])
    assert not np.array_equal(frames[1], frames[2])  # hidden cards are drawn as backs
    big = PontoonGame(make_rules("pagat"), 9, seed=1)
    assert render_rgb(big).shape == RGB_SHAPE  # before any round
    big.new_round()
    assert render_rgb(big, 3).shape == RGB_SHAPE


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rendering_survives_random_play_in_every_preset(preset: str) -> None:
    game = PontoonGame(make_rules(preset), 3, seed=4)
    rng = np.random.default_rng(0)
    policy = RandomPolicy()
    for _ in range(3):
        game.new_round()
        while not game.is_round_over:
            seat = game.current_seat
            assert render_ansi(game, seat) and render_ansi(game)
            game.apply(policy.act(observe(game, seat), game.legal_actions(), rng))
        assert "the round is over" in render_ansi(game, 1)
    assert render_rgb(game, 1, use_pillow=False).shape == RGB_SHAPE


def test_a_finished_five_card_hand_is_shown_as_a_trick():
    from helpers import deal

    from pontoon_env.envs.render import render_ansi

    game = deal("pagat", ["2S", "10C", "3S", "7C", "4S", "2H", "3H"], [("stake", 1), "twist", "twist", "twist"])
    assert len(game.players[0].hands[0].cards) == 5 and game.phase.name == "BANKER_TURN"
    assert "FIVE-CARD TRICK" in render_ansi(game, 1)
    game = deal("pagat", ["2S", "10C", "3S", "7C", "4S", "2H", "3H"], [("stake", 1), "twist", "twist", "twist"],
                five_card_trick=False)
    assert "FIVE-CARD TRICK" not in render_ansi(game, 1)


def test_a_bust_banker_is_drawn_bust():
    # The engine flags players' busts only; the banker's over-21 hand used to read "stands".
    import gymnasium as gym

    environment = gym.make("PontoonBanker-v0", rules="pagat", num_players=1, render_mode="ansi")
    environment.reset(seed=0, options={"deck": ["10H", "8C", "9D", "9H", "7S"]})
    environment.step(environment.unwrapped.action_names.index("draw"))
    banker_line = next(line for line in environment.render().splitlines() if line.strip().startswith("Banker"))
    assert "total 24" in banker_line and "BUST" in banker_line and "stands" not in banker_line
