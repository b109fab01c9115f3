"""Strategy and banker charts at every table size, the evaluation's order (tables before charts),
and the plots' details: colours by sign, an unclipped learning curve with a named band, aligned text."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.scripted import BankerThreshold, ThresholdPlayer
from pontoon_env import make_rules
from pontoon_tools import plots
from pontoon_tools.evaluation import EvaluateSettings, run_evaluation

ROOT = Path(__file__).resolve().parent.parent
PAGAT = make_rules("pagat")


@pytest.fixture(scope="module")
def one_player_chart() -> plots.PlayerChart:
    return plots.probe_player(ThresholdPlayer(), PAGAT, 1)


@pytest.mark.parametrize("players", range(1, 10))
def test_the_player_chart_is_complete_and_the_same_at_every_table_size(players: int, one_player_chart) -> None:
    # Before: 4 to 7 players crashed (a stacked deck with two copies of one card in a one-deck pack).
    chart = plots.probe_player(ThresholdPlayer(), PAGAT, players)
    assert chart.cells == one_player_chart.cells  # a scripted player's play does not depend on the table
    assert sum(len(row) for row in chart.cells.values()) == 111
    assert chart.stakes == one_player_chart.stakes and len(chart.stakes) == 13


@pytest.mark.parametrize("players", range(1, 10))
def test_the_banker_chart_has_every_cell_at_every_table_size(players: int) -> None:
    # Before: cells went missing from 4 players on (171 of 180 ... 28 of 360 at 8, none at 9).
    chart = plots.probe_banker(BankerThreshold(stand=17), PAGAT, players)
    for panel, total in chart.rows:
        cells = chart.cells.get((panel, total))
        assert cells is not None and sorted(cells) == list(range(1, players + 1)), (panel, total)
        expected = 1.0 if int(total) < 17 else 0.0  # draws below 17 whatever stands against him
        assert set(cells.values()) == {expected}, (panel, total, cells)


def test_evaluate_at_four_seats_draws_its_charts(tmp_path: Path) -> None:
    report = run_evaluation(EvaluateSettings(seats=4, rounds=40, out=str(tmp_path), progress=False))
    for name in ("report.txt", "summary.csv", "ev_bars.png", "strategy_threshold.png", "strategy_threshold.txt",
                 "banker_banker_threshold.png", "banker_banker_threshold.txt"):
        assert (tmp_path / name).is_file(), name
        assert str(tmp_path / name) in report["files"]


def test_the_tables_are_written_and_announced_before_any_chart(tmp_path: Path, monkeypatch) -> None:
    announced = []

    def announce(report: dict) -> None:
        # When the report is announced it is already on disk, and no chart has been drawn.
        announced.append(json.loads((tmp_path / "report.json").read_text())["summary"])
        assert not list(tmp_path.glob("*.png"))

    def broken(*args, **kwargs):
        raise RuntimeError("a chart failed")

    monkeypatch.setattr(plots, "probe_player", broken)
    with pytest.raises(RuntimeError, match="a chart failed"):
        run_evaluation(EvaluateSettings(seats=2, rounds=30, out=str(tmp_path), progress=False), announce=announce)
    assert len(announced) == 1 and len(announced[0]) == 3
    text = (tmp_path / "report.txt").read_text()
    assert "EV/round" in text and "banker take per player" in text


def test_evaluate_cli_prints_the_table_of_its_default_table(tmp_path: Path) -> None:
    result = subprocess.run([sys.executable, str(ROOT / "evaluate.py"), "--rounds", "30", "--out", str(tmp_path),
                             "--no-progress"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "4 players" in result.stdout and "banker take per player" in result.stdout
    assert "banker_banker_threshold.png" in result.stdout  # and the charts came after


def test_the_paired_panel_is_coloured_by_sign() -> None:
    rows = [{"policy": "a", "ev": 0.5, "ev_ci_low": 0.4, "ev_ci_high": 0.6, "first_minus_this": 0.0,
             "first_minus_this_ci_low": 0.0, "first_minus_this_ci_high": 0.0},
            {"policy": "b", "ev": 0.7, "ev_ci_low": 0.6, "ev_ci_high": 0.8, "first_minus_this": -0.2,
             "first_minus_this_ci_low": -0.3, "first_minus_this_ci_high": -0.1},
            {"policy": "c", "ev": -1.0, "ev_ci_low": -1.1, "ev_ci_high": -0.9, "first_minus_this": 1.5,
             "first_minus_this_ci_low": 1.4, "first_minus_this_ci_high": 1.6}]
    import matplotlib.colors as mcolors

    fig = plots.ev_bars_figure(rows)
    try:
        ev_axes, paired_axes = fig.axes
        colours = [mcolors.to_hex(patch.get_facecolor()) for patch in paired_axes.patches]
        assert colours == [plots.NEGATIVE, plots.POSITIVE]  # a − b < 0 is red, a − c > 0 blue
        assert [mcolors.to_hex(p.get_facecolor()) for p in ev_axes.patches] == [plots.POSITIVE] * 2 + [plots.NEGATIVE]
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def test_the_learning_curve_shows_every_point_and_names_its_band() -> None:
    history = []
    for step, ev in ((0, -6.0), (1000, 0.1), (2000, 0.3), (3000, 0.35)):
        history.append({"timesteps": step, "vs t/ev": ev, "vs t/ev_ci_low": ev - 0.5, "vs t/ev_ci_high": ev + 0.5,
                        "vs t/threshold_ev": 0.2, "vs t/minus_threshold": ev - 0.2,
                        "vs t/minus_threshold_ci_low": ev - 0.4, "vs t/minus_threshold_ci_high": ev})
    fig = plots.learning_curve_figure(history)
    try:
        ax, ax_diff = fig.axes
        low, high = ax.get_ylim()
        assert low <= -6.5 and high >= 0.85  # the first point and its whole band are inside (clipped before)
        dlow, dhigh = ax_diff.get_ylim()
        assert dlow <= -6.6 and dhigh >= 0.15
        labels = [text.get_text() for text in ax.get_legend().get_texts()]
        assert any("95% CI" in label for label in labels), labels
        assert any("95% CI" in text.get_text() for text in ax_diff.get_legend().get_texts())
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


def _column_ends(line: str) -> list[int]:
    """The position just after each space-separated token of a text line."""
    ends, inside = [], False
    for index, char in enumerate(line + " "):
        if char != " " and not inside:
            inside = True
        elif char == " " and inside:
            inside = False
            ends.append(index)
    return ends


def test_the_chart_texts_keep_headers_over_their_columns(one_player_chart) -> None:
    lines = one_player_chart.as_text().splitlines()[1:-1]  # title and stakes line aside
    header, rows = lines[0], lines[1:]
    header_ends = _column_ends(header.replace("3 bought", "3_bought").replace("4 bought", "4_bought")
                               .replace("3 twisted", "3_twisted").replace("4 twisted", "4_twisted"))
    for row in rows:
        assert _column_ends(row)[-len(header_ends):] == header_ends, row
    banker = plots.probe_banker(BankerThreshold(), PAGAT, 3).as_text().splitlines()[1:]
    ends = _column_ends(banker[0])[-3:]
    assert all(_column_ends(row)[-3:] == ends for row in banker[1:])
    assert banker[1].split()[-3:] == ["D", "D", "D"] and banker[14].split()[-1] == "S"


def test_the_deck_builder_never_hands_out_more_copies_than_the_pack_holds() -> None:
    builder = plots.DeckBuilder(2)
    codes = [builder.card(10) for _ in range(32)]
    assert len(codes) == 32 and max(np.bincount(codes)) == 2
    with pytest.raises(ValueError, match="no card of value 10 left in a 2-deck pack"):
        builder.card(10)
    assert builder.left(10) == 0 and builder.left(7) == 8
