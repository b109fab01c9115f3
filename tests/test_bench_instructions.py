"""bench/instructions.py: its measured loops run as bench/engine.py's (without valgrind here: the
counting itself takes minutes), and a missing valgrind is one clear line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "bench" / "instructions.py"


@pytest.mark.parametrize("mode", ["blackjack", "full", "no_encode", "no_observation"])
def test_each_measured_loop_runs_and_reports_its_steps(mode: str) -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--child", mode, "4", "30"], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    steps = int(done.stdout.split()[-1])
    # Blackjack-v1 counts the steps of 30 episodes (at least one each); Pontoon-v0 the 30 steps asked
    assert steps >= 30 if mode == "blackjack" else steps == 30


@pytest.mark.parametrize("mode", ["scripted", "vector", "encode"])
def test_the_batched_loops_run_and_report_what_they_played(mode: str) -> None:
    """--scripted counts rounds, --vector table-steps and --encode observations, in batches of 256 tables."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--child", mode, "2", "300"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == 512  # whole batches, until at least 300


def test_without_valgrind_it_says_so_and_fails(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path)}  # no valgrind on it
    done = subprocess.run([sys.executable, str(SCRIPT), "--players", "1", "--steps", "10"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 2 and "valgrind is not on the PATH" in done.stderr


def test_bad_table_sizes_are_refused() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--players", "0"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 2 and "--players: expected table sizes in 1..9, got [0]" in done.stderr


def test_caches_reads_each_event_off_cachegrinds_summary() -> None:
    """--caches reads its four events off cachegrind's summary (the format of valgrind 3.19-3.24)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import instructions

    summary = """==1== I1  misses:       34,689,557
==1== LLi misses:           30,263
==1== D1  misses:        24,227,525  ( 21,590,548 rd   +   2,636,977 wr)
==1== LLd misses:           477,053  (    101,012 rd   +     376,041 wr)
==1== Branches:        401,566,875  (334,972,058 cond +  66,594,817 ind)
==1== Mispredicts:      52,595,891  ( 25,542,592 cond +  27,053,299 ind)
"""
    assert instructions.read_events(summary) == {"I1 misses": 34_689_557, "D1 misses": 24_227_525, "mispredicted": 52_595_891,
                     "of them indirect": 27_053_299}
    assert instructions.read_events(summary.replace("Mispredicts", "Mispredicted")) is None


def test_scripted_child_plays_whole_batches() -> None:
    """--scripted counts rounds of bench/batched.py's scripted loop: whole batches of 256 tables."""
    done = subprocess.run([sys.executable, str(SCRIPT), "--child", "scripted", "2", "300"], capture_output=True,
                          text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == 512


def test_repeat_averages_pairs_of_runs_and_prints_their_range(monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """--repeat N: each table size's count is the mean of N short-and-long pairs, shown with their range
    (two invocations of the same run differ by millions of instructions; the range shows how much)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import instructions

    # (instructions, steps) per call: the compile run, then pairs whose per-step counts are 100 and 120
    answers = iter([(0, 256), (1_000, 512), (1_000 + 100 * 1000, 1512), (2_000, 512), (2_000 + 120 * 1000, 1512)])
    monkeypatch.setattr(instructions, "instructions", lambda mode, players, steps: next(answers))
    instructions.print_batched("vector", [4], 1000, repeat=2)
    out = capsys.readouterr().out
    assert "2 pairs of runs" in out
    assert "4 players + banker:        110   (pairs: 100-120)" in out


def test_a_bad_repeat_is_refused() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--vector", "--repeat", "0"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 2 and "--repeat: expected a positive number, got 0" in done.stderr


def test_caches_of_the_batched_loops_are_per_round_after_two_batches(monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """--caches --vector: each event per table-step, the long run less the short run (two batches in)."""
    sys.path.insert(0, str(ROOT / "bench"))
    import instructions

    calls = []

    def fake(mode: str, players: int, steps: int) -> tuple[dict[str, int], int]:
        calls.append((mode, players, steps))
        played = -(-steps // 256) * 256  # whole batches
        return {label: 7 * played for label, _, _ in instructions.CACHE_EVENTS}, played

    monkeypatch.setattr(instructions, "simulated", fake)
    instructions.print_batched_caches("vector", [4], 1024)
    assert calls == [("vector", 4, 256), ("vector", 4, 512), ("vector", 4, 1536)]
    line = [row for row in capsys.readouterr().out.splitlines() if "4 players + banker" in row][0]
    assert line.split()[-4:] == ["7"] * 4
