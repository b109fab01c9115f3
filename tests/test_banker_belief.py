"""The belief banker: a table of showdowns keyed by what the banker saw, and banker_smart's stopping on it."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.banker_belief import BELIEF_FILE, BeliefBanker, BeliefTable, hand_keys, is_belief_run
from agents.banker_smart import BankerSmart
from agents.registry import PolicySpecError, make_policy
from agents.scripted import ThresholdPlayer
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.hands import HandClass, HandResult
from pontoon_env.game.observation import HIDDEN, HandView
from pontoon_env.game.rules import make_rules
from pontoon_env.game.runner import play_round
from pontoon_tools.belief import ShowdownRecorder, learn_belief
from pontoon_tools.evaluation import play_match

PAGAT = make_rules("pagat")
SEVENTEEN = HandResult(HandClass.TOTAL, 17)
TWENTY = HandResult(HandClass.TOTAL, 20)


def _view(cards: tuple[int, ...], stake: int = 1, initial: int = 1, buys: int = 0, twisted: bool = False,
          split: bool = False, declared: bool = False) -> HandView:
    return HandView(cards, stake, initial, 0, buys, twisted, False, split, 0, True, False, declared)


def test_hand_keys_read_only_what_the_banker_sees() -> None:
    ten, seven = 36, 24  # card codes: value 10 and 7
    hand = _view((HIDDEN, HIDDEN, seven), stake=4, initial=2, twisted=True)
    coarse, mid, fine = hand_keys(hand)
    assert coarse == (3, False, False)
    assert mid == (3, 7, 1, False, 0, False)
    assert fine == (3, (0, 0, 7), False, 0, True, False, 2)
    # a face-up card's value does reach it
    assert hand_keys(_view((ten, HIDDEN, seven), stake=4, initial=2, twisted=True))[2] != fine


def test_belief_is_the_smoothed_frequency_of_the_finest_level_seen() -> None:
    table = BeliefTable(PAGAT, alpha=4.0)
    seen = _view((HIDDEN, HIDDEN))
    for result in [SEVENTEEN] * 3 + [TWENTY]:
        table.add(seen, result)
    # every level holds the same four hands, so each level's frequencies are 3/4, 1/4 and smoothing keeps them
    assert table.belief(seen) == pytest.approx({SEVENTEEN: 0.75, TWENTY: 0.25})
    # another stake per initial stake: unseen at the fine level, so the mid level's estimate
    other = _view((HIDDEN, HIDDEN), stake=2)
    assert table.belief(other) == pytest.approx({SEVENTEEN: 0.75, TWENTY: 0.25})
    # one showdown at the fine key: the coarse and mid levels (5 hands: 3 x 17, 2 x 20) give 3/5, 2/5;
    # the fine level's single 20 weighs 1 / (1 + alpha) against that
    table.add(other, TWENTY)
    assert table.belief(other) == pytest.approx({SEVENTEEN: 0.6 * 4 / 5, TWENTY: 0.4 * 4 / 5 + 1 / 5})
    assert table.belief(seen) == pytest.approx({SEVENTEEN: (0.6 * 4 + 3) / 8, TWENTY: (0.4 * 4 + 1) / 8})


def test_a_hand_no_level_has_seen_is_what_its_visible_cards_make() -> None:
    ten, seven = 36, 24
    assert BeliefTable(PAGAT).belief(_view((ten, seven))) == {SEVENTEEN: 1.0}


def test_the_recorder_counts_the_showdown_under_the_bankers_view() -> None:
    """A stacked round (pagat deals player, banker, player, banker): the player sticks on 10 + 7,
    the banker turns up 9 + 9; the table holds one hand, two face-down cards, that was a 17."""
    game = PontoonGame(PAGAT, 1, seed=0, banker=0)
    table = BeliefTable(game.rules)
    play_round(game, [ShowdownRecorder(game, table), ThresholdPlayer(stick_at=16)], np.random.default_rng(0),
               deck=["10S", "9D", "7H", "9C"])
    assert table.hands == 1
    assert table.counts[2] == {(2, (0, 0), False, 0, False, False, 1): {SEVENTEEN: 1}}
    assert table.belief(_view((HIDDEN, HIDDEN))) == {SEVENTEEN: 1.0}


def test_a_learnt_banker_beats_the_threshold_banker_and_reloads_to_the_same_play(tmp_path) -> None:
    players = [ThresholdPlayer()]
    table = learn_belief(PAGAT, players, 20_000, seed=3)
    path = table.save(tmp_path / BELIEF_FILE)
    learnt = play_match(PAGAT, 1, [BeliefBanker(table), ThresholdPlayer()], 4000, seed=11)
    reloaded = play_match(PAGAT, 1, [make_policy(str(tmp_path), PAGAT), ThresholdPlayer()], 4000, seed=11)
    scripted = play_match(PAGAT, 1, [make_policy("banker_threshold", PAGAT), ThresholdPlayer()], 4000, seed=11)
    assert np.array_equal(learnt.ev(0), reloaded.ev(0))
    gain = learnt.ev(0) - scripted.ev(0)
    low = gain.mean() - 1.96 * gain.std(ddof=1) / np.sqrt(gain.size)
    assert low > 0.02, (gain.mean(), low)


def test_belief_files_round_trip_and_refuse_what_they_cannot_read(tmp_path) -> None:
    table = BeliefTable(PAGAT)
    hand = _view((HIDDEN, HIDDEN, 24), twisted=True)
    table.add(hand, SEVENTEEN)
    table.add(hand, TWENTY)
    path = table.save(tmp_path / "belief.json")
    again = BeliefTable.load(path, "pagat")
    assert again.hands == 2 and again.belief(hand) == table.belief(hand)
    assert is_belief_run(tmp_path) and is_belief_run(path)
    with pytest.raises(ValueError, match="learnt under 'pagat', the table plays 'casino'"):
        BeliefTable.load(path, "casino")
    with pytest.raises(ValueError, match="stick_min"):
        BeliefTable.load(path, make_rules("pagat", stick_min=16))
    optioned = BeliefTable(make_rules("pagat", stick_min=16))
    optioned.add(hand, TWENTY)
    optioned_path = optioned.save(tmp_path / "optioned.json")
    assert BeliefTable.load(optioned_path, make_rules("pagat", stick_min=16)).rules == optioned.rules
    with pytest.raises(ValueError, match="stick_min=16 not 15"):
        BeliefTable.load(optioned_path, "pagat")
    path.write_text("{not json")
    with pytest.raises(ValueError, match="belief.json.*unreadable"):
        BeliefTable.load(path)
    path.write_text(json.dumps({"format": "something else"}))
    with pytest.raises(ValueError, match="expected format 'pontoon-banker-belief/1', got 'something else'"):
        BeliefTable.load(path)
    path.write_text(json.dumps({"format": "pontoon-banker-belief/1", "rules": "pagat", "alpha": 20, "hands": 1,
                                "counts": {"coarse": [[[2, False, False], [[["NOT_A_CLASS", 17, False, 2], 1]]]]}}))
    with pytest.raises(ValueError, match="malformed"):
        BeliefTable.load(path)
    with pytest.raises(PolicySpecError, match="malformed"):
        make_policy(str(tmp_path), PAGAT)


def test_the_belief_banker_is_banker_smart_with_another_belief() -> None:
    banker = BeliefBanker(BeliefTable(PAGAT))
    assert isinstance(banker, BankerSmart)
    hand = _view((HIDDEN, HIDDEN))
    assert banker.belief(hand) == BeliefTable(PAGAT).belief(hand)
    with pytest.raises(ValueError, match="alpha"):
        BeliefTable(PAGAT, alpha=0)


def test_train_py_learns_a_belief_banker_that_evaluate_and_the_protocol_load(tmp_path) -> None:
    import dataclasses

    from pontoon_tools.protocol import banker_protocol
    from pontoon_tools.training import TrainSettings, train

    out = tmp_path / "run"
    settings = TrainSettings(role="banker", algo="belief", seats=1, timesteps=3000, eval_rounds=200, progress=False,
                             out=str(out))
    summary = train(settings)
    assert summary["hands"] > 2000 and (out / BELIEF_FILE).is_file()
    config = json.loads((out / "config.json").read_text())
    assert (config["algo"], config["role"], config["num_players"], config["timesteps"]) == ("belief", "banker", 1, 3000)
    assert set(json.loads((out / "eval.json").read_text())) >= {"model_ev", "minus_banker_smart"}
    measured = banker_protocol(out, "pagat", "threshold", rounds=300, seed=1, cache=None)
    assert measured["seats"] == 1 and measured["train"]["algo"] == "belief"
    assert {"banker_threshold", "banker_smart"} <= set(measured["versus"]) and "br_gap" in measured
    # its drawing rule read back on the reference engine and measured exactly against the best response
    exact = measured["exact"]
    assert exact["read_decisions"] > 100 and 0.5 < exact["read_agreement"] <= 1.0
    assert exact["read_br_gap"] >= -1e-9  # nothing beats the exact best response over an infinite deck
    # evaluate.py --run takes the run directory as the banker (it looked for a model.zip)
    from pontoon_tools.evaluation import EvaluateSettings, run_evaluation

    report = run_evaluation(EvaluateSettings(run=str(out), rounds=100, out=str(tmp_path / "eval"), charts=False,
                                             progress=False))
    assert report["num_players"] == 1 and report["seats"][0].endswith("run")  # the banker seat
    # the same seed learns the same table
    again = train(dataclasses.replace(settings, out=str(tmp_path / "again"), eval_rounds=0))
    assert again["hands"] == summary["hands"]
    assert (tmp_path / "again" / BELIEF_FILE).read_text() == (out / BELIEF_FILE).read_text()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"role": "player"}, "--algo: expected belief with --role banker only"),
        ({"episode": "session"}, "--episode: expected round with --algo belief"),
    ],
)
def test_train_py_refuses_what_a_belief_banker_cannot_learn(tmp_path, changes, message) -> None:
    from pontoon_tools.training import TrainingError, TrainSettings, train

    out = tmp_path / "run"
    settings = TrainSettings(**{"role": "banker", "algo": "belief", "timesteps": 10, "progress": False,
                                "out": str(out), **changes})
    with pytest.raises(TrainingError, match=message):
        train(settings)
    assert not out.exists()
