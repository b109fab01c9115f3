"""A lean masked double DQN for the native vector env: the value-based learner of the ablation.

Why a value-based learner here. The profitable play of ``pagat`` is a chain (stake high on a
good first card, buy at the top of the range on 8-11 and on soft hands, buy again, twist for
the five-card trick), and a policy-gradient learner values each link under its *current*
continuation: early on, the play after a big buy is still poor, so buying looks worse than
twisting, the policy drifts away from it, and a softmax policy that gives an action a few per
cent moves its logit only in proportion to that share (docs/training.md, "Diagnosis"). Q-learning
values every action under the *greedy* continuation (the bootstrapped target takes the best legal
next action, whatever was played), so a link is worth what the best play after it is worth as
soon as that play is found.

What it is. ε-greedy over the legal ids (ε falls linearly, then stays at ``eps_final``), a replay
of the last ``buffer_steps`` steps of every table (each table's transitions in time order, so the
next observation is the next row and is stored once), double-DQN targets ``r + γ Q_target(s',
argmax_{legal a'} Q(s', a'))`` (no bootstrap past the end of an episode), the Huber loss, Adam, a
Polyak-averaged target network, rewards divided by ``max_stake`` (so values are in maximum
stakes). The Q-network is the actor of a ``MaskablePPO`` policy (its features extractor,
``mlp_extractor.policy_net`` and ``action_net``): the logits *are* the Q-values, so the saved model
plays greedily through ``agents.model.ModelPolicy`` (``predict(..., action_masks=...,
deterministic=True)`` is the masked argmax) like every other model of this project.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from pontoon_tools.ppo import NEG

__all__ = ["DQNConfig", "LeanDQN", "q_values"]


@dataclass
class DQNConfig:
    """The knobs of :class:`LeanDQN`."""

    buffer_steps: int = 64
    """Steps of every table kept in the replay (``buffer_steps x num_envs`` transitions)."""
    batch_size: int = 8192
    updates_per_step: int = 1
    learning_rate: float = 1e-3
    learning_rate_final: float | None = None
    gamma: float = 1.0
    eps_start: float = 1.0
    eps_final: float = 0.02
    eps_decay: float = 0.3
    """Share of training over which ε falls linearly from ``eps_start`` to ``eps_final``."""
    tau: float = 0.01
    """Polyak weight of the online network in the target network at each update."""
    learning_starts: int = 8
    """Steps of every table collected before the first update."""
    max_grad_norm: float = 10.0
    reward_scale: float = 10.0
    seed: int = 0


def q_values(policy: Any, obs: Any) -> Any:
    """The Q-values (``action_net`` output) of an SB3 actor-critic policy used as a Q-network."""
    features = policy.extract_features(obs, policy.features_extractor) if policy.share_features_extractor \
        else policy.extract_features(obs, policy.pi_features_extractor)
    return policy.action_net(policy.mlp_extractor.forward_actor(features))


class _QNet:
    """The actor half of a policy (features, actor MLP, action head) as one callable Q-network."""

    def __init__(self, policy: Any) -> None:
        self.extractor = policy.features_extractor if policy.share_features_extractor else policy.pi_features_extractor
        self.body = policy.mlp_extractor.policy_net
        self.head = policy.action_net

    def modules(self) -> list[Any]:
        return [self.extractor, self.body, self.head]

    def parameters(self) -> list[Any]:
        return [p for m in self.modules() for p in m.parameters()]

    def __call__(self, obs: Any) -> Any:
        return self.head(self.body(self.extractor(obs)))


class LeanDQN:
    """Masked double DQN over a vector env (see the module docstring).

    Args:
        venv: the vector environment (native, or the reference engine behind the same API).
        model: a ``MaskablePPO`` model whose actor is trained as the Q-network, in place.
        config: the algorithm's settings.
        threads: torch CPU threads.
    """

    def __init__(self, venv: Any, model: Any, config: DQNConfig, threads: int = 1) -> None:
        import torch

        torch.set_num_threads(max(1, threads))
        self.torch = torch
        self.venv = venv
        self.model = model
        self.policy = model.policy
        self.config = config
        self.num_envs = int(venv.num_envs)
        self.obs_size = int(np.prod(venv.single_observation_space.shape))
        self.n_actions = int(venv.single_action_space.n)
        self.online = _QNet(self.policy)
        self.target = _QNet(copy.deepcopy(self.policy))
        for p in self.target.parameters():
            p.requires_grad_(False)
        self.params = self.online.parameters()
        self.optimizer = torch.optim.Adam(self.params, lr=config.learning_rate)
        T, N = config.buffer_steps, self.num_envs
        self.obs = torch.zeros((T, N, self.obs_size), dtype=torch.float32)
        self.masks = torch.zeros((T, N, self.n_actions), dtype=torch.bool)
        self.actions = torch.zeros((T, N), dtype=torch.int64)
        self.rewards = torch.zeros((T, N), dtype=torch.float32)
        self.dones = torch.zeros((T, N), dtype=torch.bool)
        self.filled = 0
        self.cursor = 0
        self.generator = torch.Generator().manual_seed(config.seed)
        self.rng = np.random.default_rng(config.seed)
        self._obs: np.ndarray | None = None
        self._running = np.zeros(N)
        self.episode_returns: list[float] = []
        self.stats: dict[str, float] = {}
        self.timings = {"rollout_s": 0.0, "update_s": 0.0}
        self.epsilon = config.eps_start

    def scaler_state(self) -> None:
        """No running reward scale (rewards are divided by the fixed ``reward_scale``)."""
        return None

    def load_scaler(self, state: Any) -> None:  # noqa: ARG002 - the interface of LeanPPO
        return None

    def close(self) -> None:
        return None

    def _schedules(self, fraction: float) -> None:
        c = self.config
        decayed = min(fraction / max(c.eps_decay, 1e-9), 1.0)
        self.epsilon = c.eps_start + decayed * (c.eps_final - c.eps_start)
        lr = c.learning_rate if c.learning_rate_final is None else \
            c.learning_rate + fraction * (c.learning_rate_final - c.learning_rate)
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.stats["epsilon"], self.stats["learning_rate"] = self.epsilon, lr

    def _act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        torch = self.torch
        with torch.no_grad():
            q = self.online(torch.from_numpy(obs)).masked_fill(~torch.from_numpy(mask), NEG)
            greedy = q.argmax(1).numpy()
        explore = self.rng.random(self.num_envs) < self.epsilon
        if explore.any():
            random = (self.rng.random((int(explore.sum()), self.n_actions)) * mask[explore]).argmax(1)
            greedy = greedy.copy()
            greedy[explore] = random
        return greedy

    def step(self) -> None:
        """One step of every table into the replay."""
        started = time.perf_counter()
        if self._obs is None:
            self._obs, _ = self.venv.reset(seed=self.config.seed)
        obs = self._obs
        mask = self.venv.action_masks()
        action = self._act(obs, mask)
        t = self.cursor
        self.obs[t] = self.torch.from_numpy(obs)
        self.masks[t] = self.torch.from_numpy(mask)
        self.actions[t] = self.torch.from_numpy(action)
        obs, reward, terminated, truncated, _ = self.venv.step(action)
        done = terminated | truncated
        self._running += reward
        if done.any():
            self.episode_returns.extend(self._running[done].tolist())
            self._running[done] = 0.0
        self.rewards[t] = self.torch.from_numpy((reward / self.config.reward_scale).astype(np.float32))
        self.dones[t] = self.torch.from_numpy(done)
        self._obs = obs
        self.cursor = (self.cursor + 1) % self.config.buffer_steps
        self.filled = min(self.filled + 1, self.config.buffer_steps)
        self.timings["rollout_s"] += time.perf_counter() - started

    def update(self) -> None:
        """``updates_per_step`` gradient steps on minibatches of stored transitions."""
        torch = self.torch
        c = self.config
        started = time.perf_counter()
        T, N = c.buffer_steps, self.num_envs
        # A transition (t, n) is usable when its successor (t + 1, n) is stored: every filled row
        # but the newest.
        usable = self.filled - 1
        newest = (self.cursor - 1) % T
        losses = []
        for _ in range(c.updates_per_step):
            rows = torch.randint(0, usable * N, (c.batch_size,), generator=self.generator)
            age = rows // N  # 0 = the oldest usable row
            t = (newest - usable + age) % T if self.filled == T else age
            n = rows % N
            t_next = (t + 1) % T
            obs, act, rew, done = self.obs[t, n], self.actions[t, n], self.rewards[t, n], self.dones[t, n]
            next_obs, next_mask = self.obs[t_next, n], self.masks[t_next, n]
            with torch.no_grad():
                pick = self.online(next_obs).masked_fill(~next_mask, NEG).argmax(1, keepdim=True)
                bootstrap = self.target(next_obs).gather(1, pick).squeeze(1)
                target = rew + c.gamma * bootstrap * (~done).float()
            q = self.online(obs).gather(1, act.unsqueeze(1)).squeeze(1)
            loss = torch.nn.functional.smooth_l1_loss(q, target)
            self.optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(self.params, c.max_grad_norm)
            self.optimizer.step()
            with torch.no_grad():
                for p, tp in zip(self.params, self.target.parameters()):
                    tp.mul_(1 - c.tau).add_(p, alpha=c.tau)
            losses.append(float(loss.detach()))
        self.stats["loss"] = float(np.mean(losses))
        self.stats["q_mean"] = float(q.detach().mean())
        self.timings["update_s"] += time.perf_counter() - started

    def learn(self, total_timesteps: int, *, start_steps: int = 0,
              callback: Callable[[LeanDQN, int], bool | None] | None = None, callback_every: int = 16) -> int:
        """Step every table and update until ``total_timesteps`` more steps are taken;
        ``callback(self, steps)`` every ``callback_every`` env steps (``False`` stops)."""
        iterations = max(1, math.ceil(total_timesteps / self.num_envs))
        steps = start_steps
        self.policy.set_training_mode(True)
        for iteration in range(iterations):
            self._schedules(iteration / iterations)
            self.step()
            if self.filled > max(self.config.learning_starts, 1):
                self.update()
            steps += self.num_envs
            self.model.num_timesteps = steps
            if callback is not None and ((iteration + 1) % callback_every == 0 or iteration + 1 == iterations):
                if callback(self, steps) is False:
                    break
        self.policy.set_training_mode(False)
        return steps
