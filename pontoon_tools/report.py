"""The main job's measurements, tables and charts (``scripts/main_job.sh`` calls it after training).

    python -m pontoon_tools.report --player runs/main-player --banker runs/main-banker \
        --belief-banker runs/main-belief-banker --out results

For the player (one seat against ``banker_threshold``): the model, the solver's optimal policy,
``threshold`` and ``random`` on the same deals, the gap to the optimum with its interval
(:func:`pontoon_tools.protocol.player_protocol`), the exact numbers of the strategy read off its
play, its strategy chart beside the optimum's, its learning curve and the EV bars. For the banker
(at its own table size, against ``threshold`` players): the model and every scripted banker on the
same deals, at one player seat also the exact best response (played, and from the solver), its
drawing chart and learning curve. A belief banker (``--belief-banker``, ``train.py --algo belief``) is
measured the same way, into files named ``belief_banker*``.

It writes, in ``--out``:

* ``summary.json``: every number below (the README's tables are generated from this file by
  ``python -m pontoon_tools.report --markdown results/summary.json``, never typed);
* ``report.md``: the tables (player, banker, timings) in Markdown;
* ``player.json``, ``banker.json``, ``belief_banker.json``: the full protocols;
* ``player_ev_bars.png``, ``player_learning_curve.png``, ``strategy_model.png``, ``strategy_optimal.png``,
  ``banker_ev_bars.png``, ``banker_learning_curve.png``, ``banker_model.png``, ``banker_best_response.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pontoon_env.game.rules import resolve_rules
from pontoon_tools.evaluation import write_json
from pontoon_tools.settings import require_minimums, under_a_file

__all__ = ["markdown", "player_section", "banker_section", "main"]


NO_VALUE = "—"
"""What a table shows for a number the summary does not have (``null``: the interval of one round)."""


def _n(value: Any, spec: str) -> str:
    """``value`` formatted by ``spec``, or a dash for a ``null`` (``write_json`` writes an undefined
    or infinite statistic so; formatting it would stop the whole report)."""
    return NO_VALUE if value is None else format(value, spec)


def _ci(d: Mapping[str, Any]) -> str:
    return f"[{_n(d.get('low'), '+.3f')}, {_n(d.get('high'), '+.3f')}]"


def _bars_rows(first: str, first_ev: Mapping[str, float], others: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = [{"policy": first, "ev": first_ev["mean"], "ev_ci_low": first_ev["low"], "ev_ci_high": first_ev["high"],
             "first_minus_this": 0.0, "first_minus_this_ci_low": 0.0, "first_minus_this_ci_high": 0.0}]
    for name, row in others.items():
        d = row["model_minus"]
        rows.append({"policy": name, "ev": row["ev"]["mean"], "ev_ci_low": row["ev"]["low"], "ev_ci_high": row["ev"]["high"],
                     "first_minus_this": d["mean"], "first_minus_this_ci_low": d["low"], "first_minus_this_ci_high": d["high"]})
    return rows


def _history(run: Path) -> list[dict[str, Any]]:
    """The run's learning curve for its chart (``null`` statistics as gaps; a corrupt file named)."""
    from pontoon_tools.evaluation import read_eval_history

    return read_eval_history(run / "eval_history.json", f"run {str(run)!r}") or []


def player_section(run: Path, out: Path, rules: str = "pagat", rounds: int = 200_000, seed: int = 1,
                   charts: bool = True) -> dict[str, Any]:
    """Measure the player of ``run`` (see the module docstring) and draw its charts into ``out``."""
    from pontoon_tools import plots
    from pontoon_tools.evaluation import load_policy
    from pontoon_tools.protocol import player_protocol

    row = player_protocol(run / "model.zip", rules, rounds=rounds, seed=seed, baselines=("threshold", "random"))
    write_json(row, out / "player.json")
    if charts:
        played = resolve_rules(rules)
        plots.plot_ev_bars(_bars_rows("trained model", row["model_ev"], row["versus"]), out / "player_ev_bars.png",
                           title=f"player EV per round vs {row['banker']} ({rounds:,} paired rounds)")
        for name, spec in (("model", str(run / "model.zip")), ("optimal", "optimal")):
            chart = plots.probe_player(load_policy(spec, played, 1), played, 1, title=f"{name}: what it does, hand by hand")
            plots.plot_player_chart(chart, out / f"strategy_{name}.png")
            (out / f"strategy_{name}.txt").write_text(chart.as_text() + "\n")
        history = _history(run)
        if history:
            plots.plot_learning_curve(history, out / "player_learning_curve.png", title="player learning curve")
    return row


def banker_section(run: Path, out: Path, rules: str = "pagat", rounds: int = 100_000, seed: int = 1,
                   player: str = "threshold", charts: bool = True, prefix: str = "banker") -> dict[str, Any]:
    """Measure the banker of ``run`` (see the module docstring) and draw its charts into ``out``, in
    files named ``<prefix>.json``, ``<prefix>_ev_bars.png`` ... (a PPO run's ``model.zip``, or a
    belief banker's run directory)."""
    from agents.banker_belief import is_belief_run
    from pontoon_tools import plots
    from pontoon_tools.evaluation import load_policy
    from pontoon_tools.protocol import banker_protocol

    model = run if is_belief_run(run) else run / "model.zip"
    row = banker_protocol(model, rules, player, rounds=rounds, seed=seed)
    write_json(row, out / f"{prefix}.json")
    if charts:
        played = resolve_rules(rules)
        seats = int(row["seats"])
        plots.plot_ev_bars(_bars_rows("trained banker", row["model_ev"], row["versus"]), out / f"{prefix}_ev_bars.png",
                           title=f"{prefix.replace('_', ' ')} EV per round vs {seats} x {player} ({rounds:,} paired rounds)")
        specs = [("model", str(model))]
        if seats == 1:
            specs.append(("best_response", f"banker_best_response:player={player}"))
        for name, spec in specs:
            chart = plots.probe_banker(load_policy(spec, played, seats), played, seats, title=f"banker {name}")
            plots.plot_banker_chart(chart, out / f"{prefix}_{name}.png")
            (out / f"{prefix}_{name}.txt").write_text(chart.as_text() + "\n")
        history = _history(run)
        if history:
            plots.plot_learning_curve(history, out / f"{prefix}_learning_curve.png", title=f"{prefix} learning curve")
    return row


SUMMARY_SECTIONS = ("player", "banker", "belief_banker", "timings")
"""The sections of ``summary.json`` that :func:`markdown` prints a table of."""


def markdown(summary: Mapping[str, Any]) -> str:
    """The report's tables from ``summary.json`` (the README's tables are made by this function)."""
    lines: list[str] = []
    p = summary.get("player")
    if p:
        lines += [f"**Player** (seat 1 of 1, {p['rules']}, against `{p['banker']}`; {p['rounds']:,} paired rounds, "
                  f"seed {p['seed']}; EV per round in stake units, 95% CI)", "",
                  "| policy | EV / round | 95% CI | trained model − this (same deals) | mean stake |",
                  "|---|---|---|---|---|",
                  f"| trained model | **{_n(p['model_ev']['mean'], '+.3f')}** | {_ci(p['model_ev'])} | — | "
                  f"{_n(p['mean_stake']['model'], '.2f')} |"]
        for name, v in p["versus"].items():
            d = v["model_minus"]
            label = "`optimal` (exact solver's policy)" if name == "optimal" else f"`{name}`"
            lines.append(f"| {label} | {_n(v['ev']['mean'], '+.3f')} | {_ci(v['ev'])} | {_n(d['mean'], '+.3f')} "
                         f"{_ci(d)} | {_n(v['mean_stake'], '.2f')} |")
        g, e = p["gap"], p["exact"]
        met = "met" if p["gap_ok"] else "not met"
        lines += ["", f"Gap to the optimum on the same deals (optimal − model): **{_n(g['mean'], '+.4f')}** "
                  f"{_ci(g)}, half-width {_n(g['half_width'], '.4f')} (target: at most 0.03 with a half-width of at "
                  f"most 0.02: {met}). Exact, over an infinite deck: the optimum earns "
                  f"{_n(e['optimal_ev'], '+.4f')}, the strategy read off the model's play {_n(e['read_ev'], '+.4f')} "
                  f"(gap {_n(e['read_gap'], '+.4f')}); the banker's exact best response to it takes "
                  f"{_n(e['banker_br_exploitability'], '+.4f')} a round more than `banker_threshold`.", ""]
    for key, title, label in (("banker", "Banker", "trained banker"),
                              ("belief_banker", "Belief banker", "belief banker")):
        b = summary.get(key)
        if not b:
            continue
        how = ("`train.py --algo belief`: banker_smart's stopping on beliefs learnt from "
               f"{_n(b['train']['timesteps'], ',')} rounds of showdowns; " if key == "belief_banker" else "")
        lines += [f"**{title}** ({how}{b['rules']}, against {b['seats']} × `{b['player']}`; {b['rounds']:,} paired "
                  f"rounds, seed {b['seed']}; the banker's EV per round)", "",
                  f"| banker | EV / round | 95% CI | {label} − this (same deals) |", "|---|---|---|---|",
                  f"| {label} | **{_n(b['model_ev']['mean'], '+.3f')}** | {_ci(b['model_ev'])} | — |"]
        for name, v in b["versus"].items():
            d = v["model_minus"]
            lines.append(f"| `{name}` | {_n(v['ev']['mean'], '+.3f')} | {_ci(v['ev'])} | {_n(d['mean'], '+.3f')} "
                         f"{_ci(d)} |")
        if b.get("exact"):
            e = b["exact"]
            lines += ["", f"Exact, over an infinite deck: the best response earns the banker "
                      f"{_n(e['br_banker_ev'], '+.4f')}, the drawing rule read off the model's play "
                      f"{_n(e['read_banker_ev'], '+.4f')} (gap {_n(e['read_br_gap'], '+.4f')}); the player's exact "
                      f"best response to that rule earns {_n(e['player_br_ev'], '+.4f')} "
                      f"({_n(e['exploitability'], '+.4f')} more than `{b['player']}`)."]
        lines.append("")
    t = summary.get("timings")
    if t:
        lines += ["| phase | seconds |", "|---|---|"]
        lines += [f"| {k} | {_n(v, '.0f')} |" for k, v in t.get("phases_s", {}).items()]
        lines.append(f"| total | {_n(t.get('total_s', 0), '.0f')} |")
    return "\n".join(lines) + "\n"


class ReportError(ValueError):
    """An input file the report cannot use (not JSON, or not the document expected): the message
    names the flag and the file."""


def _read_json(path: Path, flag: str, what: str) -> dict[str, Any]:
    """The JSON object in ``path``, or :class:`ReportError` naming ``flag``, ``what`` was expected and the file."""
    try:
        data = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ReportError(f"{flag}: expected {what}, got {str(path)!r}, which is unreadable: {error}") from None
    if not isinstance(data, dict):
        raise ReportError(f"{flag}: expected {what} (a JSON object), got {str(path)!r} holding a "
                          f"{type(data).__name__}")
    return data


def _read_timings(path: Path) -> dict[str, Any]:
    """The timings document of ``--timings``, checked as :func:`markdown` reads it."""
    what = "a timings.json written by `python -m pontoon_tools.timings write`"
    timings = _read_json(path, "--timings", what)
    phases = timings.get("phases_s")
    if not isinstance(phases, dict) or not all(isinstance(v, (int, float)) for v in phases.values()):
        raise ReportError(f"--timings: expected {what}, got {str(path)!r}, which has no 'phases_s' table of seconds")
    return timings


def _check_run(run: Path, role: str, flag: str) -> None:
    """Refuse, naming ``flag``, a run with no model to measure or one trained for the other role
    (a belief banker's run is a banker's)."""
    from agents.banker_belief import is_belief_run
    from agents.checkpoint import read_config
    from pontoon_tools.evaluation import check_role

    if role == "banker" and is_belief_run(run):
        return
    try:
        read_config(run / "model.zip")
        check_role(run / "model.zip", role, str(run / "model.zip"))
    except ValueError as error:
        message = str(error)
        raise ReportError(message if message.startswith(flag) else f"{flag}: {message}") from None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--player", default=None, help="the player's run directory")
    parser.add_argument("--banker", default=None, help="the banker's run directory")
    parser.add_argument("--belief-banker", default=None, help="a belief banker's run directory (train.py --algo belief)")
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--rounds", type=int, default=200_000, help="paired rounds of the player (default 200,000)")
    parser.add_argument("--banker-rounds", type=int, default=50_000, help="paired rounds of the banker (default 50,000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default="results")
    parser.add_argument("--timings", default=None, help="a timings.json to fold into the summary")
    parser.add_argument("--no-charts", action="store_true")
    parser.add_argument("--markdown", default=None, metavar="SUMMARY", help="print the tables of a summary.json and exit")
    args = parser.parse_args(argv)
    if args.markdown:
        if not Path(args.markdown).is_file():
            parser.error(f"--markdown: expected a summary.json written by this tool, got {args.markdown!r} (no such file)")
        try:
            data = _read_json(Path(args.markdown), "--markdown", "a summary.json written by this tool")
            if not any(data.get(key) for key in SUMMARY_SECTIONS):  # a timings.json printed a blank line
                raise ReportError(f"--markdown: expected a summary.json written by this tool, got {args.markdown!r}, "
                                  f"which holds none of its sections ({', '.join(SUMMARY_SECTIONS)})")
            text = markdown(data)
        except ReportError as error:  # not JSON, or not an object
            print(f"{parser.prog}: error: {error}", file=sys.stderr)
            return 2
        except (KeyError, TypeError, AttributeError, ValueError) as error:  # JSON, but not a summary's shape
            print(f"{parser.prog}: error: --markdown: expected a summary.json written by this tool, got "
                  f"{args.markdown!r}, whose fields do not fit ({type(error).__name__}: {error})", file=sys.stderr)
            return 2
        print(text, end="")
        return 0
    # One round has no interval (its bounds would be null in every table); the first check keeps
    # the message a zero always had.
    require_minimums(parser, ("--rounds", args.rounds, 1), ("--rounds", args.rounds, 2),
                     ("--banker-rounds", args.banker_rounds, 2), ("--seed", args.seed, 0))
    if not (args.player or args.banker or args.belief_banker or args.timings):
        parser.error("nothing to report: give --player, --banker, --belief-banker and/or --timings")
    if args.timings and not Path(args.timings).is_file():
        parser.error(f"--timings: expected a timings.json, got {args.timings!r} (no such file)")
    if under_a_file(args.out):
        parser.error(f"--out: expected a folder for the report (not a file, nor under one), got {args.out!r}")

    def run_dir(given: str) -> Path:  # a run directory, or the model.zip in it
        path = Path(given)
        return path.parent if path.suffix == ".zip" else path

    out = Path(args.out)
    summary_path = out / "summary.json"
    try:
        # Every input is read and checked before the first measurement: a corrupt timings or
        # summary file, or a checkpoint missing or of the other role, was found only after
        # minutes of measuring (or after player.json was written).
        timings = _read_timings(Path(args.timings)) if args.timings else None
        summary: dict[str, Any] = _read_json(summary_path, "--out", "the summary.json this tool writes") \
            if summary_path.is_file() else {}
        from agents.banker_belief import is_belief_run

        if args.belief_banker and not is_belief_run(run_dir(args.belief_banker)):
            # its table would describe the run as banker_smart's stopping on learnt beliefs
            raise ReportError(f"--belief-banker: expected a run of train.py --algo belief (holding belief.json), "
                              f"got {args.belief_banker!r}; a trained model's banker goes under --banker")
        for flag, given, role in (("--player", args.player, "player"), ("--banker", args.banker, "banker"),
                                  ("--belief-banker", args.belief_banker, "banker")):
            if given:
                _check_run(run_dir(given), role, flag)
    except ValueError as error:  # ReportError, CheckpointError: the message names the flag and the file
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        if args.player:
            summary["player"] = player_section(run_dir(args.player), out, args.rules, args.rounds, args.seed,
                                               not args.no_charts)
        if args.banker:
            summary["banker"] = banker_section(run_dir(args.banker), out, args.rules, args.banker_rounds, args.seed,
                                               charts=not args.no_charts)
        if args.belief_banker:
            summary["belief_banker"] = banker_section(run_dir(args.belief_banker), out, args.rules, args.banker_rounds,
                                                      args.seed, charts=not args.no_charts, prefix="belief_banker")
    except (ValueError, OSError) as error:  # a missing or unfit checkpoint: the message names it
        if created and not any(out.iterdir()):
            out.rmdir()  # refused before anything was written: leave no empty folder behind
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    if timings is not None:
        summary["timings"] = timings
    write_json(summary, summary_path)
    text = markdown(summary)
    (out / "report.md").write_text(text)
    print(text, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
