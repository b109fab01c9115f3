"""Each setting declared once: the command lines are derived from their settings dataclasses."""

from __future__ import annotations

import dataclasses
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pontoon_tools.ev_table import EvTableSettings
from pontoon_tools.evaluation import EvaluateSettings
from pontoon_tools.play import PlaySettings
from pontoon_tools.settings import (
    SettingsError,
    build_parser,
    flag,
    from_args,
    parse_int_list,
    parse_option,
    plural,
    setting,
)
from pontoon_tools.training import TrainSettings

ROOT = Path(__file__).resolve().parent.parent


def _script(name: str) -> Any:
    """Import a script at the repository root (train.py, evaluate.py) as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


SCRIPTS = {TrainSettings: lambda: _script("train").build_parser(),
           EvaluateSettings: lambda: _script("evaluate").build_parser(),
           PlaySettings: lambda: build_parser(PlaySettings, "play"),
           EvTableSettings: lambda: build_parser(EvTableSettings, "ev_table")}

# The flags train.py and evaluate.py had before their parsers were derived, with a value each and the
# field it must set: every one keeps working under the same name.
OLD_TRAIN_FLAGS = [
    (["--rules", "shoot"], "rules", "shoot"), (["--option", "stick_min=16"], "options", {"stick_min": 16}),
    (["--seats", "3"], "seats", 3), (["--role", "banker"], "role", "banker"),
    (["--opponents", "threshold", "banker_smart"], "opponents", ["threshold", "banker_smart"]),
    (["--episode", "session"], "episode", "session"), (["--session-rounds", "5"], "session_rounds", 5),
    (["--learner-seat", "2"], "learner_seat", 2), (["--algo", "dqn"], "algo", "dqn"),
    (["--timesteps", "1000"], "timesteps", 1000), (["--seed", "7"], "seed", 7), (["--out", "x"], "out", "x"),
    (["--generations", "3"], "generations", 3), (["--resume", "r.zip"], "resume", "r.zip"),
    (["--eval-freq", "10"], "eval_freq", 10), (["--eval-rounds", "0"], "eval_rounds", 0),
    (["--eval-seed", "4"], "eval_seed", 4), (["--checkpoint-freq", "9"], "checkpoint_freq", 9),
    (["--no-progress"], "progress", False), (["--verbose", "1"], "verbose", 1), (["--n-envs", "2"], "n_envs", 2),
    (["--vec-env", "subproc"], "vec_env", "subproc"), (["--lr", "0.001"], "learning_rate", 0.001),
    (["--n-steps", "64"], "n_steps", 64), (["--batch-size", "32"], "batch_size", 32),
    (["--n-epochs", "3"], "n_epochs", 3), (["--gamma", "0.9"], "gamma", 0.9),
    (["--gae-lambda", "0.5"], "gae_lambda", 0.5), (["--ent-coef", "0.2"], "ent_coef", 0.2),
    (["--net-arch", "32,16"], "net_arch", [32, 16]), (["--no-norm-reward"], "norm_reward", False),
    (["--illegal-penalty", "2"], "illegal_penalty", 2.0), (["--ent-coef-final", "0.01"], "ent_coef_final", 0.01),
    (["--warm-start", "threshold"], "warm_start", "threshold"),
    (["--warm-start-rounds", "10"], "warm_start_rounds", 10), (["--warm-start-epochs", "2"], "warm_start_epochs", 2),
    (["--threads", "2"], "threads", 2),
]
OLD_EVALUATE_FLAGS = [
    (["--rules", "casino"], "rules", "casino"), (["--option", "decks=2"], "options", {"decks": 2}),
    (["--seats", "2"], "seats", 2), (["--banker-seat", "1"], "banker_seat", 1),
    (["--learner-seat", "2"], "learner_seat", 2), (["--player", "random"], "player", "random"),
    (["--others", "random"], "others", "random"), (["--banker", "banker_smart"], "banker", "banker_smart"),
    (["--policies", "banker_smart", "threshold"], "policies", ["banker_smart", "threshold"]),
    (["--role", "banker"], "role", "banker"), (["--rounds", "10"], "rounds", 10), (["--seed", "3"], "seed", 3),
    (["--compare", "a", "b"], "compare", ["a", "b"]), (["--optimality-gap"], "optimality_gap", True),
    (["--run", "runs/x"], "run", "runs/x"), (["--out", "o"], "out", "o"), (["--no-charts"], "charts", False),
    (["--no-progress"], "progress", False),
]


@pytest.mark.parametrize("cls", list(SCRIPTS))
def test_no_arguments_give_the_dataclass_defaults(cls: type) -> None:
    parser = SCRIPTS[cls]()
    assert from_args(cls, parser.parse_args([])) == cls()


@pytest.mark.parametrize("cls", list(SCRIPTS))
def test_the_parser_has_one_flag_per_field_and_no_other(cls: type) -> None:
    parser = SCRIPTS[cls]()
    dests = {action.dest for action in parser._actions if action.dest != "help"}
    assert dests == {field.name for field in dataclasses.fields(cls)}
    text = parser.format_help()
    for field in dataclasses.fields(cls):
        assert flag(cls, field.name) in text, field.name
        action = next(a for a in parser._actions if a.dest == field.name)
        assert action.help and len(action.help) > 10, field.name  # every flag is documented


@pytest.mark.parametrize(("argv", "name", "value"), OLD_TRAIN_FLAGS, ids=[case[0][0] for case in OLD_TRAIN_FLAGS])
def test_every_old_train_flag_still_works(argv: list[str], name: str, value: Any) -> None:
    settings = from_args(TrainSettings, SCRIPTS[TrainSettings]().parse_args(argv))
    assert getattr(settings, name) == value
    assert getattr(TrainSettings(), name) != value  # the flag changed something


@pytest.mark.parametrize(("argv", "name", "value"), OLD_EVALUATE_FLAGS,
                         ids=[case[0][0] for case in OLD_EVALUATE_FLAGS])
def test_every_old_evaluate_flag_still_works(argv: list[str], name: str, value: Any) -> None:
    settings = from_args(EvaluateSettings, SCRIPTS[EvaluateSettings]().parse_args(argv))
    assert getattr(settings, name) == value
    assert getattr(EvaluateSettings(), name) != value


def test_old_flag_lists_cover_every_field() -> None:
    # A new field is a new flag: this list of the old ones plus the new ones is every field.
    new = {"warm_start_smoothing", "stake_levels", "both_report", "both_rounds", "learning_rate_final", "clip_range",
           "vf_coef", "max_grad_norm", "norm_adv", "stake_advantage", "ent_decay", "features", "trunk", "sampler",
           "buffer_steps", "updates_per_step", "eps_final", "eps_decay", "tau",  # added with the lean PPO / DQN
           "stake_expected", "draw_expected", "round_credit"}
    assert {name for _, name, _ in OLD_TRAIN_FLAGS} | new == {f.name for f in dataclasses.fields(TrainSettings)}
    assert {name for _, name, _ in OLD_EVALUATE_FLAGS} == {f.name for f in dataclasses.fields(EvaluateSettings)}


def test_help_shows_the_defaults_from_the_fields() -> None:
    text = " ".join(SCRIPTS[TrainSettings]().format_help().split())
    assert "learner decisions to train for" in text and "Default: 20,000,000 for lean_ppo, 300,000 for the SB3" in text
    assert "hidden layer widths, comma-separated (default 64,64)" in text
    assert "--lr X learning rate (default 0.003 for lean_ppo, 0.0003 for SB3)" in text
    text = " ".join(SCRIPTS[EvaluateSettings]().format_help().split())
    assert "rounds per policy (default 20,000)" in text and "output directory (default results/eval)" in text


def test_repeated_and_list_flags_collect_their_values() -> None:
    parser = SCRIPTS[TrainSettings]()
    settings = from_args(TrainSettings, parser.parse_args(
        ["--option", "stick_min=16", "--option", "split_aces_only=true", "--opponents", "threshold", "random"]))
    assert settings.options == {"stick_min": 16, "split_aces_only": True}
    assert settings.opponents == ["threshold", "random"]
    # Two parses never share a mutable default.
    assert from_args(TrainSettings, parser.parse_args([])).options == {}


@pytest.mark.parametrize(("argv", "message"), [
    (["--net-arch", "64,x"], "argument --net-arch: expected comma-separated integers such as 64,64, got '64,x'"),
    (["--option", "stick_min"], "argument --option: --option: expected key=value"),
    (["--timesteps", "many"], "argument --timesteps: invalid"),
    (["--algo", "a2c"], "argument --algo: invalid choice: 'a2c'"),
])
def test_a_malformed_value_names_the_flag_and_the_value(argv: list[str], message: str,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        SCRIPTS[TrainSettings]().parse_args(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_an_undecided_switch_takes_both_flags_and_stays_none_without_them() -> None:
    @dataclasses.dataclass
    class Switches:
        pricing: bool | None = setting(None, "price a card (default: by the rules)")
        quiet: bool = setting(False, "say less")

    parser = build_parser(Switches, "switches")
    assert flag(Switches, "pricing") == "--pricing" and flag(Switches, "quiet") == "--quiet"
    assert from_args(Switches, parser.parse_args([])).pricing is None
    assert from_args(Switches, parser.parse_args(["--pricing"])).pricing is True
    assert from_args(Switches, parser.parse_args(["--no-pricing"])).pricing is False
    with pytest.raises(SystemExit):  # a plain switch has no --no- twin
        parser.parse_args(["--no-quiet"])


def test_parse_option_types() -> None:
    assert parse_option("stick_min=16") == ("stick_min", 16)
    assert parse_option("split_aces_only=true") == ("split_aces_only", True)
    assert parse_option("cut_card_fraction=0.5") == ("cut_card_fraction", 0.5)
    assert parse_option("pack=deal_on") == ("pack", "deal_on")
    with pytest.raises(SettingsError, match="key=value"):
        parse_option("stick_min")
    assert parse_int_list("64, 32") == [64, 32]


def test_a_setting_needs_a_help_text() -> None:
    with pytest.raises(TypeError, match="help"):
        setting(1)


def test_plural() -> None:
    assert plural(1, "player") == "1 player" and plural(2, "player") == "2 players" and plural(0, "round") == "0 rounds"


def test_settings_validation_names_the_flag_the_expected_and_the_given_value() -> None:
    with pytest.raises(ValueError, match=r"--timesteps: expected a positive number of steps, got 0"):
        TrainSettings(timesteps=0).validate()
    with pytest.raises(ValueError, match=r"--gamma: expected a discount in \(0, 1\], got 1.5"):
        TrainSettings(gamma=1.5).validate()
    with pytest.raises(ValueError, match=r"--rounds: expected a positive number of rounds, got 0"):
        EvaluateSettings(rounds=0).validate()
    with pytest.raises(ValueError, match=r"--compare: expected at least two policies"):
        EvaluateSettings(compare=["threshold"]).validate()


def test_values_that_failed_late_or_silently_are_refused_up_front(tmp_path: Path) -> None:
    # Each used to fail after training had started, or give NaN, or a traceback, or an empty folder.
    with pytest.raises(ValueError, match=r"--both-rounds: expected a positive number of rounds, got 0"):
        TrainSettings(role="both", both_rounds=0).validate()
    with pytest.raises(ValueError, match=r"--seed: expected an integer in 0\.\.2\*\*32-1, got -1"):
        TrainSettings(seed=-1).validate()
    with pytest.raises(ValueError, match=r"--eval-seed: expected an integer in 0\.\.2\*\*32-1, got -5"):
        TrainSettings(eval_seed=-5).validate()
    with pytest.raises(ValueError, match=r"--seed: expected an integer >= 0, got -1"):
        EvaluateSettings(seed=-1).validate()
    a_file = tmp_path / "a_file"
    a_file.write_text("")
    with pytest.raises(ValueError, match=r"--out: expected a folder for the run \(not a file, nor under one\)"):
        TrainSettings(out=str(a_file / "run")).validate()
    with pytest.raises(ValueError, match=r"--out: expected a folder for the report"):
        EvaluateSettings(out=str(a_file)).validate()


def test_train_help_runs_as_a_script() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "train.py"), "--help"], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    assert "--warm-start-smoothing" in result.stdout and "Illegal actions" in result.stdout


def test_the_ev_table_tool_refuses_bad_values_with_one_message(capsys) -> None:
    # Each was a traceback, a NaN table (--rounds 0) or silently accepted (--jobs 0).
    from pontoon_tools.ev_table import main as ev_table_main

    for argv, message in ((["--rounds", "0"], "--rounds: expected a positive number of rounds, got 0"),
                          (["--players", "10"], "--players: expected 1..9 player seats, got 10"),
                          (["--jobs", "0"], "--jobs: expected at least 1 worker process, got 0"),
                          (["--rules", "nope"], "unknown preset 'nope'"),
                          (["--player", "nonsense"], "unknown policy 'nonsense'")):
        assert ev_table_main([*argv, "--player", "threshold", "--banker", "banker_threshold"]) == 2
        assert message in capsys.readouterr().err


def test_the_report_tool_refuses_an_empty_request_and_missing_files(tmp_path: Path, capsys) -> None:
    # It wrote an empty report (rc 0), or raised FileNotFoundError, or ignored a missing --timings.
    from pontoon_tools.report import main as report_main

    for argv, message in (([], "nothing to report"),
                          (["--markdown", str(tmp_path / "missing.json")], "--markdown: expected a summary.json"),
                          (["--timings", str(tmp_path / "missing.json")], "--timings: expected a timings.json"),
                          (["--player", "run", "--rounds", "0"], "--rounds: expected an integer >= 1, got 0")):
        with pytest.raises(SystemExit) as exit_info:
            report_main([*argv, "--out", str(tmp_path / "out")])
        assert exit_info.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_timings_tool_refuses_bad_phases_and_files_that_are_not_timings(tmp_path: Path, capsys) -> None:
    from pontoon_tools.timings import main as timings_main

    for phases in (["train=-5"], ["train=nan"], ["train=1", "train=2"]):
        with pytest.raises(SystemExit) as exit_info:
            timings_main(["write", str(tmp_path / "t.json"), *phases])
        assert exit_info.value.code == 2
    other = tmp_path / "config.json"
    other.write_text('{"rules": "pagat"}')
    assert timings_main(["show", str(other)]) == 2
    assert "is not a timings file" in capsys.readouterr().err
    assert timings_main(["write", str(tmp_path / "t.json"), "train=1.5"]) == 0
    assert timings_main(["show", str(tmp_path / "t.json")]) == 0


def test_a_refused_rule_set_names_the_flag_it_came_from() -> None:
    from pontoon_env.game.rules import RulesError
    from pontoon_tools.settings import rules_from_flags

    with pytest.raises(RulesError, match=r"^--rules: unknown preset 'nope'"):
        rules_from_flags("nope", {})
    with pytest.raises(RulesError, match=r"^--option: option 'stick_min'"):
        rules_from_flags("pagat", {"stick_min": 40})
    assert rules_from_flags("pagat", {"stick_min": 16}).stick_min == 16


def test_the_report_tool_leaves_no_empty_folder_when_a_checkpoint_is_refused(tmp_path: Path, capsys) -> None:
    from pontoon_tools.report import main as report_main

    out = tmp_path / "out"
    assert report_main(["--player", str(tmp_path / "nowhere"), "--rounds", "10", "--out", str(out)]) == 2
    assert "does not exist" in capsys.readouterr().err and not out.exists()
