"""evaluate.py refuses what it cannot do as asked, with the flag named, before anything is written.

Each test pins a defect that was found in the CLI: a flag silently ignored (``--player`` under
``--compare``), a scripted policy of the other role played under its name, two checkpoints reported
under one label, a corrupt learning curve named nowhere, ``Infinity`` in ``report.json``, and error
messages that did not say which flag they were about.
"""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _evaluate_main(argv: list[str]) -> int:
    """``evaluate.py``'s ``main`` in this process (a subprocess would re-import torch each time)."""
    spec = importlib.util.spec_from_file_location("evaluate_script", ROOT / "evaluate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return int(module.main(argv))


def _run(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """Run evaluate.py quietly into ``out``; return its exit code and its stderr."""
    code = _evaluate_main([*argv, "--out", str(out), "--no-progress", "--no-charts"])
    return code, capsys.readouterr().err


def _report(out: Path) -> dict[str, Any]:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"report.json holds {constant}, which is not JSON")

    return json.loads((out / "report.json").read_text(), parse_constant=refuse)


@pytest.fixture(scope="module")
def tiny_player(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A player trained for a table of two players, a few updates (a real checkpoint with its config)."""
    import torch

    from pontoon_tools.training import Trainer, TrainSettings

    torch.set_num_threads(1)
    folder = tmp_path_factory.mktemp("models") / "run"
    settings = TrainSettings(role="player", timesteps=64, seats=2, n_envs=2, n_steps=32, batch_size=32, n_epochs=1,
                             eval_rounds=0, progress=False, net_arch=[8], warm_start="none", out=str(folder))
    return Path(Trainer(settings, "player", folder).run())


# ------------------------------------------------------------------ 1. --player / --banker under --compare


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--player", "random", "--compare", "threshold", "threshold:stick=17"],
         "--player: expected no --player with --compare under role 'player'"),
        (["--role", "banker", "--banker", "banker_smart", "--compare", "banker_threshold", "casino_dealer"],
         "--banker: expected no --banker with --compare under role 'banker'"),
    ],
)
def test_a_seat_flag_that_compare_would_replace_is_refused(argv: list[str], message: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Before: --player random was never played, yet report.json's seats listed it in seat 1.
    out = tmp_path / "eval"
    code, err = _run(["--seats", "2", "--rounds", "200", *argv], out, capsys)
    assert code == 2 and message in err, err
    assert "got 'random'" in err or "got 'banker_smart'" in err
    assert not out.exists()


def test_the_report_seats_name_what_was_played_under_compare(tmp_path: Path, capsys) -> None:
    # Before: seat 1 was reported as the default 'threshold' while threshold:stick=17 played it.
    code, err = _run(["--seats", "2", "--rounds", "200", "--compare", "threshold:stick=17", "threshold"],
                     tmp_path, capsys)
    assert code == 0, err
    report = _report(tmp_path)
    assert report["seats"] == ["banker_threshold", "threshold:stick=17", "threshold"]
    assert {row["seat"]: row["policy"] for row in report["summary"]} == dict(enumerate(report["seats"]))
    # The other seat of the role is not the compared one: --player stays usable under --role banker.
    code, err = _run(["--seats", "1", "--rounds", "200", "--player", "random", "--role", "banker",
                      "--compare", "banker_smart", "banker_threshold"], tmp_path / "banker", capsys)
    assert code == 0, err
    assert _report(tmp_path / "banker")["seats"] == ["banker_smart", "random"]


# ------------------------------------------------------------------ 2. scripted policies of the other role


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "1", "--player", "banker_smart"],
         "--player banker_smart: expected a player policy, got a banker policy"),
        (["--seats", "1", "--banker", "threshold"], "--banker threshold: expected a banker policy, got a player policy"),
        (["--seats", "1", "--compare", "threshold", "banker_smart"],
         "--compare banker_smart: expected a player policy, got a banker policy"),
        (["--seats", "1", "--role", "banker", "--compare", "banker_threshold", "threshold:stick=15"],
         "--compare threshold:stick=15: expected a banker policy, got a player policy"),
        (["--policies", "threshold", "threshold"],
         "--policies threshold (seat 0): expected a banker policy, got a player policy"),
        (["--seats", "2", "--others", "Casino_Dealer"],
         "--others Casino_Dealer: expected a player policy, got a banker policy"),
    ],
)
def test_a_scripted_policy_of_the_other_role_is_refused(argv: list[str], message: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: accepted, and the seat was played by the default policy of its role under the other
    # policy's name (--player banker_smart gave threshold's numbers; a comparison a difference of 0).
    out = tmp_path / "eval"
    code, err = _run(["--rounds", "200", *argv], out, capsys)
    assert code == 2 and message in err, err
    assert "Traceback" not in err and not out.exists()


def test_policies_of_both_roles_and_the_banker_best_response_sit_where_they_belong(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # random plays both roles: accepted in every seat.
    code, err = _run(["--policies", "random", "random", "random", "--rounds", "200"], tmp_path / "a", capsys)
    assert code == 0, err
    code, err = _run(["--seats", "1", "--role", "banker", "--compare", "random", "banker_threshold",
                      "--rounds", "200"], tmp_path / "b", capsys)
    assert code == 0, err
    # banker_best_response is a banker: a comparison it leads is about the banker seat (it was
    # guessed to be a player's and compared in seat 1, where it played the default player).
    code, err = _run(["--seats", "1", "--compare", "banker_best_response", "banker_threshold", "--rounds", "200"],
                     tmp_path / "c", capsys)
    assert code == 0, err
    report = _report(tmp_path / "c")
    assert report["role"] == "banker" and report["focus_seat"] == 0
    assert report["comparison"]["rows"][1]["first_minus_this"] != 0.0


def test_guess_role_reads_the_registry() -> None:
    from pontoon_tools.evaluation import guess_role

    assert guess_role("banker_best_response") == "banker" and guess_role(" Banker_Smart:margin=1") == "banker"
    assert guess_role("random") == "player" and guess_role("optimal:stand=17") == "player"


# ------------------------------------------------------------------ 3. unique labels for checkpoints


def test_labels_of_checkpoints_whose_paths_end_alike_differ() -> None:
    from pontoon_tools.evaluation import policy_labels

    specs = ["runs/gen_01/player/model.zip", "runs/gen_02/player/model.zip", "threshold", "runs/gen_01/player/model.zip",
             "/a/x/player/model.zip", "/b/x/player/model.zip", "solo/model.zip"]
    assert policy_labels(specs) == ["gen_01/player/model.zip", "gen_02/player/model.zip", "threshold",
                                    "gen_01/player/model.zip", "a/x/player/model.zip", "b/x/player/model.zip",
                                    "solo/model.zip"]
    # Two spellings of one path cannot be told apart by folders: they keep a label and do not loop.
    assert policy_labels(["g/p/model.zip", "./g/p/model.zip"]) == ["g/p/model.zip", "g/p/model.zip"]


def test_compared_checkpoints_from_two_generations_get_their_own_rows_and_charts(
        tiny_player: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The layout train.py --role both writes: gen_01/player/model.zip, gen_02/player/model.zip.
    for generation in ("gen_01", "gen_02"):
        shutil.copytree(tiny_player.parent, tmp_path / generation / "player")
    first, second = (str(tmp_path / g / "player" / "model.zip") for g in ("gen_01", "gen_02"))
    out = tmp_path / "eval"
    assert _evaluate_main(["--compare", first, second, "--rounds", "100", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    rows = _report(out)["comparison"]["rows"]
    assert [row["policy"] for row in rows] == ["gen_01/player/model.zip", "gen_02/player/model.zip"]
    for name in ("strategy_gen_01_player_model.txt", "strategy_gen_02_player_model.txt"):
        assert (out / name).is_file(), sorted(p.name for p in out.iterdir())


# ------------------------------------------------------------------ 4. a corrupt learning curve


@pytest.mark.parametrize("content", ['{"broken', '{"timesteps": 5}', "[1, 2]"])
def test_a_corrupt_eval_history_is_named_before_anything_is_written(
        content: str, tiny_player: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(tiny_player.parent, run)
    (run / "eval_history.json").write_text(content)
    out = tmp_path / "eval"
    # Before: the tables were written, then a bare JSON message ("Invalid control character ...")
    # naming no file, and the remaining charts were skipped.
    assert _evaluate_main(["--run", str(run), "--rounds", "50", "--out", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert f"--run {str(run)!r}: {str(run / 'eval_history.json')!r}" in err and "expected a JSON list" in err, err
    assert not out.exists()
    # Without charts the learning curve is not needed, and not read.
    code, err = _run(["--run", str(run), "--rounds", "50"], out, capsys)
    assert code == 0, err


# ------------------------------------------------------------------ 5. strict JSON


def test_a_single_round_writes_null_not_infinity(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Before: a confidence interval of one sample was written as Infinity/-Infinity (not JSON).
    code, err = _run(["--seats", "1", "--rounds", "1", "--compare", "threshold", "random"], tmp_path, capsys)
    assert code == 0, err
    report = _report(tmp_path)  # refuses Infinity and NaN
    banker = report["summary"][0]
    assert banker["ev_ci_low"] is None and banker["ev_ci_high"] is None and math.isfinite(banker["ev"])


def test_write_json_writes_strict_json(tmp_path: Path) -> None:
    from pontoon_tools.evaluation import write_json

    path = tmp_path / "x.json"
    write_json({"a": math.inf, "b": [np.float32("nan"), np.float64(-np.inf), 1.5], "c": np.array([1.0, np.inf]),
                "d": np.int64(3)}, path)
    assert json.loads(path.read_text(), parse_constant=lambda c: pytest.fail(c)) == {
        "a": None, "b": [None, None, 1.5], "c": [1.0, None], "d": 3}


# ------------------------------------------------------------------ 6. messages that name their flag


def test_an_unknown_option_names_the_flag_without_rules(tiny_player: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "unknown rules option 'bogus' ..." with no flag, unlike the same error under --rules.
    for argv in (["--seats", "1"], ["--player", str(tiny_player)], ["--rules", "pagat", "--seats", "1"]):
        out = tmp_path / "eval"
        code, err = _run(["--option", "bogus=1", "--rounds", "20", *argv], out, capsys)
        assert code == 2 and "evaluate.py: error: --option: unknown rules option 'bogus'" in err, (argv, err)
        assert not out.exists()


@pytest.mark.parametrize("rules", ["pagat", "shoot"])
def test_a_seed_out_of_range_is_refused_up_front_on_every_path(rules: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # Before: "seed: expected ..." (no --) after --out was created; under shoot (the reference
    # engine) the same seed was accepted.
    out = tmp_path / "eval"
    code, err = _run(["--rules", rules, "--seats", "1", "--rounds", "20", "--seed", str(2**64 - 1)], out, capsys)
    assert code == 2 and "--seed: expected an integer >= 0 and at most 2**63-1" in err, err
    assert f"got {2**64 - 1}" in err and not out.exists()
    code, err = _run(["--rules", rules, "--seats", "1", "--rounds", "20", "--seed", str(2**63 - 1)], out, capsys)
    assert code == 0, err


def test_the_solver_refusing_the_rules_names_optimality_gap(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "eval"
    code, err = _run(["--optimality-gap", "--rules", "shoot", "--seats", "1", "--rounds", "20"], out, capsys)
    assert code == 2 and "evaluate.py: error: --optimality-gap: the solver does not model shoot bets" in err, err
    assert not out.exists()
