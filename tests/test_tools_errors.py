"""The measuring tools (protocol, ablation, targets, report, timings) refuse what they cannot do as
asked, with the flag named, before work starts, and record what was really trained and played.

Each test pins a defect that was found: a scripted policy of the other role played under its name,
an exact comparison against another opponent than the one played, a corrupt cache entry that broke
every later run, records giving the call's flags for a reused model, ``null`` numbers that crashed
the tables, tracebacks in place of one-line errors, and flags silently ignored.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Run folders of a one-seat player, a one-seat banker and a two-seat banker, a few updates each,
    trained at seed 3 (real checkpoints with their config.json)."""
    import torch

    from pontoon_tools.training import Trainer, TrainSettings

    torch.set_num_threads(1)
    root = tmp_path_factory.mktemp("tiny")
    runs = {}
    for name, role, seats in (("player", "player", 1), ("banker", "banker", 1), ("banker2", "banker", 2)):
        folder = root / name
        settings = TrainSettings(role=role, timesteps=64, seats=seats, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                                 seed=3, eval_rounds=0, progress=False, net_arch=[8], warm_start="none",
                                 out=str(folder))
        Trainer(settings, role, folder).run()
        runs[name] = folder
    return runs


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs in its own folder: the protocol's cache (results/cache) lands there."""
    monkeypatch.chdir(tmp_path)


def _exit_code(main: Callable[[list[str]], int], argv: list[str]) -> int:
    """``main(argv)``'s exit code, whether it returns it or argparse exits with it."""
    try:
        return int(main(argv))
    except SystemExit as exit_info:
        return int(exit_info.code or 0)


def _no_training(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Stop every train.py subprocess (a refusal must come before one): each command is recorded and
    fails as train.py does when it refuses a flag."""
    commands: list[list[str]] = []

    def run(command: list[str], *args: Any, **kwargs: Any) -> Any:
        commands.append([str(part) for part in command])
        raise subprocess.CalledProcessError(2, command)

    monkeypatch.setattr(subprocess, "run", run)
    return commands


def _forbid(monkeypatch: pytest.MonkeyPatch, target: Any, name: str) -> None:
    """Make ``target.name`` fail the test if called: the work a refusal must come before."""

    def called(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{name} ran before the refusal")

    monkeypatch.setattr(target, name, called)


# ------------------------------------------------------------------ 1. a scripted policy of the other role


def test_the_protocol_refuses_a_scripted_policy_of_the_other_role(tiny: dict[str, Path], capsys) -> None:
    # banker_smart in the players' seats played the default player ("banker vs 2 x banker_smart"),
    # threshold in the session's banker seat the default banker.
    from pontoon_tools.protocol import main as protocol_main

    assert protocol_main(["banker", str(tiny["banker2"]), "--rounds", "50", "--opponent", "banker_smart"]) == 2
    err = capsys.readouterr().err
    assert "--opponent (the banker protocol's players): expected a player policy, got a banker policy" in err
    assert protocol_main(["session", str(tiny["player"]), "--opponent", "threshold", "--session-rounds", "1",
                          "--sessions-per-table", "1"]) == 2
    err = capsys.readouterr().err
    assert "--opponent (the session protocol's banker): expected a banker policy, got a player policy" in err
    assert "Traceback" not in err


# ------------------------------------------------------------------ 2. the exact comparison: the opponent played


def test_the_banker_protocol_answers_the_player_played_parameters_and_all(tiny: dict[str, Path]) -> None:
    # The comparison row was banker_best_response:player=threshold and the exact section the default
    # threshold player, while the players stuck on 12.
    from agents.scripted import ThresholdPlayer
    from pontoon_tools import exploit
    from pontoon_tools.protocol import banker_protocol

    row = banker_protocol(tiny["banker"], "pagat", "threshold:stick=12", rounds=100, seed=1, cache=None, read_steps=4)
    assert list(row["versus"])[-1] == "banker_best_response:player=threshold:stick=12"
    wanted = exploit.banker_best_response_ev("pagat", ThresholdPlayer(stick_at=12))["br_banker_ev"]
    default = exploit.banker_best_response_ev("pagat", "threshold")["br_banker_ev"]
    assert row["exact"]["br_banker_ev"] == pytest.approx(wanted) and wanted != pytest.approx(default)


def test_a_player_the_exact_section_cannot_model_is_refused_before_the_match(tiny: dict[str, Path],
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # --opponent random at one seat failed only after the whole match had been played.
    from pontoon_tools import protocol
    from pontoon_tools.evaluation import EvaluationError

    _forbid(monkeypatch, protocol, "play_match")
    for spec in ("random", "optimal:stand=16", "threshold:buy_amount=3"):
        with pytest.raises(EvaluationError, match=r"^--opponent \(the banker protocol's players\): the exact section"):
            protocol.banker_protocol(tiny["banker"], "pagat", spec, rounds=100, cache=None)


def test_the_optimum_answers_the_banker_played(tiny: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    # The session's optimum was solved against a banker standing on 17 (SolverPlayer's default), and
    # the player protocol's "optimal" played against 17, whatever stand the banker had.
    from pontoon_env import solver
    from pontoon_env.game.rules import resolve_rules
    from pontoon_tools import exploit, protocol

    solutions: list[Any] = []
    original = exploit.SolverPlayer.__init__

    def spy(self: Any, rules: Any, table: Any, encoder: Any, solution: Any = None) -> None:
        solutions.append(solution)
        original(self, rules, table, encoder, solution)

    monkeypatch.setattr(exploit.SolverPlayer, "__init__", spy)
    protocol.session_protocol(tiny["player"], "pagat", "banker_threshold:stand=12", session_rounds=1,
                              sessions_per_table=1, tables=4)
    rules = resolve_rules("pagat")
    wanted = solver.solve(rules, solver.BankerRule(12, hit_soft=False, double_on=frozenset())).ev_stake_choice
    assert solutions and solutions[0] is not None and solutions[0].ev_stake_choice == pytest.approx(wanted)

    specs: list[list[str]] = []
    cached = protocol._cached_match

    def record(rules: Any, num_players: int, given: list[str], *args: Any, **kwargs: Any) -> Any:
        specs.append(list(given))
        return cached(rules, num_players, given, *args, **kwargs)

    monkeypatch.setattr(protocol, "_cached_match", record)
    protocol.player_protocol(tiny["player"] / "model.zip", "pagat", "banker_threshold:stand=12", rounds=50,
                             read_steps=4, cache=None)
    assert specs == [["banker_threshold:stand=12", "optimal:stand=12"]]


# ------------------------------------------------------------------ 4. the cache


def test_a_corrupt_cache_entry_is_played_again_and_entries_are_written_whole(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch,
                                                                             capsys) -> None:
    # A half-written .npz broke every later run with EOFError / BadZipFile, naming no file.
    from pontoon_env.game.rules import resolve_rules
    from pontoon_tools import protocol

    rules, cache = resolve_rules("pagat"), tmp_path / "cache"
    first = protocol._cached_match(rules, 1, ["banker_threshold", "threshold"], 20, 1, cache)
    (entry,) = cache.glob("*.npz")
    entry.write_bytes(entry.read_bytes()[:40])  # cut short, as by a run killed while writing
    again = protocol._cached_match(rules, 1, ["banker_threshold", "threshold"], 20, 1, cache)
    assert np.array_equal(again.net, first.net) and np.array_equal(again.staked, first.staked)
    assert str(entry) in capsys.readouterr().err
    with np.load(entry) as data:  # replaced by a whole one
        assert np.array_equal(data["net"], first.net)

    def cut_short(file: Any, **arrays: Any) -> None:  # a write that dies half-way
        target = Path(file) if isinstance(file, (str, Path)) else Path(file.name)
        target.write_bytes(b"PK\x03\x04half")
        raise OSError("disk full")

    monkeypatch.setattr(np, "savez_compressed", cut_short)
    protocol._cached_match(rules, 1, ["banker_threshold", "threshold"], 30, 1, cache)
    assert sorted(path.name for path in cache.iterdir()) == [entry.name]  # no half entry, no temporary left


# ------------------------------------------------------------------ 3. what the records say was trained


def test_an_ablation_record_of_a_reused_model_gives_its_own_steps_seed_and_command(
        tiny: dict[str, Path], tmp_path: Path, capsys) -> None:
    # It said 4,000,000 steps and a --seed 7 command for a model trained 64 steps at seed 3, and
    # "seed" was the protocol's (1).
    import shutil

    from pontoon_tools.ablation import main as ablation_main

    runs = tmp_path / "runs"
    shutil.copytree(tiny["player"], runs / "default")
    config = json.loads((runs / "default" / "config.json").read_text())
    config["command"] = "/somewhere/train.py --out runs/ablation/default --seed 3 --timesteps 64"
    (runs / "default" / "config.json").write_text(json.dumps(config))
    assert ablation_main(["run", "--rows", "default", "--reuse", "--force", "--timesteps", "4000000", "--seed", "7",
                          "--rounds", "50", "--out", str(tmp_path / "out"), "--runs", str(runs)]) == 0
    record = json.loads((tmp_path / "out" / "default.json").read_text())
    assert record["timesteps"] == config["timesteps"] == 64 and record["seed"] == 3 and record["protocol_seed"] == 1
    assert record["command"] == "train.py --out runs/ablation/default --seed 3 --timesteps 64"
    assert "trained 64 steps at seed 3" in capsys.readouterr().out


def test_a_targets_record_gives_the_training_seed_and_the_steps_asked_for(tmp_path: Path) -> None:
    # "seed" was the protocol's, and the steps column gave what was asked, not what was trained.
    from pontoon_tools.targets import main as targets_main

    assert targets_main(["run", "--names", "casino-player", "--timesteps", "2000", "--rounds", "40",
                         "--seed", "5", "--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")]) == 0
    record = json.loads((tmp_path / "out" / "casino-player.json").read_text())
    assert record["timesteps"] >= 2000 and record["seed"] == 5 and record["protocol_seed"] == 1  # whole rollouts
    assert record["command"].startswith("train.py ") and "--seed 5 --timesteps 2000" in record["command"]


# ------------------------------------------------------------------ 5. too few rounds, and null numbers


def test_too_few_rounds_are_refused_before_any_training(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys) -> None:
    from pontoon_tools.ablation import main as ablation_main
    from pontoon_tools.report import main as report_main
    from pontoon_tools.targets import main as targets_main

    commands = _no_training(monkeypatch)
    out = ["--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")]
    for main, argv, message in (
            (ablation_main, ["run", "--rows", "default", "--rounds", "1", *out], "--rounds: expected an integer >= 2"),
            (targets_main, ["run", "--names", "casino-player", "--rounds", "1", *out],
             "--rounds: expected an integer >= 2"),
            (targets_main, ["run", "--names", "pagat-banker-2", "--rounds", "7", *out],
             "--rounds: expected an integer >= 8 (an interval needs two rounds: banker targets play a quarter"),
            (report_main, ["--player", "run", "--rounds", "1", "--out", str(tmp_path / "report")],
             "--rounds: expected an integer >= 2, got 1"),
            (report_main, ["--banker", "run", "--banker-rounds", "1", "--out", str(tmp_path / "report")],
             "--banker-rounds: expected an integer >= 2, got 1")):
        assert _exit_code(main, argv) == 2
        assert message in capsys.readouterr().err
    assert commands == [] and not (tmp_path / "report").exists()


def _null_interval() -> dict[str, Any]:
    return {"mean": 0.5, "low": None, "high": None, "half_width": None, "differ": 1.0}


def test_the_tables_show_a_dash_for_a_null_number(tmp_path: Path, capsys) -> None:
    # One round's interval is written null; `ablation table`, `targets table` and `report --markdown`
    # stopped with TypeError (format None).
    from pontoon_tools.ablation import main as ablation_main
    from pontoon_tools.report import main as report_main
    from pontoon_tools.targets import main as targets_main

    player = {"rules": "pagat", "banker": "banker_threshold", "rounds": 1, "seed": 1, "model_ev": _null_interval(),
              "optimal_ev": _null_interval(), "gap": _null_interval(), "gap_ok": False,
              "versus": {"optimal": {"ev": _null_interval(), "model_minus": _null_interval(), "mean_stake": 1.0}},
              "mean_stake": {"model": 1.0, "optimal": 1.0},
              "exact": {"optimal_ev": 0.1, "read_ev": None, "read_gap": None, "banker_br_exploitability": None}}
    (tmp_path / "abl").mkdir()
    (tmp_path / "abl" / "default.json").write_text(json.dumps(
        {"row": "default", "group": "defaults", "what": "w", "timesteps": 64, "train_wall_s": None, **player}))
    assert ablation_main(["table", "--out", str(tmp_path / "abl")]) == 0
    assert "| 64 | — | — | +0.500 [—, —] |" in capsys.readouterr().out
    (tmp_path / "tg").mkdir()
    (tmp_path / "tg" / "casino-player.json").write_text(json.dumps(
        {"target": "casino-player", "kind": "player", "timesteps": 64, "train_wall_s": 1.0, **player}))
    assert targets_main(["table", "--out", str(tmp_path / "tg")]) == 0
    assert "+0.500 [—, —]" in capsys.readouterr().out
    (tmp_path / "summary.json").write_text(json.dumps({"player": player, "timings": {"phases_s": {"a": None}}}))
    assert report_main(["--markdown", str(tmp_path / "summary.json")]) == 0
    text = capsys.readouterr().out
    assert "**+0.500** | [—, —]" in text and "(gap —)" in text and "| a | — |" in text


# ------------------------------------------------------------------ 6. one line, not a traceback


def test_bad_run_flags_and_a_failed_training_are_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys) -> None:
    # --timesteps -1 reached train.py, and its refusal came back as a CalledProcessError traceback.
    from pontoon_tools.ablation import main as ablation_main
    from pontoon_tools.targets import main as targets_main

    commands = _no_training(monkeypatch)
    out = ["--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")]
    for main, argv, message in (
            (ablation_main, ["run", "--rows", "default", "--timesteps", "-1", *out],
             "--timesteps: expected an integer >= 1, got -1"),
            (ablation_main, ["run", "--rows", "half_length", "--timesteps", "1", *out],
             "--timesteps: expected an integer >= 2 (half_length"),
            (ablation_main, ["run", "--rows", "default", "--seed", "-1", *out],
             "--seed: expected an integer in 0..2**32-1"),
            (targets_main, ["run", "--names", "casino-player", "--timesteps", "-1", *out],
             "--timesteps: expected an integer >= 1, got -1")):
        assert _exit_code(main, argv) == 2
        assert message in capsys.readouterr().err
    assert commands == []
    assert ablation_main(["run", "--rows", "default", "--timesteps", "100", "--rounds", "10", *out]) == 2
    assert "error: training row default failed: train.py exited with status 2" in capsys.readouterr().err
    assert targets_main(["run", "--names", "casino-player", "--timesteps", "100", "--rounds", "10", *out]) == 2
    assert "error: training target casino-player failed: train.py exited with status 2" in capsys.readouterr().err


def test_the_tables_name_a_corrupt_record_and_a_docs_file_they_cannot_rewrite(tmp_path: Path, capsys) -> None:
    from pontoon_tools.ablation import main as ablation_main
    from pontoon_tools.targets import main as targets_main

    for main, name, tag in ((ablation_main, "default", "ablation"), (targets_main, "casino-player", "targets")):
        folder = tmp_path / tag
        folder.mkdir()
        docs = tmp_path / f"{tag}.md"
        docs.write_text("no markers here\n")
        assert main(["table", "--out", str(folder), "--docs", str(docs)]) == 2
        assert f"--docs: expected the markers <!-- {tag}:begin --> and <!-- {tag}:end -->" in capsys.readouterr().err
        assert docs.read_text() == "no markers here\n"
        assert main(["table", "--out", str(folder), "--docs", str(tmp_path / "missing.md")]) == 2
        assert "--docs: expected a Markdown file" in capsys.readouterr().err
        (folder / f"{name}.json").write_text('{"row": ')  # half-written
        assert main(["table", "--out", str(folder)]) == 2
        err = capsys.readouterr().err
        assert f"{folder / name}.json: expected a record written by `run`" in err and "Traceback" not in err


def test_the_report_reads_and_checks_its_inputs_before_measuring(tiny: dict[str, Path], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # A corrupt --timings was found only after all the measuring; a corrupt summary.json in --out
    # and --markdown on a corrupt file were JSONDecodeError tracebacks.
    from pontoon_tools import report

    _forbid(monkeypatch, report, "player_section")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    out = tmp_path / "out"
    assert report.main(["--player", str(tiny["player"]), "--timings", str(bad), "--out", str(out)]) == 2
    assert f"--timings: expected a timings.json written by `python -m pontoon_tools.timings write`, got {str(bad)!r}" \
        in capsys.readouterr().err
    assert not out.exists()
    out.mkdir()
    (out / "summary.json").write_text("{")
    assert report.main(["--player", str(tiny["player"]), "--out", str(out)]) == 2
    assert f"--out: expected the summary.json this tool writes, got {str(out / 'summary.json')!r}" \
        in capsys.readouterr().err
    assert report.main(["--markdown", str(bad)]) == 2
    assert f"--markdown: expected a summary.json written by this tool, got {str(bad)!r}" in capsys.readouterr().err
    bad.write_text('{"player": {"rules": "pagat"}}')  # JSON, but not a summary's
    assert report.main(["--markdown", str(bad)]) == 2
    assert "whose fields do not fit" in capsys.readouterr().err


def test_the_protocol_refuses_a_folder_as_out_before_the_run(tiny: dict[str, Path], tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # IsADirectoryError after the whole run.
    from pontoon_tools import protocol

    _forbid(monkeypatch, protocol, "_run")
    assert _exit_code(protocol.main, ["player", str(tiny["player"]), "--out", str(tmp_path)]) == 2
    assert f"--out: expected a file to write, got {str(tmp_path)!r}, a folder" in capsys.readouterr().err


def test_timings_show_names_a_file_without_its_machine(tmp_path: Path, capsys) -> None:
    # phases_s but no machine: KeyError traceback.
    from pontoon_tools.timings import main as timings_main

    partial = tmp_path / "t.json"
    partial.write_text(json.dumps({"job": "main job", "phases_s": {"train": 1.0}, "total_s": 1.0, "date": "2026"}))
    assert timings_main(["show", str(partial)]) == 2
    err = capsys.readouterr().err
    assert "is not a complete timings file (expected 'machine' (a table)" in err and "Traceback" not in err


# ------------------------------------------------------------------ 7. flags silently ignored


def test_the_protocol_refuses_flags_its_role_does_not_read(tiny: dict[str, Path], monkeypatch: pytest.MonkeyPatch,
                                                           capsys) -> None:
    # session --rounds 5 played 4,096 sessions; --read-rounds was ignored for a PPO banker.
    from pontoon_tools import protocol

    assert protocol.main(["banker", str(tiny["banker2"]), "--rounds", "50", "--read-rounds", "5"]) == 2
    assert "--read-rounds: expected only for a belief banker at a one-seat table" in capsys.readouterr().err
    _forbid(monkeypatch, protocol, "_run")
    for argv, message in ((["session", "--rounds", "5"], "--rounds: used only by the player and banker protocols; "
                                                         "expected no --rounds with session"),
                          (["player", "--read-rounds", "5"], "--read-rounds: used only by the banker protocol"),
                          (["banker", "--sessions-per-table", "2"], "--sessions-per-table: used only by the session")):
        assert _exit_code(protocol.main, [argv[0], str(tiny["player"]), *argv[1:]]) == 2
        assert message in capsys.readouterr().err


def test_targets_train_the_steps_asked_for_and_say_what_a_session_target_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # pontoon_1939-player trained its own 20,000,000 steps for --timesteps 1000 without a word (it
    # still does: the documented commands that reproduce the records rely on it); a session target
    # raised --rounds to 40,960 without a word.
    from pontoon_tools.targets import main as targets_main

    commands = _no_training(monkeypatch)
    out = ["--out", str(tmp_path / "out"), "--runs", str(tmp_path / "runs")]
    assert targets_main(["run", "--names", "pontoon_1939-player", "--timesteps", "1000", *out]) == 2
    assert commands[-1][commands[-1].index("--timesteps") + 1] == "20000000"
    assert ("training 20,000,000 steps (its own budget; --timesteps 1,000 applies to targets without one)"
            in capsys.readouterr().out)
    assert targets_main(["run", "--names", "pagat-session-player", "--rounds", "1000", "--timesteps", "100", *out]) == 2
    assert "--rounds 1,000 played as 40,960 rounds (1 x 4,096 sessions of 10 rounds)" in capsys.readouterr().out


# ------------------------------------------------------------------ 8. roles checked up front


def test_the_report_checks_every_role_before_measuring(tiny: dict[str, Path], tmp_path: Path, capsys) -> None:
    # --banker given a player's run: player.json was measured and left behind, then the banker refused.
    from pontoon_tools.report import main as report_main

    out = tmp_path / "out"
    assert report_main(["--player", str(tiny["player"]), "--banker", str(tiny["player"]), "--rounds", "20",
                        "--out", str(out), "--no-charts"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m pontoon_tools.report: error: --banker: ") and "role: expected 'banker'" in err
    assert not out.exists()
    assert report_main(["--player", str(tiny["banker"]), "--out", str(out), "--no-charts"]) == 2
    assert "--player: " in capsys.readouterr().err and not out.exists()


def test_the_reports_learning_curve_plots_a_null_as_a_gap_and_names_a_corrupt_file(tmp_path: Path) -> None:
    # write_json writes an undefined interval as null; the report passed it to the plot raw (TypeError).
    import math

    from pontoon_tools.evaluation import EvaluationError
    from pontoon_tools.report import _history

    (tmp_path / "eval_history.json").write_text(json.dumps([{"timesteps": 0, "vs/ev": 1.0, "vs/ev_ci_low": None}]))
    assert math.isnan(_history(tmp_path)[0]["vs/ev_ci_low"])
    (tmp_path / "eval_history.json").write_text('[{"timesteps": 0,')
    with pytest.raises(EvaluationError, match="eval_history.json' is unreadable"):
        _history(tmp_path)
    assert _history(tmp_path / "none") == []


# ------------------------------------------------------------------ the protocol's cache folder


def test_the_protocol_writes_its_cache_where_told_or_nowhere(tiny: dict[str, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    # Before: the scripted references' results always went to results/cache under the working
    # folder, with no flag to move or skip it.
    from pontoon_tools.protocol import main as protocol_main

    monkeypatch.chdir(tmp_path)
    cache = tmp_path / "elsewhere"
    assert protocol_main(["player", str(tiny["player"]), "--rounds", "40", "--cache", str(cache)]) == 0
    assert list(cache.glob("*.npz")) and not (tmp_path / "results").exists()
    assert protocol_main(["player", str(tiny["player"]), "--rounds", "40", "--no-cache"]) == 0
    assert not (tmp_path / "results").exists()
    for argv, message in (
        (["--cache", str(cache), "--no-cache"], "--cache: expected no --cache with --no-cache"),
        (["--cache", str(next(cache.glob("*.npz")))], "--cache: expected a folder"),
    ):
        with pytest.raises(SystemExit):
            protocol_main(["player", str(tiny["player"]), "--rounds", "40", *argv])
        assert message in capsys.readouterr().err
    with pytest.raises(SystemExit):
        protocol_main(["session", str(tiny["player"]), "--no-cache"])
    assert "--no-cache: used only by the player and banker protocols" in capsys.readouterr().err
