"""Every number in the README comes from a command: record its output, then render it into place.

::

    python -m pontoon_tools.readme record engine-bench -- taskset -c 0 python bench/engine.py
    python -m pontoon_tools.readme render          # rewrite every generated region of README.md
    python -m pontoon_tools.readme check           # exit 1 if a region differs from its record (2: a refused request)

``record`` runs the command, keeps what it printed (all of it, or the part after a
``--from-line`` marker) together with the command line, the machine and the date, in
``docs/measurements/<name>.json``. ``render`` replaces each README region

    <!-- measured: NAME -->
    ...
    <!-- /measured -->

with the recorded output (a Markdown table stays a table, anything else becomes a code block) and
a line naming the command, the machine and the date. A test runs ``check``, so a figure in the
README can only change by measuring it again.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MEASUREMENTS = ROOT / "docs" / "measurements"
README = ROOT / "README.md"
_REGION = re.compile(r"(<!-- measured: (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /measured -->)", re.DOTALL)


def machine() -> str:
    """A one-line description of the machine a measurement ran on."""
    cores = os.cpu_count() or 0
    model = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cores} cores, {model}, Python {platform.python_version()}"


def record(name: str, command: Sequence[str], from_line: str | None = None, timeout: float | None = None) -> dict:
    """Run ``command`` from the repository root and store its output as measurement ``name``."""
    if not re.fullmatch(r"[\w.-]+", name):
        raise ValueError(f"name: expected letters, digits, '.', '_' or '-', got {name!r}")
    started = time.time()
    done = subprocess.run(list(command), cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed with exit code {done.returncode}:\n{done.stderr[-4000:]}")
    output = done.stdout
    if from_line is not None:
        index = output.find(from_line)
        if index < 0:
            raise ValueError(f"--from-line {from_line!r} does not occur in the output")
        output = output[index:]
    entry = {
        "name": name,
        "command": " ".join(command),
        "output": output.rstrip() + "\n",
        "machine": machine(),
        "date": time.strftime("%Y-%m-%d", time.gmtime(started)),
        "wall_s": round(time.time() - started, 1),
    }
    MEASUREMENTS.mkdir(parents=True, exist_ok=True)
    (MEASUREMENTS / f"{name}.json").write_text(json.dumps(entry, indent=2) + "\n")
    return entry


def load(name: str) -> dict:
    path = MEASUREMENTS / f"{name}.json"
    if not path.is_file():
        raise FileNotFoundError(f"no measurement {name!r}: run `python -m pontoon_tools.readme record {name} -- <command>`")
    try:
        entry = json.loads(path.read_text())
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not a measurement record (invalid JSON: {error})") from None
    missing = [key for key in ("output", "command", "machine", "date") if not isinstance(entry, dict) or key not in entry]
    if missing:
        raise ValueError(f"{path}: not a measurement record (missing {', '.join(missing)})")
    return entry


def render_entry(entry: dict) -> str:
    """A region's text: the output (Markdown as is when it holds a table, else a code block) and
    where it came from."""
    output = entry["output"].rstrip("\n")
    is_markdown = any(line.startswith("|") for line in output.splitlines())
    body = output if is_markdown else f"```\n{output}\n```"
    return f"{body}\n\n<sub>`{entry['command']}` · {entry['machine']} · {entry['date']}</sub>\n"


def render(text: str) -> str:
    """``text`` with every measured region replaced by its recorded output."""
    return _REGION.sub(lambda match: match.group(1) + render_entry(load(match.group("name"))) + match.group(4), text)


def regions(text: str) -> list[str]:
    """The names of the measured regions in ``text``, in order."""
    return [match.group("name") for match in _REGION.finditer(text)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.readme", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="run a command and keep its output as a measurement")
    rec.add_argument("name")
    rec.add_argument("--from-line", default=None, help="keep the output from the first line containing this")
    rec.add_argument("cmd", nargs=argparse.REMAINDER, help="-- the command to run")
    for name in ("render", "check"):
        one = sub.add_parser(name)
        one.add_argument("files", nargs="*", type=Path, default=[README])
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except (OSError, RuntimeError, ValueError, KeyError, subprocess.TimeoutExpired) as error:
        # A refused request (no such file or measurement, a command that failed or is not there, a
        # corrupt record) is one line and exit code 2, so a script can tell it from "stale" (1).
        message = str(error) if not isinstance(error, KeyError) else f"a measurement lacks the field {error}"
        print(f"python -m pontoon_tools.readme {args.command}: {message}", file=sys.stderr)
        return 2


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "record":
        command = args.cmd[1:] if args.cmd[:1] == ["--"] else args.cmd
        if not command:
            parser.error("record: give the command after --")
        entry = record(args.name, command, args.from_line)
        print(entry["output"], end="")
        return 0
    stale = []
    for path in args.files:
        if not path.is_file():
            raise FileNotFoundError(f"files: {path} is not a file")
        text = path.read_text()
        fresh = render(text)
        if args.command == "render":
            path.write_text(fresh)
        elif fresh != text:
            stale.append(str(path))
    if stale:
        print("stale measured regions in " + ", ".join(stale) + ": run `python -m pontoon_tools.readme render`",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
