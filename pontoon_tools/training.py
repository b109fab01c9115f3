"""Train player and banker policies with Stable-Baselines3: the logic behind ``train.py``.

One run trains one role (``player`` or ``banker``) in the Gymnasium environment ``Pontoon-v0`` against
scripted or saved opponents, and writes a *run directory*::

    runs/pagat-player/
        model.zip            the final model (SB3 format)
        config.json          everything needed to rebuild the env and reload the model
        eval_history.csv     the learning curve: EV at fixed baseline tables during training
        eval_history.json    (same, as JSON)
        vecnormalize.pkl     reward-normalisation statistics (to resume training)
        checkpoints/         step_<N>.zip every --checkpoint-freq steps, each with its step_<N>.json config
                             and its reward normalisation (step_<N>.reward_scale.json / .vecnormalize.pkl)
        tb/                  TensorBoard logs (tensorboard --logdir runs/)

``--role both`` alternates: generation ``g`` trains the player against the banker of generation
``g-1`` (the scripted default banker for ``g = 1``), then the banker against that new player; each
generation's models are kept under ``gen_<g>/player`` and ``gen_<g>/banker``, each a run directory.

Illegal actions. ``lean_ppo`` (the default), ``lean_dqn`` and ``maskable_ppo`` never pick one: they
read the legal-action mask (sb3-contrib's ``MaskablePPO`` through ``action_masks()``) and give illegal
ids zero probability, in training and at play. PPO
and DQN cannot mask, so their environments are wrapped in :class:`LegalizeActions`: an illegal id is
*replaced by the first legal id* (the round goes on, so the real result of the hand is still
earned) and the step's reward is lowered by ``illegal_penalty`` stake units. We do not use the
environment's ``illegal_action="penalty"`` mode for training, because it ends the round: a learner
holding a bad hand with 10 chips staked would learn that an illegal move "loses" only the penalty,
i.e. it would learn to escape losses. Replacing keeps every round's payoff honest, and the penalty
makes the illegal id strictly worse than choosing its replacement directly, so the trained policy
puts its mass on legal ids (and :class:`agents.model.ModelPolicy` falls back to the most probable
legal id anyway).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import platform
import shutil
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

from agents.checkpoint import (
    CONFIG_FILE,
    MODEL_FILE,
    CheckpointError,
    action_levels,
    check_compatible,
    config_opponent,
    load_model,
    read_config,
    save_checkpoint,
)
from pontoon_env.encoding import resolve_amount
from pontoon_env.game.legality import stake_range
from pontoon_env.game.rules import PRESETS, Rules, resolve_rules
from pontoon_env.game.runner import decide
from pontoon_tools.evaluation import (
    check_role,
    check_scripted_role,
    estimate,
    guess_role,
    scripted_role,
    load_policy,
    play_match,
    write_json,
    write_rows,
)
from pontoon_tools.belief import DEFAULT_ROUNDS as BELIEF_ROUNDS
from pontoon_tools.belief import train_belief
from pontoon_tools.settings import flag, parse_int_list, parse_option, plural, setting, under_a_file

ALGOS = ("lean_ppo", "lean_dqn", "maskable_ppo", "ppo", "dqn", "belief")
LEAN = ("lean_ppo", "lean_dqn")
FEATURES = ("keep", "onehot", "seats", "hands", "std", "none")
SEAT_POOL_WIDTH = 64
"""The width of the learnt summary of the other seats (``--features seats``)."""
HAND_POOL_WIDTH = 64
"""The width of the learnt summary of the other players' hands (``--features hands``)."""
REWARD_SCALES = ("return_std", "none")
ROLES = ("player", "banker", "both")
EPISODES = ("round", "session")
VEC_ENVS = ("auto", "batched", "dummy", "subproc")
HISTORY_FILE = "eval_history"
VECNORM_FILE = "vecnormalize.pkl"
SCALER_FILE = "reward_scale.json"
PROGRESS_FILE = "progress.csv"


class TrainingError(ValueError):
    """A training run that cannot start as asked (a bad setting: the message names the flag, what
    it expects and what it got)."""


ROLE_DEFAULTS: dict[str, dict[str, Any]] = {
    # A player learns from scratch: a large entropy bonus falling to zero keeps buying explored
    # until the critic can tell where it pays (docs/training.md, "Exploration").
    "player": {"seats": 1, "ent_coef": 0.1, "ent_coef_final": 0.0, "warm_start": None},
    # A banker learns from scratch too (reinforcement learning alone); imitation stays available
    # (--warm-start banker_threshold) as a reference row of the ablation in docs/training.md.
    "banker": {"seats": 2, "ent_coef": 0.01, "ent_coef_final": 0.0, "warm_start": None},
}
"""Defaults that differ by role, used where a :class:`TrainSettings` field is left ``None``."""
ALGO_DEFAULTS: dict[str, dict[str, Any]] = {
    # The lean PPO: thousands of native tables, large minibatches, few epochs (docs/training.md,
    # "Ablation": what each of these buys, measured against the solver's optimum).
    "lean_ppo": {"n_envs": 4096, "n_steps": 16, "batch_size": 4096, "n_epochs": 2, "learning_rate": 3e-3,
                 "learning_rate_final": 3e-4, "timesteps": 20_000_000, "eval_freq": 2_000_000},
    # The lean double DQN: the same tables, one minibatch of 8,192 replayed transitions per step.
    "lean_dqn": {"n_envs": 4096, "n_steps": 1, "batch_size": 8192, "n_epochs": 1, "learning_rate": 1e-3,
                 "timesteps": 20_000_000, "eval_freq": 2_000_000},
    # Stable-Baselines3's algorithms keep the defaults they were tuned with on 16 environments.
    "sb3": {"n_envs": 16, "n_steps": 256, "batch_size": 512, "n_epochs": 20, "learning_rate": 3e-4,
            "timesteps": 300_000, "eval_freq": 50_000},
}
"""Defaults that differ by algorithm (``sb3``: maskable_ppo, ppo and dqn), used where a field is ``None``."""
# The belief banker (pontoon_tools/belief.py) counts showdowns: its steps are rounds, and nothing
# else here applies to it.
ALGO_DEFAULTS["belief"] = {**ALGO_DEFAULTS["sb3"], "timesteps": BELIEF_ROUNDS}
PRICING_DEFAULTS: dict[bool, dict[str, bool]] = {
    # Wherever a player buys, the stake is learnt over every level and the price of a card is left
    # to the PPO term: a buy and a twist draw the same card, but a buy keeps the next buy open (and
    # the card face down), which draw pricing, reading only the chips, does not see. Measured on
    # 2026-12-04 (docs/training.md): pagat 0.046 -> 0.026 on average over seeds; pontoon_1939
    # 0.092 -> 0.018 and 0.001; pontoon_2011 the same either way (0.024, 0.026).
    True: {"stake_expected": True, "draw_expected": False},
    # No buying (casino, shoot, the 1800s): the settings of before, with no price to learn.
    False: {"stake_expected": False, "draw_expected": True},
}
"""A player's per-chip signals by whether the rules allow buying (``Rules.allow_buy``), used where
the field is ``None``."""
BOTH_SEATS = 1
"""Players at the table with ``--role both`` (the player and banker models must share a table size; at
one player seat each side's exploitability is exact, :func:`both_report`)."""


# --------------------------------------------------------------------------------------------------
# Settings
# --------------------------------------------------------------------------------------------------


GAME, RUN, HYPER = "game", "run", "hyperparameters (defaults tuned for 2 CPU cores)"
"""The sections of ``train.py --help``."""


@dataclass
class TrainSettings:
    """Every option of a training run, each declared once: ``train.py``'s flags, types, defaults
    and help are derived from these fields (:mod:`pontoon_tools.settings`).

    The defaults are tuned to learn fast on two CPU cores (docs/training.md, "Defaults"): a small
    [64, 64] network, 16 environments stepped in one process, 4,096 steps per PPO update (256 per
    environment) in minibatches of 512 for 20 epochs, rewards normalised by a running estimate of
    the return's scale (stakes reach 10 chips and buys 70, so raw rewards are large and noisy),
    ``gamma = 1`` because a round is a short episode paid at its end. Fields left ``None`` take
    the role's default from :data:`ROLE_DEFAULTS` (see :meth:`for_role`).
    """

    # -- game
    rules: str = setting("pagat", f"rules preset: {', '.join(PRESETS)}", group=GAME, metavar="PRESET")
    options: dict[str, Any] = setting(
        help="override one rules option, e.g. --option stick_min=16 --option split_aces_only=true "
        "(repeatable; see docs/presets.md)",
        default_factory=dict, flag="--option", group=GAME, metavar="KEY=VALUE", parse=parse_option, repeat=True)
    seats: int | None = setting(
        None, "number of player seats besides the banker, 1-9; the model is tied to this table size (default: "
        f"{ROLE_DEFAULTS['player']['seats']} for a player, {ROLE_DEFAULTS['banker']['seats']} for a banker, "
        f"{BOTH_SEATS} with --role both)", group=GAME)
    role: str = setting("player", "what the learner plays: player, banker, or both (alternating generations)",
                        group=GAME, choices=ROLES)
    opponents: list[str] = setting(
        help="policies of the other seats: at most one player spec (drives every other player seat) and one "
        "banker spec; scripted names or saved checkpoints (.zip). Default: threshold players and "
        "banker_threshold (casino_dealer under casino)",
        default_factory=list, group=GAME, metavar="SPEC")
    episode: str = setting("round", "an episode is one round, or a session of --session-rounds rounds on one pack",
                           group=GAME, choices=EPISODES)
    session_rounds: int = setting(10, "rounds per session episode", group=GAME)
    learner_seat: int | None = setting(
        None, "a player learner's seat (1 = first to act); default: a random seat each episode", group=GAME)
    stake_levels: list[str] = setting(
        help="the initial-stake actions: chip amounts or min/max (default: four amounts spread over the stake "
        "range, 1, 4, 7, 10 on pagat)", default_factory=list, group=GAME, metavar="LEVEL")

    # -- run
    algo: str = setting("lean_ppo", "learning algorithm: lean_ppo (masked PPO on the native vector env, "
                        "pontoon_tools/ppo.py), lean_dqn (masked double DQN on the same env, pontoon_tools/dqn.py), "
                        "maskable_ppo (sb3-contrib), ppo and dqn (SB3); belief (a banker only: banker_smart's "
                        "optimal stopping on beliefs about the players' hands learnt from showdowns, "
                        "pontoon_tools/belief.py; its steps are rounds)",
                        group=RUN, choices=ALGOS)
    timesteps: int | None = setting(
        None, "learner decisions to train for, per role and generation; PPO and DQN collect whole rollouts, so a "
        f"run may take a few more (train.py says how many). Default: {ALGO_DEFAULTS['lean_ppo']['timesteps']:,} "
        f"for lean_ppo, {ALGO_DEFAULTS['sb3']['timesteps']:,} for the SB3 algorithms; for belief, rounds: "
        f"{BELIEF_ROUNDS:,}", group=RUN)
    seed: int = setting(0, "seed of the model and the environments", group=RUN)
    out: str | None = setting(
        None, "run directory (default runs/<rules>-<role>; with --resume and no --out: the checkpoint's directory)",
        group=RUN, metavar="DIR")
    generations: int = setting(2, "with --role both: player/banker generations", group=RUN)
    both_report: bool = setting(True, "with --role both: no per-generation report (each side's EV against the other, "
                                "its exploitability by an exact best response, generations.png)", group=RUN)
    both_rounds: int = setting(50_000, "with --role both: rounds each generation's player and banker play for the report",
                               group=RUN)
    resume: str | None = setting(
        None, "continue training a checkpoint (.zip or run directory) for --timesteps more steps; it must match the "
        "rules, table size, role, action layout and algorithm of this run", group=RUN, metavar="PATH")
    eval_freq: int | None = setting(
        None, "evaluate (and checkpoint) every N steps, 0 for timesteps / 10 (default "
        f"{ALGO_DEFAULTS['lean_ppo']['eval_freq']:,} for lean_ppo, {ALGO_DEFAULTS['sb3']['eval_freq']:,} for SB3)",
        group=RUN)
    eval_rounds: int = setting(2000, "rounds per evaluation at each baseline table, 0 to skip", group=RUN)
    eval_seed: int | None = setting(
        None, "seed of the evaluation rounds (default: seed + 10000, away from evaluate.py's seeds)", group=RUN)
    checkpoint_freq: int = setting(0, "save checkpoints/step_N.zip every N steps; 0: every --eval-freq steps",
                                   group=RUN, default_text="")
    progress: bool = setting(True, "no progress bar or eval printouts", group=RUN)
    verbose: int = setting(0, "SB3 verbosity (0, 1, 2)", group=RUN)

    # -- hyperparameters
    n_envs: int | None = setting(None, f"parallel environments (default {ALGO_DEFAULTS['lean_ppo']['n_envs']:,} "
                                 f"for lean_ppo, {ALGO_DEFAULTS['sb3']['n_envs']} for SB3)", group=HYPER)
    vec_env: str = setting("auto", "SB3 algorithms: auto: the batched engine where native, else dummy; batched; "
                           "dummy (this process); subproc (worker processes). lean_ppo always uses the native "
                           "vector env (the reference engine behind the same API where the rules are not native)",
                           group=HYPER, choices=VEC_ENVS)
    learning_rate: float | None = setting(
        None, f"learning rate (default {ALGO_DEFAULTS['lean_ppo']['learning_rate']} for lean_ppo, "
        f"{ALGO_DEFAULTS['sb3']['learning_rate']} for SB3)", group=HYPER, flag="--lr")
    learning_rate_final: float | None = setting(
        None, "lean_ppo: the learning rate at the end of training, reached linearly (default "
        f"{ALGO_DEFAULTS['lean_ppo']['learning_rate_final']} for lean_ppo; give the --lr value for a constant "
        "rate); lean_dqn: the same (default: constant)",
        group=HYPER, flag="--lr-final")
    n_steps: int | None = setting(None, "PPO: steps per environment per update (default "
                                  f"{ALGO_DEFAULTS['lean_ppo']['n_steps']} for lean_ppo, "
                                  f"{ALGO_DEFAULTS['sb3']['n_steps']} for SB3)", group=HYPER)
    batch_size: int | None = setting(None, f"minibatch size (default {ALGO_DEFAULTS['lean_ppo']['batch_size']:,} "
                                     f"for lean_ppo, {ALGO_DEFAULTS['sb3']['batch_size']} for SB3)", group=HYPER)
    n_epochs: int | None = setting(None, f"PPO: epochs per update (default {ALGO_DEFAULTS['lean_ppo']['n_epochs']} "
                                   f"for lean_ppo, {ALGO_DEFAULTS['sb3']['n_epochs']} for SB3)", group=HYPER)
    clip_range: float = setting(0.2, "PPO: clip range of the probability ratio", group=HYPER)
    vf_coef: float = setting(0.5, "PPO: weight of the value loss", group=HYPER)
    max_grad_norm: float = setting(0.5, "PPO: gradient-norm clip", group=HYPER)
    norm_adv: bool = setting(True, "lean_ppo: leave advantages unnormalised (default: zero mean, unit variance per "
                             "minibatch)", group=HYPER)
    stake_advantage: bool = setting(
        True, "lean_ppo, player: do not weight the advantages by the stake (default: every decision after the "
        "initial stake is weighted by max_stake / initial stake, so a 1-chip hand teaches the play of a hand as "
        "much as a 10-chip one; the ablation's best single change, docs/training.md; no effect for a banker or "
        "the SB3 algorithms)",
        group=HYPER)
    stake_expected: bool | None = setting(
        None, "lean_ppo, player: take the stake decision's policy gradient over every stake level at once "
        "(the expected stake times the round's return per chip staked) instead of through the sampled level "
        "(default: on wherever the rules allow buying, off where they do not; docs/training.md, \"The per-chip "
        "signals\")", group=HYPER,
        default_text="")
    draw_expected: bool | None = setting(
        None, "lean_ppo, player: learn the price of a card (twist or buy, given that the hand draws) from "
        "the hand's return per chip: each drawing decision moves every price's logit by the return per chip "
        "times the price less the policy's mean price, not scaled by its probability, so a buy the policy has "
        "all but given up comes back where it pays (default: off wherever the rules allow buying, where a buy "
        "also keeps the next buy open, which the price does not see; pontoon_tools/ppo.py, docs/training.md, "
        "\"The per-chip signals\")", group=HYPER,
        default_text="")
    round_credit: bool = setting(
        True, "lean_ppo, session episodes: let a decision's advantage and its per-chip signals run on to the end "
        "of the session (default: each round is credited as if it were an episode, nothing of the later rounds "
        "coming back, so their luck does not drown it; pontoon_tools/ppo.py, docs/training.md, \"Beyond the "
        "optimum\"; no effect in round episodes)", group=HYPER)
    ent_decay: float = setting(1.0, "share of training over which the entropy bonus falls from --ent-coef to "
                               "--ent-coef-final (then stays there)", group=HYPER)
    features: list[str] | None = setting(
        None, f"network inputs, any of {', '.join(FEATURES)}: keep = only the observation columns that vary in "
        "random play; onehot = add the hand being played (total, cards, buys) one-hot; seats = add a learnt "
        "summary of the other seats (one shared layer per seat, summed); hands = the same per hand, with each hand's "
        "card count and visible total one-hot; std = standardise each "
        "input by random-play statistics (keep and std look at 65,536 random-play decisions, or --timesteps "
        "if fewer); none = the observation as it is (PPO family). Default: keep onehot for "
        "a lean_ppo player (docs/training.md, \"Longer runs\"), keep onehot hands for a lean_ppo banker "
        "(\"A banker's inputs\"), none otherwise",
        group=HYPER, metavar="FEATURE", default_text="")
    trunk: list[int] = setting(help="hidden layers shared by actor and critic before --net-arch (PPO family), "
                               "comma-separated; default none", default_factory=list, group=HYPER,
                               parse=parse_int_list, metavar="WIDTHS", default_text="")
    gamma: float = setting(1.0, "discount", group=HYPER)
    gae_lambda: float = setting(0.95, "PPO: GAE lambda", group=HYPER)
    ent_coef: float | None = setting(
        None, "PPO: entropy bonus at the start of training (default: "
        f"{ROLE_DEFAULTS['player']['ent_coef']} for a player, {ROLE_DEFAULTS['banker']['ent_coef']} for a banker)",
        group=HYPER)
    ent_coef_final: float | None = setting(
        None, "PPO: entropy bonus at the end of training, reached linearly from --ent-coef (default "
        f"{ROLE_DEFAULTS['player']['ent_coef_final']})", group=HYPER)
    net_arch: list[int] = setting(help="hidden layer widths, comma-separated", default_factory=lambda: [64, 64],
                                  group=HYPER, parse=parse_int_list, metavar="WIDTHS")
    norm_reward: bool = setting(
        True, "train on raw rewards (default: rewards scaled by a running return std, VecNormalize)", group=HYPER)
    illegal_penalty: float = setting(1.0, "ppo/dqn: reward subtracted when an illegal id is replaced", group=HYPER)
    warm_start: str | None = setting(
        None, "before RL, imitate this policy for --warm-start-rounds rounds: behaviour cloning of the actor (with "
        "label smoothing, so every legal move keeps some probability) and Monte-Carlo fitting of the critic; "
        "'none' to learn from scratch (lean_ppo, ppo and maskable_ppo; default: "
        f"{ROLE_DEFAULTS['player']['warm_start'] or 'none'} for a player, "
        f"{ROLE_DEFAULTS['banker']['warm_start'] or 'none'} for a banker)", group=HYPER, metavar="SPEC")
    warm_start_rounds: int = setting(5_000, "rounds the warm-start policy plays", group=HYPER)
    warm_start_epochs: int = setting(30, "passes over the imitation data", group=HYPER)
    warm_start_smoothing: float = setting(
        0.1, "label smoothing of the imitation: the share of the target spread over the other legal moves",
        group=HYPER)
    threads: int = setting(1, "torch CPU threads (small networks gain nothing from more)", group=HYPER)
    buffer_steps: int = setting(64, "lean_dqn: steps of every table kept in the replay", group=HYPER)
    updates_per_step: int = setting(1, "lean_dqn: minibatch updates per step of the tables", group=HYPER)
    eps_final: float = setting(0.02, "lean_dqn: the exploration rate reached after --eps-decay of training", group=HYPER)
    eps_decay: float = setting(0.3, "lean_dqn: share of training over which exploration falls from 1", group=HYPER)
    tau: float = setting(0.01, "lean_dqn: Polyak weight of the online network in the target network per update",
                         group=HYPER)
    sampler: str = setting("auto", "lean_ppo: 'process' collects the next rollout in a sampler process while "
                           "this one updates (two cores busy, one update of policy lag); 'inline' alternates in one "
                           "process; 'auto': process from 256 tables on a machine with two cores or more",
                           group=HYPER, choices=("auto", "process", "inline"))

    def for_role(self, role: str) -> TrainSettings:
        """A copy with every role-dependent default (``None`` fields) filled in, see :data:`ROLE_DEFAULTS`."""
        filled = dataclasses.replace(self)
        algo_defaults = ALGO_DEFAULTS[self.algo if self.algo in ALGO_DEFAULTS else "sb3"]
        for name, value in algo_defaults.items():
            if getattr(filled, name) is None:
                setattr(filled, name, value)
        defaults = ROLE_DEFAULTS["banker" if role == "banker" else "player"]
        for name in ("ent_coef", "ent_coef_final"):
            if getattr(filled, name) is None:
                setattr(filled, name, defaults[name])
        if filled.warm_start is None:
            # DQN has no actor to imitate with; it learns from scratch whatever the role.
            filled.warm_start = defaults["warm_start"] if self.algo != "dqn" else None
        elif filled.warm_start.lower() == "none":
            filled.warm_start = None
        if filled.seats is None:
            filled.seats = BOTH_SEATS if self.role == "both" else defaults["seats"]
        if filled.stake_expected is None or filled.draw_expected is None:
            pricing = PRICING_DEFAULTS[build_rules(self.rules, self.options).allow_buy]
            for name, value in pricing.items():
                if getattr(filled, name) is None:
                    setattr(filled, name, value)
        if filled.features is None and role != "both":  # "both": each side's trainer fills its own
            # The hand being played one-hot lets the network tell a hard 11 (buy) from a hard 12
            # (never buy), which a scaled total makes one fine cut; only the columns that move keep
            # the first layer narrower than the raw observation's (docs/training.md, "Longer runs").
            # A banker's value of standing is a sum over the standing hands: one shared layer per
            # hand, summed, gives the network that structure (docs/training.md, "A banker's inputs").
            lean = {"player": ["keep", "onehot"], "banker": ["keep", "onehot", "hands"]}
            filled.features = list(lean.get(role, [])) if self.algo == "lean_ppo" else []
        if filled.features is not None:
            filled.features = [name for name in filled.features if name != "none"]
        if filled.out is None:
            filled.out = f"runs/{self.rules}-{self.role}"
        return filled

    def validate(self) -> None:
        """Raise :class:`TrainingError` naming the first invalid setting (its flag, what it expects, what it got)."""

        def check(ok: bool, name: str, expected: str) -> None:
            if not ok:
                raise TrainingError(f"{flag(TrainSettings, name)}: expected {expected}, got {getattr(self, name)!r}")

        check(self.role in ROLES, "role", f"one of {list(ROLES)}")
        check(self.algo in ALGOS, "algo", f"one of {list(ALGOS)}")
        check(self.episode in EPISODES, "episode", f"one of {list(EPISODES)}")
        check(self.timesteps is None or self.timesteps >= 1, "timesteps", "a positive number of steps")
        check(self.seats is None or 1 <= self.seats <= 9, "seats", "1..9 players")
        check(self.learner_seat is None or 1 <= self.learner_seat <= (self.seats or 9), "learner_seat",
              f"a player seat 1..{self.seats or 9}")
        check(self.session_rounds >= 1, "session_rounds", "at least 1 round")
        check(self.generations >= 1, "generations", "at least 1")
        check(self.both_rounds >= 1, "both_rounds", "a positive number of rounds")
        check(0 <= self.seed < 2**32, "seed", "an integer in 0..2**32-1")
        check(self.eval_seed is None or 0 <= self.eval_seed < 2**32, "eval_seed", "an integer in 0..2**32-1")
        check(self.out is None or not under_a_file(self.out),
              "out", "a folder for the run (not a file, nor under one)")
        check(self.eval_freq is None or self.eval_freq >= 0, "eval_freq", "0 (timesteps / 10) or a positive number of steps")
        check(self.eval_rounds >= 0, "eval_rounds", "0 (no evaluation) or a positive number of rounds")
        check(self.checkpoint_freq >= 0, "checkpoint_freq", "0 (every --eval-freq steps) or a positive number")
        check(self.verbose in (0, 1, 2), "verbose", "0, 1 or 2")
        check(self.n_envs is None or self.n_envs >= 1, "n_envs", "at least 1")
        check(self.vec_env in VEC_ENVS, "vec_env", f"one of {list(VEC_ENVS)}")
        check(self.learning_rate is None or self.learning_rate > 0, "learning_rate", "a positive learning rate")
        check(self.n_steps is None or self.n_steps >= 1, "n_steps", "a positive number of steps")
        check(self.batch_size is None or self.batch_size >= 1, "batch_size", "a positive minibatch size")
        check(self.n_epochs is None or self.n_epochs >= 1, "n_epochs", "at least 1 epoch")
        check(0.0 < self.gamma <= 1.0, "gamma", "a discount in (0, 1]")
        check(0.0 <= self.gae_lambda <= 1.0, "gae_lambda", "a value in [0, 1]")
        check(self.ent_coef is None or self.ent_coef >= 0, "ent_coef", "a bonus >= 0")
        check(self.ent_coef_final is None or self.ent_coef_final >= 0, "ent_coef_final", "a bonus >= 0")
        check(bool(self.net_arch) and all(width >= 1 for width in self.net_arch), "net_arch",
              "positive layer widths such as 64,64")
        check(self.illegal_penalty >= 0, "illegal_penalty", "a penalty >= 0")
        check(self.learning_rate_final is None or self.learning_rate_final >= 0, "learning_rate_final",
              "a learning rate >= 0")
        check(self.clip_range > 0, "clip_range", "a clip range > 0")
        check(self.vf_coef >= 0, "vf_coef", "a weight >= 0")
        check(self.max_grad_norm > 0, "max_grad_norm", "a gradient-norm clip > 0")
        check(0.0 < self.ent_decay <= 1.0, "ent_decay", "a share of training in (0, 1]")
        check(self.features is None or all(name in FEATURES for name in self.features), "features",
              f"some of {list(FEATURES)}")
        check(self.features is None or "none" not in self.features or len(self.features) == 1, "features",
              "none alone (no other input changes with it)")
        check(all(width >= 1 for width in self.trunk), "trunk", "positive layer widths such as 128")
        check(not (self.features or self.trunk) or self.algo != "dqn", "features",
              "no --features or --trunk with --algo dqn (they shape the actor-critic's inputs)")
        # The SB3 PPO family builds its own network from --net-arch; the feature layer is the lean
        # learners' (it used to be accepted there and silently left out).
        check(not [name for name in self.features or [] if name != "none"] or self.algo not in ("maskable_ppo", "ppo"),
              "features", "none with --algo maskable_ppo or ppo (the feature layer is lean_ppo's and lean_dqn's)")
        check(not self.trunk or self.algo not in ("maskable_ppo", "ppo"), "trunk",
              "no --trunk with --algo maskable_ppo or ppo (the feature layer is lean_ppo's and lean_dqn's)")
        check(self.learner_seat is None or self.role != "banker", "learner_seat",
              "no --learner-seat with --role banker (the banker's seat is the bank's)")
        check(self.warm_start is None or str(self.warm_start).lower() == "none" or self.algo != "lean_dqn",
              "warm_start", "'none' with --algo lean_dqn (imitation fits an actor, not Q-values)")
        check(self.buffer_steps >= 2, "buffer_steps", "at least 2 steps of every table")
        check(self.updates_per_step >= 1, "updates_per_step", "at least 1")
        check(0.0 <= self.eps_final <= 1.0, "eps_final", "an exploration rate in [0, 1]")
        check(0.0 < self.eps_decay <= 1.0, "eps_decay", "a share of training in (0, 1]")
        check(0.0 < self.tau <= 1.0, "tau", "a weight in (0, 1]")
        check(self.warm_start is None or str(self.warm_start).lower() == "none" or self.algo != "dqn", "warm_start",
              "'none' with --algo dqn (it imitates with the actor-critic's own network: use maskable_ppo or ppo)")
        check(self.warm_start_rounds >= 1, "warm_start_rounds", "at least 1 round")
        check(self.warm_start_epochs >= 0, "warm_start_epochs", "0 or more passes")
        check(0.0 <= self.warm_start_smoothing < 1.0, "warm_start_smoothing", "a value in [0, 1)")
        check(self.threads >= 1, "threads", "at least 1 thread")
        check(self.algo != "belief" or self.role == "banker", "algo",
              "belief with --role banker only (it learns a banker's beliefs about the players' hands)")
        check(self.algo != "belief" or self.episode == "round", "episode",
              "round with --algo belief (it keeps the bank with the learner every round)")
        check(self.algo != "belief" or self.resume is None, "resume", "no --resume with --algo belief")
        check(self.role != "both" or self.resume is None, "resume",
              "no --resume with --role both (it continues one role: resume each generation's run directory "
              "with --role player or --role banker)")

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def build_rules(preset: str, options: Mapping[str, Any]) -> Rules:
    """The rules of ``preset`` with ``options`` (a :class:`~pontoon_env.game.rules.RulesError` says what is wrong)."""
    from pontoon_tools.settings import rules_from_flags

    return rules_from_flags(preset, options)


def library_versions() -> dict[str, str]:
    """Versions of the libraries a run depends on (recorded in every config.json)."""
    versions = {"python": platform.python_version()}
    for name in ("pontoon_env", "numpy", "gymnasium", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            module = __import__(name)
            versions[name] = str(getattr(module, "__version__", "unknown"))
        except ImportError:
            versions[name] = "missing"
    try:
        from importlib.metadata import version

        versions["pontoon_env"] = version("pontoon-env")
    except Exception:  # not installed as a distribution (running from a checkout)
        pass
    return versions


# --------------------------------------------------------------------------------------------------
# Environments
# --------------------------------------------------------------------------------------------------


class LegalizeActions(gym.Wrapper):
    """For learners that cannot mask (PPO, DQN): replace an illegal id by the first legal id.

    The round is played on with the replacement, and the step's reward is lowered by ``penalty``
    (stake units), so an illegal choice is always worse than choosing its replacement directly
    but never a way out of a losing round (see the module docstring). ``info["illegal_action"]``
    marks a replaced step (counted as ``train/illegal_rate`` in TensorBoard).
    """

    def __init__(self, env: gym.Env, penalty: float = 1.0) -> None:
        super().__init__(env)
        self.penalty = float(penalty)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        mask = self.env.unwrapped.action_masks()
        index = int(np.asarray(action).reshape(-1)[0])
        illegal = not (0 <= index < mask.shape[0] and mask[index])
        if illegal:
            index = int(np.flatnonzero(mask)[0])
        obs, reward, terminated, truncated, info = self.env.step(index)
        info["illegal_action"] = illegal
        return obs, float(reward) - (self.penalty if illegal else 0.0), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.unwrapped.action_masks()


def opponents_for(role: str, specs: Sequence[Any], rules: Rules) -> dict[str, Any] | None:
    """The env's ``opponents`` argument from a list of specs: banker specs drive the banker,
    player specs the other players. ``None`` keeps the registry's defaults.

    Raises:
        TrainingError: more than one spec for the same role (one policy per role keeps the
            opponent table well defined for any learner seat).
    """
    if not specs:
        return None
    by_role: dict[str, Any] = {}
    for spec in specs:
        key = "banker" if guess_role(spec) == "banker" else "players"
        if role == "banker" and key == "banker":
            raise TrainingError(f"--opponents: {spec!r} is a banker policy, but the learner is the banker")
        if key in by_role:
            raise TrainingError(
                f"--opponents: two {key} policies given ({by_role[key]!r} and {spec!r}); give at most one player "
                "policy (it drives every other player seat) and one banker policy"
            )
        by_role[key] = spec
    return by_role


def training_env_kwargs(settings: TrainSettings, rules: Rules, role: str, opponents: Any) -> dict[str, Any]:
    """Keyword arguments of ``gymnasium.make("Pontoon-v0", ...)`` for one role of a run (to rebuild
    the table of a saved model, use :func:`agents.checkpoint.env_kwargs` on its config)."""
    return {
        "rules": rules,
        "role": role,
        "num_players": settings.seats,
        "learner_seat": settings.learner_seat if role == "player" else None,
        "opponents": opponents,
        "episode": settings.episode,
        "session_rounds": settings.session_rounds,
        **({"action_levels": {"stake": [_level(text) for text in settings.stake_levels]}}
           if settings.stake_levels else {}),
    }


def _check_stake_levels(levels: Sequence[str], rules: Rules) -> None:
    """Refuse ``--stake-levels`` outside the rules' stake range: the env clamps a chip amount to
    the legal range (a seat short of chips stakes what it can), so ``50`` on a 1-10 table would be
    one more name for the maximum stake."""
    low, high = rules.min_stake, rules.max_stake
    for text in levels:
        level = _level(text)
        if isinstance(level, str):
            ok = level in ("min", "max")
        elif isinstance(level, float):
            ok = 0.0 <= level <= 1.0
        else:
            ok = low <= level <= high
        if not ok:
            raise TrainingError(f"--stake-levels: expected min, max, a chip amount in {low}..{high} or a fraction "
                                f"in [0, 1] for rules {rules.preset!r}, got {text!r}")


def _level(text: str) -> int | float | str:
    """A stake level from the command line: ``min``, ``max``, a chip amount or a fraction."""
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


def make_vec_env(settings: TrainSettings, kwargs: Mapping[str, Any], seed: int) -> Any:
    """``n_envs`` tables for SB3: the batched engine where it plays the rules natively (``vec_env``
    ``"batched"``, or ``"auto"``, the default), else monitored single environments in this process
    (``"dummy"``) or in worker processes (``"subproc"``). PPO and DQN, which cannot mask, get an
    illegal id replaced by the first legal one at a penalty (:class:`LegalizeActions`, or the
    adapter's ``legalize_penalty``)."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    legalize = settings.algo != "maskable_ppo"
    if settings.vec_env in ("auto", "batched"):
        from pontoon_env.batched import NotNativeError
        from pontoon_env.envs.sb3 import PontoonSB3VecEnv

        try:
            batched = PontoonSB3VecEnv(
                num_envs=settings.n_envs,
                seed=seed,
                legalize_penalty=settings.illegal_penalty if legalize else None,
                **kwargs,
            )
        except NotNativeError:
            if settings.vec_env == "batched":
                raise
        else:
            return VecMonitor(batched)  # the adapter flags illegal ids only where they happen

    def factory(rank: int) -> Callable[[], gym.Env]:
        def make() -> gym.Env:
            import pontoon_env  # noqa: F401  (registers the ids inside subprocess workers)

            env = gym.make("Pontoon-v0", **kwargs)
            if legalize:
                env = LegalizeActions(env, settings.illegal_penalty)
            env = Monitor(env, info_keywords=("illegal_action",) if legalize else ())
            env.reset(seed=seed + 1000 * rank)
            return env

        return make

    factories = [factory(rank) for rank in range(settings.n_envs)]
    if settings.vec_env == "subproc" and settings.n_envs > 1:
        return SubprocVecEnv(factories, start_method="fork" if sys.platform != "win32" else "spawn")
    return DummyVecEnv(factories)


def probe_env_config(kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """The environment's checkpoint config (rules, sizes, action names and levels), from one instance."""
    env = gym.make("Pontoon-v0", **kwargs)
    try:
        return env.unwrapped.checkpoint_config()
    finally:
        env.close()


# --------------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------------


def holder_algo(algo: str) -> str:
    """The algorithm whose Stable-Baselines3 class holds a model of ``algo`` (``lean_ppo`` -> ``maskable_ppo``)."""
    return "maskable_ppo" if algo in LEAN else algo


def algo_class(algo: str) -> Any:
    """The Stable-Baselines3 class that holds (and saves) a model of ``algo``; a ``lean_ppo`` model
    is a ``MaskablePPO`` whose policy :class:`pontoon_tools.ppo.LeanPPO` trained."""
    if algo in ("maskable_ppo", *LEAN):
        from sb3_contrib import MaskablePPO

        return MaskablePPO
    if algo == "ppo":
        from stable_baselines3 import PPO

        return PPO
    if algo == "dqn":
        from stable_baselines3 import DQN

        return DQN
    raise TrainingError(f"--algo: expected one of {list(ALGOS)}, got {algo!r}")


def policy_kwargs(settings: TrainSettings, features: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The policy network: ``net_arch`` hidden layers for actor and critic each; with ``--features``
    or ``--trunk``, :class:`pontoon_tools.ppo.PontoonFeatures` in front (shared by both), built from
    ``features`` (its keyword arguments: the kept columns, the own-hand layout)."""
    if settings.algo == "dqn" or not (settings.features or settings.trunk):
        return {"net_arch": list(settings.net_arch)}
    from pontoon_tools.ppo import PontoonFeatures

    return {"net_arch": {"pi": list(settings.net_arch), "vf": list(settings.net_arch)},
            "features_extractor_class": PontoonFeatures, "features_extractor_kwargs": dict(features or {}),
            "share_features_extractor": True}


def hyperparameters(settings: TrainSettings, features: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The constructor arguments of the chosen algorithm (recorded in config.json)."""
    policy = policy_kwargs(settings, features)
    if settings.algo == "dqn":
        # DQN learns from a replay buffer; one round is 2–3 decisions, so a 100k buffer holds
        # tens of thousands of rounds. Exploration decays over the first 30% of training.
        return {
            "learning_rate": settings.learning_rate,
            "buffer_size": 100_000,
            "learning_starts": min(1000, max(settings.timesteps // 10, 1)),
            "batch_size": settings.batch_size,
            "gamma": settings.gamma,
            "train_freq": 4,
            "target_update_interval": 2000,
            "exploration_fraction": 0.3,
            "exploration_final_eps": 0.02,
            "policy_kwargs": policy,
        }
    return {
        "learning_rate": settings.learning_rate,
        "n_steps": settings.n_steps,
        "batch_size": settings.batch_size,
        "n_epochs": settings.n_epochs,
        "gamma": settings.gamma,
        "gae_lambda": settings.gae_lambda,
        "ent_coef": settings.ent_coef,
        "clip_range": settings.clip_range,
        "vf_coef": settings.vf_coef,
        "max_grad_norm": settings.max_grad_norm,
        "policy_kwargs": policy,
    }


def resumed_seed(seed: int, done_steps: int) -> int:
    """The seed of the streams of a run resumed at ``done_steps`` (deterministic, and not the
    first part's: ``SeedSequence`` of both, in 0..2**31-1)."""
    return int(np.random.SeedSequence([int(seed), int(done_steps)]).generate_state(1)[0] & 0x7FFFFFFF)


def lean_config(settings: TrainSettings, seed: int, role: str = "player") -> Any:
    """The :class:`pontoon_tools.ppo.PPOConfig` of a ``lean_ppo`` run of ``role`` (the stake
    weighting is a player's: a banker stakes nothing)."""
    from pontoon_tools.ppo import PPOConfig

    return PPOConfig(
        n_steps=int(settings.n_steps), batch_size=int(settings.batch_size), n_epochs=int(settings.n_epochs),
        learning_rate=float(settings.learning_rate), learning_rate_final=settings.learning_rate_final,
        gamma=settings.gamma, gae_lambda=settings.gae_lambda, clip_range=settings.clip_range,
        ent_coef=float(settings.ent_coef), ent_coef_final=float(settings.ent_coef_final),
        ent_decay=settings.ent_decay, vf_coef=settings.vf_coef, max_grad_norm=settings.max_grad_norm,
        norm_adv=settings.norm_adv, reward_scale="return_std" if settings.norm_reward else "none",
        stake_advantage=settings.stake_advantage and role == "player",
        stake_expected=settings.stake_expected and role == "player",
        draw_expected=settings.draw_expected and role == "player",
        round_credit=settings.round_credit and settings.episode == "session", seed=seed)


def dqn_config(settings: TrainSettings, seed: int, rules: Rules) -> Any:
    """The :class:`pontoon_tools.dqn.DQNConfig` of a ``lean_dqn`` run (values in maximum stakes)."""
    from pontoon_tools.dqn import DQNConfig

    return DQNConfig(buffer_steps=settings.buffer_steps, batch_size=int(settings.batch_size),
                     updates_per_step=settings.updates_per_step, learning_rate=float(settings.learning_rate),
                     learning_rate_final=settings.learning_rate_final, gamma=settings.gamma,
                     eps_final=settings.eps_final, eps_decay=settings.eps_decay, tau=settings.tau,
                     max_grad_norm=max(settings.max_grad_norm, 10.0), reward_scale=float(rules.max_stake), seed=seed)


def planned_timesteps(model: Any, timesteps: int, settings: TrainSettings | None = None) -> int:
    """The steps ``model.learn(timesteps)`` really takes: PPO collects whole rollouts of
    ``n_steps * n_envs`` decisions and DQN ``train_freq * n_envs`` at a time, so the requested
    number is rounded up to a whole number of them (300,000 is 74 rollouts of 4,096: 303,104).
    A ``lean_ppo`` run's rollouts are ``settings.n_steps * settings.n_envs``."""
    if settings is not None and settings.algo in LEAN:
        chunk = int(settings.n_envs) * (int(settings.n_steps) if settings.algo == "lean_ppo" else 1)
        return max(1, math.ceil(timesteps / chunk)) * chunk
    if hasattr(model, "n_steps"):
        chunk = int(model.n_steps) * int(model.n_envs)
    else:
        chunk = int(getattr(getattr(model, "train_freq", None), "frequency", 1)) * int(model.n_envs)
    return math.ceil(timesteps / chunk) * chunk


def progress_bar(total: int) -> Any:
    """SB3's progress bar, with its total the steps the run will really take (:func:`planned_timesteps`)
    rather than the requested number, which the bar would overshoot."""
    from stable_baselines3.common import callbacks

    class _Bar(callbacks.ProgressBarCallback):
        def _on_training_start(self) -> None:
            import warnings

            with warnings.catch_warnings():  # tqdm calls its rich bar experimental; SB3 uses it all the same
                warnings.simplefilter("ignore")
                self.pbar = callbacks.tqdm(total=total)

    return _Bar()


# --------------------------------------------------------------------------------------------------
# Evaluation during training
# --------------------------------------------------------------------------------------------------


@dataclass
class EvalTable:
    """A fixed table the learner is measured at during training, with a scripted reference."""

    name: str
    seat: int
    policies: list[Any]
    labels: list[str]
    reference: str
    reference_ev: np.ndarray | None = None


def eval_tables(settings: TrainSettings, rules: Rules, role: str, opponents: Mapping[str, Any] | None) -> list[EvalTable]:
    """The baseline tables of the learning curve.

    A player learner sits in seat 1 (first to act) against the training banker (the scripted
    default if none was given) with the training's player opponents in the other seats; its
    reference is the ``threshold`` player in the same seat. A banker learner faces ``threshold`` players (or the
    training player opponents) and is compared with ``banker_threshold``.
    """
    opponents = dict(opponents or {})
    players = opponents.get("players", "threshold")
    tables = []
    if role == "player":
        for banker in [opponents.get("banker", "banker_threshold")]:
            specs = [banker] + [players] * settings.seats
            tables.append(EvalTable(f"vs {_short(banker)}", 1, [load_policy(s, rules, settings.seats) for s in specs],
                                    [str(s) for s in specs], "threshold"))
    else:
        specs = ["banker_threshold"] + [players] * settings.seats
        tables.append(EvalTable(f"vs {_short(players)} players", 0,
                                [load_policy(s, rules, settings.seats) for s in specs], [str(s) for s in specs],
                                "banker_threshold"))
    return tables


def _short(spec: Any) -> str:
    """A checkpoint as its run folder (``gen_01/player``), any other spec as it is."""
    text = str(spec)
    if not text.endswith(".zip"):
        return text
    folder = Path(text).parent
    return f"{folder.parent.name}/{folder.name}" if folder.parent.name else (folder.name or text)


class EvalCallback:
    """Every ``eval_freq`` steps: play ``eval_rounds`` rounds at each :class:`EvalTable` with the
    current model, log the EV (and its paired difference to the scripted reference, on the same
    cards) to TensorBoard, append it to the eval history, and save a checkpoint.

    The evaluation seed is fixed for the whole run, so successive points of the learning curve are
    themselves paired: their differences show learning, not card luck.
    """

    def __init__(self, trainer: Trainer) -> None:
        from stable_baselines3.common.callbacks import BaseCallback

        outer = self

        class _Callback(BaseCallback):
            def _on_training_start(self) -> None:
                outer.on_start(self)

            def _on_step(self) -> bool:
                return outer.on_step(self)

            def _on_rollout_start(self) -> None:
                outer.on_rollout_start(self)

            def _on_training_end(self) -> None:
                outer.on_end(self)

        self.trainer = trainer
        self.callback = _Callback()
        self.last_eval = -1
        self.last_checkpoint = -1
        self.start_steps = 0
        self.illegal = [0, 0]

    def on_start(self, cb: Any) -> None:
        self.start_steps = cb.num_timesteps
        self.last_eval = cb.num_timesteps
        self.last_checkpoint = cb.num_timesteps
        if not self.trainer.history:
            self.trainer.evaluate_now(cb.model, cb.num_timesteps, cb.logger)

    def on_rollout_start(self, cb: Any) -> None:
        """Entropy schedule: the bonus falls linearly from ``ent_coef`` to ``ent_coef_final``.

        A large early bonus keeps rarely good moves (buying on a low total, a big stake on a 2)
        in play until the value estimates can tell where they pay; a small late one lets the
        policy settle.
        """
        settings = self.trainer.settings
        if settings.algo == "dqn" or settings.ent_coef_final is None:
            return
        done = (cb.num_timesteps - self.start_steps) / max(int(settings.timesteps or 1), 1)
        fraction = min(max(done / settings.ent_decay, 0.0), 1.0)
        cb.model.ent_coef = settings.ent_coef + fraction * (settings.ent_coef_final - settings.ent_coef)
        cb.logger.record("train/ent_coef_scheduled", cb.model.ent_coef)

    def on_step(self, cb: Any) -> bool:
        trainer = self.trainer
        for info in cb.locals.get("infos", ()):
            if "illegal_action" in info:
                self.illegal[0] += int(bool(info["illegal_action"]))
                self.illegal[1] += 1
        if self.illegal[1] >= 1000:
            cb.logger.record("train/illegal_rate", self.illegal[0] / self.illegal[1])
            self.illegal = [0, 0]
        steps = cb.num_timesteps
        if trainer.eval_freq and steps - self.last_eval >= trainer.eval_freq:
            self.last_eval = steps
            trainer.evaluate_now(cb.model, steps, cb.logger)
        if trainer.checkpoint_freq and steps - self.last_checkpoint >= trainer.checkpoint_freq:
            self.last_checkpoint = steps
            trainer.save_checkpoint(cb.model, steps, vec_normalize=cb.model.get_vec_normalize_env())
        return True

    def on_end(self, cb: Any) -> None:
        if self.last_eval != cb.num_timesteps:
            self.trainer.evaluate_now(cb.model, cb.num_timesteps, cb.logger)


# --------------------------------------------------------------------------------------------------
# Warm start: imitate a scripted policy before reinforcement learning
# --------------------------------------------------------------------------------------------------


def action_index(table: Any, action: Any, legal: Sequence[Any]) -> int:
    """The action id that stands for ``action`` now (the nearest amount of its kind if no level hits it)."""
    best, best_gap = -1, math.inf
    for index in np.flatnonzero(table.mask(legal)):
        candidate = table.decode(int(index), legal)
        if candidate.kind != action.kind:
            continue
        gap = abs(candidate.amount - action.amount)
        if gap < best_gap:
            best, best_gap = int(index), gap
    if best < 0:
        raise TrainingError(f"the teacher's action {action} has no id in the action table")
    return best


def imitation_data(kwargs: Mapping[str, Any], teacher: Any, rounds: int, seed: int, gamma: float) -> dict[str, np.ndarray]:
    """Play ``rounds`` episodes of the training environment with ``teacher`` in the learner's seat.

    Returns the observations, the teacher's action ids, the legal masks and the returns-to-go,
    exactly as the learner would see them (same environment, same opponents). The teacher decides
    through :func:`pontoon_env.game.runner.decide` from the learner seat's view.
    """
    env = gym.make("Pontoon-v0", **kwargs)
    base = env.unwrapped
    rng = np.random.default_rng(seed)
    observations, actions, masks, returns = [], [], [], []
    obs, info = env.reset(seed=seed)
    for _ in range(rounds):
        rewards = []
        done = False
        while not done:
            game = base.game
            legal = game.legal_actions()
            # The teacher decides through the runner, as every policy at every table does.
            index = action_index(base.table, decide(game, teacher, rng), legal)
            observations.append(obs)
            actions.append(index)
            masks.append(info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(index)
            rewards.append(float(reward))
            done = terminated or truncated
        to_go, episode_returns = 0.0, []
        for reward in reversed(rewards):  # returns-to-go, computed from the last step back
            to_go = reward + gamma * to_go
            episode_returns.append(to_go)
        returns.extend(reversed(episode_returns))
        obs, info = env.reset()
    env.close()
    return {"obs": np.asarray(observations, dtype=np.float32), "actions": np.asarray(actions, dtype=np.int64),
            "masks": np.asarray(masks, dtype=bool), "returns": np.asarray(returns, dtype=np.float64)}


def imitate(model: Any, data: Mapping[str, np.ndarray], epochs: int, smoothing: float, reward_scale: float,
            masked: bool, seed: int, learning_rate: float = 1e-3, batch_size: int = 256) -> dict[str, float]:
    """Behaviour cloning of the actor and Monte-Carlo regression of the critic, in place.

    The actor minimises the cross-entropy to the teacher's action with ``smoothing`` of the target
    spread over the other legal actions, so that PPO starts from the teacher's play but still
    explores every legal alternative. The critic learns the returns in the units PPO will use
    (rewards divided by ``reward_scale``), so the first PPO updates have a sensible baseline and do
    not undo the imitation.
    """
    import torch

    policy = model.policy
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    obs = torch.as_tensor(data["obs"])
    actions = torch.as_tensor(data["actions"])
    masks = torch.as_tensor(data["masks"])
    targets = torch.as_tensor(data["returns"] / reward_scale, dtype=torch.float32)
    generator = torch.Generator().manual_seed(seed)
    n = obs.shape[0]
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator)
        for start in range(0, n, batch_size):
            batch = order[start:start + batch_size]
            if masked:
                distribution = policy.get_distribution(obs[batch], action_masks=masks[batch].numpy())
            else:
                distribution = policy.get_distribution(obs[batch])
            log_probs = distribution.distribution.logits  # normalised log-probabilities
            legal = masks[batch].float()
            teacher = log_probs.gather(1, actions[batch].unsqueeze(1)).squeeze(1)
            others = (log_probs * legal).sum(1) / legal.sum(1).clamp(min=1.0)
            actor_loss = -((1.0 - smoothing) * teacher + smoothing * others).mean()
            values = policy.predict_values(obs[batch]).squeeze(1)
            critic_loss = torch.nn.functional.mse_loss(values, targets[batch])
            optimizer.zero_grad()
            (actor_loss + 0.5 * critic_loss).backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
    with torch.no_grad():
        if masked:
            distribution = policy.get_distribution(obs, action_masks=masks.numpy())
        else:
            distribution = policy.get_distribution(obs)
        agreement = float((distribution.distribution.probs.argmax(1) == actions).float().mean())
    policy.set_training_mode(False)
    return {"samples": int(n), "agreement": agreement}


# --------------------------------------------------------------------------------------------------
# One run
# --------------------------------------------------------------------------------------------------


class Trainer:
    """Train one role into one run directory (see the module docstring for its layout).

    Everything that can be wrong with a run is checked when the trainer is made, so :meth:`run`
    never starts a run folder it cannot finish: the settings, the rules, the opponents (the
    environment resolves them when it is built), the warm-start teacher, the evaluation tables, and
    the ``--resume`` (or previous generation's) checkpoint: its config must fit this run, its model
    file must load and its reward-normalisation statistics must be readable.
    """

    def __init__(self, settings: TrainSettings, role: str, out: Path, opponents: list[Any] | None = None,
                 init_from: str | Path | None = None) -> None:
        settings = settings.for_role(role)
        settings.validate()
        self.settings = settings
        self.role = role
        self.out = out
        self.rules = build_rules(settings.rules, settings.options)
        _check_stake_levels(settings.stake_levels, self.rules)
        specs = settings.opponents if opponents is None else opponents
        self.opponents = opponents_for(role, specs, self.rules)
        self.kwargs = training_env_kwargs(settings, self.rules, role, self.opponents)
        self.env_config = probe_env_config(self.kwargs)  # builds the env: a misspelt opponent fails here
        if settings.vec_env == "batched" and settings.algo not in LEAN:
            from pontoon_env.batched.tables import native_problem

            problem = native_problem(gym.make("Pontoon-v0", **self.kwargs).unwrapped.rules)
            if problem is not None:
                raise TrainingError(f"--vec-env: expected auto, dummy or subproc for rules {self.rules.preset!r}, "
                                    f"got 'batched' ({problem})")
        self.eval_freq = settings.eval_freq or max(settings.timesteps // 10, 1)
        self.checkpoint_freq = settings.checkpoint_freq or self.eval_freq
        self.eval_seed = settings.eval_seed if settings.eval_seed is not None else settings.seed + 10_000
        self.history: list[dict[str, Any]] = []
        self.init_from = init_from
        if settings.warm_start:
            # A teacher of the other role would imitate that role's default policy under its own name.
            check_scripted_role(settings.warm_start, role, f"--warm-start {settings.warm_start}")
            check_role(settings.warm_start, role, f"--warm-start {settings.warm_start}")
        self.teacher = (load_policy(settings.warm_start, self.rules, settings.seats)
                        if settings.warm_start else None)
        self.tables: list[EvalTable] = (eval_tables(settings, self.rules, role, self.opponents)
                                        if settings.eval_rounds > 0 else [])
        self.model: Any = None
        self.warm_start_stats: dict[str, Any] | None = None
        self.feature_kwargs: dict[str, Any] | None = None
        self.train_timings: dict[str, Any] | None = None
        self.sampler_used: str | None = None
        self.check_source()  # the checkpoint it continues: config and model file
        self._check_vecnormalize()
        self._check_scaler()
        self._check_out_folder()
        self.wall_offset = 0.0
        """Wall seconds of the run this one continues, at its checkpoint (learning-curve times go on from there)."""
        self.learner_config: Any = None
        """The lean learner's ``PPOConfig`` / ``DQNConfig`` once built (config.json records it)."""
        self.loaded_hyperparameters: dict[str, Any] = {}
        """What a resumed SB3 model keeps of its own that the settings would derive otherwise."""
        self.started = time.perf_counter()
        self.cpu_started = time.process_time()

    # -- config

    def config(self, trained_timesteps: int) -> dict[str, Any]:
        """config.json: the env's checkpoint config plus how the run was made (JSON only)."""
        s = self.settings
        return {
            **self.env_config,
            "algo": s.algo,
            "role": self.role,
            "seed": s.seed,
            "timesteps": trained_timesteps,
            "learner_seat": self.kwargs["learner_seat"],
            "opponents": {k: config_opponent(v) for k, v in (self.opponents or {}).items()} or "registry defaults",
            "episode": s.episode,
            "session_rounds": s.session_rounds,
            "preset": s.rules,
            "rule_options": dict(s.options),
            "hyperparameters": self.hyperparameters(),
            "n_envs": s.n_envs,
            "norm_reward": s.norm_reward,
            "illegal_actions": "masked" if s.algo in ("maskable_ppo", *LEAN)
            else f"replaced by the first legal id, reward -{s.illegal_penalty} (LegalizeActions)",
            "eval": {"seed": self.eval_seed, "rounds": s.eval_rounds, "freq": self.eval_freq},
            "resumed_from": str(s.resume) if s.resume else (str(self.init_from) if self.init_from else None),
            "warm_start": self.warm_start_stats,
            "settings": s.to_json(),
            "versions": library_versions(),
            "command": " ".join(sys.argv),
            "train_timings": self.train_timings,
            "sampler": self.sampler_used,
            "wall_time_s": round(time.perf_counter() - self.started, 1),
            "cpu_time_s": round(time.process_time() - self.cpu_started, 1),
        }

    def hyperparameters(self) -> dict[str, Any]:
        """What the learner was built with, for config.json: the SB3 constructor's arguments, or
        the lean learner's configuration (``PPOConfig`` / ``DQNConfig``) with its network."""
        s = self.settings
        built = {**hyperparameters(s, self.feature_kwargs), **self.loaded_hyperparameters}
        if s.algo not in LEAN or self.learner_config is None:
            return built
        fields = {key: value for key, value in dataclasses.asdict(self.learner_config).items() if key != "seed"}
        return {**fields, "policy_kwargs": built["policy_kwargs"]}

    def write_config(self, folder: Path, trained_timesteps: int) -> None:
        write_json(self.config(trained_timesteps), folder / CONFIG_FILE)

    # -- model

    def build_model(self, vec_env: Any) -> tuple[Any, int]:
        """A new model, or the ``--resume`` / previous-generation checkpoint with this run's env."""
        cls = algo_class(self.settings.algo)
        source = self.settings.resume or self.init_from
        if source is None:
            model = cls(
                "MlpPolicy",
                vec_env,
                seed=self.settings.seed,
                verbose=self.settings.verbose,
                tensorboard_log=str(self.out / "tb"),
                device="cpu",
                **hyperparameters(self.settings),
            )
            return model, 0
        path = read_config(source)[0]  # checked when the trainer was made (check_source)
        model = load_model(path, self.settings.algo, env=vec_env, tensorboard_log=str(self.out / "tb"))
        if self.settings.algo == "dqn":  # the loaded model keeps its own; config.json records that one
            self.loaded_hyperparameters = {"learning_starts": int(model.learning_starts)}
        return model, int(model.num_timesteps)

    def check_source(self) -> Path | None:
        """Check the ``--resume`` (or previous-generation) checkpoint against this run; return its path.

        The config must fit (:func:`agents.checkpoint.check_compatible`) and the model file must
        load (:func:`agents.checkpoint.load_model`): a truncated archive is refused here, with one
        message, rather than by a traceback once the run has started.

        Raises:
            CheckpointError: a missing checkpoint or config, one trained for other rules, another
                table size, role, action layout or algorithm (the message lists each difference),
                or a model file that does not load.
        """
        source = self.settings.resume or self.init_from
        if source is None:
            return None
        path, found = read_config(source)
        check_compatible(path, found, {**self.env_config, "algo": self.settings.algo, "role": self.role})
        load_model(path, holder_algo(self.settings.algo))
        return path

    # -- evaluation

    def evaluate_now(self, model: Any, steps: int, logger: Any | None = None) -> dict[str, Any] | None:
        """Play the eval tables with ``model``; log and record one point of the learning curve."""
        if self.settings.eval_rounds <= 0:
            return None
        from agents.model import ModelPolicy

        learner = ModelPolicy(model, self.rules, self.settings.seats, action_levels=action_levels(self.env_config))
        point: dict[str, Any] = {"timesteps": steps,
                                 "wall_s": round(self.wall_offset + time.perf_counter() - self.started, 1)}
        for table in self.tables:
            if table.reference_ev is None:  # the scripted reference on the same seeds, once per run
                policies = list(table.policies)
                policies[table.seat] = load_policy(table.reference, self.rules, self.settings.seats)
                ref = play_match(self.rules, self.settings.seats, policies, self.settings.eval_rounds, self.eval_seed)
                table.reference_ev = ref.ev(table.seat)
            policies = list(table.policies)
            policies[table.seat] = learner
            result = play_match(self.rules, self.settings.seats, policies, self.settings.eval_rounds, self.eval_seed)
            ev = estimate(result.ev(table.seat))
            diff = estimate(result.ev(table.seat) - table.reference_ev)
            reference = estimate(table.reference_ev)
            point[f"{table.name}/ev"] = ev.mean
            point[f"{table.name}/ev_ci_low"] = ev.low
            point[f"{table.name}/ev_ci_high"] = ev.high
            point[f"{table.name}/{table.reference}_ev"] = reference.mean
            point[f"{table.name}/minus_{table.reference}"] = diff.mean
            point[f"{table.name}/minus_{table.reference}_ci_low"] = diff.low
            point[f"{table.name}/minus_{table.reference}_ci_high"] = diff.high
            if logger is not None:
                key = table.name.replace(" ", "_")
                logger.record(f"eval/{key}/ev", ev.mean)
                logger.record(f"eval/{key}/minus_{table.reference}", diff.mean)
        self.history.append(point)
        write_rows(self.history, self.out / f"{HISTORY_FILE}.csv")
        write_json(self.history, self.out / f"{HISTORY_FILE}.json")
        if logger is not None:
            logger.dump(steps)
        if self.settings.progress:
            shown = ", ".join(f"{t.name}: EV {point[f'{t.name}/ev']:+.3f} "
                              f"({point[f'{t.name}/minus_{t.reference}']:+.3f} vs {t.reference})" for t in self.tables)
            _print(f"[eval {self.role} @ {steps:,} steps] {shown}")
        return point

    def save_checkpoint(self, model: Any, steps: int, scale: Mapping[str, float] | None = None,
                        vec_normalize: Any = None) -> None:
        """``checkpoints/step_N.zip`` with its own config ``step_N.json`` (its step count included)
        and the reward normalisation of that moment (``step_N.reward_scale.json`` of a lean run,
        ``step_N.vecnormalize.pkl`` of an SB3 one), so that ``--resume`` of it continues as the
        run did then."""
        path = self.out / "checkpoints" / f"step_{steps:09d}.zip"
        save_checkpoint(model, path, self.config(steps))
        if scale is not None:
            write_json(dict(scale), _beside(path, SCALER_FILE))
        if vec_normalize is not None:
            vec_normalize.save(str(_beside(path, VECNORM_FILE)))

    # -- the run

    def run(self) -> Path:
        """Train, evaluate along the way, save ``model.zip`` + ``config.json``; return the model path."""
        if self.settings.algo in LEAN:
            return self._run_lean()
        import torch
        from stable_baselines3.common.vec_env import VecNormalize

        from stable_baselines3.common.callbacks import CallbackList

        torch.set_num_threads(max(1, self.settings.threads))
        self.out.mkdir(parents=True, exist_ok=True)  # everything was checked when the trainer was made
        self._clear_earlier_run()
        self._load_history()
        vec_env = make_vec_env(self.settings, self.kwargs, self.settings.seed)
        if self.settings.norm_reward:
            vec_env = self._vecnormalize(vec_env, VecNormalize)
        model, done_steps = self.build_model(vec_env)
        self._trim_history(done_steps)
        if self.teacher is not None and done_steps == 0 and self.init_from is None:
            self.warm_start(model, vec_env)
        self.write_config(self.out, done_steps)  # written first, so a crashed run can still be inspected
        callback = EvalCallback(self)
        planned = planned_timesteps(model, int(self.settings.timesteps))
        rounded = "" if planned == self.settings.timesteps else f" ({planned:,}: whole rollouts)"
        _print(f"training {self.role} ({self.settings.algo}) on {self.rules.preset!r}, "
               f"{plural(int(self.settings.seats or 0), 'player')}, {self.settings.timesteps:,} steps{rounded} "
               f"-> {self.out}")
        callbacks = [callback.callback] + ([progress_bar(planned)] if self.settings.progress else [])
        model.learn(
            total_timesteps=self.settings.timesteps,
            callback=CallbackList(callbacks),
            reset_num_timesteps=done_steps == 0,
            tb_log_name=self.role,
        )
        model_path = self.out / MODEL_FILE
        save_checkpoint(model, model_path, self.config(int(model.num_timesteps)))
        self.model = model
        if self.settings.norm_reward:
            vec_env.save(str(self.out / VECNORM_FILE))
        vec_env.close()
        return model_path

    def _spaces_env(self) -> Any:
        """A one-table SB3 ``VecEnv`` of this run's table: the spaces a new model is built for."""
        from stable_baselines3.common.vec_env import DummyVecEnv

        return DummyVecEnv([lambda: gym.make("Pontoon-v0", **self.kwargs)])

    def _feature_kwargs(self, venv: Any, encoder: Any) -> tuple[dict[str, Any], np.ndarray | None]:
        """:class:`pontoon_tools.ppo.PontoonFeatures`' arguments for ``--features`` / ``--trunk``, and
        the random-play samples that fit its standardisation (``None`` without ``std``)."""
        from pontoon_tools.ppo import feature_spec, random_play

        s = self.settings
        samples, keep = (None, None)
        if ("keep" in s.features or "std" in s.features) and venv is not None:
            # 65,536 random-play samples fit the statistics, but never more than the run trains on:
            # a short run on a few tables (against model seats, decided one table at a time) would
            # otherwise spend minutes here before it learns anything
            samples_wanted = min(65_536, int(s.timesteps or 65_536))
            steps = max(8, samples_wanted // max(int(s.n_envs or 1), 1))
            samples, varying = random_play(venv, steps=steps, seed=s.seed + 3)
            keep = varying if "keep" in s.features else None
        kwargs = {"keep": keep, "active_onehot": "onehot" in s.features, "spec": feature_spec(encoder),
                  "standardize": "std" in s.features, "trunk": list(s.trunk),
                  "seat_pool": SEAT_POOL_WIDTH if "seats" in s.features else 0,
                  "hand_pool": HAND_POOL_WIDTH if "hands" in s.features else 0}
        return kwargs, (samples if "std" in s.features else None)

    def _build_lean_model(self, venv: Any, encoder: Any) -> tuple[Any, int]:
        """A new ``MaskablePPO`` holder of the lean PPO's network, or the checkpoint it continues."""
        import warnings

        from sb3_contrib import MaskablePPO

        source = self.settings.resume or self.init_from
        spaces = self._spaces_env()
        if source is not None:
            path = read_config(source)[0]
            model = load_model(path, holder_algo("lean_ppo"), env=spaces)
            # the config records the network this run trains: the checkpoint's feature layer
            self.feature_kwargs = dict(model.policy_kwargs.get("features_extractor_kwargs") or {})
            return model, int(model.num_timesteps)
        features, samples = self._feature_kwargs(venv, encoder)
        with warnings.catch_warnings():  # the holder's own rollout buffer (one table) is never used
            warnings.simplefilter("ignore")
            model = MaskablePPO("MlpPolicy", spaces, seed=self.settings.seed, verbose=0, device="cpu",
                                **hyperparameters(self.settings, features))
        if samples is not None:
            model.policy.features_extractor.fit(samples)
        self.feature_kwargs = features
        return model, 0

    def _run_lean(self) -> Path:
        """The ``lean_ppo`` run: :class:`pontoon_tools.ppo.LeanPPO` on the native vector env."""
        import torch

        from pontoon_env.envs.vector import make_vector_env
        from pontoon_tools.ppo import LeanPPO

        s = self.settings
        torch.set_num_threads(max(1, s.threads))
        self.out.mkdir(parents=True, exist_ok=True)  # everything was checked when the trainer was made
        self._clear_earlier_run()
        self._load_history()
        single = gym.make("Pontoon-v0", **self.kwargs).unwrapped
        encoder, names = single.encoder, list(single.action_names)
        sampler = s.sampler if s.algo == "lean_ppo" else "inline"
        if sampler == "auto":
            sampler = "process" if int(s.n_envs) >= 256 and len(os.sched_getaffinity(0)) >= 2 else "inline"
        inline = sampler == "inline"
        self.sampler_used = sampler
        needs_probe = (s.resume or self.init_from) is None and ("keep" in s.features or "std" in s.features)
        venv = make_vector_env(num_envs=int(s.n_envs), **self.kwargs) if inline or needs_probe else None
        model, done_steps = self._build_lean_model(venv, encoder)
        self._trim_history(done_steps)
        # A resumed run continues on other deals and other sampling noise than its first part (the
        # run's seed alone would replay them): the streams are keyed by the seed and the step.
        stream_seed = s.seed if done_steps == 0 else resumed_seed(s.seed, done_steps)
        if venv is not None and not inline:
            venv.close()  # the sampler process builds its own
            venv = None
        stake_index = next((f.slice.start for f in encoder.index_table() if f.name in ("own[0].initial", "own.initial")),
                           None)
        stake_ids = np.array([i for i, name in enumerate(names) if name.startswith("stake")], dtype=np.int64)
        # What each stake id stands for in the initial stake's range (a seat with chips to spare).
        stake_chips = np.array([resolve_amount(single.table.slots[i].level, *stake_range(self.rules))
                                for i in stake_ids])
        draw_prices = None
        if s.draw_expected and self.role == "player" and "twist" in names:
            from pontoon_tools.ppo import DrawPrices

            buy_ids = [i for i, name in enumerate(names) if name.startswith("buy")]
            draw_prices = DrawPrices([names.index("twist"), *buy_ids], [single.table.slots[i].level for i in buy_ids],
                                     self.rules, encoder)
        if s.algo == "lean_dqn":
            from pontoon_tools.dqn import LeanDQN

            self.learner_config = dqn_config(s, stream_seed, self.rules)
            ppo: Any = LeanDQN(venv, model, self.learner_config, threads=s.threads)
        else:
            self.learner_config = lean_config(s, stream_seed, self.role)
            ppo = LeanPPO(venv, model, self.learner_config, stake_index=stake_index, stake_decision=stake_ids,
                          stake_chips=stake_chips, draw_prices=draw_prices,
                          threads=s.threads, sampler=sampler, env_kwargs=dict(self.kwargs), num_envs=int(s.n_envs),
                          spaces=(encoder.size, len(names)))
        try:
            return self._lean_loop(ppo, model, done_steps, venv)
        finally:
            ppo.close()
            if venv is not None:
                venv.close()

    def _lean_loop(self, ppo: Any, model: Any, done_steps: int, venv: Any) -> Path:
        """The lean run after its learner is built: evaluations, checkpoints, the final save."""
        from stable_baselines3.common.logger import configure

        s = self.settings
        self._load_scaler(ppo)
        if self.teacher is not None and done_steps == 0 and self.init_from is None:
            self._lean_warm_start(model, ppo)
        self.write_config(self.out, done_steps)  # written first, so a crashed run can still be inspected
        logger = configure(str(self.out / "tb"), ["csv", "tensorboard"] if _has_tensorboard() else ["csv"])
        from pontoon_tools.ppo import LeanPPO  # noqa: F401  (the callback's type)
        planned = planned_timesteps(model, int(s.timesteps), s)
        rounded = "" if planned == s.timesteps else f" ({planned:,}: whole rollouts)"
        _print(f"training {self.role} ({s.algo}) on {self.rules.preset!r}, {plural(int(s.seats or 0), 'player')}, "
               f"{int(s.timesteps):,} steps{rounded}, {int(s.n_envs):,} tables -> {self.out}")
        if not self.history:
            self.evaluate_now(model, done_steps, logger)
        bar = _tqdm(planned) if s.progress else None
        state = {"eval": done_steps, "checkpoint": done_steps, "started": time.perf_counter(), "steps": done_steps}

        def after_update(learner: LeanPPO, steps: int) -> None:
            elapsed = time.perf_counter() - state["started"]
            for key, value in learner.stats.items():
                logger.record(f"train/{key}", value)
            if learner.episode_returns:
                logger.record("rollout/ep_rew_mean", float(np.mean(learner.episode_returns)))
                learner.episode_returns.clear()
            logger.record("time/steps_per_s", (steps - done_steps) / max(elapsed, 1e-9))
            for key, value in learner.timings.items():
                logger.record(f"time/{key}", value)
            if bar is not None:
                bar.update(steps - state["steps"])
            state["steps"] = steps
            if self.eval_freq and steps - state["eval"] >= self.eval_freq and self.settings.eval_rounds > 0:
                state["eval"] = steps
                self.evaluate_now(model, steps, logger)  # it writes the logger's record
            else:
                logger.dump(steps)
            if self.checkpoint_freq and steps - state["checkpoint"] >= self.checkpoint_freq:
                state["checkpoint"] = steps
                self.save_checkpoint(model, steps, scale=ppo.scaler_state())

        steps = ppo.learn(int(s.timesteps), start_steps=done_steps, callback=after_update)
        if bar is not None:
            bar.close()
        self.train_timings = {**ppo.timings, "steps": steps - done_steps,
                              "steps_per_s": round((steps - done_steps) / max(time.perf_counter() - state["started"], 1e-9))}
        if state["eval"] != steps:
            self.evaluate_now(model, steps, logger)
        model_path = self.out / MODEL_FILE
        save_checkpoint(model, model_path, self.config(steps))
        scale = ppo.scaler_state()
        if scale is not None:
            write_json(scale, self.out / SCALER_FILE)
        self.model = model
        return model_path

    def _load_scaler(self, ppo: Any) -> None:
        """On resume, continue the reward scale the checkpoint was saved with (checked when the
        trainer was made: :meth:`_check_scaler`)."""
        scale = self._check_scaler()
        if scale is not None:
            ppo.load_scaler(scale)

    def _check_scaler(self) -> dict[str, float] | None:
        """The lean run's reward scale saved with the checkpoint this run continues, checked;
        ``None`` when there is none (the scale then restarts).

        Raises:
            CheckpointError: naming the file, when it is not JSON or lacks a finite mean, var or count.
        """
        source = self.settings.resume or self.init_from
        if source is None or not self.settings.norm_reward or self.settings.algo not in LEAN:
            return None
        path = _saved_with(Path(read_config(source)[0]), SCALER_FILE)
        if path is None:
            return None
        try:
            scale = json.loads(path.read_text())
            values = {key: float(scale[key]) for key in ("mean", "var", "count")}
            if not all(math.isfinite(value) for value in values.values()):
                raise ValueError(f"not finite: {values}")
        except (OSError, ValueError, TypeError, KeyError) as error:
            raise CheckpointError(
                f"reward scale {str(path)!r} beside the checkpoint is unreadable ({type(error).__name__}: {error}); "
                "delete it to restart the normalisation, or use --no-norm-reward"
            ) from error
        return values

    def _lean_warm_start(self, model: Any, ppo: Any) -> None:
        """Imitation before the lean PPO (a reference row of the ablation only; off by default)."""

        def prime(returns: np.ndarray) -> float:
            ppo.load_scaler({"mean": float(returns.mean()), "var": float(returns.var()), "count": float(len(returns))})
            return float(ppo.reward_scale)

        self._imitate_teacher(model, prime, masked=True)

    def warm_start(self, model: Any, vec_env: Any) -> None:
        """Imitate ``settings.warm_start`` (a policy spec) before PPO; see :func:`imitate`."""

        def prime(returns: np.ndarray) -> float:
            vec_env.ret_rms.mean = float(returns.mean())
            vec_env.ret_rms.var = float(returns.var())
            vec_env.ret_rms.count = float(len(returns))
            return float(np.sqrt(returns.var() + vec_env.epsilon))

        self._imitate_teacher(model, prime, masked=self.settings.algo == "maskable_ppo")

    def _imitate_teacher(self, model: Any, prime: Callable[[np.ndarray], float], masked: bool) -> None:
        """The warm start of either learner: play the teacher, fit the model to its choices. With
        reward normalisation, ``prime`` seeds the learner's normaliser with the teacher's returns (so
        the critic's targets and the first rewards are in the same units) and gives their scale."""
        s = self.settings
        started = time.perf_counter()
        data = imitation_data(self.kwargs, self.teacher, s.warm_start_rounds, s.seed + 7, s.gamma)
        scale = prime(data["returns"]) if s.norm_reward else 1.0
        stats = imitate(model, data, s.warm_start_epochs, s.warm_start_smoothing, scale, masked=masked, seed=s.seed)
        self.warm_start_stats = {"teacher": s.warm_start, "rounds": s.warm_start_rounds, **stats,
                                 "seconds": round(time.perf_counter() - started, 1)}
        _print(f"warm start: imitated {s.warm_start!r} on {stats['samples']:,} decisions "
               f"(agreement {stats['agreement']:.3f}) in {self.warm_start_stats['seconds']} s")

    def _vecnormalize_stats(self) -> Path | None:
        """The reward-normalisation statistics saved with the checkpoint this run continues."""
        source = self.settings.resume or self.init_from
        if source is None or not self.settings.norm_reward or self.settings.algo in LEAN:
            return None
        return _saved_with(Path(read_config(source)[0]), VECNORM_FILE)

    def _check_vecnormalize(self) -> None:
        """Refuse unreadable normalisation statistics before the run folder is touched."""
        import pickle

        stats = self._vecnormalize_stats()
        if stats is None:
            return
        try:
            with stats.open("rb") as handle:
                pickle.load(handle)
        except Exception as error:  # a truncated or foreign pickle fails in many ways
            raise CheckpointError(
                f"reward-normalisation statistics {str(stats)!r} beside the checkpoint are unreadable "
                f"({type(error).__name__}: {error}); delete them to restart the normalisation, or use --no-norm-reward"
            ) from error

    def _vecnormalize(self, vec_env: Any, cls: Any) -> Any:
        stats = self._vecnormalize_stats()
        if stats is not None:
            loaded = cls.load(str(stats), vec_env)
            loaded.training = True
            return loaded
        # Only rewards are normalised: observations are already scaled by the encoder, and keeping
        # them raw lets a saved model play without the normalisation statistics.
        return cls(vec_env, norm_obs=False, norm_reward=True, gamma=self.settings.gamma if self.settings.gamma < 1 else 0.999,
                   clip_reward=50.0)

    def _load_history(self) -> None:
        """On resume into the checkpoint's own run directory, keep the earlier learning curve (up
        to the checkpoint's step, :meth:`_trim_history`) and append to it; another folder's curve
        is another run's."""
        path = self.out / f"{HISTORY_FILE}.json"
        if self.settings.resume and path.is_file() and self._resumes_in_place():
            self.history = json.loads(path.read_text())

    def _trim_history(self, done_steps: int) -> None:
        """Drop the points after the checkpoint's step (a run resumed from an earlier checkpoint
        learns them again), and go on counting wall time from the last point kept."""
        self.history = [point for point in self.history if int(point.get("timesteps", 0)) <= done_steps]
        if self.history:
            self.wall_offset = float(self.history[-1].get("wall_s", 0.0))

    def _resumes_in_place(self) -> bool:
        """The ``--resume`` checkpoint belongs to the run in ``out`` (its model.zip or one of its checkpoints)."""
        if not self.settings.resume:
            return False
        return _run_folder(Path(read_config(self.settings.resume)[0])) == self.out.resolve()

    def _check_out_folder(self) -> None:
        """Refuse to resume an earlier checkpoint of the run in ``out`` into ``out`` (that would
        replace its later model.zip and checkpoints), or any checkpoint into another run's folder
        (their learning curves and checkpoints would mix)."""
        config_path = self.out / CONFIG_FILE
        if not self.settings.resume or not config_path.is_file():
            return
        if not self._resumes_in_place():
            try:
                earlier = json.loads(config_path.read_text()).get("resumed_from")
            except (OSError, ValueError):
                earlier = None
            if earlier and Path(earlier).resolve() == Path(self.settings.resume).resolve():
                return  # the same resume again (the first try stopped part-way): it starts over there
            raise TrainingError(f"--out: expected a new folder (or the resumed run's own) for --resume, got "
                                f"{str(self.out)!r}, which holds another run")
        source_steps = int(read_config(self.settings.resume)[1].get("timesteps") or 0)
        try:
            run_steps = int(json.loads(config_path.read_text()).get("timesteps") or 0)
        except (OSError, ValueError):
            return  # a run that crashed before its config was whole: nothing later to lose
        if run_steps > source_steps:
            raise TrainingError(
                f"--out: resuming the checkpoint at step {source_steps:,} into its own run folder {str(self.out)!r} "
                f"would replace that run's model.zip and checkpoints, trained to {run_steps:,} steps; give --out a new folder"
            )

    def _clear_earlier_run(self) -> None:
        """A fresh run into a folder that holds an earlier one replaces it: its model, config,
        learning curve, normalisation and checkpoints go first (TensorBoard keeps both), so no
        file of the old run is read as this one's."""
        if self.settings.resume or not (self.out / CONFIG_FILE).is_file():
            return
        _print(f"replacing the earlier run in {self.out}")
        for name in (MODEL_FILE, CONFIG_FILE, f"{HISTORY_FILE}.csv", f"{HISTORY_FILE}.json", SCALER_FILE, VECNORM_FILE):
            (self.out / name).unlink(missing_ok=True)
        shutil.rmtree(self.out / "checkpoints", ignore_errors=True)


def _beside(checkpoint: Path, name: str) -> Path:
    """``name`` saved with ``checkpoint``: ``name`` itself in the run folder for its ``model.zip``,
    ``<stem>.<name>`` beside a ``checkpoints/step_N.zip``."""
    return checkpoint.parent / name if checkpoint.name == MODEL_FILE else checkpoint.with_name(f"{checkpoint.stem}.{name}")


def _saved_with(checkpoint: Path, name: str) -> Path | None:
    """The file ``name`` saved with ``checkpoint`` (:func:`_beside`), if there is one."""
    path = _beside(checkpoint, name)
    return path if path.is_file() else None


def _run_folder(checkpoint: Path) -> Path:
    """The run directory a checkpoint belongs to (the folder above ``checkpoints/`` for one saved on the way)."""
    folder = checkpoint.resolve().parent
    if folder.name == "checkpoints" and (folder.parent / CONFIG_FILE).is_file():
        folder = folder.parent
    return folder


def _print(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _has_tensorboard() -> bool:
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        return False
    return True


def _tqdm(total: int) -> Any:
    """A progress bar over the run's steps (tqdm, to stderr)."""
    from tqdm import tqdm

    return tqdm(total=total, unit="step", unit_scale=True, file=sys.stderr, dynamic_ncols=True)


# --------------------------------------------------------------------------------------------------
# Entry points
# --------------------------------------------------------------------------------------------------


NETWORK_SETTINGS = ("net_arch", "trunk", "features")
"""The settings that shape a network: a resumed run keeps its checkpoint's."""
SB3_SAVED_SETTINGS = {
    "maskable_ppo": ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
                     "clip_range", "vf_coef", "max_grad_norm"),
    "ppo": ("learning_rate", "n_steps", "batch_size", "n_epochs", "gamma", "gae_lambda",
            "clip_range", "vf_coef", "max_grad_norm"),
    "dqn": ("learning_rate", "batch_size", "gamma"),
}
"""The hyperparameters an SB3 model file carries: a loaded model keeps them, so a resumed SB3 run
keeps its checkpoint's (the lean learners take theirs from the settings on every run; the entropy
bonus follows the settings' schedule in both)."""


def _network_of_checkpoint(settings: TrainSettings) -> TrainSettings:
    """``settings`` with the network shape of the ``--resume`` checkpoint (and, for an SB3
    algorithm, the hyperparameters its model file carries, :data:`SB3_SAVED_SETTINGS`): a flag
    left at its default takes the checkpoint's value (so the run's config records what it
    trains); one given and different is refused, since a loaded network cannot change shape and a
    loaded SB3 model keeps its hyperparameters (both used to be ignored, and recorded as if they
    had been applied)."""
    found = read_config(settings.resume)[1]
    if found.get("algo") != settings.algo:
        return settings  # another algorithm's checkpoint: the trainer refuses it, saying so
    saved = found.get("settings") or {}
    fields = {field.name: field for field in dataclasses.fields(TrainSettings)}
    changes: dict[str, Any] = {}
    for name in NETWORK_SETTINGS + SB3_SAVED_SETTINGS.get(settings.algo, ()):
        if name not in saved:
            continue
        field = fields[name]
        default = field.default if field.default is not dataclasses.MISSING else field.default_factory()  # type: ignore[misc]
        given = getattr(settings, name)
        if given == default:
            changes[name] = saved[name]
        elif (list(given or []) != list(saved[name] or []) if isinstance(given, (list, tuple))
              else given != saved[name]):
            why = "a trained network keeps its shape" if name in NETWORK_SETTINGS else "an SB3 model keeps its hyperparameters"
            raise TrainingError(f"{flag(TrainSettings, name)}: expected the checkpoint's {saved[name]!r} when resuming "
                                f"({why}), got {given!r}")
    return dataclasses.replace(settings, **changes)


def train(settings: TrainSettings) -> dict[str, Any]:
    """Run what ``settings`` ask for; return a summary (paths of the final models, eval points)."""
    settings.validate()
    build_rules(settings.rules, settings.options)  # fail fast on a bad preset or option
    if settings.resume and settings.out is None:
        # Resuming without --out continues in the checkpoint's own run directory (the one above
        # checkpoints/ for a checkpoint the run saved on the way).
        folder = read_config(settings.resume)[0].parent
        if folder.name == "checkpoints" and (folder.parent / "config.json").is_file():
            folder = folder.parent
        settings = dataclasses.replace(settings, out=str(folder))
    if settings.resume:
        settings = _network_of_checkpoint(settings)
    settings = settings.for_role(settings.role)
    out = Path(str(settings.out))
    if settings.role == "both":
        return train_both(settings, out)
    if settings.algo == "belief":
        return train_belief(settings, out)
    trainer = Trainer(settings, settings.role, out)  # checks everything; creates nothing
    path = trainer.run()
    return {"role": settings.role, "model": str(path), "history": trainer.history,
            "wall_s": round(time.perf_counter() - trainer.started, 1)}


def _side(settings: TrainSettings, role: str) -> TrainSettings:
    """One side's settings of a ``--role both`` run: its role, and ``--warm-start`` only where the
    teacher plays that role (a banker teacher warm-starts the banker, a player teacher the player;
    one that plays both, such as ``random``, both)."""
    teacher = settings.warm_start
    if teacher and str(teacher).lower() != "none":
        plays = scripted_role(teacher) or guess_role(teacher)
        if plays not in (role, "any"):
            teacher = None
    return dataclasses.replace(settings, role=role, warm_start=teacher)


def train_both(settings: TrainSettings, out: Path) -> dict[str, Any]:
    """Alternate player and banker training for ``settings.generations`` generations.

    Generation ``g``: the player (continuing from its generation ``g-1`` weights) trains against
    the generation ``g-1`` banker model (the given or default scripted banker for ``g = 1``), then
    the banker trains against that new player. Other player seats are driven by the player model
    too when the banker trains, so the banker learns against the learned player everywhere.
    """
    started = time.perf_counter()
    player_specs = [spec for spec in settings.opponents if guess_role(spec) != "banker"]
    banker_specs = [spec for spec in settings.opponents if guess_role(spec) == "banker"]
    # Check both roles' runs before the first is made: the banker's opponents will be the trained
    # player, which does not exist yet, so its table is checked with the given player specs.
    for role, opponents in (("player", player_specs + banker_specs), ("banker", player_specs)):
        Trainer(_side(settings, role), role, out / "gen_01" / role, opponents=opponents)
    latest: dict[str, Path | None] = {"player": None, "banker": None}
    generations = []
    for generation in range(1, settings.generations + 1):
        gen_dir = out / f"gen_{generation:02d}"
        row: dict[str, Any] = {"generation": generation}
        for role in ("player", "banker"):
            if role == "player":
                opponents = player_specs + ([str(latest["banker"])] if latest["banker"] else banker_specs)
            else:
                opponents = [str(latest["player"])]
            sub = dataclasses.replace(_side(settings, role), out=str(gen_dir / role), seed=settings.seed + generation)
            trainer = Trainer(sub, role, gen_dir / role, opponents=opponents, init_from=latest[role])
            latest[role] = trainer.run()
            row[role] = str(latest[role])
            row[f"{role}_eval"] = trainer.history[-1] if trainer.history else None
        if settings.both_report:
            row["report"] = both_report(settings, latest["player"], latest["banker"])  # type: ignore[arg-type]
            _print(_both_line(generation, row["report"]))
        generations.append(row)
        write_json({"settings": settings.to_json(), "generations": generations}, out / "generations.json")
        if settings.both_report:
            plot_generations(generations, out / "generations.png")
    # The last generation's models are also copied to the top of the run directory for convenience.
    for role in ("player", "banker"):
        if latest[role] is not None:
            target = out / role
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(Path(latest[role]).parent, target, ignore=shutil.ignore_patterns("tb", "checkpoints"))
    return {"role": "both", "generations": generations, "wall_s": round(time.perf_counter() - started, 1)}


def both_report(settings: TrainSettings, player: Path, banker: Path) -> dict[str, Any]:
    """One generation of ``--role both``: each side's EV against the other, played on the same fresh
    deals, and, at one player seat under rules the solver models, each side's exploitability: the
    exact best response to the strategy read off its play (:func:`pontoon_tools.exploit.matchup`)."""
    from pontoon_tools import exploit
    from pontoon_tools.protocol import _action_table, _encoder, read_model

    rules = build_rules(settings.rules, settings.options)
    seats = int(settings.seats or BOTH_SEATS)
    player_policy = load_policy(str(player), rules, seats)
    banker_policy = load_policy(str(banker), rules, seats)
    rounds = settings.both_rounds
    played = play_match(rules, seats, [banker_policy] + [player_policy] * seats, rounds, settings.seed + 20_000)
    report: dict[str, Any] = {"rounds": rounds, "player_ev": estimate(played.ev(1)).as_dict("player_ev")}
    if seats != 1 or rules.settlement not in ("pagat", "casino", "pontoon_1939", "pontoon_2011"):
        report["exact"] = None
        return report
    player_model = player_policy.model
    player_model._pontoon_levels = action_levels(read_config(player)[1])
    banker_model = banker_policy.model
    banker_model._pontoon_levels = action_levels(read_config(banker)[1])
    config = read_config(player)[1]
    decisions, _ = read_model(player_model, rules, 1, "player", {"banker": str(banker)}, seed=settings.seed)
    player_table = exploit.read_player(decisions, _encoder(rules), _action_table(rules, config), rules)
    decisions, _ = read_model(banker_model, rules, 1, "banker", {"players": str(player)}, seed=settings.seed)
    banker_table = exploit.read_banker(decisions, _encoder(rules), _action_table(rules, config), rules)
    report["exact"] = {**exploit.matchup(rules, player_table, banker_table),
                       "player_read_agreement": player_table.agreement, "banker_read_agreement": banker_table.agreement}
    return report


def _both_line(generation: int, report: Mapping[str, Any]) -> str:
    line = f"[generation {generation}] player EV vs banker {report['player_ev']['player_ev']:+.3f} on {report['rounds']:,} rounds"
    exact = report.get("exact")
    if exact:
        line += (f"; exact: player EV {exact['player_ev']:+.3f}, player exploitability {exact['player_exploitability']:.3f}, "
                 f"banker exploitability {exact['banker_exploitability']:.3f}, sum {exact['nash_conv']:.3f}")
    return line


def plot_generations(generations: Sequence[Mapping[str, Any]], path: Path) -> Path | None:
    """``--role both``: each side's EV and exploitability over the generations (one PNG)."""
    rows = [g for g in generations if g.get("report")]
    if not rows:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [g["generation"] for g in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    played = [g["report"]["player_ev"]["player_ev"] for g in rows]
    left.plot(gens, played, "o-", label="player EV vs banker (played)")
    exact = [g["report"].get("exact") for g in rows]
    if all(exact):
        left.plot(gens, [e["player_ev"] for e in exact], "s--", label="player EV vs banker (exact, infinite deck)")
        right.plot(gens, [e["player_exploitability"] for e in exact], "o-", label="player: banker best response gains")
        right.plot(gens, [e["banker_exploitability"] for e in exact], "s-", label="banker: player best response gains")
        right.plot(gens, [e["nash_conv"] for e in exact], "k:", label="sum")
        right.axhline(0, color="grey", lw=0.5)
        right.set_title("exploitability (chips/round, exact)")
        right.legend(fontsize=8)
    left.axhline(0, color="grey", lw=0.5)
    for axis in (left, right):
        axis.set_xlabel("generation")
        axis.set_xticks(gens)
    left.set_title("player EV per round (banker's is minus this)")
    left.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


__all__ = [
    "ALGOS",
    "LegalizeActions",
    "TrainSettings",
    "Trainer",
    "TrainingError",
    "build_rules",
    "planned_timesteps",
    "train",
    "train_both",
    "training_env_kwargs",
]
