"""bench/batched.py's measuring helpers run and report what they say (its timings are not tested:
they are the machine's)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_scripted_batch_plays_a_round_at_every_table() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import batched

    batch = batched.scripted_batch(2, 8)
    assert batch() == 8 and batch() == 8


def test_step_split_puts_the_compiled_pass_inside_the_step() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import batched
    from pontoon_env.batched import kernel as kn

    compiled = kn.env_step
    total, inside = batched.step_split(16, 2, 0.05)
    assert 0 < inside < total
    assert kn.env_step is compiled  # the timing wrapper is taken off again


def test_sections_and_repeat_are_checked() -> None:
    import subprocess

    for args, message in ((["--sections", "9"], "invalid choice: 9"), (["--repeat", "0"], "--repeat: expected a positive")):
        done = subprocess.run([sys.executable, str(ROOT / "bench" / "batched.py"), *args], capture_output=True,
                              text=True, cwd=ROOT, timeout=60)
        assert done.returncode == 2 and message in done.stderr


def test_clock_chain_computes_and_reports_a_rate(capsys) -> None:
    """bench/clock.py's chain runs the arithmetic it claims (checked against Python) and prints a rate."""
    sys.path.insert(0, str(ROOT / "bench"))
    import clock
    import numpy as np

    x = 3
    for _ in range(100):
        x = (x ^ (x >> 1)) + 7
    assert int(clock.dependent_chain(100, np.int64(3))) == x
    assert clock.main(["--iterations", "1000", "--repeat", "1"]) == 0
    assert "billion iterations/s" in capsys.readouterr().out


def test_the_memory_section_does_not_depend_on_what_ran_before(capsys) -> None:
    # ru_maxrss is a peak: measured after another section's 4,096 tables it printed "+0 MiB for the
    # env" (the README's record said so); it runs in a fresh process now.
    import re

    sys.path.insert(0, str(ROOT / "bench"))
    import batched
    from pontoon_env.envs.vector import PontoonVectorEnv

    env = PontoonVectorEnv(num_envs=4096, num_players=4)  # what section 2 leaves in the process
    env.reset(seed=0)
    batched.memory_section(compile_too=False)
    line = capsys.readouterr().out
    env_mib = int(re.search(r"(\d+) MiB of it for the env", line).group(1))
    assert env_mib >= 20, line  # at least the table state (21.8 MiB)
