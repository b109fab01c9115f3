"""Train a banker policy and player policies at once with RLlib PPO (new API stack), locally or on a cluster.

What a run does (:func:`train`):

1. connects to Ray (:func:`connect`): without ``address``, a private single-node instance on
   this machine's loopback interface with ``num_cpus`` cores and no dashboard; with
   ``address="host:port"`` (or ``"auto"``), the running cluster that ``ray start --head``
   started, after checking that the address answers at all;
2. builds PPO (:func:`build_config`) over :class:`~pontoon_tools.rllib.env.PontoonMultiAgentEnv`
   with one :class:`~agents.rllib_module.MaskedPPOTorchRLModule` per policy
   (``banker`` + ``player``, or ``banker`` + ``player_seat_<k>``), trained at the same time, on
   ``num_env_runners`` sampling actors of ``num_envs_per_env_runner`` tables each;
3. trains until ``timesteps`` decisions (all seats together) have been sampled, logging each
   iteration to ``progress.csv`` and TensorBoard (``tb/``) and, every ``checkpoint_every``
   iterations, saving ``checkpoints/iter_N`` and scoring both roles against the scripted
   baselines (``eval_history.csv``);
4. saves ``checkpoint/`` and ``config.json`` in the run folder ``runs/<name>/`` (the SB3 path's
   layout: the model beside its config), which :mod:`agents.rllib_policy` loads into any seat.

Everything that can be checked without Ray (settings, rules, the run folder) is checked before
Ray is imported, so a bad option costs no cluster start. What ``--out`` already holds is decided
then too (:func:`plan_run_folder`: an earlier run replaced, a resumed one continued, another
refused), but the folder is touched only once Ray has started or joined the cluster.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
import platform
import shutil
import socket
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from pontoon_tools.rllib import INSTALL_HINT, RAY_VERSION, RayMissingError, require_ray
from pontoon_tools.settings import parse_option  # one --option key=value reading for every command
from agents.rllib_roles import POLICY_LAYOUTS, module_for_agent, module_ids

EPISODES = ("round", "session")
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
"""Ray's switch for a single-node instance bound to 127.0.0.1 (its default on macOS and Windows)."""
CONNECT_TIMEOUT_S = 5.0
AUTH_MODE_ENV = "RAY_AUTH_MODE"


MAX_SEED = 2**32 - 1
"""The largest seed RLlib accepts (it seeds numpy with it)."""


def fits_batch(train_batch_size: int, fragment: int, envs_per_runner: int, runners: int) -> bool:
    """Whether RLlib 2.60 accepts this batch: whole sampling calls reach ``train_batch_size`` within 10%.

    A copy of ``AlgorithmConfig.validate_train_batch_size_vs_rollout_fragment_length`` (one learner).
    """
    unit = max(runners, 1) * envs_per_runner * fragment
    batch = unit
    while batch < train_batch_size:
        batch += unit
    return not (batch - train_batch_size > 0.1 * train_batch_size
                or batch - unit - train_batch_size > 0.1 * train_batch_size)


class RLlibTrainingError(ValueError):
    """A training run that cannot start as asked: a bad setting, an unreachable cluster, a bad resume."""


@dataclass
class RLlibSettings:
    """Every option of an RLlib run (``train_rllib.py``'s arguments and defaults).

    The defaults suit two CPU cores: one sampling actor with 8 tables, 4,000 decisions per PPO
    update in minibatches of 256 for 6 epochs, a [64, 64] network (policy and value apart, so
    the large chip rewards of the value loss do not swamp the policy), ``gamma = 1`` (a round is
    a short episode paid at its end) and a small entropy bonus.
    """

    rules: str = "pagat"
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 3
    episode: str = "round"
    session_rounds: int = 10
    policies: str = "shared"
    timesteps: int = 200_000
    seed: int = 0
    out: str | None = None
    resume: str | None = None
    address: str | None = None
    num_cpus: int | None = None
    num_env_runners: int = 1
    num_envs_per_env_runner: int = 8
    rollout_fragment_length: int = 32
    train_batch_size: int = 4000
    minibatch_size: int = 256
    num_epochs: int = 6
    learning_rate: float = 3e-4
    gamma: float = 1.0
    gae_lambda: float = 0.95
    ent_coef: float = 0.01
    clip_param: float = 0.2
    vf_clip_param: float = 1000.0
    net_arch: list[int] = field(default_factory=lambda: [64, 64])
    checkpoint_every: int = 10
    eval_rounds: int = 1000
    eval_seed: int | None = None
    threads: int = 1
    progress: bool = True
    max_iterations: int | None = None
    episodes_to_numpy: bool | None = None
    """``None``: on with remote env runners, off when sampling in the driver (see :func:`build_config`)."""

    def validate(self) -> None:
        """Refuse impossible settings before anything is started; every message names the option.

        Raises:
            RLlibTrainingError: naming the option, what it expects and what it got.
        """

        def need(ok: bool, option: str, expected: str, value: Any) -> None:
            if not ok:
                raise RLlibTrainingError(f"{option}: expected {expected}, got {value!r}")

        need(isinstance(self.seats, int) and 1 <= self.seats <= 9, "--seats", "an integer in 1..9", self.seats)
        need(self.episode in EPISODES, "--episode", f"one of {list(EPISODES)}", self.episode)
        need(self.session_rounds >= 1, "--session-rounds", "an integer >= 1", self.session_rounds)
        need(self.policies in POLICY_LAYOUTS, "--policies", f"one of {list(POLICY_LAYOUTS)}", self.policies)
        need(self.timesteps >= 1, "--timesteps", "an integer >= 1", self.timesteps)
        need(self.num_env_runners >= 0, "--num-env-runners", "an integer >= 0 (0 samples in the driver)",
             self.num_env_runners)
        need(self.num_envs_per_env_runner >= 1, "--num-envs-per-env-runner", "an integer >= 1",
             self.num_envs_per_env_runner)
        need(self.rollout_fragment_length >= 1, "--rollout-fragment-length", "an integer >= 1",
             self.rollout_fragment_length)
        need(self.train_batch_size >= 1, "--train-batch-size", "an integer >= 1", self.train_batch_size)
        need(1 <= self.minibatch_size <= self.train_batch_size, "--minibatch-size",
             f"an integer in 1..--train-batch-size ({self.train_batch_size})", self.minibatch_size)
        need(self.num_epochs >= 1, "--num-epochs", "an integer >= 1", self.num_epochs)
        # A non-finite rate or bonus passes a plain comparison but turns the weights into NaN after iteration 1.
        need(math.isfinite(self.learning_rate) and self.learning_rate > 0, "--lr", "a finite number > 0",
             self.learning_rate)
        need(0 < self.gamma <= 1, "--gamma", "a number in (0, 1]", self.gamma)
        need(0 <= self.gae_lambda <= 1, "--gae-lambda", "a number in [0, 1]", self.gae_lambda)
        need(math.isfinite(self.ent_coef) and self.ent_coef >= 0, "--ent-coef", "a finite number >= 0",
             self.ent_coef)
        need(bool(self.net_arch) and all(int(width) >= 1 for width in self.net_arch), "--net-arch",
             "comma-separated positive widths such as 64,64", self.net_arch)
        need(self.checkpoint_every >= 0, "--checkpoint-every", "an integer >= 0 (0: only the final checkpoint)",
             self.checkpoint_every)
        need(self.eval_rounds >= 0, "--eval-rounds", "an integer >= 0", self.eval_rounds)
        need(self.num_cpus is None or self.num_cpus >= 1, "--num-cpus", "an integer >= 1", self.num_cpus)
        need(self.threads >= 1, "--threads", "an integer >= 1", self.threads)
        # RLlib seeds numpy/torch with these; outside 0..2**32-1 it fails only after Ray started.
        need(0 <= self.seed <= MAX_SEED, "--seed", f"an integer in 0..{MAX_SEED}", self.seed)
        need(self.eval_seed is None or 0 <= self.eval_seed <= MAX_SEED, "--eval-seed", f"an integer in 0..{MAX_SEED}",
             self.eval_seed)
        if self.eval_seed is None:  # the default eval seed is seed + 10000, which must fit too
            need(self.seed + 10_000 <= MAX_SEED, "--seed", f"an integer in 0..{MAX_SEED - 10_000} without --eval-seed "
                 "(the eval seed defaults to seed + 10000)", self.seed)
        # 0 or less would still run one iteration (the loop checks after training).
        need(self.max_iterations is None or self.max_iterations >= 1, "--max-iterations", "an integer >= 1",
             self.max_iterations)
        if self.address is None:
            # Each env runner holds one core; more runners than the local instance has cores wait for
            # a core for ever, without a message.
            cores = self.num_cpus or os.cpu_count() or 1
            need(self.num_env_runners <= cores, "--num-env-runners",
                 f"0..{cores} (--num-cpus {cores}) for a local run", self.num_env_runners)
        self._check_batch_divisibility()
        # The run folder is made after Ray started; a file in its place would fail there with a traceback.
        out = self.run_dir()
        for path in (out, *out.parents):
            if path.exists():
                need(path.is_dir(), "--out", "a folder (new or existing)",
                     f"{self.out or out} ({path} is a file)" if path != out else str(self.out or out))
                break
        if self.address is not None and self.num_cpus is not None:
            raise RLlibTrainingError(
                f"--num-cpus ({self.num_cpus}) sizes a local Ray instance; with --address {self.address!r} the "
                "cluster's own resources are used (set them with `ray start --num-cpus`)"
            )

    def _check_batch_divisibility(self) -> None:
        """RLlib's own rule (``validate_train_batch_size_vs_rollout_fragment_length``), checked before Ray starts.

        Each sampling call yields ``rollout_fragment_length x num_envs_per_env_runner x max(1, num_env_runners)``
        steps; RLlib refuses a ``train_batch_size`` that whole calls cannot reach within 10%.
        """
        if not fits_batch(self.train_batch_size, self.rollout_fragment_length, self.num_envs_per_env_runner,
                          self.num_env_runners):
            tables = self.num_envs_per_env_runner * max(1, self.num_env_runners)
            unit = tables * self.rollout_fragment_length
            fixes = []
            # RLlib's own hint (batch // tables) can itself fail the 10% rule; offer only values that pass.
            for fragment in (-(-self.train_batch_size // tables), self.train_batch_size // tables):
                if fragment >= 1 and fits_batch(self.train_batch_size, fragment, self.num_envs_per_env_runner,
                                                self.num_env_runners):
                    fixes.append(f"--rollout-fragment-length {fragment}")
                    break
            batch = max(unit, round(self.train_batch_size / unit) * unit)
            if batch >= self.minibatch_size:
                fixes.append(f"--train-batch-size {batch}")
            raise RLlibTrainingError(
                f"--train-batch-size: expected a multiple (within 10%) of --rollout-fragment-length "
                f"({self.rollout_fragment_length}) x tables per sampling call ({tables}: --num-envs-per-env-runner "
                f"x max(1, --num-env-runners)) = {unit}, got {self.train_batch_size}"
                + (f"; try {' or '.join(fixes)}" if fixes else "")
            )

    @property
    def num_rounds(self) -> int:
        """Rounds per episode: 1, or ``session_rounds`` for session episodes."""
        return 1 if self.episode == "round" else self.session_rounds

    def run_dir(self) -> Path:
        """``--out``, else ``runs/<rules>-rllib``."""
        return Path(self.out) if self.out else Path("runs") / f"{self.rules}-rllib"


# ------------------------------------------------------------------------------------- table


def build_rules(settings: RLlibSettings) -> Any:
    """The rules of the run, resolved once here so that a bad preset or option fails before Ray starts."""
    from pontoon_env.game.rules import resolve_rules

    return resolve_rules(settings.rules, settings.options)


def env_config(settings: RLlibSettings) -> dict[str, Any]:
    """The ``env_config`` of :class:`PontoonMultiAgentEnv` (plain JSON values, shipped to every actor)."""
    rules = build_rules(settings)
    return {
        "rules": dataclasses.asdict(rules),
        "num_players": settings.seats,
        "num_rounds": settings.num_rounds,
    }


def table_layout(settings: RLlibSettings) -> dict[str, Any]:
    """What a checkpoint needs to play again: rules, size, observation and action layout, policies."""
    from pontoon_env.encoding import ActionTable, ObservationEncoder
    from pontoon_env.game.engine import PontoonGame

    rules = PontoonGame(build_rules(settings), settings.seats, seed=0, banker=0).rules  # 2 decks above 7 players
    table = ActionTable(rules)
    encoder = ObservationEncoder(rules, settings.seats + 1)
    return {
        "rules": dataclasses.asdict(rules),
        "num_players": settings.seats,
        "num_rounds": settings.num_rounds,
        "episode": settings.episode,
        "obs_size": encoder.size,
        "n_actions": table.n,
        "action_names": table.names,
        "policies": settings.policies,
        "modules": module_ids(settings.policies, settings.seats),
        "action_levels": table.config(),
    }


# --------------------------------------------------------------------------------------- Ray


def _check_reachable(address: str) -> None:
    """Fail in seconds, with the address in the message, when nothing listens at ``host:port``.

    ``ray.init`` itself retries an unreachable head node for minutes before it gives up.
    """
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RLlibTrainingError(
            f"--address: expected host:port of a Ray head node (as printed by `ray start --head`), 'auto', or "
            f"ray://host:port, got {address!r}"
        )
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as error:
        raise RLlibTrainingError(
            f"--address {address!r}: no Ray head node answers there ({error}); expected the address printed by "
            "`ray start --head` on the head machine (default port 6379), reachable from this one"
        ) from None


def preflight(settings: RLlibSettings) -> Any:
    """Check, in seconds and before any file is written, that Ray is installed and ``--address`` answers.

    Also sets the environment switches a local run needs before Ray starts: no usage reporting,
    and a single-node instance on the loopback interface.

    Raises:
        RayMissingError: Ray RLlib is not installed (the message names the extra).
        RLlibTrainingError: the address is malformed or nothing listens there.
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if settings.address is None:
        os.environ.setdefault(LOOPBACK_ENV, "0")
    else:
        if settings.address != "auto":
            _check_reachable(settings.address)
        # A cluster started by `ray start --head` uses token authentication when a token exists; Ray
        # turns it on by itself for a local start only, so do the same for a driver that joins.
        if AUTH_MODE_ENV not in os.environ and _token_available():
            os.environ[AUTH_MODE_ENV] = "token"
            _refresh_ray_config()
    return require_ray()


def _refresh_ray_config() -> None:
    """Make an already imported Ray re-read its settings from the environment (as Ray does for token mode)."""
    import sys

    if "ray" not in sys.modules:
        return  # it will read them when it is imported
    try:
        from ray._raylet import Config

        Config.initialize("")
    except (ImportError, AttributeError):
        pass


def _token_available() -> bool:
    """Whether this machine holds a Ray cluster token (the variables Ray reads, or ``~/.ray/auth_token``)."""
    if os.environ.get("RAY_AUTH_TOKEN") or os.environ.get("RAY_AUTH_TOKEN_PATH"):
        return True
    return (Path.home() / ".ray" / "auth_token").is_file()


def connect(settings: RLlibSettings) -> tuple[Any, bool]:
    """Start or join Ray as ``settings`` say; return the ``ray`` module and whether this call connected.

    When Ray was already initialised in this process (a caller's own session), it is used as it
    is and the caller keeps it: ``train`` disconnects only what it connected.

    Local runs bind to 127.0.0.1 only and start no dashboard or usage reporting; nothing leaves
    the machine. ``--address`` joins a cluster after :func:`_check_reachable`.

    Raises:
        RayMissingError: Ray RLlib is not installed.
        RLlibTrainingError: the address is malformed or does not answer, or Ray refuses it.
    """
    ray = preflight(settings)
    if os.environ.get(LOOPBACK_ENV) == "0":
        # A loopback instance (every local run; a head started on one machine with the same switch).
        # Ray reads the switch when it is imported; it may have been imported before it was set.
        try:
            import ray._private.ray_constants as ray_constants

            ray_constants.ENABLE_RAY_CLUSTER = False
        except (ImportError, AttributeError):
            pass
    if ray.is_initialized():
        return ray, False
    # Every node runs the same set-up (scripts/setup_rllib.sh), so workers import this package as installed.
    kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    if settings.address is None:
        kwargs["num_cpus"] = settings.num_cpus or os.cpu_count() or 1
    try:
        ray.init(address=settings.address, **kwargs)
    except Exception as error:  # ConnectionError, AuthenticationError, RuntimeError ...: one message each
        if settings.address is None:
            raise
        hint = ""
        if "auth" in f"{type(error).__name__} {error}".lower():
            hint = (
                "; the cluster uses token authentication: copy the head node's ~/.ray/auth_token to this machine "
                f"(or set RAY_AUTH_TOKEN) and run with {AUTH_MODE_ENV}=token"
            )
        raise RLlibTrainingError(
            f"--address {settings.address!r}: Ray could not join the cluster ({type(error).__name__}: {error}); "
            f"expected a cluster started with `ray start --head` running Ray {RAY_VERSION}{hint}"
        ) from None
    return ray, True


# ------------------------------------------------------------------------------------- PPO


def mapping_fn(policies: str) -> Callable[..., str]:
    """RLlib's ``policy_mapping_fn``: agent id → module id by the decision's role (picklable)."""
    import functools

    return functools.partial(_map_agent, policies=policies, fn=module_for_agent)


def _map_agent(agent_id: str, episode: Any = None, *, policies: str, fn: Callable[..., str], **_: Any) -> str:
    return fn(agent_id, policies)


def build_config(settings: RLlibSettings) -> Any:
    """The ``PPOConfig`` of a run (new API stack: RLModule, Learner, EnvRunner).

    Two choices are not RLlib's defaults, both measured on this environment:

    * ``disable_env_checking``: RLlib's pre-check steps the env with an *unmasked* random action,
      which the table rightly refuses as illegal;
    * ``episodes_to_numpy`` off when the driver samples (``num_env_runners=0``): RLlib 2.60
      converts every finished episode of a ``sample()`` call to numpy again after each env step,
      quadratic in the episodes of a call, and a driver's call gathers the whole batch of
      one-round (about six-decision) episodes. With remote runners it stays on: each call holds
      only ``rollout_fragment_length`` steps per table, and numpy episodes are much cheaper to
      ship to the driver, which is what lets runners scale (docs/rllib.md has the measurements).
    """
    require_ray()
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from pontoon_tools.rllib.env import PontoonMultiAgentEnv
    from agents.rllib_module import MaskedPPOTorchRLModule

    modules = module_ids(settings.policies, settings.seats)
    model_config = {
        "fcnet_hiddens": [int(width) for width in settings.net_arch],
        "fcnet_activation": "tanh",
        "vf_share_layers": False,
    }
    spec = MultiRLModuleSpec(
        rl_module_specs={
            module: RLModuleSpec(module_class=MaskedPPOTorchRLModule, model_config=model_config) for module in modules
        }
    )
    return (
        PPOConfig()
        .environment(env=PontoonMultiAgentEnv, env_config=env_config(settings), disable_env_checking=True)
        .env_runners(
            num_env_runners=settings.num_env_runners,
            num_envs_per_env_runner=settings.num_envs_per_env_runner,
            rollout_fragment_length=settings.rollout_fragment_length,
            num_cpus_per_env_runner=1,
            episodes_to_numpy=(
                settings.num_env_runners > 0 if settings.episodes_to_numpy is None else settings.episodes_to_numpy
            ),
        )
        # A list, not a set: a set's order follows PYTHONHASHSEED, and RLlib builds (and seeds) the
        # modules in this order, so the same --seed would train differently from run to run.
        .multi_agent(policies=list(modules), policy_mapping_fn=mapping_fn(settings.policies),
                     policies_to_train=list(modules))
        .rl_module(rl_module_spec=spec)
        .learners(num_learners=0)
        .training(
            train_batch_size_per_learner=settings.train_batch_size,
            minibatch_size=settings.minibatch_size,
            num_epochs=settings.num_epochs,
            lr=settings.learning_rate,
            gamma=settings.gamma,
            lambda_=settings.gae_lambda,
            entropy_coeff=settings.ent_coef,
            clip_param=settings.clip_param,
            vf_clip_param=settings.vf_clip_param,
        )
        # Caps the episodes of one sampling call that count (200 / runners each); RLlib 2.60 empties the
        # window at every report, so it does not smooth across iterations (see iteration_row).
        .reporting(metrics_num_episodes_for_smoothing=200)
        .debugging(seed=settings.seed, log_level="ERROR")
    )


# ------------------------------------------------------------------------------ bookkeeping


def library_versions() -> dict[str, str]:
    """Versions of the libraries a run depends on (recorded in config.json)."""
    from importlib.metadata import PackageNotFoundError, version

    versions = {"python": platform.python_version()}
    # Read from the installed metadata: importing Ray here would fix its settings before preflight().
    for name in ("numpy", "gymnasium", "torch", "ray", "pettingzoo", "pontoon-env"):
        try:
            versions[name.replace("-", "_")] = version(name)
        except PackageNotFoundError:
            versions[name.replace("-", "_")] = "missing"
    return versions


def run_config(settings: RLlibSettings) -> dict[str, Any]:
    """``config.json``: the table layout (what loading checks), the settings, the versions."""
    return {
        "backend": "rllib",
        "algo": "ppo",
        "role": "both",
        **table_layout(settings),
        "checkpoint": "checkpoint",
        "settings": dataclasses.asdict(settings),
        "versions": library_versions(),
    }


COMPATIBILITY_KEYS = ("num_players", "num_rounds", "obs_size", "n_actions", "action_names", "policies", "modules")


def adopt_resume_net_arch(settings: RLlibSettings, log: Callable[[str], None] = print) -> None:
    """Take the checkpoint's ``--net-arch`` when the flag was left at its default; refuse a different one.

    The modules are rebuilt from ``--net-arch`` before the checkpoint's weights are loaded into them,
    so another width fails in RLlib with a size-mismatch traceback (train.py's SB3 path does the same).

    Raises:
        RLlibTrainingError: ``--net-arch`` given and not the checkpoint's, or no readable checkpoint.
    """
    from agents.rllib_policy import RLlibCheckpointError, read_rllib_config

    try:
        saved = read_rllib_config(settings.resume)
    except RLlibCheckpointError as error:
        raise RLlibTrainingError(f"--resume: {error}") from None
    trained = (saved.get("settings") or {}).get("net_arch")
    if not trained:
        return
    trained = [int(width) for width in trained]
    wanted = [int(width) for width in settings.net_arch]
    if wanted == trained:
        return
    if wanted == RLlibSettings().net_arch:
        settings.net_arch = trained
        log(f"--resume {settings.resume}: using the checkpoint's --net-arch {','.join(map(str, trained))}")
        return
    raise RLlibTrainingError(
        f"--net-arch: expected the checkpoint's {','.join(map(str, trained))} with --resume {settings.resume!r} "
        f"(or leave it out), got {','.join(map(str, wanted))}"
    )


def check_resume(path: str, config: Mapping[str, Any]) -> Path:
    """The checkpoint folder to resume from, if it matches this run's table, layout and policies.

    Raises:
        RLlibTrainingError: no checkpoint there, or one made for another preset, size or layout.
    """
    from agents.rllib_policy import RLlibCheckpointError, _checkpoint_dir, read_rllib_config

    try:
        saved = read_rllib_config(path)
    except RLlibCheckpointError as error:
        raise RLlibTrainingError(f"--resume: {error}") from None
    if saved["rules"].get("preset") != config["rules"].get("preset"):
        raise RLlibTrainingError(
            f"--resume {path!r}: trained for preset {saved['rules'].get('preset')!r}, this run plays "
            f"{config['rules'].get('preset')!r}"
        )
    # Any rules option, not only the preset: a checkpoint trained with stick_min=15 learned that game.
    # Both as config.json holds them (tuples become lists), so only real differences count.
    trained_rules = json.loads(json.dumps(saved["rules"] or {}, default=str))
    rules = json.loads(json.dumps(config["rules"], default=str))
    differing = sorted(key for key in set(trained_rules) | set(rules) if trained_rules.get(key) != rules.get(key))
    if differing:
        raise RLlibTrainingError(
            f"--resume {path!r}: expected the checkpoint's rules options, got other values for "
            + ", ".join(f"{key} (checkpoint {trained_rules.get(key)!r}, this run {rules.get(key)!r})"
                        for key in differing)
        )
    for key in COMPATIBILITY_KEYS:
        if saved.get(key) != config.get(key):
            raise RLlibTrainingError(
                f"--resume {path!r}: the checkpoint has {key}={saved.get(key)!r}, this run has {config.get(key)!r}"
            )
    checkpoint = _checkpoint_dir(path)
    assert checkpoint is not None
    _check_module_files(path, checkpoint, saved["modules"])
    return checkpoint


def _check_module_files(path: str, checkpoint: Path, modules: list[str]) -> None:
    """Every module the config lists has a readable weights file, checked before any file is written.

    RLlib restores only the modules it finds (a missing one would train from scratch, silently)
    and a damaged file fails deep in the restore, after the run folder was made.
    """
    import pickle

    from agents.rllib_policy import MODULE_DIR

    for module in modules:
        state = checkpoint.joinpath(*MODULE_DIR, module, "module_state.pkl")
        if not state.is_file():
            raise RLlibTrainingError(
                f"--resume {path!r}: expected module {module!r} (listed in its config.json) at {str(state)!r}, "
                "got no such file"
            )
        try:
            with state.open("rb") as handle:
                pickle.load(handle)  # the file RLlib itself would unpickle on restore
        except Exception as error:  # UnpicklingError, EOFError, ...: a truncated or foreign file
            raise RLlibTrainingError(
                f"--resume {path!r}: module {module!r} file {str(state)!r} is unreadable "
                f"({type(error).__name__}: {error})"
            ) from None


def _scalar(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def iteration_row(result: Mapping[str, Any], iteration: int, wall_s: float) -> dict[str, Any]:
    """One line of the learning curve from an RLlib result dict.

    ``banker_return``: the banker's mean return per episode; ``player_return``: the mean return of
    one player seat per episode (the mean over the player agent ids); both in chips / min stake.
    They are means over the episodes that *ended during this iteration*, not over the last 200:
    RLlib 2.60 empties its ``metrics_num_episodes_for_smoothing`` window each time it reports (each
    sampling call, then each iteration), so the window only caps one call's episodes, and the
    driver averages the calls' means (a mean of means). None when no episode ended (a session
    episode can outlast an iteration).
    ``steps_per_s``: decisions sampled this iteration per second of the whole iteration
    (sampling and learning; RLlib's own timers are smoothed over iterations, so they are not used).
    """
    runners = result.get("env_runners", {})
    modules = {str(k): _scalar(v) for k, v in (runners.get("module_episode_returns_mean") or {}).items()}
    agents = {str(k): _scalar(v) for k, v in (runners.get("agent_episode_returns_mean") or {}).items()}
    players = [v for k, v in agents.items() if k.startswith("player_") and v is not None]
    sampled = _scalar(runners.get("num_env_steps_sampled")) or 0.0
    iteration_s = _scalar(result.get("time_this_iter_s"))
    row = {
        "iteration": iteration,
        "env_steps": int(_scalar(result.get("num_env_steps_sampled_lifetime")) or 0),
        "episodes": int(_scalar(runners.get("num_episodes_lifetime")) or 0),
        "banker_return": modules.get("banker"),
        "player_return": float(np.mean(players)) if players else None,
        "steps_per_s": round(sampled / iteration_s, 1) if iteration_s else None,
        "wall_s": round(wall_s, 2),
    }
    for module, value in sorted(modules.items()):
        row[f"return[{module}]"] = value
    return row


PROGRESS_FIELDS = ("iteration", "env_steps", "episodes", "banker_return", "player_return", "steps_per_s", "wall_s")
EVAL_FIELDS = ("policy", "iteration", "env_steps", "player_ev", "player_ci95", "banker_ev", "banker_ci95")


def progress_fields(settings: RLlibSettings) -> list[str]:
    """``progress.csv``'s columns, all known before the first row: the fixed ones, then one return per module.

    A module's return is missing from iterations in which none of its episodes ended (a session
    episode can outlast an iteration), so the header cannot be taken from the first row.
    """
    return [*PROGRESS_FIELDS, *(f"return[{module}]" for module in sorted(module_ids(settings.policies, settings.seats)))]


def _append_csv(path: Path, row: Mapping[str, Any], fields: Sequence[str]) -> None:
    """Append ``row`` under the fixed header ``fields`` (a missing value is an empty cell).

    A file with another header (one written before the columns were fixed) is rewritten under
    ``fields`` first, so that every row of the file lines up with its header.
    """
    fields = list(fields)
    if path.exists():
        with path.open(newline="") as handle:
            header = next(csv.reader(handle), [])
        if header != fields:
            _rewrite_csv(path, fields, lambda row: True)
    new = not path.exists()
    with path.open("a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerow({key: ("" if row.get(key) is None else row.get(key)) for key in fields})


def _rewrite_csv(path: Path, fields: Sequence[str], keep: Callable[[dict[str, str]], bool]) -> None:
    """Rewrite ``path`` under the header ``fields`` with only the rows ``keep`` accepts."""
    with path.open(newline="") as handle:
        rows = [row for row in csv.DictReader(handle) if keep(row)]
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fields), extrasaction="ignore", restval="")
        writer.writeheader()
        for row in rows:
            writer.writerow({key: ("" if row.get(key) is None else row.get(key)) for key in fields})


# ------------------------------------------------------------------------------ run folder


RUN_FILES = ("config.json", "progress.csv", "eval_history.csv", "summary.json", "checkpoint", "checkpoints")
"""What a run writes into its folder besides ``tb/`` (TensorBoard keeps the events of every run, as train.py's does)."""


@dataclass
class RunFolder:
    """Where a run writes and what it does first with what the folder already holds (see :func:`plan_run_folder`)."""

    path: Path
    replace: bool = False
    """The folder holds an earlier run (or an earlier try of the same ``--resume``): its files go first."""
    in_place: bool = False
    """``--resume`` of a checkpoint of the run in this folder: its learning curve goes on."""

    def prepare(self, config: Mapping[str, Any], log: Callable[[str], None]) -> Path:
        """Clear what :attr:`replace` says, make the folder and write ``config.json``.

        The config goes first, so that a run that crashes can still be inspected.
        """
        if self.replace:
            log(f"replacing the earlier run in {self.path}")
            for name in RUN_FILES:
                target = self.path / name
                if target.is_dir():
                    shutil.rmtree(target)
                else:
                    target.unlink(missing_ok=True)
        self.path.mkdir(parents=True, exist_ok=True)
        (self.path / "config.json").write_text(json.dumps(config, indent=2, default=str) + "\n")
        return self.path

    def continue_from(self, iteration: int) -> None:
        """After an in-place resume at ``iteration``: drop the curve's rows after it (they are trained again).

        Only a run that stopped part-way has such rows (:func:`plan_run_folder` refused a finished
        run's folder); keeping them would number two iterations alike.
        """
        if not self.in_place:
            return
        for name in ("progress.csv", "eval_history.csv"):
            path = self.path / name
            if path.is_file():
                with path.open(newline="") as handle:
                    header = next(csv.reader(handle), [])
                _rewrite_csv(path, header, lambda row: _iteration_of(row) <= iteration)


def _iteration_of(row: Mapping[str, Any]) -> int:
    try:
        return int(row.get("iteration") or 0)
    except ValueError:
        return 0


def _checkpoint_iteration(checkpoint: Path) -> int | None:
    """The training iteration a checkpoint was saved at (recorded in its ``config.json`` by :func:`_save`).

    ``None`` for a checkpoint saved before the iteration was recorded; RLlib's own counter then
    says it once the checkpoint is restored.
    """
    try:
        value = json.loads((checkpoint / "config.json").read_text()).get("iteration")
    except (OSError, ValueError, AttributeError):
        return None
    return int(value) if isinstance(value, int) else None


def _run_folder_of(checkpoint: Path) -> Path:
    """The run folder a checkpoint belongs to: the one above ``checkpoints/`` for a periodic one."""
    folder = checkpoint.resolve().parent
    if folder.name == "checkpoints" and (folder.parent / "config.json").is_file():
        folder = folder.parent
    return folder


def plan_run_folder(settings: RLlibSettings, resume_from: Path | None) -> RunFolder:
    """What to do with ``--out`` before anything is written; refuse what would mix two runs.

    As train.py does with its run folders:

    * a fresh run into a folder that holds an earlier run replaces it (its config, curves,
      summary and checkpoints go first; ``tb/`` keeps both), so no file of the old run is read or
      appended to as this one's;
    * ``--resume`` of a checkpoint of the run in ``--out`` continues that run there: the iterations,
      ``progress.csv``, ``eval_history.csv`` and ``checkpoints/iter_N`` go on from the checkpoint's
      iteration; refused when the folder's own ``checkpoint/`` is from a later iteration (resuming
      an earlier one would overwrite it);
    * ``--resume`` into a folder that holds another run is refused, unless that run was the same
      ``--resume`` (it stopped part-way): it starts over there.

    Raises:
        RLlibTrainingError: naming ``--out``, when the folder holds a run this one must not touch.
    """
    out = settings.run_dir()
    if not any((out / name).exists() for name in RUN_FILES):
        return RunFolder(out)
    try:
        held = json.loads((out / "config.json").read_text())
    except (OSError, ValueError):
        held = {}  # a run that stopped before its config was whole
    if not isinstance(held, dict):
        held = {}
    if held and held.get("backend") != "rllib":
        raise RLlibTrainingError(
            f"--out: expected a new folder or a train_rllib.py run folder, got {str(out)!r}, which holds a run of "
            "another command (its config.json is not backend 'rllib'); pass a new folder"
        )
    if resume_from is None:
        return RunFolder(out, replace=True)
    if _run_folder_of(resume_from) == out.resolve():
        resumed = _checkpoint_iteration(resume_from)
        final = _checkpoint_iteration(out / "checkpoint")
        if resumed is not None and final is not None and final > resumed:
            raise RLlibTrainingError(
                f"--out: resuming the checkpoint of iteration {resumed} ({str(resume_from)!r}) into its own run "
                f"folder {str(out)!r} would overwrite that run's checkpoint/ and learning curve, trained to "
                f"iteration {final}; pass a new folder to --out"
            )
        return RunFolder(out, in_place=True)
    from agents.rllib_policy import _checkpoint_dir

    earlier = (held.get("settings") or {}).get("resume")
    earlier_checkpoint = _checkpoint_dir(earlier) if earlier else None
    if earlier_checkpoint is not None and earlier_checkpoint.resolve() == resume_from.resolve():
        return RunFolder(out, replace=True)  # the same resume again (the first try stopped part-way)
    raise RLlibTrainingError(
        f"--out: expected a new folder (or the resumed run's own) for --resume, got {str(out)!r}, which holds "
        "another run; pass a new folder to --out"
    )


# -------------------------------------------------------------------------------- evaluation


def round_result(game: Any, seat: int) -> float:
    """The seat's chips from the finished round's report (``result`` where the engine gives it, else ``net``)."""
    report = game.round_report()
    per_seat = report.get("result", report.get("net", {}))
    return float(per_seat.get(str(seat), 0))


def score_against_baselines(policy: Any, rules: Any, num_players: int, rounds: int, seed: int) -> dict[str, Any]:
    """EV per round (chips / min stake, 95% CI) of the trained banker and player against the scripted baselines.

    The player module sits in the seat on the banker's left against ``banker_threshold`` (the
    casino dealer under a fixed dealer rule) and ``threshold`` players; the banker module banks
    against ``threshold`` players. Fresh tables with a fixed banker, seeded per round, so the
    numbers of two checkpoints are measured on the same cards.
    """
    from agents.registry import default_banker_policy, default_player_policy
    from pontoon_env.game.engine import PontoonGame
    from pontoon_env.game.observation import observe

    out: dict[str, Any] = {}
    player_baseline, banker_baseline = default_player_policy(rules), default_banker_policy(rules)
    for role in ("player", "banker"):
        focus = 1 if role == "player" else 0
        seats = [banker_baseline] + [player_baseline] * num_players
        seats[focus] = policy
        values = np.zeros(rounds)
        for index in range(rounds):
            children = np.random.SeedSequence([seed, index]).spawn(num_players + 2)
            game = PontoonGame(rules, num_players, rng=np.random.default_rng(children[0]), banker=0)
            rngs = [np.random.default_rng(child) for child in children[1:]]
            game.new_round()
            while not game.is_round_over:
                seat = game.current_seat
                game.apply(seats[seat].act(observe(game, seat), game.legal_actions(), rngs[seat]))
            values[index] = round_result(game, focus) / rules.min_stake
        half = 1.96 * values.std(ddof=1) / math.sqrt(rounds) if rounds > 1 else float("nan")
        out[f"{role}_ev"] = round(float(values.mean()), 4)
        out[f"{role}_ci95"] = round(float(half), 4)
    return out


class ScriptedTable:
    """The scripted baselines as one policy: the default banker when its seat banks, else the default player.

    Scored by :func:`score_against_baselines` on the same cards as the trained modules, it is the
    reference line of ``eval_history.csv`` (the row with ``policy = scripted``).
    """

    name = "scripted"

    def __init__(self, rules: Any) -> None:
        from agents.registry import default_banker_policy, default_player_policy

        self.banker, self.player = default_banker_policy(rules), default_player_policy(rules)

    def act(self, view: Any, legal: Any, rng: np.random.Generator) -> Any:
        return (self.banker if view.is_banker else self.player).act(view, legal, rng)


def live_policy(algo: Any, settings: RLlibSettings) -> Any:
    """The algorithm's current modules as an :class:`agents.rllib_policy.RLlibPolicy`."""
    from agents.rllib_policy import RLlibPolicy

    from pontoon_env.game.rules import resolve_rules

    layout = table_layout(settings)
    modules = {module: algo.get_module(module) for module in module_ids(settings.policies, settings.seats)}
    return RLlibPolicy(modules, resolve_rules(layout["rules"]), settings.seats, policies=settings.policies,
                       name="rllib:live", action_levels=layout["action_levels"])


# ------------------------------------------------------------------------------------ train


def _save(algo: Any, folder: Path, config: Mapping[str, Any], iteration: int) -> Path:
    folder.parent.mkdir(parents=True, exist_ok=True)
    algo.save_to_path(str(folder.resolve()))
    # The iteration lets a later --resume check, before Ray starts, what it would continue or overwrite.
    (folder / "config.json").write_text(json.dumps({**config, "iteration": iteration}, indent=2, default=str) + "\n")
    return folder


def train(settings: RLlibSettings, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run a training as ``settings`` say; return a summary (run folder, checkpoint, last curve rows).

    A resumed run continues the checkpoint's iteration count: its ``progress.csv`` rows,
    ``eval_history.csv`` rows and ``checkpoints/iter_N`` are numbered on from there.

    Raises:
        RLlibTrainingError: bad settings, unreachable cluster, incompatible ``--resume``, an ``--out``
            folder holding a run this one must not touch.
        RayMissingError: Ray RLlib is not installed.
        RulesError: an unknown preset or rules option.
    """
    settings.validate()
    if settings.resume:
        adopt_resume_net_arch(settings, log)
    config = run_config(settings)  # resolves the rules: a bad preset fails before Ray starts
    resume_from = check_resume(settings.resume, config) if settings.resume else None
    folder = plan_run_folder(settings, resume_from)
    preflight(settings)
    # Ray first: a cluster that cannot be joined (--address auto with none running) leaves no half-made folder.
    ray, connected = connect(settings)
    algo = writer = None
    try:
        out = folder.prepare(config, log)
        import torch

        torch.set_num_threads(settings.threads)
        algo = build_config(settings).build_algo()
        start_iteration = 0
        if resume_from is not None:
            algo.restore_from_path(str(resume_from.resolve()))
            # RLlib restores its iteration counter with the checkpoint; the checkpoint's config says it too.
            start_iteration = int(getattr(algo, "iteration", 0) or 0) or (_checkpoint_iteration(resume_from) or 0)
            folder.continue_from(start_iteration)
            log(f"resumed from {resume_from} at iteration {start_iteration}")
        try:
            from tensorboardX import SummaryWriter

            writer = SummaryWriter(str(out / "tb"))
        except ImportError:  # TensorBoard logs are a convenience; progress.csv has the same numbers
            writer = None
        summary = _train_loop(algo, settings, config, out, writer, log, start_iteration)
        # Strict JSON: a one-round eval has an undefined CI (NaN), which is not JSON; it is written null.
        from pontoon_tools.evaluation import write_json

        write_json(summary, out / "summary.json")
        log(f"saved {out / 'checkpoint'} and {out / 'config.json'}")
        return summary
    finally:
        if writer is not None:
            writer.close()
        if algo is not None:
            algo.stop()
        if connected:  # a local instance stops; a cluster only loses this driver
            ray.shutdown()


def _train_loop(algo: Any, settings: RLlibSettings, config: Mapping[str, Any], out: Path, writer: Any,
                log: Callable[[str], None], start_iteration: int = 0) -> dict[str, Any]:
    """Iterate PPO until ``timesteps`` more decisions were sampled; log, checkpoint, score, save.

    Iterations are numbered on from ``start_iteration`` (a resumed checkpoint's); ``--max-iterations``
    and ``--timesteps`` count this run's own.
    """
    from pontoon_env.game.rules import resolve_rules

    rules = resolve_rules(config["rules"])
    eval_seed = settings.eval_seed if settings.eval_seed is not None else settings.seed + 10_000
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    evals: list[dict[str, Any]] = []
    sampled_at_start: int | None = None
    iteration = start_iteration
    fields = progress_fields(settings)
    if settings.eval_rounds and not (out / "eval_history.csv").exists():
        # The reference line: the scripted baselines themselves, on the same cards as every later score.
        reference = score_against_baselines(ScriptedTable(rules), rules, settings.seats, settings.eval_rounds, eval_seed)
        _append_csv(out / "eval_history.csv", {"policy": "scripted", "iteration": 0, "env_steps": 0, **reference},
                    EVAL_FIELDS)
        if settings.progress:
            log(f"scripted baselines on the eval cards ({settings.eval_rounds} rounds): player EV "
                f"{reference['player_ev']:+.3f} ± {reference['player_ci95']:.3f}, banker EV "
                f"{reference['banker_ev']:+.3f} ± {reference['banker_ci95']:.3f}")
    while True:
        result = algo.train()
        iteration += 1
        row = iteration_row(result, iteration, time.perf_counter() - started)
        if sampled_at_start is None:  # after a resume the lifetime counter starts at the checkpoint's
            this_iteration = int(_scalar(result.get("env_runners", {}).get("num_env_steps_sampled")) or 0)
            sampled_at_start = row["env_steps"] - this_iteration
        rows.append(row)
        _append_csv(out / "progress.csv", row, fields)
        if writer is not None:
            for key, value in row.items():
                if key not in ("iteration", "env_steps") and isinstance(value, (int, float)):
                    writer.add_scalar(f"pontoon/{key}", value, row["env_steps"])
        if settings.progress:
            log(
                f"iter {iteration:3d}  steps {row['env_steps']:>8,}  banker {_fmt(row['banker_return'])}  "
                f"player {_fmt(row['player_return'])}  {_fmt(row['steps_per_s'], 0)} steps/s"
            )
        done = row["env_steps"] - sampled_at_start >= settings.timesteps or (
            settings.max_iterations is not None and iteration - start_iteration >= settings.max_iterations
        )
        periodic = bool(settings.checkpoint_every) and iteration % settings.checkpoint_every == 0
        if periodic and not done:
            _save(algo, out / "checkpoints" / f"iter_{iteration}", config, iteration)
        if (periodic or done) and settings.eval_rounds:
            scores = score_against_baselines(live_policy(algo, settings), rules, settings.seats,
                                             settings.eval_rounds, eval_seed)
            evals.append({"policy": "rllib", "iteration": iteration, "env_steps": row["env_steps"], **scores})
            _append_csv(out / "eval_history.csv", evals[-1], EVAL_FIELDS)
            if writer is not None:
                for key, value in scores.items():
                    writer.add_scalar(f"eval/{key}", value, row["env_steps"])
            if settings.progress:
                log(f"  eval vs scripted baselines ({settings.eval_rounds} rounds): player EV "
                    f"{scores['player_ev']:+.3f} ± {scores['player_ci95']:.3f}, banker EV "
                    f"{scores['banker_ev']:+.3f} ± {scores['banker_ci95']:.3f}")
        if done:
            break
    _save(algo, out / "checkpoint", config, iteration)
    return {
        "run": str(out),
        "checkpoint": str(out / "checkpoint"),
        "iterations": iteration - start_iteration,  # this run's own; "last" holds the iteration counted on from a resume
        "env_steps": rows[-1]["env_steps"],
        "wall_s": round(time.perf_counter() - started, 1),
        "last": rows[-1],
        "eval": evals[-1] if evals else None,
    }


def _fmt(value: float | None, digits: int = 2) -> str:
    return "   n/a" if value is None else f"{value:+.{digits}f}" if digits else f"{value:.0f}"


__all__ = [
    "INSTALL_HINT",
    "RLlibSettings",
    "RLlibTrainingError",
    "RayMissingError",
    "build_config",
    "connect",
    "parse_option",
    "run_config",
    "score_against_baselines",
    "train",
]
