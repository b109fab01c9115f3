"""A lean masked PPO for the native vector environment, in the style of CleanRL's single-file ``ppo.py``.

Why a second PPO. Stable-Baselines3's ``MaskablePPO`` on the batched ``VecEnv`` tops out near
16,000 steps/s on one core (``bench/training.py``): per step it builds a list of info dicts, asks
for the masks through ``env_method`` (one array per table, stacked again), and copies the rollout
through numpy buffers; per update it walks minibatches of a few hundred samples. This module keeps
the whole rollout in preallocated torch tensors, talks to :class:`~pontoon_env.envs.vector.PontoonVectorEnv`
directly (one masks array per step), and updates on large minibatches, so that the environment,
not the learner, sets the pace.

What it is. Generalised advantage estimation, the clipped surrogate objective, a value loss, an
entropy bonus on the *masked* distribution (illegal ids have probability zero in sampling, in the
loss and in the entropy), gradient-norm clipping, an optional linear decay of the learning rate and
of the entropy coefficient. The network is Stable-Baselines3's own ``MaskableActorCriticPolicy``
(the ``policy`` of a ``MaskablePPO`` model), trained in place: the model saves, loads and plays
through ``agents.model.ModelPolicy`` exactly like one trained by ``MaskablePPO.learn``.

Rewards and advantages (what the ablation in docs/training.md varies):

* ``reward_scale="return_std"`` divides rewards by a running standard deviation of the episode
  return (as ``VecNormalize(norm_reward=True)`` does); ``"none"`` trains on chips.
* ``stake_advantage=True`` multiplies the advantage of every decision taken *after* the initial
  stake by ``max_stake / initial stake`` (read from the observation): a hand staked at 1 chip then
  teaches the play of the hand as much as one staked at 10. Under ``pagat``'s buy limits the play of a hand
  is stake-invariant (buys are priced in units of the initial stake), so this is a positive
  per-state reweighting of the policy gradient, which leaves the optimum where it is; without it
  the play is learnt mostly from the rare high-stake rounds while the policy still stakes low.
  Under ``buy_limits="initial"`` (``pontoon_1939``, ``pontoon_2011``: a buy costs 1 chip up to the
  initial stake) it is not: a hand staked at 10 may buy a card for a tenth of its stake, one staked
  at 1 only for all of it, so the best play and its value per chip differ with the stake.
* ``stake_expected=True`` takes the policy gradient of a staking decision over *every* stake
  level at once instead of through the one sampled: a round's result is its per-chip result times
  the stake (the play being stake-invariant; only approximately under ``buy_limits="initial"``,
  where a chip of a high stake earns more, docs/training.md), so one round's return divided by the stake it was
  played at is a sample of what each chip of any stake would have earned, ``u``, and the stake
  decision's loss is ``-E_pi[stake] * u`` (scaled like the other advantages). Through the sampled
  level alone, a policy that has settled on the minimum stake rarely sees the maximum and keeps
  staking low after its play has made high stakes pay; this gradient points up wherever ``u > 0``.
* ``draw_expected=True`` does the same for the *price* of a card. Twisting and buying draw the
  same next card; they differ in the chips put on it (0 for a twist, the buy's price otherwise). A
  drawing hand's value is then close to ``(stake + price) x rho``, ``rho`` the value per chip of
  the hand after the card, so one round's return divided by the chips it was played for estimates
  ``rho`` whichever of twist or buy was drawn: through the sampled move alone the signal is a
  difference of two noisy returns; this way every drawing decision tells whether its chips pay.
  Each drawing id's logit then moves by ``rho * (price - E_pi[price | draw])`` (the loss is that
  weight, held fixed, times the logit; in initial stakes under ``stake_advantage``), *not* scaled
  by the move's probability: a policy that has all but stopped buying where buying pays (measured
  with ``python -m pontoon_tools.diagnose RUN --branches N``: under the model's own later play a
  buy at the maximum on a hard 11 was worth +0.36 [+0.03, +0.69] chips per initial stake more than
  the twist it always chose; docs/training.md) moves back at full speed, where the policy gradient
  of the expected price, scaled by ``pi``, barely moved it. Centred on the policy's own mean price,
  the step leaves the probability of drawing at all unchanged to first order: whether to draw
  (against a stick) stays with the PPO term. The prices come from the rules' own buy limits
  (:class:`DrawPrices`). It pays together with the one-hot hand (``--features onehot``), which
  lets the network tell a hard 11 from a hard 12 (docs/training.md, "Pricing a card"). ``train.py``
  no longer turns it on by default (2026-12-04): a buy also keeps the next buy open and the card
  face down, which a price does not see, and without it, with ``stake_expected``, the player came
  closer to the optimum on ``pagat`` and ``pontoon_1939`` and stayed level on ``pontoon_2011``
  (docs/training.md, "The per-chip signals").
* ``norm_adv`` normalises the advantages of each minibatch (zero mean, unit variance).
* ``round_credit=True`` (for ``session`` episodes) gives each decision the credit of its own round,
  as if each round were an episode: the GAE chain ends where a round ends and nothing of the
  rounds after it comes back, so a decision's advantage no longer carries the luck of every later
  round of the session; the critic learns the value of the round being played (given what the
  pack has shown), not of the rest of the session; the per-chip signals above
  (``stake_expected``, ``draw_expected``) read the round's own chips; and the reward scale tracks
  a round's return. A decision whose round is still going at the end of the rollout has no round
  result yet: it keeps its PPO term (bootstrapped as usual) and is left out of the per-chip terms.
  The policy then maximises each round's result given the cards seen, which is where counting
  pays (the stake and the play on a known pack), and ignores what its play does to the pack of
  later rounds. An earlier form bootstrapped a round's end from the critic's value of the next
  round: level with the optimum at 10,000,000 steps, it collapsed in longer runs while that value
  came to dominate the critic (docs/training.md, "Beyond the optimum").

Autoreset is ``SAME_STEP`` (the vector env starts the next episode in the step that ends one), so a
terminated step bootstraps from nothing and a truncated one from the value of ``info["final_obs"]``.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon_env.game.hands import FIVE_CARDS

__all__ = ["Collector", "DrawPrices", "LeanPPO", "PPOConfig", "ProcessCollector", "Rollout", "policy_forward", "PontoonFeatures", "feature_spec", "masked_logits", "random_play"]

NEG = -1e8
"""Logit given to illegal ids: finite, so that ``p * log p`` is an exact zero rather than NaN."""


@dataclass
class PPOConfig:
    """The knobs of :class:`LeanPPO` (``pontoon_tools.training.lean_config`` fills them from a run's settings)."""

    n_steps: int = 16
    batch_size: int = 16_384
    n_epochs: int = 4
    learning_rate: float = 1e-3
    learning_rate_final: float | None = None
    gamma: float = 1.0
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.1
    ent_coef_final: float = 0.0
    ent_decay: float = 1.0
    """Share of training over which the entropy coefficient falls linearly to ``ent_coef_final``."""
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    norm_adv: bool = True
    reward_scale: str = "return_std"
    stake_advantage: bool = False
    stake_expected: bool = False
    draw_expected: bool = False
    round_credit: bool = False
    seed: int = 0


class DrawPrices:
    """What each drawing id (twist, then the buy levels) costs in chips, in the hand being played,
    read from a batch of observations: the table is filled from the rules' own buy limits
    (:func:`pontoon_env.game.legality.buy_limits`, one entry per initial stake and last buy), and
    the hand's stake, initial stake and last buy are read from the observation's own-hand block
    (the fields flagged ``active``). Needed by ``draw_expected``.

    Args:
        ids: the twist id followed by the buy ids.
        levels: each buy id's level (``"min"``, ``"max"``, a fraction or a number of chips).
        rules: the rules whose buy limits price a buy.
        encoder: the observation layout.
    """

    def __init__(self, ids: Sequence[int], levels: Sequence[Any], rules: Any, encoder: Any) -> None:
        import torch

        from pontoon_env.encoding import resolve_amount
        from pontoon_env.game.hands import HandStat
        from pontoon_env.game.legality import buy_limits

        if len(ids) != len(levels) + 1 or len(levels) == 0:
            raise ValueError(f"DrawPrices: expected the twist id and one id per buy level, got ids {list(ids)} "
                             f"and levels {list(levels)}")
        self.ids = torch.as_tensor(np.asarray(ids, dtype=np.int64))
        self.max_stake = int(rules.max_stake)
        top = 2 * self.max_stake  # a banker's double doubles an initial stake
        table = np.zeros((top + 1, 2 * top + 1, len(ids)), dtype=np.float32)
        for initial in range(1, top + 1):
            for last in range(0, 2 * top + 1):
                low, high = buy_limits(HandStat(total=10, soft=False, n_cards=2, initial=initial, last_buy=last,
                                                stake=initial + last), rules)
                table[initial, last, 1:] = [resolve_amount(level, low, high) for level in levels]
        self.table = torch.as_tensor(table)
        block = next(b for b in encoder.blocks if b.name == "own")
        offsets = {f.name: f.offset for f in block.fields}
        base = block.start + np.arange(block.count) * block.stride
        self.columns = {name: torch.as_tensor(base + offsets[name]) for name in ("active", "stake", "initial", "last_buy")}

    def read(self, obs: Any) -> tuple[Any, Any, Any]:
        """``(prices [B, len(ids)], stake [B], initial [B])`` in chips, of the hand being played."""
        import torch

        active = obs.index_select(-1, self.columns["active"])
        chips = {name: torch.round((obs.index_select(-1, self.columns[name]) * active).sum(-1) * self.max_stake).long()
                 for name in ("stake", "initial", "last_buy")}
        initial = chips["initial"].clamp(0, self.table.shape[0] - 1)
        last = chips["last_buy"].clamp(0, self.table.shape[1] - 1)
        return self.table[initial, last], chips["stake"].float(), chips["initial"].float()


def masked_logits(logits: Any, mask: Any) -> Any:
    """``logits`` with every illegal id set to :data:`NEG` (probability exactly zero after softmax)."""
    return logits.masked_fill(~mask, NEG)


class RunningReturnScale:
    """A running variance of the discounted return per table, as SB3's ``VecNormalize`` keeps for
    rewards: rewards are divided by ``sqrt(var + eps)``. ``gamma = 1`` would let the return of a
    multi-round session grow without bound, so the return is tracked with ``min(gamma, 0.999)``."""

    def __init__(self, num_envs: int, gamma: float, epsilon: float = 1e-8) -> None:
        self.gamma = min(gamma, 0.999)
        self.returns = np.zeros(num_envs, dtype=np.float64)
        self.mean, self.var, self.count = 0.0, 1.0, 1e-4
        self.epsilon = epsilon

    def update(self, rewards: np.ndarray, dones: np.ndarray) -> None:
        self.returns = self.returns * self.gamma + rewards
        batch_mean, batch_var, n = float(self.returns.mean()), float(self.returns.var()), self.returns.size
        delta, total = batch_mean - self.mean, self.count + n
        m2 = self.var * self.count + batch_var * n + delta**2 * self.count * n / total
        self.mean, self.var, self.count = self.mean + delta * n / total, m2 / total, total
        self.returns[dones] = 0.0

    @property
    def scale(self) -> float:
        return math.sqrt(self.var + self.epsilon)

    def state(self) -> dict[str, float]:
        return {"mean": self.mean, "var": self.var, "count": self.count}

    def load(self, state: dict[str, float]) -> None:
        self.mean, self.var, self.count = float(state["mean"]), float(state["var"]), float(state["count"])


def policy_forward(policy: Any, obs: Any) -> tuple[Any, Any]:
    """Logits (unmasked) and values of a batch of observations, through an SB3 actor-critic policy's modules."""
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs, policy.features_extractor))
    else:
        pi_features, vf_features = policy.extract_features(obs)
        latent_pi = policy.mlp_extractor.forward_actor(pi_features)
        latent_vf = policy.mlp_extractor.forward_critic(vf_features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


def features_are_fixed(policy: Any) -> bool:
    """Whether the policy's features extractor has nothing to train (so the features of a rollout
    can be computed once per update instead of once per minibatch and epoch)."""
    return policy.share_features_extractor and not any(p.requires_grad for p in policy.features_extractor.parameters())


def heads_forward(policy: Any, features: Any) -> tuple[Any, Any]:
    """Logits and values from already extracted features (a shared, parameter-free extractor)."""
    latent_pi, latent_vf = policy.mlp_extractor(features)
    return policy.action_net(latent_pi), policy.value_net(latent_vf).squeeze(-1)


class Rollout:
    """One rollout's tensors ``[n_steps, num_envs, ...]`` (shared memory when a sampler process fills them)."""

    def __init__(self, n_steps: int, num_envs: int, obs_size: int, n_actions: int, shared: bool = False) -> None:
        import torch

        T, N = n_steps, num_envs
        self.obs = torch.zeros((T, N, obs_size), dtype=torch.float32)
        self.masks = torch.zeros((T, N, n_actions), dtype=torch.bool)
        self.actions = torch.zeros((T, N), dtype=torch.int64)
        self.logp = torch.zeros((T, N), dtype=torch.float32)
        self.values = torch.zeros((T, N), dtype=torch.float32)
        self.rewards = torch.zeros((T, N), dtype=torch.float32)
        self.dones = torch.zeros((T, N), dtype=torch.float32)
        self.boot = torch.zeros((T, N), dtype=torch.float32)
        """The value of ``final_obs`` where an episode was truncated (bootstrapped), else 0."""
        self.round_end = torch.zeros((T, N), dtype=torch.float32)
        """1 where a round ended during the step (``info["_round_result"]``), whether or not the episode did."""
        self.last_value = torch.zeros(N, dtype=torch.float32)
        if shared:
            for tensor in self.tensors():
                tensor.share_memory_()

    def tensors(self) -> list[Any]:
        return [self.obs, self.masks, self.actions, self.logp, self.values, self.rewards, self.dones, self.boot,
                self.round_end, self.last_value]


class Collector:
    """Plays the policy at every table of a vector env into a :class:`Rollout` (in this process, or
    inside a sampler process: :class:`ProcessCollector`)."""

    def __init__(self, venv: Any, policy: Any, config: PPOConfig) -> None:
        import torch

        self.torch = torch
        self.venv = venv
        self.policy = policy
        self.config = config
        self.num_envs = int(venv.num_envs)
        self.scaler = RunningReturnScale(self.num_envs, config.gamma) if config.reward_scale == "return_std" else None
        self.generator = torch.Generator().manual_seed(config.seed)
        self.obs: np.ndarray | None = None
        self.running = np.zeros(self.num_envs, dtype=np.float64)
        self.episode_returns: list[float] = []
        self.seconds = 0.0

    def collect(self, rollout: Rollout) -> None:
        """One rollout of ``n_steps`` steps at every table."""
        torch = self.torch
        started = time.perf_counter()
        if self.obs is None:
            self.obs, _ = self.venv.reset(seed=self.config.seed)
        obs = self.obs
        rollout.boot.zero_()
        self.policy.set_training_mode(False)
        for t in range(self.config.n_steps):
            mask = self.venv.action_masks()
            obs_t = torch.from_numpy(obs)
            mask_t = torch.from_numpy(mask)
            with torch.no_grad():
                logits, value = policy_forward(self.policy, obs_t)
                logp_all = torch.log_softmax(masked_logits(logits, mask_t), dim=-1)
                # Gumbel-max sampling: argmax(log p + Gumbel noise) draws from p; illegal ids never win.
                noise = -torch.log(-torch.log(torch.rand(logits.shape, generator=self.generator).clamp_(1e-12, 1.0)))
                action = torch.argmax(logp_all + noise, dim=-1)
                logp = logp_all.gather(1, action.unsqueeze(1)).squeeze(1)
            rollout.obs[t].copy_(obs_t)
            rollout.masks[t].copy_(mask_t)
            rollout.actions[t] = action
            rollout.logp[t] = logp
            rollout.values[t] = value
            obs, reward, terminated, truncated, info = self.venv.step(action.numpy())
            done = terminated | truncated
            self.running += reward
            if done.any():
                self.episode_returns.extend(self.running[done].tolist())
                self.running[done] = 0.0
            finished = info.get("_round_result")  # the native env and the reference engine's both say so
            round_end = done if finished is None else (np.asarray(finished, dtype=bool) | done)
            if self.scaler is not None:
                # with round credit the scale is a round's return, as in round episodes
                self.scaler.update(reward, round_end if self.config.round_credit else done)
                reward = reward / self.scaler.scale
            rollout.rewards[t] = torch.from_numpy(np.asarray(reward, dtype=np.float32))
            rollout.dones[t] = torch.from_numpy(done.astype(np.float32))
            rollout.round_end[t] = torch.from_numpy(round_end.astype(np.float32))
            cut = truncated & ~terminated
            if cut.any():
                final = torch.from_numpy(np.asarray(np.stack(info["final_obs"][cut]), dtype=np.float32))
                with torch.no_grad():
                    rollout.boot[t, torch.from_numpy(np.flatnonzero(cut))] = policy_forward(self.policy, final)[1]
        self.obs = obs
        with torch.no_grad():
            rollout.last_value.copy_(policy_forward(self.policy, torch.from_numpy(obs))[1])
        self.seconds += time.perf_counter() - started

    def take_returns(self) -> list[float]:
        returns, self.episode_returns = self.episode_returns, []
        return returns


def _sampler_main(conn: Any, env_kwargs: dict[str, Any], num_envs: int, policy_blob: bytes, config: PPOConfig,
                  rollouts: list[Rollout], threads: int) -> None:
    """The sampler process: build the env and a copy of the policy, then collect on request."""
    import io

    import torch

    from pontoon_env.envs.vector import make_vector_env

    torch.set_num_threads(max(1, threads))
    venv = make_vector_env(num_envs=num_envs, **env_kwargs)
    policy = torch.load(io.BytesIO(policy_blob), weights_only=False)
    collector = Collector(venv, policy, config)
    params = list(policy.parameters())
    try:
        while True:
            message = conn.recv()
            if message[0] == "close":
                break
            if message[0] == "scaler":
                if collector.scaler is not None:
                    collector.scaler.load(message[1])
                conn.send(("ok",))
                continue
            _, slot, weights = message
            torch.nn.utils.vector_to_parameters(weights, params)
            collector.collect(rollouts[slot])
            conn.send(("done", collector.take_returns(),
                       collector.scaler.state() if collector.scaler is not None else None, collector.seconds))
    except (EOFError, KeyboardInterrupt):  # the learner went away
        pass
    finally:
        venv.close()


class ProcessCollector:
    """A :class:`Collector` in a sampler process (spawned), filling shared :class:`Rollout` slots
    while the learner updates on the previous one (one update of policy lag, which PPO's ratio
    clipping absorbs). Its environment and policy copy are built from ``env_kwargs`` and the policy."""

    def __init__(self, env_kwargs: dict[str, Any], num_envs: int, policy: Any, config: PPOConfig, obs_size: int,
                 n_actions: int, threads: int = 1) -> None:
        import io

        import torch
        import torch.multiprocessing as mp

        self.torch = torch
        self.rollouts = [Rollout(config.n_steps, num_envs, obs_size, n_actions, shared=True) for _ in range(2)]
        blob = io.BytesIO()
        torch.save(policy, blob)
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_sampler_main, daemon=True,
                                       args=(child, env_kwargs, num_envs, blob.getvalue(), config, self.rollouts, threads))
        self.process.start()
        child.close()
        self.params = list(policy.parameters())
        self.pending: int | None = None
        self.scaler_state: dict[str, float] | None = None
        self.seconds = 0.0
        self.returns: list[float] = []

    def load_scaler(self, state: dict[str, float]) -> None:
        self.conn.send(("scaler", state))
        self._receive()

    def start(self, slot: int) -> None:
        """Begin collecting into ``slot`` with the learner's current weights."""
        weights = self.torch.nn.utils.parameters_to_vector(self.params).detach().clone()
        self.conn.send(("collect", slot, weights))
        self.pending = slot

    def wait(self) -> Rollout:
        """The rollout being collected, once it is complete."""
        assert self.pending is not None, "start a collection first"
        message = self._receive()
        _, returns, scaler, seconds = message
        self.returns.extend(returns)
        self.scaler_state, self.seconds = scaler, seconds
        slot, self.pending = self.pending, None
        return self.rollouts[slot]

    def _receive(self) -> Any:
        if not self.conn.poll(600):
            raise RuntimeError("the sampler process sent nothing for 10 minutes")
        try:
            return self.conn.recv()
        except EOFError as error:
            raise RuntimeError(f"the sampler process died (exit code {self.process.exitcode})") from error

    def close(self) -> None:
        try:
            self.conn.send(("close",))
        except (BrokenPipeError, OSError):
            pass
        self.process.join(timeout=30)
        if self.process.is_alive():
            self.process.terminate()


class LeanPPO:
    """Masked PPO over a vector env (see the module docstring).

    Args:
        venv: the vector environment (``num_envs`` tables; the native one, or the reference engine
            behind the same API); ``None`` with ``sampler="process"``, whose process builds its own.
        model: a ``MaskablePPO`` model whose ``policy`` is trained in place (its ``num_timesteps``
            is advanced, so ``model.save`` records the steps taken).
        config: the algorithm's settings.
        stake_index: the observation index of the learner's first hand's initial stake (divided
            by ``max_stake``); needed only with ``config.stake_advantage``.
        stake_decision: ids of the initial-stake actions (a decision whose mask allows one of
            them is a staking decision; its advantage is never rescaled).
        stake_chips: the stake in chips of each id of ``stake_decision``; needed only with
            ``config.stake_expected``.
        draw_prices: the price of each drawing id; needed only with ``config.draw_expected``.
        threads: torch CPU threads of the learner.
        sampler: ``"inline"`` (collect, then update, in this process) or ``"process"`` (a sampler
            process collects the next rollout while this one updates: two cores busy).
        env_kwargs, num_envs, spaces: with ``sampler="process"``, how the sampler builds its env,
            and the single observation / action spaces (``(obs_size, n_actions)``).
    """

    def __init__(self, venv: Any, model: Any, config: PPOConfig, *, stake_index: int | None = None,
                 stake_decision: np.ndarray | None = None, stake_chips: np.ndarray | None = None,
                 draw_prices: DrawPrices | None = None, threads: int = 1, sampler: str = "inline",
                 env_kwargs: dict[str, Any] | None = None, num_envs: int | None = None,
                 spaces: tuple[int, int] | None = None) -> None:
        import torch

        if config.reward_scale not in ("return_std", "none"):
            raise ValueError(f"reward_scale: expected 'return_std' or 'none', got {config.reward_scale!r}")
        if sampler not in ("inline", "process"):
            raise ValueError(f"sampler: expected 'inline' or 'process', got {sampler!r}")
        if config.stake_advantage and stake_index is None:
            raise ValueError("stake_advantage: expected the observation index of the initial stake (stake_index), got None")
        if config.stake_expected and (stake_decision is None or stake_chips is None
                                      or len(stake_chips) != len(stake_decision) or len(stake_chips) == 0
                                      or min(stake_chips) <= 0):
            raise ValueError("stake_expected: expected the stake ids (stake_decision) and their stakes in "
                             "chips (stake_chips, positive, one per id), "
                             f"got {stake_decision!r} and {stake_chips!r}")
        if config.draw_expected and draw_prices is None:
            raise ValueError("draw_expected: expected the drawing ids' prices (draw_prices), got None")
        self.draw_prices = draw_prices if config.draw_expected else None
        self.torch = torch
        torch.set_num_threads(max(1, threads))
        self.model = model
        self.policy = model.policy
        self.config = config
        self.sampler = sampler
        if sampler == "inline":
            self.num_envs = int(venv.num_envs)
            self.obs_size = int(np.prod(venv.single_observation_space.shape))
            self.n_actions = int(venv.single_action_space.n)
            self.collector: Collector | None = Collector(venv, self.policy, config)
            self.process: ProcessCollector | None = None
            self.rollout = Rollout(config.n_steps, self.num_envs, self.obs_size, self.n_actions)
        else:
            if env_kwargs is None or num_envs is None or spaces is None:
                raise ValueError("sampler='process': expected env_kwargs, num_envs and spaces")
            self.num_envs, (self.obs_size, self.n_actions) = int(num_envs), spaces
            self.collector = None
            self.process = ProcessCollector(env_kwargs, self.num_envs, self.policy, config, self.obs_size,
                                            self.n_actions, threads=1)
        self.stake_index = stake_index
        self.stake_ids = torch.as_tensor(np.asarray(stake_decision if stake_decision is not None else [], dtype=np.int64))
        self.stake_chips: Any = None  # chips of each action id (0: not a stake id), for stake_expected
        if config.stake_expected:
            chips = np.zeros(self.n_actions, dtype=np.float32)
            chips[np.asarray(stake_decision, dtype=np.int64)] = np.asarray(stake_chips, dtype=np.float32)
            self.stake_chips = torch.as_tensor(chips)
        # The policy's own Adam (eps 1e-5, as SB3's PPO makes it): saved and restored with the model.
        self.optimizer = self.policy.optimizer
        self.generator = torch.Generator().manual_seed(config.seed + 1)
        self.stats: dict[str, float] = {}
        self.episode_returns: list[float] = []
        self.timings = {"rollout_s": 0.0, "update_s": 0.0, "wait_s": 0.0}
        self.ent_coef = config.ent_coef

    # ------------------------------------------------------------------ the reward scale

    def scaler_state(self) -> dict[str, float] | None:
        """The running return scale (to save beside the model), or ``None`` without one."""
        if self.collector is not None:
            return self.collector.scaler.state() if self.collector.scaler is not None else None
        assert self.process is not None
        return self.process.scaler_state

    def load_scaler(self, state: dict[str, float]) -> None:
        """Continue a saved return scale (a resumed run)."""
        if self.config.reward_scale != "return_std":
            return
        if self.collector is not None and self.collector.scaler is not None:
            self.collector.scaler.load(state)
        elif self.process is not None:
            self.process.load_scaler(state)
            self.process.scaler_state = dict(state)

    @property
    def reward_scale(self) -> float:
        state = self.scaler_state()
        return math.sqrt(state["var"] + 1e-8) if state else 1.0

    def close(self) -> None:
        if self.process is not None:
            self.process.close()

    # ------------------------------------------------------------------ network

    def forward(self, obs: Any) -> tuple[Any, Any]:
        """Logits (unmasked) and values of a batch of observations."""
        return policy_forward(self.policy, obs)

    # ------------------------------------------------------------------ schedules

    def _apply_schedules(self, fraction: float) -> None:
        c = self.config
        decayed = min(fraction / max(c.ent_decay, 1e-9), 1.0)
        self.ent_coef = c.ent_coef + decayed * (c.ent_coef_final - c.ent_coef)
        lr = c.learning_rate if c.learning_rate_final is None else \
            c.learning_rate + fraction * (c.learning_rate_final - c.learning_rate)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.stats["ent_coef"] = self.ent_coef
        self.stats["learning_rate"] = lr

    # ------------------------------------------------------------------ advantages and the update

    def advantages(self, rollout: Rollout) -> tuple[Any, Any]:
        """GAE advantages and the value targets (returns) of ``rollout``."""
        torch = self.torch
        c = self.config
        T = c.n_steps
        adv = torch.zeros_like(rollout.rewards)
        last = torch.zeros(self.num_envs)
        for t in reversed(range(T)):
            next_value = rollout.last_value if t == T - 1 else rollout.values[t + 1]
            # round credit: a round's end ends the credit as an episode's end does (nothing from the
            # rounds after it, not even the critic's value of them)
            ended = torch.maximum(rollout.dones[t], rollout.round_end[t]) if c.round_credit else rollout.dones[t]
            alive = 1.0 - ended
            delta = rollout.rewards[t] + c.gamma * (next_value * alive + rollout.boot[t]) - rollout.values[t]
            last = delta + c.gamma * c.gae_lambda * alive * last
            adv[t] = last
        returns = adv + rollout.values
        if c.stake_advantage:
            initial = rollout.obs[..., self.stake_index]
            staking = rollout.masks[..., self.stake_ids].any(-1) if self.stake_ids.numel() else \
                torch.zeros_like(initial, dtype=torch.bool)
            weight = torch.where(staking | (initial <= 0), torch.ones_like(initial), 1.0 / initial.clamp(min=1e-6))
            adv = adv * weight
        return adv, returns

    def round_returns(self, rollout: Rollout) -> tuple[Any, Any]:
        """Each decision's return up to the end of its round (in the scaled rewards), and whether
        that round ended within the rollout (``known``): what ``round_credit`` gives the per-chip
        signals in place of a return that runs on to the end of the session."""
        torch = self.torch
        T = self.config.n_steps
        out = torch.zeros_like(rollout.rewards)
        known = torch.zeros_like(rollout.rewards, dtype=torch.bool)
        running = torch.zeros(self.num_envs)
        seen = torch.zeros(self.num_envs, dtype=torch.bool)
        for t in reversed(range(T)):
            ends = rollout.round_end[t] > 0
            running = torch.where(ends, rollout.rewards[t], rollout.rewards[t] + running)
            seen = ends | seen
            out[t], known[t] = running, seen
        return out, known

    def _stake_expected_loss(self, per_sample: Any, logp_all: Any, masks: Any, actions: Any, returns: Any,
                             scale: Any, known: Any = None) -> Any:
        """``per_sample`` with each staking decision's term replaced by ``-E_pi[stake] * u / scale``,
        ``u`` its return per chip staked (see the module docstring, ``stake_expected``); only where
        ``known`` (default everywhere) says the return is the round's result."""
        torch = self.torch
        chips = self.stake_chips
        staked = chips[actions]
        staking = masks[:, self.stake_ids].any(-1) & (staked > 0)
        if known is not None:
            staking = staking & known
        if not bool(staking.any()):
            return per_sample
        per_chip = torch.where(staking, returns / staked.clamp(min=1e-6), torch.zeros_like(returns)).detach()
        expected_stake = (logp_all.exp() * chips).sum(-1)
        return torch.where(staking, -expected_stake * per_chip / scale, per_sample)

    def _draw_inputs(self, masks: Any, actions: Any, returns: Any, obs: Any,
                     known: Any = None) -> tuple[Any, Any, Any, Any]:
        """What ``draw_expected`` needs of each sample, fixed within an update: whether it is a
        drawing decision where a buy was legal (``rows``; only where ``known``, default everywhere,
        says the return is the round's result), the prices of the drawing ids, the return per chip
        the hand was played for (``rho``) and the hand's initial stake."""
        torch = self.torch
        prices_of = self.draw_prices
        assert prices_of is not None
        ids = prices_of.ids
        legal = masks[:, ids]
        taken = actions.unsqueeze(1) == ids.unsqueeze(0)
        rows = legal[:, 0] & legal[:, 1:].any(-1) & taken.any(-1)
        if known is not None:
            rows = rows & known
        prices, stake, initial = prices_of.read(obs)
        price_taken = (prices * taken).sum(-1)
        rho = torch.where(rows, returns / (stake + price_taken).clamp(min=1.0), torch.zeros_like(returns))
        return rows, prices, rho, initial

    def _draw_expected_loss(self, per_sample: Any, logits: Any, masks: Any, rows: Any, prices: Any, rho: Any,
                            initial: Any, scale: Any) -> Any:
        """``per_sample`` plus, on each drawing decision where a buy was legal (``rows``, from
        :meth:`_draw_inputs`), the loss ``-rho / scale * sum_a (price_a - E_pi[price | draw]) *
        logit_a`` over the legal drawing ids (the weights held fixed; in initial stakes under the
        stake weighting): see the module docstring, ``draw_expected``."""
        torch = self.torch
        if not bool(rows.any()):
            return per_sample
        ids = self.draw_prices.ids  # type: ignore[union-attr]
        legal = masks[:, ids]
        drawing_logits = logits[:, ids].masked_fill(~legal, NEG)
        with torch.no_grad():
            conditional = torch.softmax(drawing_logits, dim=-1)
            weights = torch.where(legal, prices - (conditional * prices).sum(-1, keepdim=True), torch.zeros_like(prices))
            if self.config.stake_advantage:
                weights = weights / initial.clamp(min=1.0).unsqueeze(-1)  # in initial stakes, as the weighted advantages
            weights = weights * rho.unsqueeze(-1)
            # A logit moves by its weight (gradient descent on the term below); none is pushed further
            # towards a probability it has all but reached, so no logit runs away.
            settled = ((weights > 0) & (conditional > 0.999)) | ((weights < 0) & (conditional < 0.001))
            weights = torch.where(settled, torch.zeros_like(weights), weights)
        term = -(weights * torch.where(legal, drawing_logits, torch.zeros_like(drawing_logits))).sum(-1) / scale
        return torch.where(rows, per_sample + term, per_sample)

    def update(self, rollout: Rollout) -> None:
        """PPO epochs over ``rollout``."""
        torch = self.torch
        c = self.config
        started = time.perf_counter()
        adv, returns = self.advantages(rollout)
        B = c.n_steps * self.num_envs
        obs = rollout.obs.reshape(B, self.obs_size)
        masks = rollout.masks.reshape(B, self.n_actions)
        actions = rollout.actions.reshape(B)
        old_logp = rollout.logp.reshape(B)
        adv = adv.reshape(B)
        returns = returns.reshape(B)
        # the per-chip signals read the round's own return (round credit) or the return as it is
        chip_returns, known = returns, None
        if c.round_credit:
            round_returns, round_known = self.round_returns(rollout)
            chip_returns, known = round_returns.reshape(B), round_known.reshape(B)
        fixed = features_are_fixed(self.policy)
        with torch.no_grad():  # what does not change within an update is computed once for all of it
            features = self.policy.extract_features(obs, self.policy.features_extractor) if fixed else None
            draw = self._draw_inputs(masks, actions, chip_returns, obs, known) if self.draw_prices is not None else None
        self.policy.set_training_mode(True)
        mb = min(c.batch_size, B)
        clip_fracs, approx_kls, pg_losses, v_losses, entropies = [], [], [], [], []
        for _ in range(c.n_epochs):
            order = torch.randperm(B, generator=self.generator)
            for start in range(0, B, mb):
                idx = order[start:start + mb]
                logits, value = heads_forward(self.policy, features[idx]) if features is not None else \
                    self.forward(obs[idx])
                logp_all = torch.log_softmax(masked_logits(logits, masks[idx]), dim=-1)
                new_logp = logp_all.gather(1, actions[idx].unsqueeze(1)).squeeze(1)
                entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
                log_ratio = new_logp - old_logp[idx]
                ratio = log_ratio.exp()
                a = adv[idx]
                scale = a.std() + 1e-8 if c.norm_adv and a.numel() > 1 else torch.ones(())
                if c.norm_adv and a.numel() > 1:
                    a = (a - a.mean()) / scale
                per_sample = torch.max(-a * ratio, -a * ratio.clamp(1 - c.clip_range, 1 + c.clip_range))
                if self.stake_chips is not None:
                    per_sample = self._stake_expected_loss(per_sample, logp_all, masks[idx], actions[idx],
                                                           chip_returns[idx], scale,
                                                           None if known is None else known[idx])
                if draw is not None:
                    per_sample = self._draw_expected_loss(per_sample, logits, masks[idx], *(d[idx] for d in draw), scale)
                pg_loss = per_sample.mean()
                v_loss = 0.5 * ((value - returns[idx]) ** 2).mean()
                loss = pg_loss - self.ent_coef * entropy + c.vf_coef * v_loss
                self.optimizer.zero_grad(set_to_none=True)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.policy.parameters(), c.max_grad_norm)
                self.optimizer.step()
                with torch.no_grad():
                    clip_fracs.append(float(((ratio - 1).abs() > c.clip_range).float().mean()))
                    approx_kls.append(float(((ratio - 1) - log_ratio).mean()))
                    pg_losses.append(float(pg_loss.detach()))
                    v_losses.append(float(v_loss.detach()))
                    entropies.append(float(entropy.detach()))
        self.policy.set_training_mode(False)
        values = rollout.values.reshape(B)
        explained = 1.0 - float(torch.var(returns - values)) / max(float(torch.var(returns)), 1e-12)
        self.stats.update({
            "policy_loss": float(np.mean(pg_losses)), "value_loss": float(np.mean(v_losses)),
            "entropy": float(np.mean(entropies)), "clip_fraction": float(np.mean(clip_fracs)),
            "approx_kl": float(np.mean(approx_kls)), "explained_variance": explained,
            "reward_scale": self.reward_scale,
        })
        self.timings["update_s"] += time.perf_counter() - started

    # ------------------------------------------------------------------ the loop

    def learn(self, total_timesteps: int, *, start_steps: int = 0,
              callback: Callable[[LeanPPO, int], bool | None] | None = None) -> int:
        """Collect and update until ``total_timesteps`` more steps are taken (whole rollouts);
        ``callback(self, steps)`` runs after every update (return ``False`` to stop). Returns the
        step count reached (``start_steps`` plus the steps taken), also stored in ``model.num_timesteps``.
        The schedules (entropy, learning rate) run over these ``total_timesteps``."""
        chunk = self.config.n_steps * self.num_envs
        iterations = max(1, math.ceil(total_timesteps / chunk))
        steps = start_steps
        if self.process is not None:
            slot = 0
            waited = time.perf_counter()
            self.process.start(slot)
            rollout = self.process.wait()
            self.timings["wait_s"] += time.perf_counter() - waited
        for iteration in range(iterations):
            self._apply_schedules(iteration / iterations)
            if self.collector is not None:
                self.collector.collect(self.rollout)
                rollout = self.rollout
                self.timings["rollout_s"] = self.collector.seconds
                self.episode_returns.extend(self.collector.take_returns())
            else:
                assert self.process is not None
                if iteration + 1 < iterations:
                    slot = 1 - slot
                    self.process.start(slot)  # the next rollout, with the weights before this update
            self.update(rollout)
            steps += chunk
            self.model.num_timesteps = steps
            if self.process is not None and iteration + 1 < iterations:
                waited = time.perf_counter()
                rollout = self.process.wait()
                self.timings["wait_s"] += time.perf_counter() - waited
                self.timings["rollout_s"] = self.process.seconds
                self.episode_returns.extend(self.process.returns)
                self.process.returns = []
            if callback is not None and callback(self, steps) is False:
                break
        if self.process is not None and self.process.pending is not None:
            self.process.wait()
        return steps


# --------------------------------------------------------------------------------------------------
# Observation features
# --------------------------------------------------------------------------------------------------


def feature_spec(encoder: Any) -> dict[str, int]:
    """Where the learner's own hands sit in an observation of ``encoder``'s layout
    (:class:`~pontoon_env.encoding.ObservationEncoder`): the ``own`` block's start, stride and
    repeats, and the offsets of the fields :class:`PontoonFeatures` reads."""
    block = next(b for b in encoder.blocks if b.name == "own")
    offsets = {f.name: f.offset for f in block.fields}
    return {"own_start": block.start, "own_stride": block.stride, "own_count": block.count,
            "active": offsets["active"], "total": offsets["total"], "num_cards": offsets["num_cards"],
            "buys": offsets["buys"], "phase_start": 0, "phase_size": next(
                f.size for f in encoder.blocks[0].fields if f.name == "phase"),
            **_seat_spec(encoder)}


def _seat_spec(encoder: Any) -> dict[str, int]:
    """Where the other seats' blocks sit (start, stride, how many; every table has at least the
    banker or one player beside the observer): what ``seat_pool`` reads."""
    block = next(b for b in encoder.blocks if b.name == "seat")
    offsets = {f.name: f.offset for f in block.fields}
    hand_count = sum(1 for name in offsets if name.startswith("hand[") and name.endswith("].present"))
    first = offsets["hand[0].present"]
    return {"seat_start": block.start, "seat_stride": block.stride, "seat_count": block.count,
            # the hands inside a seat's block (what ``hand_pool`` reads): where the first starts,
            # the stride between two, how many, and the fields read one-hot (offsets within a hand)
            "hand_start": first, "hand_count": hand_count,
            "hand_stride": offsets["hand[1].present"] - first if hand_count > 1 else block.stride - first,
            "hand_cards": offsets["hand[0].num_cards"] - first, "hand_total": offsets["hand[0].total"] - first,
            "max_cards": int(encoder.max_cards)}


def random_play(venv: Any, steps: int = 64, seed: int = 0) -> tuple[np.ndarray, list[int]]:
    """Observations of uniformly random legal play for ``steps`` steps at every table of ``venv``
    (resetting it), and the columns that vary in them.

    Columns that never move (the banker's hidden hand as a player sees it, the seat slots of a
    one-player table, Shoot fields outside Shoot) carry nothing for the network: dropping them
    (``--features keep``) is lossless for what was seen and halves the first layer. The samples
    also set the inputs' standardisation (``--features std``)."""
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    samples = [obs]
    for _ in range(steps):
        masks = venv.action_masks()
        obs, *_ = venv.step((rng.random(masks.shape) * masks).argmax(1))
        samples.append(obs)
    stacked = np.concatenate(samples)
    return stacked, [int(i) for i in np.flatnonzero(stacked.max(0) > stacked.min(0))]


ONEHOT_TOTALS, ONEHOT_CARDS, ONEHOT_BUYS = 32, 6, 4
"""Widths of the one-hot hand (``active_onehot``): totals 0..31, cards 0..5, buys 0..3."""
HAND_CARDS_ONEHOT = 6
"""Width of another hand's card count one-hot (``hand_pool``): 0..4 cards, and 5 or more."""


def _features_base() -> Any:
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    return BaseFeaturesExtractor


class PontoonFeatures(_features_base()):  # type: ignore[misc]
    """The observation as the network sees it (saved inside the model, so it plays anywhere).

    * ``keep``: the observation columns used (``None``: all); see :func:`random_play`.
    * ``active_onehot``: append the hand being played, read through the ``active`` flags of the
      own-hand block: its total (0..31) and card count (0..4, and 5 or more) one-hot, its buys
      (0..3) one-hot. The encoder gives a total as ``total / 21``; thresholds such as "stick on
      15, not 14" are then a single table lookup instead of a fine cut of one scaled input.
    * ``standardize``: subtract a mean and divide by a standard deviation per input (buffers, set by
      :meth:`fit` from sample observations).
    * ``seat_pool``: append a learnt summary of the other seats, the same small layer applied to
      every seat's block (with the hand being played one-hot, when ``active_onehot``) and summed
      over the seats (a Deep Sets pooling). A banker's value of standing on a total is a sum over
      the standing hands of each hand's stake times what it pays against that total: one shared
      map per hand, added up, is that structure, and it does not grow with the number of seats.
    * ``hand_pool``: append a learnt summary of the other players' hands, the same small layer
      applied to every hand in the seats' blocks (its fields, with its card count, 0..5 or more, and
      its visible total, 0..31, one-hot; beside the hand being played one-hot, when
      ``active_onehot``), zero for an absent hand, summed over all of them. The banker's payoff
      is a sum over *hands* (a split seat has several), each paying by its own class and total:
      ``seat_pool`` has to pick a seat's hands apart in one layer, this reads each hand alone, and a
      total one-hot makes "a 4-card hand showing 16" one input rather than a fine cut of a scaled one.
    * ``trunk``: hidden layers (tanh) shared by the actor and the critic.
    """

    def __init__(self, observation_space: Any, keep: list[int] | None = None, active_onehot: bool = False,
                 spec: dict[str, int] | None = None, standardize: bool = False, trunk: list[int] | None = None,
                 seat_pool: int = 0, hand_pool: int = 0) -> None:
        import torch
        from torch import nn

        size = int(np.prod(observation_space.shape))
        keep_list = list(range(size)) if keep is None else [int(i) for i in keep]
        if any(not 0 <= i < size for i in keep_list):
            raise ValueError(f"keep: expected column indices in 0..{size - 1}, got {keep_list}")
        if active_onehot and not spec:
            raise ValueError("active_onehot: expected the own-hand layout (spec from feature_spec), got none")
        onehot = ONEHOT_TOTALS + ONEHOT_CARDS + ONEHOT_BUYS if active_onehot else 0
        width = len(keep_list) + onehot
        if not isinstance(seat_pool, int) or seat_pool < 0:
            raise ValueError(f"seat_pool: expected a width >= 0 (0: no seat pooling), got {seat_pool!r}")
        seats = int((spec or {}).get("seat_count", 0))
        if seat_pool and not seats:
            raise ValueError("seat_pool: expected a table with other seats (spec from feature_spec), got none")
        if not isinstance(hand_pool, int) or hand_pool < 0:
            raise ValueError(f"hand_pool: expected a width >= 0 (0: no hand pooling), got {hand_pool!r}")
        if hand_pool and not seats:
            raise ValueError("hand_pool: expected a table with other seats (spec from feature_spec), got none")
        trunk = list(trunk or [])
        pooled = width + seat_pool + hand_pool
        super().__init__(observation_space, trunk[-1] if trunk else pooled)
        self.register_buffer("keep", torch.as_tensor(keep_list, dtype=torch.int64))
        self.keep_all = keep_list == list(range(size))  # no copy of every column for nothing
        self.register_buffer("mean", torch.zeros(width))
        self.register_buffer("std", torch.ones(width))
        self.active_onehot = bool(active_onehot)
        self.standardize = bool(standardize)
        self.spec = dict(spec or {})
        self.seat_pool = int(seat_pool)
        if self.seat_pool:
            seat_in = self.spec["seat_stride"] + onehot
            self.seat_net = nn.Sequential(nn.Linear(seat_in, self.seat_pool), nn.Tanh())
        self.hand_pool = int(hand_pool)
        if self.hand_pool:
            hand_in = self.spec["hand_stride"] + HAND_CARDS_ONEHOT + ONEHOT_TOTALS + onehot
            self.hand_net = nn.Sequential(nn.Linear(hand_in, self.hand_pool), nn.Tanh())
        layers: list[Any] = []
        previous = pooled
        for hidden in trunk:
            layers += [nn.Linear(previous, hidden), nn.Tanh()]
            previous = hidden
        self.trunk = nn.Sequential(*layers)

    def raw(self, obs: Any) -> Any:
        """The inputs before standardisation and the trunk."""
        import torch

        x = obs if getattr(self, "keep_all", False) else obs.index_select(-1, self.keep)
        if self.active_onehot:
            x = torch.cat([x, self._active_onehot(obs)], dim=-1)
        return x

    def _active_onehot(self, obs: Any) -> Any:
        """The hand being played, one-hot: total (32), cards (6), buys (4)."""
        import torch

        s = self.spec
        own = obs[..., s["own_start"]:s["own_start"] + s["own_count"] * s["own_stride"]]
        own = own.reshape(*obs.shape[:-1], s["own_count"], s["own_stride"])
        active = own[..., s["active"]:s["active"] + 1]
        hand = (own * active).sum(-2)  # the fields of the hand being played (zeros if none)
        total = torch.round(hand[..., s["total"]] * 21).clamp(0, ONEHOT_TOTALS - 1).long()
        # the encoder scales a card count by its rules' most cards (5 with the five-card trick, else
        # 22); a model saved before the spec held it was trained on five-card-trick scaling
        scale = s.get("max_cards", FIVE_CARDS)
        cards = torch.round(hand[..., s["num_cards"]] * scale).clamp(0, ONEHOT_CARDS - 1).long()
        buys = torch.round(hand[..., s["buys"]] * 3).clamp(0, ONEHOT_BUYS - 1).long()
        return torch.cat([torch.nn.functional.one_hot(total, ONEHOT_TOTALS).float(),
                          torch.nn.functional.one_hot(cards, ONEHOT_CARDS).float(),
                          torch.nn.functional.one_hot(buys, ONEHOT_BUYS).float()], dim=-1)

    def _seat_blocks(self, obs: Any) -> Any:
        """The other seats' blocks of a batch of observations, ``[..., seat_count, seat_stride]``."""
        s = self.spec
        count, stride = s["seat_count"], s["seat_stride"]
        return obs[..., s["seat_start"]:s["seat_start"] + count * stride].reshape(*obs.shape[:-1], count, stride)

    def pooled_seats(self, obs: Any) -> Any:
        """The sum over the other seats of the shared seat layer (``seat_pool`` wide)."""
        import torch

        seats = self._seat_blocks(obs)
        count = seats.shape[-2]
        if self.active_onehot:  # each seat is read beside the hand it is played against
            hand = self._active_onehot(obs).unsqueeze(-2).expand(*obs.shape[:-1], count, -1)
            seats = torch.cat([seats, hand], dim=-1)
        return self.seat_net(seats).sum(-2)

    def pooled_hands(self, obs: Any) -> Any:
        """The sum over the other players' hands of the shared hand layer (``hand_pool`` wide)."""
        import torch
        from torch.nn.functional import one_hot

        s = self.spec
        seats = self._seat_blocks(obs)
        count = seats.shape[-2]
        start, per, width = s["hand_start"], s["hand_count"], s["hand_stride"]
        hands = seats[..., start:start + per * width].reshape(*obs.shape[:-1], count * per, width)
        present = hands[..., 0:1]  # the "present" flag leads a hand's fields (feature_spec)
        cards = torch.round(hands[..., s["hand_cards"]] * s["max_cards"]).clamp(0, HAND_CARDS_ONEHOT - 1).long()
        total = torch.round(hands[..., s["hand_total"]] * 21).clamp(0, ONEHOT_TOTALS - 1).long()
        parts = [hands, one_hot(cards, HAND_CARDS_ONEHOT).float(), one_hot(total, ONEHOT_TOTALS).float()]
        if self.active_onehot:  # each hand is read beside the hand it is played against
            parts.append(self._active_onehot(obs).unsqueeze(-2).expand(*obs.shape[:-1], count * per, -1))
        return (self.hand_net(torch.cat(parts, dim=-1)) * present).sum(-2)

    def fit(self, obs: np.ndarray) -> None:
        """Set the standardisation from sample observations (a column that never moves keeps std 1)."""
        import torch

        with torch.no_grad():
            x = self.raw(torch.as_tensor(obs, dtype=torch.float32))
            std = x.std(0)
            self.mean.copy_(x.mean(0))
            self.std.copy_(torch.where(std > 1e-6, std, torch.ones_like(std)))

    def forward(self, obs: Any) -> Any:
        import torch

        x = self.raw(obs)
        if self.standardize:
            x = (x - self.mean) / self.std
        if getattr(self, "seat_pool", 0):
            x = torch.cat([x, self.pooled_seats(obs)], dim=-1)
        if getattr(self, "hand_pool", 0):
            x = torch.cat([x, self.pooled_hands(obs)], dim=-1)
        return self.trunk(x)
