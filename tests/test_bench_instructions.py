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


def test_without_valgrind_it_says_so_and_fails(tmp_path: Path) -> None:
    env = {"PATH": str(tmp_path)}  # no valgrind on it
    done = subprocess.run([sys.executable, str(SCRIPT), "--players", "1", "--steps", "10"], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=60)
    assert done.returncode == 2 and "valgrind is not on the PATH" in done.stderr


def test_bad_table_sizes_are_refused() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--players", "0"], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 2 and "--players: expected table sizes in 1..9, got [0]" in done.stderr
