"""The README's examples run, and its set-up commands are the ones CI uses."""

import contextlib
import io
import re
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str) -> str:
    section = README.split(heading, 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_scripted_round_example_is_three_lines_and_prints_the_settlement() -> None:
    code = _block_after("## A scripted round in three lines")
    assert len(code.strip().splitlines()) == 3
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().strip() == "{'0': -2, '1': 2}"


def test_readme_opens_with_the_main_and_test_commands_and_ci_runs_the_test_command() -> None:
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1).splitlines()
    commands = [line.split("#")[0].strip() for line in first_block]
    assert commands[:2] == ["bash scripts/main.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash scripts/test.sh" in ci


def test_every_python_example_of_the_readme_runs(tmp_path, monkeypatch) -> None:
    """Each ```python block runs as a user would paste it, with no warning (the one that needs the main job's model
    runs against a model trained here for a few hundred steps)."""
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    for code in blocks:
        if "runs/main-player" in code:
            from pontoon_tools.training import TrainSettings, train

            train(TrainSettings(timesteps=256, n_envs=4, n_steps=32, batch_size=64, n_epochs=1, eval_rounds=0,
                                out=str(tmp_path / "runs" / "main-player"), progress=False))
            code = code.replace("n_eval_episodes=200", "n_eval_episodes=5")
        out = io.StringIO()
        with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out):
            warnings.simplefilter("always")
            exec(compile(code, "README.md", "exec"), {"__name__": "__readme__"})
        assert [str(warning.message) for warning in caught] == [], code


def test_every_measured_region_of_the_readme_is_its_recorded_measurement() -> None:
    """A figure in the README changes only by measuring it again (python -m pontoon_tools.readme)."""
    from pontoon_tools import readme

    text = (ROOT / "README.md").read_text()
    names = readme.regions(text)
    assert {"main-job", "solver", "engine-bench", "batched-bench", "tests"} <= set(names)
    assert readme.render(text) == text, "stale measured regions: run `python -m pontoon_tools.readme render`"


def test_readme_tool_refuses_a_bad_request_in_one_line_with_its_own_exit_code(tmp_path, capsys) -> None:
    """A missing file, an unknown measurement or a command that cannot run is exit code 2 and one line
    on stderr, not a traceback and not the 1 that means "stale"."""
    from pontoon_tools import readme

    assert readme.main(["check", str(tmp_path / "nothing.md")]) == 2
    assert "nothing.md is not a file" in capsys.readouterr().err
    page = tmp_path / "page.md"
    page.write_text("<!-- measured: no-such-measurement -->\nold\n<!-- /measured -->\n")
    assert readme.main(["render", str(page)]) == 2
    err = capsys.readouterr().err
    assert "no measurement 'no-such-measurement'" in err and "Traceback" not in err
    assert page.read_text().endswith("old\n<!-- /measured -->\n")  # left as it was
    assert readme.main(["record", "x-never", "--", str(tmp_path / "no-such-command")]) == 2
    assert "no-such-command" in capsys.readouterr().err
    assert not (readme.MEASUREMENTS / "x-never.json").exists()
