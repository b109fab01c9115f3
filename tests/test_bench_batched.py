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
