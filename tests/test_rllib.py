"""RLlib over the whole table: the multi-agent env, the masking RLModule, a short training end to end.

Needs the ``rllib`` extra (``bash scripts/test_rllib.sh`` runs this file in ``.venv-rllib``); in
an environment without Ray the whole module is skipped, and ``tests/test_rllib_errors.py`` checks
that every entry point says how to install it.
"""

from __future__ import annotations

import csv
import sys
import importlib.util
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (bash scripts/test_rllib.sh installs it)")

import torch  # noqa: E402
from test_encoding import deck_for, scripted  # noqa: E402 - the stacked-deck pairs of the hidden-info test

from agents.rllib_policy import RLlibCheckpointError, RLlibPolicy, load_rllib_policy, policy_from_spec  # noqa: E402
from pontoon_env import PRESETS, Phase, make_rules  # noqa: E402
from pontoon_env.game.rules import resolve_rules  # noqa: E402
from pontoon_tools.rllib.env import PontoonMultiAgentEnv, parse_agent_id  # noqa: E402
from agents.rllib_module import MaskedPPOTorchRLModule  # noqa: E402
from pontoon_tools.rllib.trainer import score_against_baselines  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_script", ROOT / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_episode(env: PontoonMultiAgentEnv, rng: np.random.Generator, seed: int) -> list[tuple]:
    """Play one episode with random legal ids; return (agent, obs, rewards, done) per step."""
    obs, _ = env.reset(seed=seed)
    steps = []
    while True:
        ((agent, seen),) = obs.items()
        legal = np.flatnonzero(seen["action_mask"])
        obs, rewards, terminateds, truncateds, _ = env.step({agent: int(rng.choice(legal))})
        steps.append((agent, seen, rewards, terminateds["__all__"]))
        assert truncateds == {"__all__": False}
        if terminateds["__all__"]:
            return steps


# ------------------------------------------------------------------------------------ the env


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("rounds", [1, 4])
def test_one_agent_acts_its_role_and_rewards_add_up_to_each_seats_result(preset, rounds):
    """Banker decisions come from banker_* ids even when the bank moves; rewards sum to the PettingZoo rewards."""
    env = PontoonMultiAgentEnv({"rules": preset, "num_players": 3, "num_rounds": rounds})
    rng = np.random.default_rng(0)
    for episode in range(12):
        obs, _ = env.reset(seed=episode)
        expected = defaultdict(float)  # the PettingZoo table's own rewards, per seat
        got = defaultdict(float)
        while True:
            ((agent, seen),) = obs.items()
            role, seat = parse_agent_id(agent)
            assert env.game.current_seat == seat
            banker = env.game.banker_seat_of_round if env.game.players else env.game.banker
            assert (role == "banker") == (seat == banker), (agent, banker)
            assert env.observation_spaces[agent].contains(seen)
            legal = np.flatnonzero(seen["action_mask"])
            np.testing.assert_array_equal(seen["action_mask"] > 0, env.aec.table.mask(env.game.legal_actions()))
            obs, rewards, terminateds, _, _ = env.step({agent: int(rng.choice(legal))})
            for name, value in env.aec.rewards.items():
                expected[int(name.split("_")[1])] += value
            for rewarded, value in rewards.items():
                got[parse_agent_id(rewarded)[1]] += value
            if terminateds["__all__"]:
                break
            assert len(obs) == 1  # only the agent to move observes
        for seat, total in expected.items():
            acted = any(parse_agent_id(agent)[1] == seat for agent in env.agents)
            assert got.get(seat, 0.0) == pytest.approx(total if acted else 0.0), (preset, episode, seat)


def test_a_seat_that_takes_the_bank_decides_under_a_second_agent_id():
    env = PontoonMultiAgentEnv({"rules": "pagat", "num_players": 3, "num_rounds": 4})
    rng = np.random.default_rng(1)
    both = 0
    for seed in range(30):
        agents = {agent for agent, *_ in random_episode(env, rng, seed)}
        seats = defaultdict(set)
        for agent in agents:
            role, seat = parse_agent_id(agent)
            seats[seat].add(role)
        both += any(roles == {"banker", "player"} for roles in seats.values())
    assert both > 0, "the bank never moved in 30 four-round episodes: the scenario is broken"


# ------------------------------------------------------------------------- hidden information


def rllib_views(preset: str, observer_offset: int, vary_own: bool) -> list[tuple]:
    """The stacked-deck pairs of tests/test_encoding.py, played through two RLlib envs.

    The observer sits ``observer_offset`` seats to the left of the banker (0: the banker), as in
    the encoding test's deck layout; the banker's seat comes from the env's own first-banker draw.
    Returns, at every step, the observer's RLlib observation in both games and whether it decides.
    """
    rules = make_rules(preset)
    deck_a, deck_b = deck_for(observer_offset, vary_own, rules.allow_buy)
    envs, first = [], []
    for deck in (deck_a, deck_b):
        env = PontoonMultiAgentEnv({"rules": preset, "num_players": 2})
        first.append(env.reset(seed=7, options={"deck": deck, "bottom": ["2C"]})[0])
        envs.append(env)
    env_a, env_b = envs
    observer = (env_a.game.banker + observer_offset) % 3
    obs_a, obs_b = first
    pairs = []
    banker_cards_vary = observer_offset != 0 or vary_own
    while True:
        assert list(obs_a) == list(obs_b)  # the same agent (seat and role) moves in both games
        if env_a.game.phase == Phase.BANKER_TURN and banker_cards_vary:
            break  # the banker turns his cards up: from here on they are public
        pairs.append((env_a.seat_observation(observer), env_b.seat_observation(observer), False))
        ((agent, seen_a),) = obs_a.items()
        if parse_agent_id(agent)[1] == observer:
            pairs.append((seen_a, obs_b[agent], True))
        action = scripted(env_a.game)
        legal = env_a.game.legal_actions()
        index = next(i for i in np.flatnonzero(seen_a["action_mask"]) if env_a.aec.table.decode(int(i), legal) == action)
        obs_a, _, done_a, _, _ = env_a.step({agent: int(index)})
        obs_b, _, done_b, _, _ = env_b.step({agent: int(index)})
        assert done_a == done_b
        if done_a["__all__"]:
            break
    return pairs


@pytest.mark.parametrize("offset", [0, 1, 2], ids=["banker", "player1", "player2"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_seats_rllib_observation_ignores_cards_it_may_not_see(preset, offset):
    pairs = rllib_views(preset, offset, vary_own=False)
    assert any(decides for *_, decides in pairs), "the observer never decided: the scenario is broken"
    for seen_a, seen_b, _ in pairs:
        np.testing.assert_array_equal(seen_a["observations"], seen_b["observations"])
        np.testing.assert_array_equal(seen_a["action_mask"], seen_b["action_mask"])


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_control_pairs_do_change_the_observers_own_view(preset):
    for offset in (1, 2):
        pairs = rllib_views(preset, offset, vary_own=True)
        assert any(not np.array_equal(a["observations"], b["observations"]) for a, b, _ in pairs)


# ------------------------------------------------------------------------------ the RLModule


def test_the_module_gives_illegal_ids_no_probability_in_every_forward_pass():
    env = PontoonMultiAgentEnv({"rules": "pagat", "num_players": 2})
    space = env.observation_spaces["player_1"]
    module = MaskedPPOTorchRLModule(
        observation_space=space,
        action_space=env.action_spaces["player_1"],
        model_config={"fcnet_hiddens": [16], "vf_share_layers": False},
    )
    obs, _ = env.reset(seed=3)
    ((agent, seen),) = obs.items()
    batch = {"obs": {key: torch.from_numpy(value[None, :]) for key, value in seen.items()}}
    illegal = seen["action_mask"] == 0
    for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
        logits = forward(batch)["action_dist_inputs"][0].detach().numpy()
        probs = np.exp(logits - logits.max())
        assert probs[illegal].sum() / probs.sum() < 1e-20
        assert set(batch["obs"]) == {"observations", "action_mask"}  # the caller's batch is untouched
    values = module.compute_values(batch)
    assert values.shape == (1,)
    with pytest.raises(ValueError, match="observation_space must be a Dict with keys"):
        MaskedPPOTorchRLModule(observation_space=space["observations"], action_space=env.action_spaces["player_1"])


# ------------------------------------------------------------------------------ end to end

TRAIN_ARGS = [
    "--seats", "3", "--timesteps", "1200", "--train-batch-size", "600", "--minibatch-size", "128",
    "--num-epochs", "2", "--num-env-runners", "1", "--num-envs-per-env-runner", "4", "--num-cpus", "2",
    "--checkpoint-every", "1", "--eval-rounds", "40", "--net-arch", "32,32", "--no-progress",
]


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A short local run of ``train_rllib.py``: two PPO iterations on two cores, saved."""
    run = tmp_path_factory.mktemp("rllib") / "run"
    assert load_script("train_rllib").main([*TRAIN_ARGS, "--out", str(run)]) == 0
    return run


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_training_writes_the_run_folder(trained):
    config = json.loads((trained / "config.json").read_text())
    assert config["backend"] == "rllib" and config["role"] == "both" and config["modules"] == ["banker", "player"]
    assert config["num_players"] == 3 and config["n_actions"] == len(config["action_names"])
    for checkpoint in (trained / "checkpoint", trained / "checkpoints" / "iter_1"):
        assert (checkpoint / "rllib_checkpoint.json").is_file()
        assert json.loads((checkpoint / "config.json").read_text())["obs_size"] == config["obs_size"]
        for module in ("banker", "player"):
            assert (checkpoint / "learner_group" / "learner" / "rl_module" / module).is_dir()
    rows = list(csv.DictReader((trained / "progress.csv").open()))
    assert len(rows) >= 2 and int(rows[-1]["env_steps"]) >= 1200
    for row in rows:  # both roles learn at once: each has a return every iteration
        float(row["banker_return"]), float(row["player_return"]), float(row["steps_per_s"])
    evals = list(csv.DictReader((trained / "eval_history.csv").open()))
    assert evals[0]["policy"] == "scripted" and int(evals[0]["iteration"]) == 0  # the reference line
    assert [int(row["iteration"]) for row in evals[1:]] == [int(row["iteration"]) for row in rows]
    assert {row["policy"] for row in evals[1:]} == {"rllib"}
    assert list((trained / "tb").glob("events.out.tfevents.*"))


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_a_reloaded_checkpoint_plays_exactly_as_the_trained_modules_did(trained):
    """The last eval in training used the live modules; the saved ones must reproduce it decision for decision."""
    last = list(csv.DictReader((trained / "eval_history.csv").open()))[-1]
    config = json.loads((trained / "config.json").read_text())
    rules = resolve_rules(config["rules"])
    for path in (trained, trained / "checkpoint"):
        policy = load_rllib_policy(path, rules, 3)
        assert isinstance(policy, RLlibPolicy) and policy.policies == "shared"
        scores = score_against_baselines(policy, rules, 3, 40, config["settings"]["seed"] + 10_000)
        assert scores["player_ev"] == pytest.approx(float(last["player_ev"]))
        assert scores["banker_ev"] == pytest.approx(float(last["banker_ev"]))
    earlier = load_rllib_policy(trained / "checkpoints" / "iter_1", rules, 3)
    assert earlier.name == "rllib:iter_1"


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_the_checkpoint_refuses_other_tables(trained):
    with pytest.raises(RLlibCheckpointError, match="trained for preset 'pagat', but the table plays 'casino'"):
        load_rllib_policy(trained, "casino", 3)
    with pytest.raises(RLlibCheckpointError, match="trained at a table of 3 players, but this table has 4"):
        load_rllib_policy(trained, "pagat", 4)
    policy = load_rllib_policy(trained, "pagat")
    from pontoon_env import PontoonGame
    from pontoon_env.game.observation import observe

    game = PontoonGame("pagat", 2, seed=0, banker=0)
    game.new_round()
    with pytest.raises(RLlibCheckpointError, match="trained at a table of 3 players, but this table has 2"):
        policy.act(observe(game, game.current_seat), game.legal_actions(), np.random.default_rng(0))


def _registry_routes_rllib(run: Path) -> bool:
    from agents.registry import make_policy

    try:
        return isinstance(make_policy(str(run), make_rules("pagat"), num_players=3), RLlibPolicy)
    except Exception:
        return False


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_the_policy_registry_routes_rllib_checkpoints(trained):
    assert _registry_routes_rllib(trained)


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_evaluate_py_scores_the_checkpoint_in_both_seats(trained, tmp_path):
    out = tmp_path / "eval"
    argv = ["--player", str(trained), "--banker", str(trained), "--rounds", "60", "--seed", "1",
            "--out", str(out), "--no-charts", "--no-progress"]
    assert load_script("evaluate").main(argv) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["num_players"] == 3 and report["rounds"] == 60
    labels = report["seats"]
    assert labels[0] == labels[1] == f"{trained.parent.name}/{trained.name}"
    summary = {row["seat"]: row for row in report["summary"]}
    assert len(summary) == 4 and all(np.isfinite(float(row["ev"])) for row in summary.values())


def test_one_player_policy_per_seat_sampled_in_the_driver_and_resumed(tmp_path):
    """--policies per_seat trains banker + one module per seat; --num-env-runners 0 samples in the driver."""
    run = tmp_path / "per_seat"
    args = ["--seats", "2", "--policies", "per_seat", "--timesteps", "300", "--train-batch-size", "300",
            "--minibatch-size", "100", "--num-epochs", "1", "--num-env-runners", "0",
            "--num-envs-per-env-runner", "2", "--num-cpus", "2", "--checkpoint-every", "0", "--eval-rounds", "0",
            "--net-arch", "16", "--no-progress"]
    train_rllib = load_script("train_rllib")
    assert train_rllib.main([*args, "--out", str(run)]) == 0
    config = json.loads((run / "config.json").read_text())
    assert config["modules"] == ["banker", "player_seat_0", "player_seat_1", "player_seat_2"]
    policy = load_rllib_policy(run)
    from pontoon_env import PontoonGame
    from pontoon_env.game.observation import observe

    rules = resolve_rules(config["rules"])
    for banker in range(3):  # every seat's module plays, whoever banks
        game = PontoonGame(rules, 2, seed=banker, banker=banker)
        game.new_round()
        rng = np.random.default_rng(banker)
        while not game.is_round_over:
            seat = game.current_seat
            game.apply(policy.act(observe(game, seat), game.legal_actions(), rng))
    steps = int(list(csv.DictReader((run / "progress.csv").open()))[-1]["env_steps"])
    assert train_rllib.main([*args, "--resume", str(run), "--out", str(run)]) == 0
    resumed = list(csv.DictReader((run / "progress.csv").open()))
    assert int(resumed[-1]["env_steps"]) >= steps + 300  # the counters went on from the checkpoint
    mismatch = [arg if arg != "per_seat" else "shared" for arg in args]
    assert train_rllib.main([*mismatch, "--resume", str(run), "--out", str(tmp_path / "other")]) == 2


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_joins_a_running_cluster_by_address(tmp_path, monkeypatch):
    """The cluster recipe on one machine: `ray start --head` on loopback, then train_rllib.py --address."""
    import os
    import shutil
    import signal
    import socket
    import subprocess
    import tempfile
    import time

    ray_cli = shutil.which("ray", path=str(Path(sys.executable).parent)) or shutil.which("ray")
    assert ray_cli, "the ray command comes with the rllib extra"
    port = _free_port()
    monkeypatch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # the head binds to 127.0.0.1 only
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # Ray's socket paths must stay short
    log = tmp_path / "head.log"
    head = subprocess.Popen(
        [ray_cli, "start", "--head", "--block", f"--port={port}", "--num-cpus=2", "--include-dashboard=false",
         "--disable-usage-stats", f"--temp-dir={temp_dir}"],
        env=env, stdout=log.open("w"), stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert head.poll() is None and time.monotonic() < deadline, log.read_text()[-2000:]
                time.sleep(0.5)
        run = tmp_path / "run"
        args = ["--address", f"127.0.0.1:{port}", "--seats", "2", "--timesteps", "300", "--train-batch-size", "300",
                "--minibatch-size", "100", "--num-epochs", "1", "--num-env-runners", "1",
                "--num-envs-per-env-runner", "2", "--checkpoint-every", "0", "--eval-rounds", "0", "--net-arch", "16",
                "--no-progress", "--out", str(run)]
        assert load_script("train_rllib").main(args) == 0
        assert (run / "checkpoint" / "rllib_checkpoint.json").is_file()
        assert json.loads((run / "config.json").read_text())["settings"]["address"] == f"127.0.0.1:{port}"
    finally:
        # The head's processes, found by the unique temp dir on their command lines: SIGTERM, then SIGKILL
        # (a graceful `ray start --block` shutdown takes half a minute, and `ray stop` would stop every Ray
        # instance on the machine, a parallel test's included).
        for sig in (signal.SIGTERM, signal.SIGKILL):
            pids = [head.pid] if head.poll() is None else []
            for entry in Path("/proc").iterdir():
                try:
                    if entry.name.isdigit() and temp_dir.encode() in (entry / "cmdline").read_bytes():
                        pids.append(int(entry.name))
                except OSError:
                    continue
            for pid in set(pids):
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            try:
                head.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        shutil.rmtree(temp_dir, ignore_errors=True)


@pytest.mark.xdist_group("trained")  # one worker trains once for all of these
def test_a_relative_checkpoint_path_loads(trained, monkeypatch):
    """evaluate.py is usually given runs/<name>: RLlib itself needs absolute paths."""
    monkeypatch.chdir(trained.parent)
    assert isinstance(load_rllib_policy(trained.name, "pagat", 3), RLlibPolicy)
    assert isinstance(load_rllib_policy(f"{trained.name}/checkpoint", "pagat", 3), RLlibPolicy)


def test_the_env_renders_the_table_as_text():
    env = PontoonMultiAgentEnv({"rules": "pagat", "num_players": 2})
    env.reset(seed=0)
    text = env.render()
    assert text.startswith("Pontoon [pagat]") and "Banker seat" in text


def test_bad_actions_and_config_values_are_refused_not_converted():
    env = PontoonMultiAgentEnv({"rules": "pagat", "num_players": 2})
    obs, _ = env.reset(seed=0)
    ((agent, seen),) = obs.items()
    legal = int(np.flatnonzero(seen["action_mask"])[0])
    with pytest.raises(TypeError, match="integer id"):
        env.step({agent: legal + 0.9})
    with pytest.raises(TypeError, match="shape"):
        env.step({agent: np.array([legal, 99, 5])})
    env.step({agent: np.array([legal])})  # a one-element array, as RLlib may hand out, is one id
    for key, value in (("num_players", 2.9), ("num_players", True), ("num_rounds", 0.5)):
        with pytest.raises(ValueError, match=f"{key}: expected an integer"):
            PontoonMultiAgentEnv({key: value})


def test_a_refused_action_leaves_the_seat_with_its_agent():
    env = PontoonMultiAgentEnv({"rules": "pagat", "num_players": 2})
    obs, _ = env.reset(seed=0)
    ((agent, seen),) = obs.items()
    illegal = int(np.flatnonzero(seen["action_mask"] == 0)[0])
    _, seat = parse_agent_id(agent)
    with pytest.raises(Exception, match="not legal"):
        env.step({agent: illegal})
    assert env._last_agent[seat] is None  # its first decision is still to come
