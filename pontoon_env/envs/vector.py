"""Native vector environments: ``gymnasium.make_vec("Pontoon-v0", num_envs=N)`` on the batched engine.

:class:`PontoonVectorEnv` is a Gymnasium :class:`~gymnasium.vector.VectorEnv` over
:class:`~pontoon_env.batched.engine.BatchedEngine`: ``num_envs`` tables stepped in one compiled
call, with the single environment's observation encoding, action ids, episodes and rewards
(:class:`~pontoon_env.envs.gymnasium_env.PontoonEnv`: round or session episodes, skipped rounds,
the learner's seat, opponents, ``illegal_action``). Scripted opponents play inside the compiled
loop; any other policy (``banker_smart``, a trained checkpoint, an object with ``act``, whose
``act_batch`` is used where it has one) answers for all waiting tables in one call per step
(:mod:`pontoon_env.batched.callbacks`).

Autoreset: ``AutoresetMode.SAME_STEP``. A table whose episode ends in a step starts its next
episode in the same step; the returned observation and ``info["action_mask"]`` are the new
episode's (never all False), and the ended episode's last observation is
``info["final_obs"][i]`` where ``info["_final_obs"][i]`` (a dense ``float32`` array, not
Gymnasium's object array, so that 4096 tables cost no copy; a caller that keeps it keeps it as it
is: a later step writes into that buffer again only once nothing refers to it). The observations
themselves are handed out the same way: the env's own buffer, never written again while anything
(the caller, a view, a ``torch.from_numpy`` tensor) refers to it.

``info`` (arrays of length ``num_envs``): ``action_mask``, ``seat``, ``role``, ``balance``,
``round_index``; ``round_result`` (the learner's result in the last round finished during the
step, chips) with ``_round_result``; ``illegal_action`` (the reason) with ``_illegal_action``
where ``illegal_action="penalty"`` ended an episode; ``final_obs`` / ``_final_obs``; at ``reset``
``skipped_rounds``. Only ``info_level="basic"`` and no rendering: use the single environment (or
:func:`reference_vector_env`) for round reports and pictures.

Rules the batched engine does not play (``shoot``, the Vingt-Un presets, finite bankrolls, bank
sales) get :func:`reference_vector_env` from :func:`make_vector_env`: the same API over
:class:`~gymnasium.vector.SyncVectorEnv` of the single environment.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from gymnasium.vector.utils import batch_space

from pontoon_env.batched import kernel as kn
from pontoon_env.batched import tables as tb
from pontoon_env.batched.callbacks import decide_batch
from pontoon_env.batched.engine import BatchedEngine, NotNativeError, check_ids
from pontoon_env.batched.state import new_episode_state
from pontoon_env.envs.gymnasium_env import PontoonEnv
from pontoon_env.game.actions import IllegalActionError
from pontoon_env.game.checks import require_int

__all__ = ["PontoonVectorEnv", "make_vector_env", "reference_vector_env"]


class PontoonVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` Pontoon tables on the batched engine (see the module docstring).

    Args:
        num_envs: tables.
        autoreset_mode: ``AutoresetMode.SAME_STEP`` (the only mode; given for explicitness).
        **kwargs: every argument of :class:`PontoonEnv` (``rules``, ``role``, ``num_players``,
            ``learner_seat``, ``opponents``, ``episode``, ``session_rounds``, ``bank_rotation``,
            ``action_levels``, ``illegal_action``, ``illegal_penalty``, ``dict_observation``,
            ``rule_options``).

    Raises:
        NotNativeError: rules the batched engine does not play (use :func:`make_vector_env`).
        ValueError: an argument the single environment refuses, or one this one does not offer.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 1, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                 **kwargs: Any) -> None:
        num_envs = require_int("num_envs", num_envs, 1)
        limit = kwargs.pop("max_episode_steps", None)
        single = PontoonEnv(**kwargs)  # every argument checked exactly as the single environment does
        problem = tb.native_problem(single.rules)
        if problem is not None:
            # first, so that make_vector_env falls back for these rules whatever else is asked
            raise NotNativeError(f"rules {single.rules.preset!r}: {problem}; use make_vector_env for a reference-engine vector env")
        _check_autoreset_mode(autoreset_mode)
        if kwargs.get("render_mode") is not None:
            raise ValueError("render_mode: the native vector environment does not render; use PontoonEnv")
        if kwargs.get("info_level", "basic") != "basic":
            raise ValueError(
                f"info_level: the native vector environment gives info_level='basic' only, got {kwargs['info_level']!r} "
                "(round reports come from the single environment)"
            )
        self.single = single
        self.rules = single.rules
        self.num_envs = num_envs
        self.num_players = single.num_players
        self.role = single.role
        self.episode = single.episode
        self.illegal_action = single.illegal_action
        self.illegal_penalty = single.illegal_penalty
        self.dict_observation = single.dict_observation
        self.engine = BatchedEngine(self.rules, single.num_players, num_envs, seed=0,
                                    action_levels=single.table.config())
        self.table = self.engine.table
        S = self.engine.num_seats
        self.opp_pol = np.full((S, 2), -1, dtype=np.int64)
        self.callbacks: dict[tuple[int, int], Any] = {}
        for seat in range(S):
            for role in (0, 1):
                policy = single.opponents.policy(seat, role == 1)
                rows = self.engine.policy_rows(policy)
                if rows is None:
                    self.callbacks[(seat, role)] = policy
                else:
                    self.opp_pol[seat, role] = rows[role]
        self.ep = new_episode_state(num_envs)
        self.ecfg = np.zeros(kn.E_N, dtype=np.int64)
        self.ecfg[kn.E_ROUND_EPISODES] = single.episode == "round"
        self.ecfg[kn.E_SESSION_ROUNDS] = single.session_rounds
        self.ecfg[kn.E_ROLE_BANKER] = single.role == "banker"
        self.ecfg[kn.E_LEARNER_SEAT] = -1 if single.learner_seat is None else single.learner_seat
        self.ecfg[kn.E_BANK_ROTATION] = single.bank_rotation
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.metadata = dict(self.metadata)
        self._obs = np.zeros((num_envs, self.engine.encoder.size), dtype=np.float32)
        # The observation buffers handed out lately (the last is self._obs): each step writes every
        # row of one that nobody outside holds any more, and hands it out without a copy.
        self._obs_handed: list[np.ndarray] = [self._obs]
        self._final = np.zeros_like(self._obs)
        # The last final-observation buffers handed out (taken back once nobody refers to them).
        self._handed: list[np.ndarray] = []
        # The rows of self._final to zero before the step writes it (every row of a reused buffer,
        # which its holder may have changed anywhere): the compiled pass zeroes each (and clears
        # its flag) as it reaches that table.
        self._final_dirty = np.zeros(num_envs, dtype=np.bool_)
        # What env_outputs writes per table (kernel.WRITE_*); every table's observation and mask by default.
        self._write_all = np.full(self.num_envs, kn.WRITE_LIVE, dtype=np.int8)
        self._mask = np.zeros((num_envs, self.table.n), dtype=np.bool_)
        # Per step, from kernel.env_step: the learner's action was legal; its episode ended; where
        # the table was left (kernel.STAGE_*).
        self._valid = np.zeros(num_envs, dtype=np.bool_)
        self._ended = np.zeros(num_envs, dtype=np.bool_)
        self._stage = np.zeros(num_envs, dtype=np.int8)
        self._begin_stage = np.zeros(num_envs, dtype=np.int8)
        self._start = np.zeros(num_envs, dtype=np.int8)
        self._no_ids = np.zeros(num_envs, dtype=np.int64)
        self._started = False
        # Set when a step or reset failed part-way (an opponent's policy raised): the tables are
        # then in no state to step on, and only reset() clears it (the single env refuses the same).
        self._broken: str | None = None
        self._rngs = [np.random.default_rng(t) for t in range(num_envs)]
        # Gymnasium's TimeLimit, natively: an episode still running after this many steps is
        # truncated and its table starts afresh (as the single env's reset does mid-round).
        self.max_episode_steps = None if limit is None else require_int("max_episode_steps", limit, 1)
        self._episode_steps = np.zeros(num_envs, dtype=np.int64)
        # The tables a time limit truncated this step and their pending masks (for dict final_obs).
        self._cut_masks: tuple[np.ndarray, np.ndarray] | None = None

    # ------------------------------------------------------------------------------ Gymnasium API

    @property
    def action_names(self) -> list[str]:
        return list(self.table.names)

    def checkpoint_config(self) -> dict[str, Any]:
        """The single environment's checkpoint config (a model trained here plays there)."""
        return self.single.checkpoint_config()

    def action_masks(self) -> np.ndarray:
        """Boolean masks ``[num_envs, n_actions]`` of the legal ids now (never all False); a new
        array each call, so a caller may keep or change it (the env's own is what it checks
        actions against)."""
        return self._mask.copy()

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Start an episode at every table; ``seed`` (an int) makes fresh tables from that seed.

        Raises:
            ValueError: any ``options`` (stacked decks are the single environment's,
                :class:`PontoonEnv`), or a ``seed`` that is not one integer in ``0..2**63-1``
                (a list of seeds, one a table, is the reference vector environment's).
        """
        if self.closed:
            raise RuntimeError("reset: the environment is closed")
        if options:
            raise ValueError(f"reset options: the native vector environment takes none, got {sorted(options)}")
        if seed is not None and not isinstance(seed, (list, tuple, np.ndarray)):
            super().reset(seed=require_int("seed", seed, 0, 2**63 - 1))  # np_random and np_random_seed, as Gymnasium's envs
        fresh = np.zeros(self.num_envs, dtype=np.bool_)
        if seed is not None or not self._started:
            if isinstance(seed, (list, tuple, np.ndarray)):
                raise ValueError(f"seed: the native vector environment takes one integer seed, from which every "
                                 f"table is seeded; got {seed!r}")
            base = (require_int("seed", seed, 0, 2**63 - 1) if seed is not None
                    else int(np.random.SeedSequence().entropy % 2**62))
            self.ecfg[kn.E_SEED] = base
            self.ep.generation[:] = 0
            self._rngs = [np.random.default_rng([base, t]) for t in range(self.num_envs)]
            fresh[:] = True
        self._started = True
        self._take_back_final()
        self._take_back_obs()
        self.ep.reward[:] = 0
        self.ep.terminated[:] = False
        self.ep.truncated[:] = False
        self.ep.rounds_finished[:] = 0
        self._episode_steps[:] = 0
        self._broken = None
        with self._left_broken_if_it_fails("reset"):
            self._begin(self.engine.all, fresh)
        info = self._info()
        info["skipped_rounds"] = self.ep.skipped.copy()
        return self._observation(), info

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if self.closed:
            raise RuntimeError("step: the environment is closed")
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._broken is not None:
            raise RuntimeError(f"step: an earlier call failed part-way, {self._broken}, and left the tables in "
                               "no state to step on; call reset()")
        ids = check_ids(actions, self.num_envs, self.table.n)
        rows = np.arange(self.num_envs)
        legal_now = self._mask[rows, ids]
        if self.illegal_action == "raise" and not legal_now.all():
            i = int(np.flatnonzero(~legal_now)[0])
            raise IllegalActionError(f"table {i}: {self._illegal_message(i, int(ids[i]))}")
        messages = {int(i): self._illegal_message(int(i), int(ids[i])) for i in np.flatnonzero(~legal_now)}
        self._take_back_final()
        self._take_back_obs()
        # One compiled pass does the whole step at every table whose seats all play natively; the
        # few that wait for Python (a callback seat, a missing optimal key) are finished below.
        with self._left_broken_if_it_fails("step"):
            self._compiled_pass(ids, self._stage, begin=False)
            if (self._stage != kn.STAGE_DONE).any():
                self._finish_waiting()
        valid, ended = self._valid, self._ended
        invalid = ~valid
        rewards = self.ep.reward / self.rules.min_stake
        rewards[invalid] = self.illegal_penalty
        terminated = self.ep.terminated | invalid
        truncated = self.ep.truncated.copy()
        finished = self.ep.rounds_finished > 0
        round_result = self.ep.round_result.copy()
        if self.max_episode_steps is not None:
            with self._left_broken_if_it_fails("step"):  # a fresh table's opponents (callbacks) may raise
                ended = self._time_limit(ended, truncated)
        info = self._info()
        info["round_result"], info["_round_result"] = round_result, finished
        if ended.any():
            ended = ended.copy()  # self._ended is rewritten next step
            # Handed over, not copied: the rows of tables that did not end are zeros (a reused
            # buffer is zeroed whole, whatever its holder did with it).
            info["final_obs"], info["_final_obs"] = self._final, ended
            if self.dict_observation:  # in the observation space, as the episode's own observations are
                final_mask = np.zeros(self._mask.shape, dtype=np.int8)  # an ended episode has no legal id ...
                if self._cut_masks is not None:  # ... a truncated one its pending decision's (as TimeLimit's)
                    final_mask[self._cut_masks[0]] = self._cut_masks[1]
                info["final_obs"] = {"observation": self._final, "action_mask": final_mask}
            self._handed = [*self._handed[-1:], self._final]
            self._final = None
        self._cut_masks = None
        if messages:
            reasons = np.full(self.num_envs, "", dtype=object)
            for i, text in messages.items():
                reasons[i] = text
            info["illegal_action"], info["_illegal_action"] = reasons, invalid
        return self._observation(), rewards.astype(np.float64), terminated, truncated, info

    def close_extras(self, **kwargs: Any) -> None:
        self.single.close()

    # ------------------------------------------------------------------------------ internals

    @contextlib.contextmanager
    def _left_broken_if_it_fails(self, what: str) -> Iterator[None]:
        """Mark the env broken (no step until reset) if the block raises: an opponent's policy that
        fails part-way leaves tables mid-step."""
        try:
            yield
        except BaseException as error:
            self._broken = f"{what} failed ({type(error).__name__}: {error})"
            raise

    def _time_limit(self, ended: np.ndarray, truncated: np.ndarray) -> np.ndarray:
        """Gymnasium's ``TimeLimit`` at every table: count the step; where ``max_episode_steps`` is
        reached, set ``truncated`` (as the wrapper does, ended or not) and end a still-running
        episode: its last observation becomes its final one and its table starts afresh (the
        single env's reset mid-round). Returns ``ended`` with those tables added."""
        self._episode_steps += 1
        limit_hit = self._episode_steps >= self.max_episode_steps
        truncated |= limit_hit
        cut = np.flatnonzero(limit_hit & ~ended)
        self._episode_steps[ended | limit_hit] = 0
        if not cut.size:
            return ended
        ended = ended.copy()
        ended[cut] = True
        self._final[cut] = self._obs[cut]  # the compiled pass has zeroed every row it did not write
        self._cut_masks = (cut, self._mask[cut].astype(np.int8))
        self._begin(cut.astype(np.int64), np.ones(cut.size, dtype=np.bool_))
        return ended

    def _illegal_message(self, i: int, action: int) -> str:
        ids = {int(a): None for a in np.flatnonzero(self._mask[i])}
        seat = int(self.ep.learner[i])
        return f"seat {seat}: " + self.table.illegal_message(action, ids)  # type: ignore[arg-type]

    def _take_back_final(self) -> None:
        """A buffer for this step's final observations, zero in every row the step does not write:
        one of the last two handed out if nothing refers to it any more (a loop that keeps each
        step's ``info`` until the next step returns frees the one before), else a new one. A
        ``final_obs`` a caller keeps is never written again; reusing the others matters because a
        new 6.6 MB buffer (4,096 tables) costs a page fault per page written, about 540 a step
        (``perf stat -e page-faults``, ``docs/batched.md``).

        A reused buffer is zeroed in every row, not only in those its step wrote: the caller had it
        and may have changed any row (``info["final_obs"][:] -= 1``), and the documented contract is
        zeros in the rows of tables that did not end. Every row is flagged, and the compiled pass
        zeroes each as it reaches that table (numpy's masked assignment of the written rows was 6%
        of a step, 4,096 tables, cProfile)."""
        if self._final is not None:
            return
        for i in range(len(self._handed)):  # not enumerate: its result tuple holds a reference too
            buffer = self._handed[i]
            # Referred to by the list, by ``buffer`` and by getrefcount's argument only.
            if sys.getrefcount(buffer) == 3:
                self._final_dirty[:] = True
                self._final = self._handed.pop(i)
                return
        self._final = np.zeros(self._obs.shape, dtype=np.float32)
        self._final_dirty[:] = False

    OBS_BUFFERS = 3
    """Observation buffers kept for reuse: a caller that keeps the last step's observations while
    it steps again (SB3 keeps ``_last_obs``) still leaves one free."""

    def _take_back_obs(self) -> None:
        """Make ``self._obs`` a buffer that nobody outside holds (every row of it is written in the
        step): one handed out before and let go since, else a new one. The observations a step
        returns are that buffer itself: copying 6.6 MB (4,096 tables, 4 players) every step was
        most of the step's Python time, and a buffer a caller still holds (or a view of it) is
        never written again."""
        for i in range(len(self._obs_handed)):  # not enumerate: its result tuple holds a reference too
            buffer = self._obs_handed[i]
            # Held by the list, ``buffer`` and getrefcount's argument, and by ``self._obs`` if it is the last.
            if sys.getrefcount(buffer) == 3 + (buffer is self._obs):
                self._obs = self._obs_handed.pop(i)
                self._obs_handed.append(self._obs)
                return
        self._obs = np.empty_like(self._obs)
        self._obs_handed = [*self._obs_handed[-(self.OBS_BUFFERS - 1):], self._obs]

    def _finish_waiting(self) -> None:
        """Finish the step at the tables :func:`kernel.env_step` left waiting for Python: answer their
        seats, then, as the compiled pass does, the final observation and autoreset of those whose
        episode ended, and every one's observation and mask."""
        e = self.engine
        waiting = np.flatnonzero(self._stage != kn.STAGE_DONE)
        self._drive()
        after_step = waiting[self._stage[waiting] == kn.STAGE_STEP]
        now_ended = after_step[e.need[after_step] == kn.NEED_ENDED]
        write = np.full(self.num_envs, kn.WRITE_NONE, dtype=np.int8)
        write[waiting] = kn.WRITE_LIVE
        write[now_ended] = kn.WRITE_FINAL
        self._outputs(write)
        if now_ended.size:
            self._ended[now_ended] = True
            # The action was legal, so no forced fresh table (a session's next episode gets one from
            # _begin_table's own rule, as in the compiled pass).
            self._begin(now_ended, np.zeros(now_ended.size, dtype=np.bool_))

    def _begin(self, idx: np.ndarray, fresh: np.ndarray) -> None:
        """Start an episode at the tables ``idx`` (on a fresh table where ``fresh``) and write their
        observations and masks: the compiled pass (:func:`kernel.env_step` with ``begin``) does
        it all at the tables whose seats play natively, the rest are driven here and written after."""
        self._start[:] = kn.START_NONE
        self._start[idx] = np.where(fresh, kn.START_FRESH, kn.START_KEEP)
        stage = self._begin_stage
        self._compiled_pass(self._no_ids, stage, begin=True)
        waiting = np.asarray(idx)[stage[idx] != kn.STAGE_DONE]
        self._drive()
        if waiting.size:
            write = np.full(self.num_envs, kn.WRITE_NONE, dtype=np.int8)
            write[waiting] = kn.WRITE_LIVE
            self._outputs(write)

    def _compiled_pass(self, ids: np.ndarray, stage: np.ndarray, begin: bool) -> None:
        """:func:`kernel.env_step` over every table: the learner's ``ids`` applied, or with ``begin``
        the episodes of ``self._start`` started (``ids`` unread). The same argument types either
        way, so numba compiles it once."""
        e = self.engine
        kn.env_step(e.state, e.rules_flat, e.cfg, e.scales, e.layout, e.high, self.ecfg, self.ep, e.pol, e.seat_pol,
                    self.opp_pol, e.optimal.moves, e.miss, e.need, ids, e.slot_kind, e.slot_type, e.slot_level,
                    self._obs, self._mask, self._final, self._final_dirty, self._valid, self._ended, stage, begin, self._start, e.scratch,
                    e.amounts)

    def _drive(self) -> None:
        """Answer the tables waiting for an optimal-table key or a callback seat until every table
        waits for its learner (or has ended its episode)."""
        e = self.engine
        while True:
            bad = np.flatnonzero(e.need == kn.NEED_ERROR)
            if bad.size:
                t = int(bad[0])
                if e.state.error[t] == 2:
                    raise RuntimeError(f"table {t}: the learner had no decision in {kn.MAX_SKIPPED_ROUNDS} rounds")
                e.check_errors(bad)
            missing = np.flatnonzero(e.need == kn.NEED_MISS)
            if missing.size:
                e.solve_misses(missing)
                kn.env_resume(e.state, e.rules_flat, e.cfg, self.ecfg, self.ep, e.pol, e.seat_pol, self.opp_pol,
                              e.optimal.moves, e.miss, e.need, missing.astype(np.int64), e.scratch)
                continue
            waiting = np.flatnonzero(e.need == kn.NEED_CALLBACK)
            if not waiting.size:
                return
            seats = e.current_seats(waiting)
            roles = kn.PH_BANKER_DOUBLE == e.state.phase[waiting]
            roles |= e.state.phase[waiting] == kn.PH_BANKER_TURN
            for (seat, role), policy in self.callbacks.items():
                pick = (seats == seat) & (roles == bool(role))
                if not pick.any():
                    continue
                tables = waiting[pick].astype(np.int64)
                kinds, amounts = decide_batch(e, policy, tables, seats[pick], self._rngs)
                kn.env_apply(e.state, e.rules_flat, e.cfg, self.ecfg, self.ep, e.pol, e.seat_pol, self.opp_pol,
                             e.optimal.moves, e.miss, e.need, tables, kinds, amounts, False, e.scratch)
            if not np.isin(seats, [seat for seat, _ in self.callbacks]).any():
                raise RuntimeError(f"table {int(waiting[0])}: seat {int(seats[0])} waits for a policy nobody drives")

    def _outputs(self, write: np.ndarray | None = None) -> None:
        """Encode the observations and masks (``write``: per table, which of them; default all live)."""
        e = self.engine
        write = self._write_all if write is None else write
        kn.env_outputs(e.state, e.rules_flat, e.cfg, e.scales, e.layout, e.high, self.ep, e.slot_kind, e.slot_type,
                       e.slot_level, self._obs, self._mask, write, self._final)

    def _observation(self) -> Any:
        if self.dict_observation:
            return {"observation": self._obs, "action_mask": self._mask.astype(np.int8)}
        return self._obs  # not written again while anyone holds it (_take_back_obs)

    def _info(self) -> dict[str, Any]:
        ep = self.ep  # the per-table entries are written by the compiled pass (kernel._write_info)
        return {
            "action_mask": self._mask.copy(),
            "seat": ep.learner.copy(),
            "role": np.where(ep.info_banks, "banker", "player"),
            "balance": ep.info_balance.copy(),
            "round_index": ep.info_round.copy(),
        }


class ReferenceVectorEnv(SyncVectorEnv):
    """The single environment in a :class:`SyncVectorEnv` (SAME_STEP autoreset), with the native
    vector environment's :meth:`action_masks` and its checks of a step's actions, for rules the
    batched engine does not play."""

    def action_masks(self) -> np.ndarray:
        return np.stack([env.unwrapped.action_masks() for env in self.envs])

    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """:class:`SyncVectorEnv`'s ``reset``, refused once closed, as :meth:`PontoonVectorEnv.reset`."""
        if self.closed:
            raise RuntimeError("reset: the environment is closed")
        return super().reset(seed=seed, options=options)

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """As :meth:`PontoonVectorEnv.step`: every table's action is checked before any table
        steps (its shape, dtype and range, and its legality where tables raise), so one bad id
        leaves every table as it was and the error names the table; refused once closed."""
        if self.closed:
            raise RuntimeError("step: the environment is closed")
        ids = check_ids(actions, self.num_envs, int(self.single_action_space.n))
        for t, env in enumerate(self.envs):
            single = env.unwrapped
            if single.illegal_action == "raise" and single._game is not None and not single._mask[ids[t]]:
                raise IllegalActionError(f"table {t}: {single.illegal_message(int(ids[t]))}")
        return super().step(ids)


def _check_autoreset_mode(autoreset_mode: AutoresetMode | str) -> None:
    """Both vector envs autoreset in the same step (their step checks each action against the
    mask of a decision that is pending, which NEXT_STEP's ignored step would not have)."""
    try:
        mode = AutoresetMode(autoreset_mode) if not isinstance(autoreset_mode, AutoresetMode) else autoreset_mode
    except ValueError:
        raise ValueError(f"autoreset_mode: expected AutoresetMode.SAME_STEP, got {autoreset_mode!r}") from None
    if mode != AutoresetMode.SAME_STEP:
        raise ValueError(f"autoreset_mode: the Pontoon vector envs autoreset in the same step (SAME_STEP), got {mode}; "
                         "vectorization_mode='sync' gives Gymnasium's other modes")


def reference_vector_env(num_envs: int = 1, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
                         **kwargs: Any) -> ReferenceVectorEnv:
    """``num_envs`` single environments on the reference engine behind the vector API."""
    num_envs = require_int("num_envs", num_envs, 1)
    _check_autoreset_mode(autoreset_mode)
    limit = kwargs.pop("max_episode_steps", None)
    if limit is not None:
        limit = require_int("max_episode_steps", limit, 1)

    def make() -> gym.Env:
        env = PontoonEnv(**kwargs)
        return env if limit is None else gym.wrappers.TimeLimit(env, limit)

    return ReferenceVectorEnv([make for _ in range(num_envs)], autoreset_mode=AutoresetMode.SAME_STEP)


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> gym.vector.VectorEnv:
    """The ``vector_entry_point`` of ``Pontoon-v0`` / ``PontoonBanker-v0``: native where the batched
    engine plays the rules (:class:`PontoonVectorEnv`), else :func:`reference_vector_env`."""
    try:
        return PontoonVectorEnv(num_envs=num_envs, **kwargs)
    except NotNativeError:
        return reference_vector_env(num_envs=num_envs, **kwargs)
