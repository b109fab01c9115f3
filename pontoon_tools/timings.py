"""Timings a job measured on the machine it ran on, written where its results are.

Docs should not carry hand-typed durations: they go stale the day the code or the machine
changes. ``scripts/main_job.sh`` times its phases and records them with this module::

    python -m pontoon_tools.timings write results/timings.json train=312.4 evaluate=85.1
    python -m pontoon_tools.timings show results/timings.json

``write`` stores the phases (seconds), their total, the date and the machine (CPU model, the cores
the job could use, the platform, Python) as JSON and prints one line; ``show`` prints that line
again from the file, so a README sentence can be regenerated from ``results/timings.json``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any


def machine() -> dict[str, Any]:
    """The machine a timing was taken on: CPU model, cores (all, and usable by this process), platform."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:  # not Linux: platform.processor() is the best there is
        pass
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # macOS, Windows
        usable = os.cpu_count() or 0
    return {
        "cpu": cpu,
        "cores": os.cpu_count() or 0,
        "usable_cores": usable,
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def record(phases: Mapping[str, float], job: str = "main job") -> dict[str, Any]:
    """The timings document: each phase in seconds, the total, the UTC date and the machine."""
    rounded = {name: round(float(seconds), 1) for name, seconds in phases.items()}
    return {
        "job": job,
        "phases_s": rounded,
        "total_s": round(sum(rounded.values()), 1),
        "date": dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat(),
        "machine": machine(),
    }


def describe(timings: Mapping[str, Any]) -> str:
    """One line: ``main job: train 312.4 s, evaluate 85.1 s, total 397.5 s on 2 usable cores (CPU) on DATE``."""
    phases = ", ".join(f"{name} {seconds:.1f} s" for name, seconds in timings["phases_s"].items())
    where = timings["machine"]
    return (f"{timings['job']}: {phases}, total {timings['total_s']:.1f} s on {where['usable_cores']} usable "
            f"core{'s' if where['usable_cores'] != 1 else ''} ({where['cpu']}), {timings['date']}")


def missing_fields(timings: Mapping[str, Any]) -> list[str]:
    """What :func:`describe` needs that ``timings`` lacks or holds in another shape (a file edited
    by hand, or written by an older tool): each as ``'key'`` or ``'machine.key'``."""
    def number(value: Any) -> bool:
        return isinstance(value, (int, float)) and not isinstance(value, bool)

    missing = [f"'{key}'" for key in ("job", "date") if key not in timings]
    if not number(timings.get("total_s")):
        missing.append("'total_s' (seconds)")
    phases = timings.get("phases_s")
    if not isinstance(phases, Mapping) or not all(number(v) for v in phases.values()):
        missing.append("'phases_s' (a table of seconds)")
    where = timings.get("machine")
    if not isinstance(where, Mapping):
        missing.append("'machine' (a table)")
    else:
        missing += [f"'machine.{key}'" for key in ("usable_cores", "cpu") if key not in where]
    return missing


def _phase(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        if not sep or not name:
            raise ValueError
        seconds = float(value)
        if not seconds >= 0 or seconds == float("inf"):  # NaN fails the first test
            raise ValueError
        return name, seconds
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected NAME=SECONDS (a finite number >= 0) such as train=312.4, got {text!r}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.timings", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    write = commands.add_parser("write", help="record phase timings as JSON and print them")
    write.add_argument("path", type=Path, help="the JSON file to write (e.g. results/timings.json)")
    write.add_argument("phases", nargs="+", type=_phase, metavar="NAME=SECONDS", help="each phase's wall time")
    write.add_argument("--job", default="main job", help="what was timed (default: main job)")
    show = commands.add_parser("show", help="print the line of a timings file")
    show.add_argument("path", type=Path, help="a file written by `write`")
    args = parser.parse_args(argv)
    if args.command == "write":
        names = [name for name, _ in args.phases]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            parser.error(f"phases: each phase once, got {repeated} more than once")
        timings = record(dict(args.phases), args.job)
        try:
            args.path.parent.mkdir(parents=True, exist_ok=True)
            args.path.write_text(json.dumps(timings, indent=2) + "\n")
        except OSError as error:
            print(f"timings: cannot write {str(args.path)!r}: {error}", file=sys.stderr)
            return 2
    else:
        try:
            timings = json.loads(args.path.read_text())
        except (OSError, json.JSONDecodeError) as error:
            print(f"timings: cannot read {str(args.path)!r}: {error}", file=sys.stderr)
            return 2
        if not isinstance(timings, dict) or not isinstance(timings.get("phases_s"), dict):
            print(f"timings: {str(args.path)!r} is not a timings file (no 'phases_s' table; "
                  "`python -m pontoon_tools.timings write` makes one)", file=sys.stderr)
            return 2
        missing = missing_fields(timings)
        if missing:  # describe() reads every one of them: a KeyError traceback otherwise
            print(f"timings: {str(args.path)!r} is not a complete timings file (expected {', '.join(missing)}; "
                  "`python -m pontoon_tools.timings write` makes one)", file=sys.stderr)
            return 2
    print(describe(timings))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
