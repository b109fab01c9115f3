"""Regression tests for defects an audit of the vector environments found.

* a reused ``info["final_obs"]`` buffer changed in place by its holder came back with non-zero
  rows for tables that did not end;
* a Python policy that changed the ``masks`` it was handed had its illegal answer applied by the
  compiled engine (a split of a non-pair, more hands than there is room for) and the step never
  returned;
* the SB3 adapter ignored arguments, reset options and a failed ``step_async``, never filled
  ``reset_infos``, and its ``seed`` did not return what SB3's does;
* the reference fallback stepped and reset after ``close()``;
* the engine passed a strided table-index array to the kernels (a fresh numba compile).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from pontoon_env.batched.engine import BatchedEngine
from pontoon_env.envs.sb3 import PontoonSB3VecEnv
from pontoon_env.envs.vector import PontoonVectorEnv, ReferenceVectorEnv, make_vector_env
from helpers import random_legal


def _final_rows(info: dict) -> np.ndarray:
    final = info["final_obs"]
    return final["observation"] if isinstance(final, dict) else final


@pytest.mark.parametrize("dict_observation", [False, True])
def test_final_obs_is_zero_outside_the_ended_tables_even_after_its_holder_changed_it(dict_observation: bool) -> None:
    env = PontoonVectorEnv(num_envs=8, num_players=2, dict_observation=dict_observation)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        actions = random_legal(info["action_mask"], rng)
        _, _, terminated, truncated, info = env.step(actions)
        if "final_obs" not in info:
            continue
        rows, ended = _final_rows(info), info["_final_obs"]
        assert rows.dtype == np.float32 and rows.shape == (8, env.engine.encoder.size)
        assert np.array_equal(ended, terminated | truncated)
        assert not rows[~ended].any(), f"rows {np.flatnonzero(~ended & rows.any(axis=1)).tolist()} are not zeros"
        assert rows[ended].any(axis=1).all()  # the ended episodes' last observations
        checked += 1
        rows[:] -= 1.0  # the holder changes it in place, then lets it go (the env takes it back)
        del rows
    assert checked >= 5
    env.close()


def test_a_final_obs_kept_by_the_caller_is_never_written_again() -> None:
    env = PontoonVectorEnv(num_envs=8, num_players=2)
    _, info = env.reset(seed=1)
    rng = np.random.default_rng(1)
    kept: list[tuple[np.ndarray, np.ndarray]] = []
    for _ in range(20):
        actions = random_legal(info["action_mask"], rng)
        _, _, _, _, info = env.step(actions)
        if "final_obs" in info:
            kept.append((info["final_obs"], info["final_obs"].copy()))
    assert len(kept) >= 3
    for held, copy in kept:
        assert np.array_equal(held, copy)


class _Hang(Exception):
    """Raised by the test policy when the env keeps asking it (the old code's endless step)."""


class _Splitter:
    """Changes the masks it is handed and answers "split" where "stick" is legal (never a pair)."""

    name = "splitter"

    def __init__(self) -> None:
        self.calls = 0

    def act(self, *args: object) -> None:
        raise NotImplementedError

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.calls += 1
        if self.calls > 30:
            raise _Hang(f"act_batch called {self.calls} times in one step")
        legal_first = masks.argmax(axis=1)
        stick_legal = masks[:, 4].copy()
        masks[:] = True  # a policy that reuses the array it was handed
        return np.where(stick_legal, 8, legal_first)  # 8 = split


def test_a_policy_that_changes_its_masks_argument_cannot_play_an_illegal_action() -> None:
    policy = _Splitter()
    env = gym.make_vec("PontoonBanker-v0", num_envs=4, vectorization_mode="vector_entry_point", num_players=1,
                       opponents={"players": policy})
    assert env.unwrapped.table.names[8] == "split" and env.unwrapped.table.names[4] == "stick"
    with pytest.raises(RuntimeError, match=r"policy 'splitter' chose action 8 \(split\), not legal at table"):
        _, info = env.reset(seed=0)  # the players act before the learner's (the banker's) first decision
        for _ in range(3):
            _, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert (env.unwrapped.engine.state.n_hands[:, 0] <= 4).all()
    with pytest.raises(RuntimeError, match="earlier call failed part-way"):
        env.step(np.zeros(4, dtype=np.int64))


def test_the_sb3_adapter_refuses_arguments_it_would_ignore() -> None:
    venv = PontoonVectorEnv(num_envs=4, num_players=2)
    with pytest.raises(ValueError, match=r"num_envs=16 with a venv of 4 envs"):
        PontoonSB3VecEnv(venv, num_envs=16)
    with pytest.raises(ValueError, match=r"environment arguments \['num_players', 'rules'\] would be ignored"):
        PontoonSB3VecEnv(venv, num_players=5, rules="casino")
    assert PontoonSB3VecEnv(venv, num_envs=4).num_envs == 4
    assert PontoonSB3VecEnv(num_envs=3, num_players=2).num_envs == 3
    assert PontoonSB3VecEnv(num_players=2).num_envs == 1


def test_the_sb3_adapter_passes_reset_options_on() -> None:
    native = PontoonSB3VecEnv(num_envs=4, num_players=2, seed=0)
    native.set_options({"deck": ["AS", "KD"]})
    with pytest.raises(ValueError, match="reset options: the native vector environment takes none"):
        native.reset()
    native.set_options(None)
    native.reset()
    native.set_options([{"deck": ["AS"]}, {}, {}, {}])
    with pytest.raises(ValueError, match="give every env the same options"):
        native.reset()
    reference = PontoonSB3VecEnv(make_vector_env(num_envs=2, rules="shoot"), seed=0)
    reference.set_options({"bogus": 1})
    with pytest.raises(ValueError, match=r"unknown keys \['bogus'\]"):  # the single env's own check
        reference.reset()
    reference.set_options({})
    reference.reset()
    reference.close()


def test_the_sb3_adapter_steps_only_with_actions_step_async_accepted() -> None:
    env = PontoonSB3VecEnv(num_envs=4, num_players=2, seed=0)
    env.reset()
    env.step_async(env.action_masks().argmax(axis=1))
    env.step_wait()
    with pytest.raises(RuntimeError, match="no actions pending"):
        env.step_wait()  # the last step's actions are not replayed
    with pytest.raises(TypeError):
        env.step_async(np.zeros(4))
    with pytest.raises(RuntimeError, match="no actions pending"):
        env.step_wait()
    env.step(env.action_masks().argmax(axis=1))


def test_the_sb3_adapter_fills_reset_infos() -> None:
    env = PontoonSB3VecEnv(num_envs=4, num_players=2, seed=0)
    env.reset()
    masks = env.action_masks()
    assert len(env.reset_infos) == 4
    for i, row in enumerate(env.reset_infos):
        assert np.array_equal(row["action_mask"], masks[i])
        assert {"seat", "role", "balance", "round_index", "skipped_rounds"} <= set(row)
    reference = PontoonSB3VecEnv(make_vector_env(num_envs=2, rules="shoot"), seed=0)
    reference.reset()
    masks = reference.action_masks()
    for i, row in enumerate(reference.reset_infos):
        assert np.array_equal(row["action_mask"], masks[i]) and not any(key.startswith("_") for key in row)


def test_the_sb3_adapter_seed_returns_what_each_env_is_seeded_from() -> None:
    native = PontoonSB3VecEnv(num_envs=4, num_players=2)
    assert native.seed(3) == [3, 3, 3, 3]  # every table is seeded from the one seed (table i from (3, i))
    drawn = native.seed()
    assert all(isinstance(s, int) for s in drawn) and len(set(drawn)) == 1  # a drawn seed, as SB3's, not None
    first = native.reset()
    native.seed(drawn[0])
    assert np.array_equal(native.reset(), first)
    reference = PontoonSB3VecEnv(make_vector_env(num_envs=3, rules="shoot"))
    assert reference.seed(3) == [3, 4, 5]  # SyncVectorEnv seeds env i with seed + i (SB3's convention)
    reference.close()


def test_the_reference_fallback_refuses_step_and_reset_once_closed() -> None:
    env = make_vector_env(num_envs=2, rules="shoot")
    assert isinstance(env, ReferenceVectorEnv)
    env.reset(seed=0)
    env.close()
    with pytest.raises(RuntimeError, match="step: the environment is closed"):
        env.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(RuntimeError, match="reset: the environment is closed"):
        env.reset(seed=0)
    native = PontoonVectorEnv(num_envs=2)
    native.reset(seed=0)
    native.close()
    for call in (lambda: native.step(np.zeros(2, dtype=np.int64)), lambda: native.reset(seed=0)):
        with pytest.raises(RuntimeError, match="the environment is closed"):
            call()


def test_the_engine_hands_the_kernels_contiguous_table_indices() -> None:
    engine = BatchedEngine("pagat", 2, 8, seed=1, policies=["banker_threshold", "threshold", "threshold"])
    strided = np.arange(8, dtype=np.int64)[::2]
    readonly = np.arange(8, dtype=np.int64)[1::2].copy()
    readonly.flags.writeable = False
    for given in (strided, readonly):
        idx = engine._tables(given)
        assert idx.flags.c_contiguous and idx.flags.writeable and idx.dtype == np.int64
        assert np.array_equal(idx, given)
    contiguous = np.arange(8, dtype=np.int64)
    assert engine._tables(contiguous) is contiguous  # the engine's own callers: no copy
    engine.reset()
    by_view = engine.play_round(strided)
    other = BatchedEngine("pagat", 2, 8, seed=1, policies=["banker_threshold", "threshold", "threshold"])
    other.reset()
    assert np.array_equal(by_view, other.play_round(strided.copy()))
