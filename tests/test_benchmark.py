"""Benchmark tasks: frozen specifications, the gym ids they register, and a stable normalised score."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401
from pontoon_env.benchmark import TASKS, get_task
from pontoon_tools.benchmark import main, normalised_score, score


def test_every_task_builds_its_training_env_by_name():
    for task in TASKS.values():
        env = gym.make(task.gym_id)
        assert env.unwrapped.num_players == task.num_players and env.unwrapped.role == task.role
        env.reset(seed=0)


def test_task_names_resolve_with_or_without_the_version_and_unknown_ones_are_named():
    assert get_task("pagat/player-1") is get_task("pagat/player-1-v0")
    with pytest.raises(KeyError, match="unknown benchmark task 'pagat/player-9'"):
        get_task("pagat/player-9")
    with pytest.raises(KeyError, match="unknown benchmark task"):
        get_task("pagat/player-1-v7")


def test_random_scores_zero_the_optimum_one_and_threshold_in_between():
    random = score("pagat/player-1", "random", episodes=20_000)
    optimal = score("pagat/player-1", "optimal:stand=17", episodes=20_000)  # built again, not the ceiling object
    threshold = score("pagat/player-1", "threshold", episodes=20_000)
    assert random.score == pytest.approx(0.0, abs=1e-12)
    assert abs(optimal.score - 1.0) <= max(optimal.score_ci, 1e-9)
    assert threshold.score - threshold.score_ci > 0 and threshold.score + threshold.score_ci < 1


def test_the_score_is_stable_and_paired():
    first = score("pagat/banker-1", "banker_threshold", episodes=400)
    again = score("pagat/banker-1", "banker_threshold", episodes=400)
    assert (first.score, first.ev, first.score_ci) == (again.score, again.ev, again.score_ci)


def test_the_delta_method_interval_covers_a_known_ratio():
    rng = np.random.default_rng(0)
    covered = 0
    for _ in range(200):
        random = rng.normal(-4.0, 3.0, 400)
        ceiling = random + rng.normal(5.0, 2.0, 400)
        policy = random + rng.normal(2.5, 2.0, 400)  # true score 0.5
        value, half = normalised_score(policy, random, ceiling)
        covered += abs(value - 0.5) <= half
    assert 180 <= covered <= 200  # about 95% coverage


def test_the_results_table_script_writes_the_doc_and_json(tmp_path):
    doc, records = tmp_path / "benchmark.md", tmp_path / "results.json"
    assert main(["table", "--rounds", "60", "--tasks", "pagat/player-1", "casino/player-1",
                 "--doc", str(doc), "--json", str(records)]) == 0
    text = doc.read_text()
    assert "`pagat/player-1`" in text and "`casino/player-1`" in text and "| `optimal` |" in text
    data = json.loads(records.read_text())
    assert {record["task"]["name"] for record in data} == {"pagat/player-1", "casino/player-1"}
    assert all("numpy" in record["versions"] for record in data)


def test_several_specs_under_one_label_are_seeds_with_a_mean_and_spread():
    from pontoon_tools.benchmark import results_table

    text, records = results_table(60, ["pagat/player-1"], [("pagat/player-1", "recipe", "threshold"),
                                                            ("pagat/player-1", "recipe", "threshold:bet=min")])
    mean_row = next(line for line in text.splitlines() if "mean of 2 seeds" in line)
    scores = [r["result"]["score"] for r in records if r["result"]["policy"] == "recipe"]
    assert len(scores) == 2 and f"**{sum(scores) / 2:.3f}**" in mean_row
    assert f"spread {min(scores):.3f} to {max(scores):.3f}" in mean_row


def test_the_cli_names_an_unknown_task_without_a_repr(capsys):
    from pontoon_tools.benchmark import main

    assert main(["score", "pagat/nope", "threshold"]) == 2
    assert capsys.readouterr().err.startswith("error: unknown benchmark task 'pagat/nope'")  # was "error: \"unknown ..."


def test_the_table_refuses_no_tasks_and_trained_rows_it_would_leave_out(tmp_path, capsys):
    """No table is written for no tasks, and a --trained row whose task is not scored (or with an empty
    part) is refused instead of silently missing from the table."""
    from pontoon_tools.benchmark import main

    doc = tmp_path / "benchmark.md"
    cases = [
        (["--tasks"], "--tasks: expected one or more"),
        (["--tasks", "pagat/player-1", "--trained", "casino/player-1=mine=threshold"],
         "task 'casino/player-1' of 'casino/player-1=mine=threshold' is not among the tasks scored"),
        (["--tasks", "pagat/player-1", "--trained", "pagat/player-1==threshold"], "none of the three empty"),
        (["--tasks", "pagat/nope"], "unknown benchmark task 'pagat/nope'"),
    ]
    for extra, message in cases:
        assert main(["table", "--rounds", "10", "--doc", str(doc), *extra]) == 2, extra
        assert message in capsys.readouterr().err, extra
    assert not doc.exists()


def test_a_session_tasks_reshuffles_come_from_its_seed_and_session(monkeypatch):
    """Each session's shuffles after its first deal came from a seed-0 generator: the same draws in
    every session and for every --seed. Now each session has its own stream of (seed, session)."""
    from agents.registry import make_policy
    from pontoon_env.benchmark import get_task
    from pontoon_env.game.cards import Pack
    from pontoon_tools import benchmark

    task = get_task("pagat/player-session")
    table = benchmark.Table.of(task)
    policy = make_policy("threshold", table.rules, num_players=table.num_players)
    first_states: list[int] = []
    shuffle = Pack.shuffle

    def spy(self) -> None:
        # a stream's state (the seed-0 table's own generator shuffles once when it is made)
        state = getattr(self.rng, "state", None)
        first_states.append(int(state[0]) if state is not None else -1)
        shuffle(self)

    monkeypatch.setattr(Pack, "shuffle", spy)
    seen = {}
    for seed in (1, 2):
        first_states.clear()
        results = benchmark.play_task(task, table, policy, 6, seed=seed)
        seen[seed] = list(first_states)
        assert np.array_equal(results, benchmark.play_task(task, table, policy, 6, seed=seed))  # same seed, same result
    streams = {seed: set(states) - {-1} for seed, states in seen.items()}
    assert len(streams[1]) > 1 and not streams[1] & streams[2]


def test_tasks_are_hashable_and_a_non_name_is_refused():
    import pytest

    from pontoon_env.benchmark import TASKS, get_task

    task = get_task("pagat/player-1")
    assert {task: 1}[get_task("pagat/player-1-v0")] == 1 and len(set(TASKS.values())) == len(TASKS)
    with pytest.raises(KeyError, match="expected a task name such as 'pagat/player-1', got None"):
        get_task(None)
