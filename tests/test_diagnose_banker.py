"""The banker diagnosis: a banker's draw-or-stand decisions valued by a banker who plans exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pontoon_tools.diagnose_banker import diagnose, main


def test_the_reference_judged_by_itself_gives_nothing_away() -> None:
    report = diagnose("banker_smart", "banker_smart", seats=2, rounds=300, seed=3)
    assert report["decisions"] > 300  # at least one draw-or-stand decision in most rounds
    assert report["disagreements"] == 0 and report["chips_per_round"] == 0.0


def test_a_fixed_rule_banker_loses_where_it_stands_against_the_reference() -> None:
    """``banker_threshold`` stands on every 17 or more; ``banker_smart`` draws on some of them
    (a soft 17 against hands that beat it), so the loss is positive and mostly from standing."""
    report = diagnose("banker_threshold", "banker_smart", seats=2, rounds=600, seed=3, top=5)
    assert 0 < report["disagreements"] < report["decisions"]
    directions = report["by_direction"]
    assert sum(directions.values()) == pytest.approx(report["chips_per_round"])
    assert directions["stood where the reference draws"] > directions["drew where the reference stands"]
    costs = [row["chips_per_round"] for row in report["top"]]
    assert costs == sorted(costs, reverse=True) and len(costs) == 5
    assert all(row["total"] >= 17 for row in report["top"] if row["disagreements"])  # it draws below 17 as smart does
    assert diagnose("banker_threshold", "banker_smart", seats=2, rounds=600, seed=3, top=5) == report  # seeded


def test_a_reference_that_cannot_value_the_moves_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="reference: expected banker_smart"):
        diagnose("banker_threshold", "banker_threshold", rounds=10)
    with pytest.raises(ValueError, match="rounds"):
        diagnose("banker_threshold", "banker_smart", rounds=0)
    out = tmp_path / "diag.json"
    assert main(["banker_threshold", "--seats", "1", "--rounds", "200", "--out", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["seats"] == 1 and written["rounds"] == 200 and written["reference"] == "banker_smart"
