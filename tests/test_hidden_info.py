"""What a seat may see is one filter, and ``info`` goes through it too.

Pairs of stacked rounds differ only in cards that one seat never sees, not even when the round is
settled (a ``pontoon_2011`` bust handed in face down, a Vingt-Un player's private draws): the
seat's observations, masks, renders and ``info`` must be identical in both, in the Gymnasium
environment (default ``info_level`` and ``"seat"``) and in the PettingZoo table. A control pair
differing in the seat's own cards must differ, or the test would pass for an env that shows nothing.
``info_level="full"`` is the documented exception: it shows every card.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401
from pontoon_env.envs.pettingzoo_env import raw_env
from pontoon_env.game.observation import seat_report

# Seat 1 busts on a card nobody else sees; seat 2 (the observer) sticks on 18; the banker stands on 17.
SCENARIOS = {
    # 2011: seat 1 holds 16 and buys (face down) a 9; busts are handed in face down.
    "pontoon_2011": (["10S", "10H", "10C", "6S", "8H", "7C", "9H"], ["10D", "10H", "10C", "6D", "8H", "7C", "9D"]),
    # 1800: the draw is private and a bust is thrown in unseen.
    "vingt_un_1800": (["10S", "10H", "10C", "6S", "8H", "7C", "9H"], ["10D", "10H", "10C", "6D", "8H", "7C", "9D"]),
}
OWN_CHANGED = {  # the control: the observer's own second card differs (8 vs 7; both stick)
    "pontoon_2011": ["10S", "10H", "10C", "6S", "7D", "7C", "9H"],
    "vingt_un_1800": ["10S", "10H", "10C", "6S", "7D", "7C", "9H"],
}
OPPONENTS = {1: "threshold:stick=17,buy=16", 0: "banker_threshold:stand=17", "players": "threshold"}
OBSERVER = 2


def learner_run(preset: str, deck: list[str], info_level: str) -> list[tuple]:
    env = gym.make(
        "Pontoon-v0",
        rules=preset,
        num_players=2,
        learner_seat=OBSERVER,
        opponents=OPPONENTS,
        info_level=info_level,
        render_mode="ansi",
    )
    obs, info = env.reset(seed=3, options={"deck": deck})
    seen = [(obs, info, env.render())]
    names = env.unwrapped.action_names
    done = False
    while not done:
        legal = [names[i] for i in np.flatnonzero(info["action_mask"])]
        action = "stick" if "stick" in legal else legal[0]  # the minimum stake, then stick on 18
        obs, reward, terminated, truncated, info = env.step(names.index(action))
        seen.append((obs, info, env.render(), reward))
        done = terminated or truncated
    game = env.unwrapped.game
    assert game.players[0].hands[0].bust, "seat 1 should have gone bust: the scenario is broken"
    return seen


def same(left: object, right: object) -> bool:
    if isinstance(left, np.ndarray):
        return isinstance(right, np.ndarray) and np.array_equal(left, right)
    if isinstance(left, dict):
        return isinstance(right, dict) and left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, (list, tuple)):
        return isinstance(right, (list, tuple)) and len(left) == len(right) and all(map(same, left, right))
    return left == right


@pytest.mark.parametrize("info_level", ["basic", "seat"])
@pytest.mark.parametrize("preset", sorted(SCENARIOS))
def test_cards_a_seat_never_sees_change_nothing_it_gets(preset, info_level):
    deck_a, deck_b = SCENARIOS[preset]
    run_a, run_b = learner_run(preset, deck_a, info_level), learner_run(preset, deck_b, info_level)
    assert same(run_a, run_b)
    if info_level == "seat":
        report = run_a[-1][1]["settlement"]
        bust = next(entry for entry in report["hands"] if entry["seat"] == 1)
        assert bust["hand_class"] == "bust" and bust["cards"] == ["??"] * 3


@pytest.mark.parametrize("preset", sorted(SCENARIOS))
def test_the_control_pair_does_change_what_the_seat_gets(preset):
    run_a = learner_run(preset, SCENARIOS[preset][0], "seat")
    run_c = learner_run(preset, OWN_CHANGED[preset], "seat")
    assert not same(run_a, run_c)


@pytest.mark.parametrize("preset", sorted(SCENARIOS))
def test_the_full_report_is_the_documented_leak(preset):
    deck_a, deck_b = SCENARIOS[preset]
    full_a = learner_run(preset, deck_a, "full")[-1][1]["settlement"]
    full_b = learner_run(preset, deck_b, "full")[-1][1]["settlement"]
    assert full_a["hands"][0]["cards"] != full_b["hands"][0]["cards"]


def table_infos(preset: str, deck: list[str]) -> list[dict]:
    """The PettingZoo table (its first banker is drawn): the first player from the banker's left
    plays seat 1's part and busts, the second observes; everyone else sticks or stands."""
    table = raw_env(rules=preset, num_players=2, info_level="seat")
    table.reset(seed=3, options={"deck": deck})
    buster, observer = table.game.player_order()
    names = table.action_names
    observed = []
    while not all(table.terminations.values()):
        agent = table.agent_selection
        mask = table.observe(agent)["action_mask"]
        legal = [names[i] for i in np.flatnonzero(mask)]
        seat = table.possible_agents.index(agent)
        if seat == buster and "buy:min" in legal:
            action = "buy:min"
        elif seat == buster and "twist" in legal and table.game.players[0].hands[0].total() < 17:
            action = "twist"
        elif "stick" in legal:
            action = "stick"
        elif "stand" in legal:
            action = "stand"
        else:
            action = legal[0]
        table.step(names.index(action))
        observed.append((table.infos[f"seat_{observer}"], table.observe(f"seat_{observer}")))
    assert table.game.players[0].hands[0].bust, "the first player should have gone bust: the scenario is broken"
    return observed


@pytest.mark.parametrize("preset", sorted(SCENARIOS))
def test_pettingzoo_infos_are_filtered_per_seat(preset):
    deck_a, deck_b = SCENARIOS[preset]
    assert same(table_infos(preset, deck_a), table_infos(preset, deck_b))


def test_seat_report_shows_standing_hands_at_the_showdown():
    from pontoon_env import PontoonGame
    from pontoon_env.game.actions import Action, ActionKind

    game = PontoonGame("pagat", 2, seed=0, banker=0)
    game.new_round(deck=["10S", "10H", "10C", "8S", "8H", "7C"])
    for action in (Action(ActionKind.STAKE, 1), Action(ActionKind.STAKE, 1), Action(ActionKind.STICK),
                   Action(ActionKind.STICK), Action(ActionKind.STAND)):
        game.apply(action)
    report = seat_report(game, 2)
    assert [entry["cards"] for entry in report["hands"]] == [["10S", "8S"], ["10H", "8H"]]
    assert report["result"] == game.round_report()["result"]
