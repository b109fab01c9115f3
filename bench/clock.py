"""The processor's clock as the compiled code sees it: a chain of dependent one-cycle operations.

::

    taskset -c 0 python bench/clock.py [--iterations 500000000] [--repeat 3]

The virtual machine hides the processor's counters (``perf stat`` has no cycles), so the clock is
read off a loop whose every iteration is three dependent single-cycle integer operations (a shift,
an exclusive or, an add: each waits for the one before), compiled by numba: iterations a second
times three is cycles a second. With it, instructions a second (``bench/instructions.py`` counts
times ``bench/batched.py`` rates) become instructions a cycle, which says whether a loop waits
(few a cycle) or issues near the processor's width.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

OPS_PER_ITERATION = 3
"""sar, xor, add: each depends on the previous one's result (checked in the machine code)."""


@njit(cache=True)
def dependent_chain(iterations: int, x: np.int64) -> np.int64:
    for _ in range(iterations):
        x = (x ^ (x >> np.int64(1))) + np.int64(7)
    return x


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=500_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    dependent_chain(10, np.int64(1))  # compile
    rates = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        dependent_chain(args.iterations, np.int64(3))
        rates.append(args.iterations / (time.perf_counter() - started))
    low, high = min(rates), max(rates)
    print(f"dependent chain: {low / 1e9:.2f}-{high / 1e9:.2f} billion iterations/s over {args.repeat} runs; "
          f"{OPS_PER_ITERATION} dependent one-cycle operations each: about {low * OPS_PER_ITERATION / 1e9:.1f}-"
          f"{high * OPS_PER_ITERATION / 1e9:.1f} GHz")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
