"""The tools seat each policy in a seat of its own role: a scripted policy of the other role is
refused, naming the flag (it used to play that role's default policy under its own name, so the
benchmark's banker tables listed `threshold` for `banker_threshold`'s play); and smaller input
checks of the same tools."""

from __future__ import annotations

import re

import pytest

from pontoon_tools import benchmark, diagnose_banker, ev_table
from pontoon_tools.play import main as play_main


def test_a_benchmark_task_refuses_a_policy_of_the_other_role():
    with pytest.raises(ValueError, match=r"threshold \(task pagat/banker-1\): expected a banker policy"):
        benchmark.score("pagat/banker-1", "threshold", episodes=50)
    with pytest.raises(ValueError, match=r"banker_smart \(task pagat/player-1\): expected a player policy"):
        benchmark.score("pagat/player-1", "banker_smart", episodes=50)
    assert benchmark.score("pagat/player-1", "random", episodes=50).policy == "random"  # random plays both


def test_the_benchmark_table_lists_each_roles_threshold_and_a_sessions_ev_per_session():
    text, _ = benchmark.results_table(40, ["pagat/banker-1"])
    assert "| `pagat/banker-1` | `banker_threshold` |" in text and "| `pagat/banker-1` | `threshold` |" not in text
    assert "EV per episode" in text
    session = benchmark.score("pagat/player-session", "random", episodes=20)
    assert "/session of 10 rounds" in session.line() and "/round" not in session.line()
    assert "/round," in benchmark.score("pagat/player-1", "random", episodes=20).line()


def test_the_ev_table_refuses_a_policy_of_the_other_role():
    for changes, message in (({"player": ["banker_smart"]}, "--player banker_smart: expected a player policy"),
                             ({"banker": ["threshold"]}, "--banker threshold: expected a banker policy")):
        settings = ev_table.EvTableSettings(**changes)
        with pytest.raises(ValueError, match=message):
            settings.validate()


def test_the_banker_diagnosis_studies_a_banker_against_players():
    with pytest.raises(ValueError, match="banker threshold: expected a banker policy"):
        diagnose_banker.diagnose("threshold", "banker_smart", seats=2, rounds=50)
    with pytest.raises(ValueError, match="--players banker_smart: expected a player policy"):
        diagnose_banker.diagnose("banker_threshold", "banker_smart", seats=2, players="banker_smart", rounds=50)
    with pytest.raises(ValueError, match="--top: expected at least 1"):
        diagnose_banker.diagnose("banker_threshold", "banker_smart", seats=2, rounds=50, top=-1)


def _lines(answers):
    feed = iter(answers)

    def read(_prompt: str = "") -> str:
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return read


def test_terminal_play_asks_again_for_an_amount_it_cannot_read():
    # '--3' passed a sign strip and '²' passes str.isdigit; int() refused both and ended the game.
    out: list[str] = []
    code = play_main(["--seed", "0", "--players", "1"], input_fn=_lines(["stake --3", "²", "1 ²", "q"]),
                     print_fn=out.append)
    assert code == 0
    text = "\n".join(out)
    assert "the amount must be a whole number of chips, got '--3'" in text
    assert "'²' is not a legal action now" in text
    assert "the amount must be a whole number of chips, got '²'" in text


@pytest.mark.parametrize(("argv", "message"), [
    (["--opponents", "casino_dealer"], "--opponents casino_dealer: expected a player policy"),
    (["--banker-policy", "optimal"], "--banker-policy optimal: expected a banker policy"),
    (["--seat", "99"], r"--seat: expected a seat in 0\.\.3, got 99"),
    (["--first-banker", "99"], r"--first-banker: expected a seat in 0\.\.3, got 99"),
    (["--players", "0"], r"--players: expected 1\.\.9 player seats, got 0"),
])
def test_terminal_play_names_the_flag_it_refuses(argv, message):
    out: list[str] = []
    assert play_main(argv, input_fn=_lines([]), print_fn=out.append) == 2
    assert any(re.search(message, line) for line in out), out


def test_the_player_diagnosis_needs_a_banker_in_the_bankers_seat(capsys):
    from pontoon_tools.diagnose import main as diagnose_main

    assert diagnose_main(["runs/none/model.zip", "--banker", "threshold", "--rounds", "10"]) == 2
    assert "--banker threshold: expected a banker policy" in capsys.readouterr().err


def test_the_benchmark_checks_its_outputs_and_rounds_before_scoring(tmp_path, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    doc = tmp_path / "doc.md"
    cases = [
        (["table", "--tasks", "pagat/player-1", "--rounds", "20", "--doc", str(doc), "--json", str(blocker / "x.json")],
         "--json: expected a file path"),
        (["table", "--tasks", "pagat/player-1", "--rounds", "20", "--doc", str(tmp_path / "no" / "d.md")],
         "--doc: expected a file in an existing folder"),
        (["score", "pagat/player-1", "random", "--rounds", "1"], "--rounds: expected at least 2"),
    ]
    for argv, message in cases:
        assert benchmark.main(argv) == 2
        assert message in capsys.readouterr().err
    assert not doc.exists()  # the doc was written before the JSON path failed


def test_the_first_card_view_has_rows_only_for_cards_it_dealt():
    import math
    import warnings

    from pontoon_env import make_rules
    from pontoon_tools.diagnose import by_first_card

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "mean of empty slice" was one per missing value
        rows = by_first_card("threshold", make_rules("pagat"), "banker_threshold", rounds=3, seed=0)
    dealt = [row for row in rows if row["first_card"] != "all"]
    assert 1 <= len(dealt) <= 3
    assert all(math.isfinite(row["model_ev"]) and row["share"] > 0 for row in dealt)


def test_the_policies_stream_is_not_another_seeds_pack():
    # default_rng(seed + 1) was the pack stream of the table seeded seed + 1.
    import numpy as np

    from pontoon_env.game.runner import policy_rng

    ours = policy_rng(0).integers(2**62, size=8)
    assert not np.array_equal(ours, np.random.default_rng(1).integers(2**62, size=8))
    assert not np.array_equal(ours, np.random.default_rng(0).integers(2**62, size=8))
    np.testing.assert_array_equal(ours, policy_rng(0).integers(2**62, size=8))  # seeded


def test_the_ev_table_and_terminal_play_draw_their_policies_from_the_child_stream(monkeypatch):
    from pontoon_tools import ev_table as table_module
    from pontoon_tools import play as play_module

    seeds = []
    monkeypatch.setattr(table_module, "policy_rng", lambda seed: seeds.append(("ev_table", seed)) or
                        __import__("numpy").random.default_rng(0))
    monkeypatch.setattr(play_module, "policy_rng", lambda seed: seeds.append(("play", seed)) or
                        __import__("numpy").random.default_rng(0))
    from agents.registry import make_policy

    rules = table_module.make_rules("pagat")
    table_module.play_rounds(rules, [make_policy("banker_threshold", rules), make_policy("random", rules)], 3, seed=5)
    play_module.play("pagat", num_players=1, seat=1, seed=6, max_rounds=1, input_fn=_lines(["1", "stick"] + ["1"] * 20),
                     print_fn=lambda line: None)
    assert seeds == [("ev_table", 5), ("play", 6)]
