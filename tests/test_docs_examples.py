"""Every example of docs/training.md and docs/agents.md runs, in the order a reader meets it.

Commands run in one scratch folder, so an example may use what an earlier one made (the evaluation
examples read the runs the training examples wrote), with sizes shrunk to keep the suite fast:
training flags appended to each ``train.py`` call (the last value of a flag wins), fewer rounds for
``evaluate.py``, the EV table and the Python blocks. A command or block this file does not know how
to run fails the test, so a new example cannot go unchecked.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
TINY_TRAIN = ["--timesteps", "128", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1",
              "--eval-rounds", "20", "--eval-freq", "64", "--net-arch", "8", "--warm-start-rounds", "20",
              "--warm-start-epochs", "1", "--both-rounds", "200", "--no-progress"]
TINY_EVAL = ["--rounds", "40", "--no-progress"]


def _script(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"docs_{name}", ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def blocks(path: Path) -> list[tuple[str, str]]:
    """The fenced code blocks of a Markdown file: ``(language, text)`` in order."""
    return [(match.group(1), match.group(2)) for match in re.finditer(r"```(\w*)\n(.*?)```", path.read_text(), re.S)]


def commands(text: str) -> list[list[str]]:
    """The command lines of a shell block (continuations joined, comments dropped)."""
    joined = text.replace("\\\n", " ")
    return [shlex.split(line, comments=True) for line in joined.splitlines() if shlex.split(line, comments=True)]


def _answers(prompt: str) -> str:
    """A player at the terminal who stakes the minimum and sticks when he may, else twists."""
    if "how many chips" in prompt:
        return prompt.split("(", 1)[1].split("..", 1)[0]
    return "1" if prompt.startswith("Your choice") else "n"


class Runner:
    """Runs the examples in one scratch folder and records what ran."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.ran: list[str] = []

    def run(self, argv: list[str]) -> None:
        head = " ".join(argv[:3])
        self.ran.append(" ".join(argv))
        if argv[:2] == ["python", "train.py"]:
            assert _script("train").main(argv[2:] + TINY_TRAIN) == 0, argv
        elif argv[:2] == ["python", "evaluate.py"]:
            assert _script("evaluate").main(argv[2:] + TINY_EVAL) == 0, argv
        elif argv[:3] == ["python", "-m", "pontoon_tools.ev_table"]:
            from pontoon_tools.ev_table import main

            assert main(argv[3:] + ["--rounds", "20", "--jobs", "1"]) == 0
        elif argv[:3] == ["python", "-m", "pontoon_tools.play"]:
            from pontoon_tools.play import main

            out: list[str] = []
            assert main(argv[3:] + ["--rounds", "1"], input_fn=_answers, print_fn=out.append) == 0
            assert "=== settlement ===" in "\n".join(out)
        elif argv[:2] == ["python", "bench/engine.py"]:
            result = subprocess.run([sys.executable, str(ROOT / "bench" / "engine.py"), *argv[2:], "--rounds", "100",
                                     "--episodes", "100", "--steps", "100", "--repeat", "1", "--processes", "2"],
                                    capture_output=True, text=True, cwd=ROOT, timeout=300)
            assert result.returncode == 0, result.stderr
            assert "engine fast path" in result.stdout
            assert "median of 2 processes" in result.stdout and ", 2 processes " in result.stdout
            if "--encode-share" in argv:
                assert "Encoding the learner's observation" in result.stdout and "% of a step" in result.stdout
        elif argv == ["bash", "scripts/main_job.sh"]:
            self.main_job()
        else:
            pytest.fail(f"no way to run the docs example {head!r}: teach tests/test_docs_examples.py")

    def main_job(self) -> None:
        env = {**os.environ, "PLAYER_RUN": str(self.folder / "runs" / "main-player"),
               "BANKER_RUN": str(self.folder / "runs" / "main-banker"), "OUT": str(self.folder / "results"),
               "BELIEF_RUN": str(self.folder / "runs" / "main-belief-banker"), "BELIEF_ROUNDS": "300",
               "ROUNDS": "40", "BANKER_ROUNDS": "40", "PYTHON": sys.executable, "TRAIN_ARGS": " ".join(TINY_TRAIN)}
        result = subprocess.run(["bash", str(ROOT / "scripts" / "main_job.sh")], capture_output=True, text=True,
                                env=env, timeout=600)
        assert result.returncode == 0, result.stderr[-3000:]
        results = self.folder / "results"
        timings = json.loads((results / "timings.json").read_text())
        assert set(timings["phases_s"]) == {"train_player", "train_banker", "train_belief_banker", "measure"}
        assert timings["total_s"] > 0
        assert timings["machine"]["usable_cores"] >= 1 and timings["date"][:2] == "20"
        summary = json.loads((results / "summary.json").read_text())
        assert list(summary["player"]["versus"]) == ["threshold", "random", "optimal"]
        assert "banker_best_response:player=threshold" in summary["banker"]["versus"]
        assert {"banker_smart", "banker_best_response:player=threshold"} <= set(summary["belief_banker"]["versus"])
        assert summary["belief_banker"]["train"] == {"timesteps": 300, "wall_time_s": summary["belief_banker"]["train"]
                                                     ["wall_time_s"], "algo": "belief"}
        report = (results / "report.md").read_text()
        assert "**Player**" in report and "**Banker**" in report and "**Belief banker**" in report
        assert "| total |" in report
        for name in ("player_ev_bars.png", "player_learning_curve.png", "strategy_model.png", "strategy_optimal.png",
                     "banker_ev_bars.png", "banker_model.png", "banker_best_response.png",
                     "belief_banker_ev_bars.png", "belief_banker_model.png", "belief_banker.json"):
            assert (results / name).is_file(), name


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Runner:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["docs-example"])
    import torch

    torch.set_num_threads(1)
    return Runner(tmp_path)


def _exec(code: str, replacements: dict[str, str]) -> str:
    for old, new in replacements.items():
        assert old in code, f"the docs example no longer holds {old!r}: update this test"
        code = code.replace(old, new)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs-example", "exec"), {"__name__": "docs_example"})
    return out.getvalue()


def test_every_example_of_training_md_runs(runner: Runner) -> None:
    python_blocks = 0
    for language, text in blocks(DOCS / "training.md"):
        if language == "bash":
            for argv in commands(text):
                runner.run(argv)
        elif language == "python":
            # The evaluate_policy recipe, on the first example's (tiny) model instead of the main job's.
            printed = _exec(text, {"runs/main-player/model.zip": "runs/pagat-player/model.zip",
                                   "n_eval_episodes=2000": "n_eval_episodes=40"})
            assert re.fullmatch(r"EV per round [+-]\d+\.\d{3} \(std \d+\.\d{2} over 2,000 rounds\)\n", printed)
            python_blocks += 1
        else:
            pytest.fail(f"a {language or 'plain'} block in docs/training.md: teach this test to run it")
    assert python_blocks == 1
    ran = "\n".join(runner.ran)
    assert ran.count("python train.py") == 10 and ran.count("python evaluate.py") == 6 and "main_job.sh" in ran
    # The examples' runs exist where the docs say.
    for folder in ("pagat-player", "banker", "pagat-both/gen_03/banker", "2011", "vs-smart", "ppo", "dqn", "session"):
        assert (runner.folder / "runs" / folder / "model.zip").is_file(), folder
    assert json.loads((runner.folder / "runs" / "pagat-player" / "config.json").read_text())["timesteps"] >= 256
    assert (runner.folder / "runs" / "belief" / "belief.json").is_file()


def test_every_example_of_agents_md_runs(runner: Runner) -> None:
    from agents.registry import make_policy
    from pontoon_env import make_rules

    # The spec list names a trained player at runs/pagat-player: train a tiny one there first.
    runner.run(["python", "train.py", "--seats", "3"])
    counts = {"python": 0, "specs": 0, "commands": 0, "output": 0}
    for language, text in blocks(DOCS / "agents.md"):
        lines = [line for line in text.splitlines() if line.strip()]
        if language == "python":
            printed = _exec(text + "\nprint(nets.shape, nets.dtype, int(nets.sum(axis=1).max()))",
                            {"num_rounds=10_000": "num_rounds=200"})
            assert printed.strip() == "(200, 5) int64 0"  # pagat: chips only move between seats
            counts["python"] += 1
        elif all(line.startswith(("python ", "bash ")) or line.startswith("    ") for line in lines):
            for argv in commands(text):
                runner.run(argv)
            counts["commands"] += 1
        elif all(" " not in line for line in lines):
            for spec in lines:  # every spec of the list builds a policy
                assert callable(make_policy(spec, make_rules("pagat"), num_players=3).act), spec
            counts["specs"] += 1
        elif lines[0].startswith("Pontoon ["):
            counts["output"] += 1  # the render example's output, checked by tests/test_render.py
        else:
            pytest.fail(f"a block of docs/agents.md this test cannot run: {lines[0]!r}")
    assert counts == {"python": 1, "specs": 1, "commands": 3, "output": 1}, counts


def test_the_maskable_evaluate_policy_recipe_never_plays_an_illegal_id(runner: Runner) -> None:
    # Why the recipe uses sb3-contrib's maskable evaluate_policy: SB3's plain one ignores the mask.
    import gymnasium as gym
    from sb3_contrib.common.maskable.evaluation import evaluate_policy as maskable_evaluate
    from stable_baselines3.common.evaluation import evaluate_policy as plain_evaluate
    from stable_baselines3.common.monitor import Monitor

    from agents.checkpoint import env_kwargs, load_model, read_config

    runner.run(["python", "train.py", "--seats", "2", "--timesteps", "256"])
    path, config = read_config("runs/pagat-player/model.zip")
    model = load_model(path, config["algo"])

    class CountIllegal(gym.Wrapper):
        illegal = 0

        def step(self, action: Any) -> Any:
            result = self.env.step(action)
            CountIllegal.illegal += "illegal_action" in result[-1]
            return result

        def action_masks(self) -> np.ndarray:
            return self.env.unwrapped.action_masks()

    def evaluate(function: Any) -> tuple[float, int]:
        CountIllegal.illegal = 0
        env = Monitor(CountIllegal(gym.make("Pontoon-v0", **env_kwargs(config))))
        env.reset(seed=1)
        mean, _ = function(model, env, n_eval_episodes=100, deterministic=True)
        return float(mean), CountIllegal.illegal

    masked_mean, masked_illegal = evaluate(maskable_evaluate)
    plain_mean, plain_illegal = evaluate(plain_evaluate)
    assert masked_illegal == 0 and np.isfinite(masked_mean)
    assert plain_illegal > 0  # the plain evaluation lets the model pick ids the mask hides
