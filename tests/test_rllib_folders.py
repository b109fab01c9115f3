"""``train_rllib.py``'s run folder across runs: resumed numbering, a used ``--out``, a fixed CSV header, a failed join.

The checks without Ray run in ``.venv`` too (Ray's steps are replaced); the others skip
themselves without Ray and train for one or two tiny iterations in the driver.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from pontoon_tools.rllib import trainer
from pontoon_tools.rllib.trainer import RLlibSettings, RLlibTrainingError
from test_rllib_cli import SMALL  # the smallest run the RLlib tests train (batch 128, driver sampling)
from test_rllib_errors import fake_checkpoint, load_script

train_rllib = load_script("train_rllib")

# SMALL stops at --timesteps 128 (one iteration); these runs stop by --max-iterations instead.
TINY = [*SMALL, "--timesteps", "100000", "--eval-rounds", "0", "--checkpoint-every", "0"]


def needs_ray() -> None:
    pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed")


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def iterations(path: Path) -> list[int]:
    return [int(row["iteration"]) for row in rows(path)]


def no_ray_steps(monkeypatch, loop=lambda *args: {"run": "x"}) -> None:
    """Replace the trainer's Ray steps (as test_rllib_cli's summary test does): only the folder handling runs."""

    class FakeAlgo:
        def stop(self) -> None:
            pass

    class FakeConfig:
        def build_algo(self) -> FakeAlgo:
            return FakeAlgo()

    monkeypatch.setattr(trainer, "preflight", lambda settings: None)
    monkeypatch.setattr(trainer, "connect", lambda settings: (None, False))
    monkeypatch.setattr(trainer, "build_config", lambda settings: FakeConfig())
    monkeypatch.setattr(trainer, "_train_loop", loop)


# ------------------------------------------------------------------------- resume numbering


def test_a_resume_numbers_its_iterations_on_from_the_checkpoint(tmp_path, capsys):
    """Into its own folder the curve and checkpoints go on (1, 2, then 3, 4); from iter_3 elsewhere it starts at 4."""
    needs_ray()
    run = tmp_path / "run"
    args = [*TINY, "--max-iterations", "2", "--checkpoint-every", "1", "--eval-rounds", "4", "--out", str(run)]
    assert train_rllib.main(args) == 0
    first_steps = int(rows(run / "progress.csv")[-1]["env_steps"])
    assert train_rllib.main([*args, "--resume", str(run)]) == 0
    assert iterations(run / "progress.csv") == [1, 2, 3, 4]
    steps = [int(row["env_steps"]) for row in rows(run / "progress.csv")]
    assert steps == sorted(steps) and steps[2] > first_steps  # one curve, not two runs one after the other
    assert iterations(run / "eval_history.csv") == [0, 1, 2, 3, 4]  # the scripted reference line once
    assert sorted(path.name for path in (run / "checkpoints").iterdir()) == ["iter_1", "iter_3"]
    # iter_1 is still the first run's (the resumed run's first iteration was 3, not a second 1)
    assert json.loads((run / "checkpoints" / "iter_1" / "config.json").read_text())["iteration"] == 1
    assert json.loads((run / "checkpoint" / "config.json").read_text())["iteration"] == 4
    summary = json.loads((run / "summary.json").read_text())
    assert summary["iterations"] == 2 and summary["last"]["iteration"] == 4

    # An earlier checkpoint of a finished run back into its folder would overwrite iteration 4's checkpoint/.
    before = (run / "progress.csv").read_text()
    capsys.readouterr()
    assert train_rllib.main([*args, "--resume", str(run / "checkpoints" / "iter_1")]) == 2
    err = capsys.readouterr().err
    assert "--out: resuming the checkpoint of iteration 1" in err and "trained to iteration 4" in err, err
    assert (run / "progress.csv").read_text() == before

    # A periodic checkpoint into a new folder: its curve starts after the checkpoint's iteration.
    other = tmp_path / "other"
    resumed = [*TINY, "--max-iterations", "1", "--resume", str(run / "checkpoints" / "iter_3"), "--out", str(other)]
    assert train_rllib.main(resumed) == 0
    assert iterations(other / "progress.csv") == [4]


def test_an_in_place_resume_drops_the_rows_after_the_checkpoint(tmp_path):
    """A run that stopped part-way resumed from an earlier checkpoint: those iterations are trained again."""
    from pontoon_tools.rllib.trainer import RunFolder

    fields = ["iteration", "env_steps"]
    for name, first in (("progress.csv", 1), ("eval_history.csv", 0)):
        with (tmp_path / name).open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(fields)
            writer.writerows([[iteration, iteration * 10] for iteration in range(first, 6)])
    RunFolder(tmp_path, in_place=True).continue_from(3)
    assert iterations(tmp_path / "progress.csv") == [1, 2, 3]
    assert iterations(tmp_path / "eval_history.csv") == [0, 1, 2, 3]
    RunFolder(tmp_path).continue_from(1)  # not in place: the folder is not this run's to trim
    assert iterations(tmp_path / "progress.csv") == [1, 2, 3]


# ------------------------------------------------------------------------------ a used --out


def earlier_run(folder: Path) -> Path:
    """A train_rllib.py run folder with a curve, an eval history, a checkpoint and TensorBoard events."""
    fake_checkpoint(folder)
    (folder / "progress.csv").write_text("iteration,env_steps\n1,128\n2,256\n")
    (folder / "eval_history.csv").write_text("policy,iteration\nscripted,0\nrllib,2\n")
    (folder / "checkpoints" / "iter_1").mkdir(parents=True)
    (folder / "tb").mkdir()
    (folder / "tb" / "events.out.tfevents.1").write_text("x")
    return folder


def test_a_fresh_run_replaces_an_earlier_run_in_its_folder(tmp_path, capsys, monkeypatch):
    """As train.py does: the earlier curves and checkpoints go first (nothing is appended to them); tb/ stays."""
    run = earlier_run(tmp_path / "run")
    seen = {}

    def loop(algo, settings, config, out, *rest):
        seen.update({name: (out / name).exists() for name in ("progress.csv", "eval_history.csv", "checkpoints")})
        return {"run": str(out)}

    no_ray_steps(monkeypatch, loop)
    assert train_rllib.main([*TINY, "--out", str(run)]) == 0
    assert seen == {"progress.csv": False, "eval_history.csv": False, "checkpoints": False}
    assert not (run / "checkpoint").exists()
    assert (run / "tb" / "events.out.tfevents.1").is_file()
    assert json.loads((run / "config.json").read_text())["settings"]["resume"] is None
    assert f"replacing the earlier run in {run}" in capsys.readouterr().out


def test_another_commands_run_folder_or_another_run_for_a_resume_is_refused(tmp_path, capsys):
    from pontoon_tools.rllib.trainer import RunFolder, plan_run_folder

    sb3 = tmp_path / "sb3"
    sb3.mkdir()
    (sb3 / "config.json").write_text(json.dumps({"algo": "maskable_ppo", "role": "player"}))
    (sb3 / "model.zip").write_text("x")
    assert train_rllib.main([*TINY, "--out", str(sb3)]) == 2
    err = capsys.readouterr().err
    assert "--out: expected a new folder or a train_rllib.py run folder" in err and str(sb3) in err, err
    assert "is not backend 'rllib'" in err, err
    assert (sb3 / "model.zip").read_text() == "x"

    # --resume into a folder holding another run: its curve would mix with the resumed one's.
    source, other = fake_checkpoint(tmp_path / "source"), earlier_run(tmp_path / "other")
    settings = RLlibSettings(seats=3, out=str(other), resume=str(source))
    with pytest.raises(RLlibTrainingError, match=r"--out: expected a new folder \(or the resumed run's own\)"):
        plan_run_folder(settings, source / "checkpoint")
    # ... unless that run was the same resume, stopped part-way: it starts over there.
    config = json.loads((other / "config.json").read_text())
    config["settings"]["resume"] = str(source)
    (other / "config.json").write_text(json.dumps(config))
    assert plan_run_folder(settings, source / "checkpoint") == RunFolder(other, replace=True)
    # Into the checkpoint's own folder, or a new one, the run goes on there.
    assert plan_run_folder(RLlibSettings(out=str(source)), source / "checkpoint") == RunFolder(source, in_place=True)
    assert plan_run_folder(RLlibSettings(out=str(tmp_path / "new")), source / "checkpoint") == RunFolder(tmp_path / "new")


# ----------------------------------------------------------------------------- fixed header


def test_session_progress_rows_match_a_header_fixed_up_front(tmp_path):
    """A 12-round session outlasts the first iteration: its module returns appear later, under the header's columns."""
    needs_ray()
    run = tmp_path / "run"
    argv = [*TINY, "--episode", "session", "--session-rounds", "12", "--max-iterations", "2", "--out", str(run)]
    assert train_rllib.main(argv) == 0
    with (run / "progress.csv").open(newline="") as handle:
        header, *lines = list(csv.reader(handle))
    assert header[-2:] == ["return[banker]", "return[player]"]
    assert [len(line) for line in lines] == [len(header)] * 2
    first, second = rows(run / "progress.csv")
    assert first["episodes"] == "0" and first["return[banker]"] == ""  # no session ended in iteration 1
    assert int(second["episodes"]) > 0 and float(second["return[banker]"]) == float(second["banker_return"])


# ------------------------------------------------------------------------------- a failed join


def cluster_args(out: Path) -> list[str]:
    """TINY for ``--address auto``: without SMALL's ``--num-cpus``, which only sizes a local instance."""
    flag = TINY.index("--num-cpus")
    return [*TINY[:flag], *TINY[flag + 2:], "--address", "auto", "--out", str(out)]


def test_a_cluster_that_cannot_be_joined_leaves_no_run_folder(tmp_path, capsys, monkeypatch):
    def refuse(settings: RLlibSettings) -> None:
        raise RLlibTrainingError(f"--address {settings.address!r}: Ray could not join the cluster (ConnectionError)")

    no_ray_steps(monkeypatch)
    monkeypatch.setattr(trainer, "connect", refuse)
    run = tmp_path / "run"
    assert train_rllib.main(cluster_args(run)) == 2
    assert "--address 'auto': Ray could not join the cluster" in capsys.readouterr().err
    assert not run.exists()
    # An earlier run there is not replaced by a run that never started.
    earlier_run(run)
    assert train_rllib.main(cluster_args(run)) == 2
    assert iterations(run / "progress.csv") == [1, 2] and (run / "checkpoints" / "iter_1").is_dir()


def test_address_auto_without_a_running_cluster_says_so_and_makes_no_folder(tmp_path, capsys, monkeypatch):
    """Ray's own lookup for 'auto', told that nothing runs here (other tests' private instances may run beside)."""
    needs_ray()
    import ray._private.services as services

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setattr(services, "_find_address_from_flag", lambda flag: [])  # the processes it greps for
    services.find_gcs_addresses.cache_clear()
    monkeypatch.setattr(services, "find_bootstrap_address", lambda temp_dir: None)
    run = tmp_path / "run"
    assert train_rllib.main(cluster_args(run)) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "--address 'auto': Ray could not join the cluster (ConnectionError: Could not find any running Ray" in err
    assert not run.exists()
