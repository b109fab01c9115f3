"""Tests of the honest benchmark: seeding, paired comparisons, confidence intervals, charts, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.base import RandomPolicy
from agents.scripted import BankerThreshold, ThresholdPlayer
from pontoon_env import PontoonGame, make_rules
from pontoon_env.game.cards import CARD_VALUE, parse_card
from pontoon_tools.evaluation import (
    EvaluateSettings,
    compare_policies,
    estimate,
    match_summary,
    play_match,
    run_evaluation,
)
from pontoon_env.game.observation import observe
from pontoon_tools.plots import hand_values, probe_banker, probe_player

ROOT = Path(__file__).resolve().parent.parent
PAGAT = make_rules("pagat")


def _table(players: int = 2) -> list:
    return [BankerThreshold()] + [ThresholdPlayer() for _ in range(players)]


def test_same_seed_same_rounds_and_different_seed_differs() -> None:
    first = play_match(PAGAT, 2, _table(), 300, seed=7)
    again = play_match(PAGAT, 2, _table(), 300, seed=7)
    other = play_match(PAGAT, 2, _table(), 300, seed=8)
    assert np.array_equal(first.net, again.net)
    assert not np.array_equal(first.net, other.net)
    # Chips are conserved round by round (no kitty or pool in pagat).
    assert np.all(first.net.sum(axis=1) == 0)


@pytest.mark.parametrize("policy_factory", [ThresholdPlayer, RandomPolicy])
def test_identical_policies_have_exactly_zero_paired_difference(policy_factory) -> None:
    # Random policies too: each seat has its own random stream, identical for both runs.
    comparison = compare_policies(PAGAT, 2, [("a", policy_factory()), ("b", policy_factory())], _table(), 1, 500, seed=3)
    rows = comparison.rows()
    assert rows[1]["first_minus_this"] == 0.0
    assert rows[1]["first_minus_this_se"] == 0.0
    assert np.array_equal(comparison.results[0].net, comparison.results[1].net)


def test_other_seats_are_unaffected_by_the_seat_under_test_until_cards_differ() -> None:
    # Changing the policy in seat 1 must not change the random stream of seat 2 (a random player):
    # in rounds where seat 1 draws no card (it sticks on its first two), seat 2 sees the same cards
    # and makes the same random choices, so its result can only change through the banker's play.
    sticky = ThresholdPlayer(stick_at=4, buy_at_or_below=0, bet="min")
    table = [BankerThreshold(), sticky, RandomPolicy()]
    a = play_match(PAGAT, 2, table, 400, seed=11)
    table_b = [BankerThreshold(), ThresholdPlayer(stick_at=4, buy_at_or_below=0, bet="max"), RandomPolicy()]
    b = play_match(PAGAT, 2, table_b, 400, seed=11)
    # Only the stake differs, so seat 1's result scales by 10 and seat 2's is identical.
    assert np.array_equal(a.net[:, 2], b.net[:, 2])
    assert np.array_equal(a.net[:, 1] * 10, b.net[:, 1])


def _one_card_case_payoffs() -> tuple[list[int], float]:
    """Exact EV by enumeration: player 10+6 sticks, banker 10+6 draws exactly one card.

    Everything is stacked except the banker's third card, drawn uniformly from the 48 cards left.
    Returns the stacked prefix and the exact EV (stake 1) computed by the engine card by card.
    """
    prefix = ["10S", "10H", "6S", "6H"]  # player's first, banker's first, player's second, banker's second
    used = Counter(parse_card(card) for card in prefix)
    payoffs = []
    for code in range(52):
        if used[code]:
            continue
        game = PontoonGame(PAGAT, 1, seed=0, banker=0)
        game.new_round(deck=prefix + [code])
        policies = [BankerThreshold(17), ThresholdPlayer(stick_at=16, buy_at_or_below=0, bet="min")]
        while not game.is_round_over:
            seat = game.current_seat
            game.apply(policies[seat].act(observe(game, seat), game.legal_actions(), np.random.default_rng(0)))
        assert len(game.banker_hands[0].cards) == 3  # exactly one random card was used
        payoffs.append(game.seat_result(1))
    return prefix, float(np.mean(payoffs))


def test_confidence_interval_covers_an_exactly_enumerated_ev() -> None:
    prefix, exact = _one_card_case_payoffs()
    # By hand: the banker busts on any card worth 6 or more (6..K: 2+4+4+4+4+16... minus the used ones).
    values = [CARD_VALUE[c] for c in range(52) if c not in {parse_card(x) for x in prefix}]
    assert exact == pytest.approx((sum(v >= 6 for v in values) - sum(v < 6 for v in values)) / 48)
    policies = [BankerThreshold(17), ThresholdPlayer(stick_at=16, buy_at_or_below=0, bet="min")]
    result = play_match(PAGAT, 1, policies, 3000, seed=5, deck=prefix)
    ev = estimate(result.ev(1))
    assert ev.covers(exact), (ev, exact)
    assert ev.se < 0.02  # a real interval: 3000 rounds of +-1


def test_summary_rates_are_consistent() -> None:
    result = play_match(PAGAT, 3, _table(3), 600, seed=1)
    rows = match_summary(result)
    assert rows[0]["role"] == "banker" and rows[0]["seat"] == 0
    for row in rows:
        assert row["win_rate"] + row["lose_rate"] + row["push_rate"] == pytest.approx(1.0)
        assert 0.0 <= row["bust_rate"] <= 1.0 and 0.0 <= row["pontoon_rate"] <= 0.2
        assert row["ev_ci_low"] < row["ev"] < row["ev_ci_high"]
    players_ev = sum(row["ev"] for row in rows[1:])
    assert rows[0]["ev"] == pytest.approx(-players_ev)
    assert rows[0]["take_per_player"] == pytest.approx(rows[0]["ev"] / 3)
    # The threshold player bets the max (10) on 5 first ranks of 13 and the min (1) otherwise.
    assert 3.5 < rows[1]["mean_initial_stake"] < 5.5


def test_hand_values_builds_the_asked_hand() -> None:
    from pontoon_env.game.hands import hand_total

    for total in range(4, 21):
        for n in (2, 3, 4):
            values = hand_values(total, False, n)
            if values is not None:
                assert sum(values) == total and len(values) == n and 1 not in values
    values = hand_values(17, True, 3)
    assert values is not None and values[0] == 1
    codes = [(v - 1) * 4 if v < 10 else 36 for v in values]
    assert hand_total(codes) == (17, True)


def test_player_probe_charts_the_threshold_rule() -> None:
    chart = probe_player(ThresholdPlayer(), PAGAT, 2)
    assert chart.cells[("hard", "16")]["2"] == "S"
    assert chart.cells[("hard", "13")]["2"] == "T"
    assert chart.cells[("hard", "11")]["2"] == "B"  # buys at the max on 11 or less
    assert chart.cells[("hard", "11")]["3 twisted"] == "T"  # no buying after a twist
    assert chart.cells[("pair", "8,8")]["2"] == "P"
    assert chart.stakes["A"] == 10 and chart.stakes["K"] == 10 and chart.stakes["5"] == 1


def test_banker_probe_charts_the_stand_total() -> None:
    chart = probe_banker(BankerThreshold(stand=16), PAGAT, 2)
    assert chart.cells[("2 cards hard", "15")] == {1: 1.0, 2: 1.0}
    assert chart.cells[("2 cards hard", "16")] == {1: 0.0, 2: 0.0}
    assert chart.cells[("3 cards soft", "17")][1] == 0.0


def test_run_evaluation_writes_tables_and_charts(tmp_path: Path) -> None:
    settings = EvaluateSettings(seats=2, compare=["threshold", "threshold:bet=min", "random"], rounds=300,
                                out=str(tmp_path), progress=False)
    report = run_evaluation(settings)
    rows = report["comparison"]["rows"]
    assert [row["policy"] for row in rows] == ["threshold", "threshold:bet=min", "random"]
    assert rows[2]["first_better"]  # threshold beats random outside the interval even in 300 rounds
    for name in ("summary.csv", "comparison.csv", "report.json", "report.txt", "ev_bars.png",
                 "strategy_threshold.png", "banker_banker_threshold.png"):
        assert (tmp_path / name).is_file(), name
    assert json.loads((tmp_path / "report.json").read_text())["rounds"] == 300


def test_optimality_gap_uses_the_solver(tmp_path: Path) -> None:
    settings = EvaluateSettings(seats=1, player="threshold", optimality_gap=True, rounds=300, out=str(tmp_path),
                                charts=False, progress=False)
    report = run_evaluation(settings)
    gap = report["optimality_gap"]
    from pontoon_env.solver import BankerRule, solve

    assert gap["optimal_ev"] == pytest.approx(solve(PAGAT, BankerRule(17)).ev_stake_choice)
    assert gap["rows"][0]["policy"] == "threshold"
    assert "gap_vs_optimal_player" in gap["rows"][0]


def test_optimality_gap_needs_a_fixed_rule_banker(tmp_path: Path) -> None:
    from pontoon_tools.evaluation import EvaluationError

    settings = EvaluateSettings(seats=1, banker="banker_smart", optimality_gap=True, rounds=10, out=str(tmp_path),
                                charts=False, progress=False)
    with pytest.raises(EvaluationError, match="fixed drawing rule"):
        run_evaluation(settings)


def test_evaluate_cli_help_documents_the_options() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--help"], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    for option in ("--player", "--banker", "--seats", "--learner-seat", "--policies", "--rounds", "--seed",
                   "--compare", "--optimality-gap", "--run", "--out", "--rules", "--option", "--role"):
        assert option in result.stdout, option


def test_evaluate_cli_runs_and_reports(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "evaluate.py"), "--player", "threshold", "--banker", "banker_threshold",
         "--seats", "2", "--learner-seat", "2", "--rounds", "200", "--out", str(tmp_path), "--no-progress",
         "--no-charts"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert "EV/round" in result.stdout and "banker take per player" in result.stdout
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["seats"] == ["banker_threshold", "threshold", "threshold"]


def test_evaluate_cli_bad_policy_is_a_clear_error(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "evaluate.py"), "--player", "no_such_policy", "--rounds", "10",
         "--out", str(tmp_path), "--no-progress"],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert result.returncode == 2
    assert "no_such_policy" in result.stderr and "expected one of" in result.stderr


# ------------------------------------------------------------------ what a new user hits first


def _evaluate_main(argv: list[str]) -> int:
    import importlib.util

    spec = importlib.util.spec_from_file_location("evaluate_script", ROOT / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv)


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A player and a banker trained for a table of two players, a few updates each."""
    import torch

    from pontoon_tools.training import Trainer, TrainSettings

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("models")
    models = {}
    for role in ("player", "banker"):
        settings = TrainSettings(role=role, timesteps=64, seats=2, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                                 eval_rounds=0, progress=False, net_arch=[8], warm_start="none",
                                 out=str(folder / role))
        models[role] = Trainer(settings, role, folder / role).run()
    return models


def test_zero_rounds_is_refused_before_anything_is_written(tmp_path: Path, capsys) -> None:
    # Before: a report full of NaN.
    out = tmp_path / "eval"
    assert _evaluate_main(["--rounds", "0", "--out", str(out), "--no-progress"]) == 2
    assert "--rounds: expected a positive number of rounds, got 0" in capsys.readouterr().err
    assert not out.exists()


def test_the_policies_list_sets_the_table_size(tmp_path: Path, capsys) -> None:
    # The docs example: before, "expected 5 specs ... got 4" (the default table has 4 players).
    argv = ["--policies", "banker_smart", "threshold", "random", "threshold:stick=17", "--rounds", "30",
            "--out", str(tmp_path), "--no-progress", "--no-charts"]
    assert _evaluate_main(argv) == 0
    report = json.loads((tmp_path / "report.json").read_text())
    assert report["num_players"] == 3 and report["seats"] == argv[1:5]
    assert _evaluate_main([*argv, "--seats", "4"]) == 2
    assert "--policies: expected 5 specs" in capsys.readouterr().err


def test_a_model_at_a_table_it_does_not_fit_is_one_clear_message(tiny_models, tmp_path: Path, capsys) -> None:
    player = str(tiny_models["player"])
    assert _evaluate_main(["--player", player, "--seats", "3", "--rounds", "10", "--out", str(tmp_path / "a"),
                           "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "does not fit this table" in err and "num_players: expected 3, found 2" in err and "Traceback" not in err
    assert _evaluate_main(["--player", player, "--option", "stick_min=16", "--rounds", "10",
                           "--out", str(tmp_path / "b"), "--no-progress"]) == 2
    assert "rules option 'stick_min': expected 16, found 15" in capsys.readouterr().err
    assert _evaluate_main(["--player", player, "--rules", "shoot", "--rounds", "10", "--out", str(tmp_path / "c"),
                           "--no-progress"]) == 2
    assert "trained for preset 'pagat', but the table plays 'shoot'" in capsys.readouterr().err
    # A banker model in a player seat.
    assert _evaluate_main(["--player", str(tiny_models["banker"]), "--rounds", "10", "--out", str(tmp_path / "d"),
                           "--no-progress"]) == 2
    assert "role: expected 'player', found 'banker'" in capsys.readouterr().err
    for name in "abcd":
        assert not (tmp_path / name).exists()
    # Where it fits (the table size and rules come from its config) it plays.
    assert _evaluate_main(["--player", player, "--rounds", "20", "--out", str(tmp_path / "ok"), "--no-progress",
                           "--no-charts"]) == 0
    assert json.loads((tmp_path / "ok" / "report.json").read_text())["num_players"] == 2


def test_model_policy_checks_the_table_through_the_checkpoint_module(tiny_models) -> None:
    from agents.checkpoint import CheckpointError
    from agents.model import ModelPolicy

    # The bank's movement between rounds does not matter to a model that plays.
    policy = ModelPolicy(tiny_models["player"], make_rules("pagat", bank_passing="pontoon"), 2)
    assert policy.num_players == 2
    # Nor does how the pack is gathered between rounds (a model trained on fresh packs plays on).
    shoe = make_rules("pagat", pack="fresh_each_round", shuffle_after_pontoon=False, cut_card_fraction=0.5)
    assert ModelPolicy(tiny_models["player"], shoe, 2).num_players == 2
    with pytest.raises(CheckpointError, match="rules option 'stick_min': expected 17, found 15"):
        ModelPolicy(tiny_models["player"], make_rules("pagat", pack="fresh_each_round", stick_min=17), 2)
    with pytest.raises(CheckpointError, match="num_players: expected 5, found 2"):
        ModelPolicy(tiny_models["player"], PAGAT, 5)


def test_the_report_counts_players_in_words(tmp_path: Path) -> None:
    report = run_evaluation(EvaluateSettings(seats=1, rounds=20, out=str(tmp_path), charts=False, progress=False))
    from pontoon_tools.evaluation import format_report

    text = format_report(report)
    assert text.startswith("rules 'pagat', 1 player, banker seat 0") and "1 players" not in text


def test_masked_argmax_is_the_exact_mode_on_ties_near_ties_and_single_legal_ids() -> None:
    """The plain argmax of masked_argmax and the exact path it falls back to agree on logits built to
    be hard: exact ties (the first maximum wins), gaps around the margin, one legal id, none."""
    import torch

    from agents.model import TIE_MARGIN, _masked_mode_exact, masked_argmax

    rng = np.random.default_rng(1)
    rows, n = 20_000, 12
    logits = torch.as_tensor(rng.normal(0.0, 3.0, size=(rows, n)).astype(np.float32))
    allowed = torch.as_tensor(rng.random((rows, n)) < 0.5)
    allowed[:100] = False  # no legal id
    allowed[100:200] = False
    allowed[100:200, 5] = True  # one legal id
    logits[200:2000, 7] = logits[200:2000, 3]  # exact ties
    allowed[200:2000, [3, 7]] = True
    sizes = [0.0, 1e-7, 1e-5, TIE_MARGIN, 2 * TIE_MARGIN, 1e-2]
    gaps = torch.as_tensor(rng.choice(sizes, size=1800).astype(np.float32))
    logits[2000:3800, 9] = logits[2000:3800].max(dim=1).values + 5.0
    logits[2000:3800, 2] = logits[2000:3800, 9] - gaps * logits[2000:3800, 9].abs().clamp(min=1.0)
    allowed[2000:3800, [2, 9]] = True
    logits[3800:4000] *= 1e4  # large logits
    expected = _masked_mode_exact(logits, allowed)
    chosen = masked_argmax(logits, allowed)
    assert torch.equal(chosen, expected)
    has_legal = allowed.any(dim=1)
    assert allowed[torch.arange(rows)[has_legal], chosen[has_legal]].all()


def test_masked_mode_picks_what_predict_picks(tiny_models) -> None:
    """The batched evaluator's shortcut (agents.model.masked_mode) is pinned to MaskablePPO's own
    deterministic predict on the same batches: random observations and masks, sizes 1 to 4096,
    and logits scaled up so that large gaps, near-ties and masked-out maxima all occur."""
    import torch

    from agents.model import ModelPolicy, masked_mode, masked_mode_supported

    policy = ModelPolicy(tiny_models["player"], PAGAT, 2)
    model = policy.model
    assert masked_mode_supported(model) and not masked_mode_supported(object())
    rng = np.random.default_rng(0)
    size, n = policy._encoder.size, policy.table.n
    for scale in (1.0, 1e3):
        with torch.no_grad():
            for parameter in model.policy.action_net.parameters():
                parameter.mul_(scale)
        for batch in (1, 7, 4096):
            obs = rng.uniform(-1.0, 2.0, size=(batch, size)).astype(np.float32)
            masks = rng.random((batch, n)) < 0.3
            masks[~masks.any(axis=1), 0] = True
            expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
            chosen = masked_mode(model.policy, obs, masks)
            assert chosen.dtype == np.int64 and np.array_equal(chosen, np.asarray(expected).reshape(-1))
            assert masks[np.arange(batch), chosen].all()
    # ModelPolicy takes the shortcut for a deterministic MaskablePPO and predict() otherwise.
    assert policy.predict_ids(obs[:3], masks[:3]).tolist() == chosen[:3].tolist() and policy._fast_mode
    calls = []
    sampling = ModelPolicy(tiny_models["player"], PAGAT, 2, deterministic=False)
    predict = sampling.model.predict
    sampling.model.predict = lambda *a, **k: calls.append(k) or predict(*a, **k)  # type: ignore[method-assign]
    sampled = sampling.predict_ids(obs[:3], masks[:3])
    assert calls and calls[0]["deterministic"] is False and masks[np.arange(3), sampled].all()


def test_a_config_naming_its_rules_by_preset_is_read_and_a_bad_one_named(tiny_models, tmp_path: Path) -> None:
    # A config edited by hand to "rules": "pagat" used to fail with "dictionary update sequence
    # element #0 has length 1; 2 is required".
    import shutil

    from agents.checkpoint import CheckpointError
    from agents.model import ModelPolicy

    for value, error in (("pagat", None), ("pagot", "saved rules are invalid: unknown preset 'pagot'"),
                         (5, "saved rules are invalid: rules: expected a preset name")):
        folder = tmp_path / str(value)
        shutil.copytree(tiny_models["player"].parent, folder)
        config = json.loads((folder / "config.json").read_text())
        config["rules"] = value
        (folder / "config.json").write_text(json.dumps(config))
        if error is None:
            assert ModelPolicy(folder / "model.zip", make_rules("pagat"), 2).num_players == 2
        else:
            with pytest.raises(CheckpointError, match=error):
                ModelPolicy(folder / "model.zip", make_rules("pagat"), 2)


def test_an_async_vector_env_with_a_model_opponent_steps(tiny_models) -> None:
    # AsyncVectorEnv builds one table in the parent (the model loaded, torch's threads started)
    # and forks its workers; their first inference used to wait for ever. Run apart, with a timeout.
    import subprocess
    import sys

    script = (
        "import numpy as np, gymnasium as gym, pontoon_env\n"
        f"v = gym.make_vec('PontoonBanker-v0', num_envs=2, vectorization_mode='async', num_players=2, "
        f"opponents={str(tiny_models['player'])!r})\n"
        "obs, info = v.reset(seed=0)\n"
        "for _ in range(30):\n"
        "    obs, r, te, tr, info = v.step(info['action_mask'].argmax(axis=1))\n"
        "v.close()\n"
        "print('stepped')\n"
    )
    import os
    import signal

    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    try:
        out, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)  # the workers too, not only the parent
        process.communicate()
        pytest.fail("the async vector env with a model opponent hung")
    assert process.returncode == 0 and "stepped" in out, err[-2000:]


def test_the_protocol_tool_refuses_a_model_of_the_other_role_and_zero_rounds(tiny_models, capsys) -> None:
    # It used to play a banker's network as a player (a meaningless gap, rc 0) and read
    # --rounds 0 as the 200,000-round default.
    from pontoon_tools.protocol import main as protocol_main

    assert protocol_main(["player", str(tiny_models["banker"]), "--rounds", "50"]) == 2
    assert "role: expected 'player', found 'banker'" in capsys.readouterr().err
    assert protocol_main(["banker", str(tiny_models["player"]), "--rounds", "50"]) == 2
    assert "role: expected 'banker', found 'player'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        protocol_main(["player", str(tiny_models["player"]), "--rounds", "0"])
    assert exit_info.value.code == 2 and "--rounds: expected an integer >= 1, got 0" in capsys.readouterr().err
    # A banker the exact optimum cannot model is named by the flag that chose it (it said
    # --optimality-gap, an option this tool does not have), before any round is played.
    assert protocol_main(["player", str(tiny_models["player"]), "--opponent", "threshold", "--rounds", "50"]) == 2
    err = capsys.readouterr().err
    assert "--opponent (the player protocol's banker) needs a banker with a fixed drawing rule" in err
    assert "--optimality-gap" not in err


def test_diagnose_measures_against_the_optimum_for_the_banker_given(tiny_models, capsys) -> None:
    # Its "optimal" was the stand-17 banker's whatever --banker said, so the gap was understated.
    from pontoon_env.game.rules import make_rules
    from pontoon_tools.diagnose import banker_rule
    from pontoon_tools.diagnose import main as diagnose_main

    rules = make_rules("pagat")
    assert banker_rule("banker_threshold:stand=12", rules).stand_on == 12
    assert banker_rule("banker_smart", rules).stand_on == 17  # no fixed rule: the reference one
    assert diagnose_main([str(tiny_models["banker"]), "--rounds", "50"]) == 2
    assert "role: expected 'player', found 'banker'" in capsys.readouterr().err
