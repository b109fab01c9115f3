"""evaluate.py plays an RLlib checkpoint only at a table of the rules it learnt, as a ``.zip`` model.

Before, an RLlib run trained with ``stick_min=15`` was evaluated at a table given ``--option
stick_min=16`` (or ``--rules pagat --option dealer_rule=hit_soft_17`` ...) without a word: the
observation and action layout are the same, so it played and reported figures for a game it never
learnt. A ``.zip`` model is refused there (tests/test_evaluate.py's
``test_a_model_at_a_table_it_does_not_fit_is_one_clear_message``), and without rules flags the table
takes the checkpoint's rules and size; an RLlib checkpoint now does the same, with the same message
(:func:`agents.checkpoint.check_compatible`).

The refusals read only the run's ``config.json``: they run without Ray (a faked run folder, with
Ray hidden), so in both virtual environments. One test trains a real run and needs Ray.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agents.rllib_policy import RLlibCheckpointError, check_compatible, load_rllib_policy, read_rllib_config
from pontoon_env import make_rules
from pontoon_tools.rllib.trainer import RLlibSettings, run_config
from test_rllib_errors import fake_checkpoint, load_script, no_ray  # noqa: F401 - no_ray is a fixture


def _evaluate(argv: list[str], out: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """evaluate.py's ``main`` in this process, quietly into ``out``: its exit code and stderr."""
    argv = [*argv, "--rounds", "20", "--out", str(out), "--no-progress", "--no-charts"]
    code = load_script("evaluate").main(argv)
    return int(code), capsys.readouterr().err


def _trained_with(folder: Path, **options) -> Path:
    """A faked train_rllib.py run folder (three players) whose config records these rules options."""
    rules = {**run_config(RLlibSettings(seats=3))["rules"], **options}
    return fake_checkpoint(folder, rules=rules)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--option", "stick_min=16"], "rules option 'stick_min': expected 16, found 15"),
        (["--rules", "pagat", "--option", "dealer_rule=hit_soft_17"],
         "rules option 'dealer_rule': expected 'hit_soft_17', found 'free'"),
        (["--rules", "pagat", "--option", "five_card_trick=false"],
         "rules option 'five_card_trick': expected False, found True"),
    ],
)
@pytest.mark.parametrize("seat", ["--player", "--banker"])
def test_a_checkpoint_at_a_table_of_other_rules_options_is_refused_naming_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_ray, seat: str, flags: list[str],
        message: str) -> None:
    # Before: it played (the layout is the same) and reported its figures; here, with Ray hidden, the
    # old code went on to load the modules and failed on the missing Ray instead.
    run = fake_checkpoint(tmp_path / "run")
    out = tmp_path / "eval"
    code, err = _evaluate([seat, str(run), *flags], out, capsys)
    assert code == 2, err
    table = "(this table: preset 'pagat', 3 players)"
    assert f"checkpoint {str(run)!r} does not fit this table {table}" in err, err
    assert message in err and "Traceback" not in err and "Ray" not in err, err
    assert not out.exists()


def test_every_seat_flag_is_checked_against_the_table(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                      no_ray) -> None:
    run = str(fake_checkpoint(tmp_path / "run"))
    for index, argv in enumerate([
        ["--policies", "banker_threshold", run, "threshold", "threshold"],
        ["--compare", run, "threshold"],
        ["--role", "banker", "--compare", "banker_threshold", run],
        ["--player", "threshold", "--others", run, "--seats", "3"],  # --others does not size the table
    ]):
        out = tmp_path / f"eval{index}"
        code, err = _evaluate([*argv, "--option", "stick_min=16"], out, capsys)
        assert code == 2 and "rules option 'stick_min': expected 16, found 15" in err, (argv, err)
        assert not out.exists()


def test_the_rules_a_checkpoint_learnt_are_its_table_and_any_other_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], no_ray) -> None:
    # A run trained with stick_min=16: without rules flags the table takes its rules (and then needs
    # Ray to load the modules, which is hidden here); --rules pagat is the preset's stick_min=15.
    run = _trained_with(tmp_path / "run", stick_min=16)
    code, err = _evaluate(["--player", str(run)], tmp_path / "adopted", capsys)
    assert code == 2 and "Ray RLlib" in err and "does not fit" not in err, err
    code, err = _evaluate(["--player", str(run), "--rules", "pagat"], tmp_path / "preset", capsys)
    assert code == 2 and "rules option 'stick_min': expected 15, found 16" in err, err
    code, err = _evaluate(["--player", str(run), "--option", "stick_min=16",
                           "--option", "five_card_trick_pays=1"], tmp_path / "more", capsys)
    assert code == 2 and "rules option 'five_card_trick_pays': expected 1, found 2" in err, err
    assert "stick_min" not in err, err


def test_the_loader_compares_every_rules_option_but_bank_movement_and_the_pack(tmp_path: Path,
                                                                             no_ray) -> None:
    config = read_rllib_config(fake_checkpoint(tmp_path / "run"))
    # What only moves the bank or gathers the pack between rounds does not matter to a policy that
    # plays (agents.checkpoint.PLAY_IGNORED_OPTIONS, as for a .zip model).
    check_compatible(config, make_rules("pagat", bank_passing="rotate_on_natural"), 3, "run")
    check_compatible(config, make_rules("pagat", pack="fresh_each_round", shuffle_after_pontoon=False,
                                        cut_card_fraction=0.5), 3, "run")
    with pytest.raises(RLlibCheckpointError, match=r"checkpoint 'run' does not fit this table .*\n"
                                                   r"  - rules option 'stick_min': expected 17, found 15"):
        check_compatible(config, make_rules("pagat", stick_min=17), 3, "run")
    # Without a table size only the rules are compared; still before any Ray import.
    with pytest.raises(RLlibCheckpointError, match=r"rules option 'stick_min': expected 16, found 15"):
        load_rllib_policy(tmp_path / "run", make_rules("pagat", stick_min=16))
    with pytest.raises(RLlibCheckpointError, match=r"rules option 'dealer_rule'"):
        load_rllib_policy(tmp_path / "run" / "checkpoint", make_rules("pagat", dealer_rule="hit_soft_17"),
                          3)


@pytest.fixture(scope="module")
def trained_16(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real train_rllib.py run for two players under stick_min=16: test_rllib's short run, sampled in
    the driver, with no evaluation or periodic checkpoints."""
    pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (bash scripts/test_rllib.sh installs it)")
    from test_rllib import TRAIN_ARGS

    run = tmp_path_factory.mktemp("rllib") / "run"
    argv = [*TRAIN_ARGS, "--seats", "2", "--num-env-runners", "0", "--eval-rounds", "0",
            "--checkpoint-every", "0", "--option", "stick_min=16", "--out", str(run)]
    assert load_script("train_rllib").main(argv) == 0
    return run


def test_a_trained_checkpoint_plays_at_its_own_table_and_is_refused_at_another(
        trained_16: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert json.loads((trained_16 / "config.json").read_text())["rules"]["stick_min"] == 16
    # Its table without rules flags: the checkpoint's rules and size.
    code, err = _evaluate(["--player", str(trained_16), "--banker", str(trained_16)], tmp_path / "ok", capsys)
    assert code == 0, err
    report = json.loads((tmp_path / "ok" / "report.json").read_text())
    assert report["num_players"] == 2 and report["rules"]["stick_min"] == 16
    # Before: both of these played it and reported figures of a game it never learnt.
    for name, flags, message in [
        ("a", ["--rules", "pagat"], "rules option 'stick_min': expected 15, found 16"),
        ("b", ["--option", "stick_min=17"], "rules option 'stick_min': expected 17, found 16"),
    ]:
        code, err = _evaluate(["--player", str(trained_16), *flags], tmp_path / name, capsys)
        assert code == 2 and message in err, err
        assert f"checkpoint {str(trained_16)!r} does not fit this table" in err, err
        assert not (tmp_path / name).exists()
