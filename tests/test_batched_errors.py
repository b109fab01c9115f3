"""Bad input to the batched engine, its callbacks, the native vector env and the SB3 adapter: each
is refused by name and leaves the tables as they were (a twin given only the valid calls stays
equal), and the vector env keeps the Gymnasium contract where it used to bend it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from agents.registry import make_policy
from agents.scripted import BankerThreshold, ThresholdPlayer
from pontoon_env import IllegalActionError
from pontoon_env.batched import BatchedEngine
from pontoon_env.batched import kernel as kn
from pontoon_env.batched.callbacks import decide_batch
from pontoon_env.game.cards import DeckError
from pontoon_env.envs.vector import PontoonVectorEnv


def _engine(tables: int = 3) -> BatchedEngine:
    return BatchedEngine("pagat", 2, tables, seed=5)


def _same_state(a: BatchedEngine, b: BatchedEngine) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a.state, b.state))


def test_apply_checks_shape_dtype_and_legality_before_any_table_changes() -> None:
    engine, twin = _engine(), _engine()
    for e in (engine, twin):
        e.new_round()
    stake = kn.K_STAKE
    cases = [
        (([0], [stake], [-1000]), IllegalActionError, "table 0: stake -1000 is not legal now; legal: stake 1..10"),
        (([0], [999], [1]), IllegalActionError, "kind 999 1 is not legal now"),
        (([0, 1, 2], [stake], [1]), TypeError, r"kinds: expected shape \(3,\)"),
        (([0], [float(stake)], [1]), TypeError, "kinds: expected integers, got dtype float64"),
        (([0], [[stake]], [[1.0]]), TypeError, "amounts: expected integers"),
        (([0, 1], [stake, stake], [2, 99]), IllegalActionError, "table 1: stake 99 is not legal now"),
    ]
    for (tables, kinds, amounts), error, message in cases:
        with pytest.raises(error, match=message):
            engine.apply(tables, kinds, amounts)
        assert _same_state(engine, twin)  # nothing applied, not even at the tables before the bad one
    engine.apply([0, 1], [stake, stake], [2, 3])
    twin.apply([0, 1], [stake, stake], [2, 3])
    assert _same_state(engine, twin)


def test_table_indices_are_integers_in_range_and_once_where_a_call_changes_them() -> None:
    engine, twin = _engine(), _engine()
    cases = [
        ([False, False, True], TypeError, "boolean mask: pass np.flatnonzero"),
        ([1.7], TypeError, "expected integer table indices, got dtype float64"),
        (["1"], TypeError, "expected integer table indices"),
        ([[0, 1]], TypeError, "1-D sequence"),
        ([1, 1], ValueError, "index 1 is given twice"),
        ([3], IndexError, r"index 3 is out of range 0..2"),
        ([-1], IndexError, r"index -1 is out of range 0..2"),
        (np.array([2**63], dtype=np.uint64), IndexError, "out of range"),
    ]
    for tables, error, message in cases:
        for call in (engine.new_round, engine.play_round, engine.reset):
            with pytest.raises(error, match=message):
                call(tables)
        assert _same_state(engine, twin)
    engine.play_round([2, 0])
    twin.play_round([2, 0])
    assert _same_state(engine, twin)
    # Reading the same table twice is fine (several seats' views of one table).
    assert engine.observe([1, 1], [0, 2]).shape == (2, engine.encoder.size)


def test_observe_checks_the_seats() -> None:
    engine = _engine()
    engine.new_round()
    for seats, error, message in [(3, ValueError, r"expected a seat in 0..2, got 3"),
                                  (-1, ValueError, r"expected a seat in 0..2, got -1"),
                                  (1.5, TypeError, "expected integer seats"),
                                  ([0, 1], ValueError, r"one seat or one per table \(3\)")]:
        with pytest.raises(error, match=message):
            engine.observe(None, seats)


def test_seats_policies_seed_and_orders_are_checked_by_name() -> None:
    with pytest.raises(TypeError, match=r"policies\[0\]: expected None \(external\), a policy spec"):
        BatchedEngine("pagat", 1, 2, policies=[5, None])
    with pytest.raises(TypeError, match="got the string 'ab'"):
        BatchedEngine("pagat", 1, 2, policies="ab")
    with pytest.raises(ValueError, match=r"seats must be 0..1, got \[True\]"):
        BatchedEngine("pagat", 1, 2, policies={True: "random"})
    assert BatchedEngine("pagat", 1, 2, policies={np.int64(1): "random"}).seat_pol[0, 1, 0] >= 0
    with pytest.raises(ValueError, match=r"seed: expected an integer in 0..9223372036854775807"):
        BatchedEngine("pagat", 1, 2, seed=2**63)
    engine = _engine()
    rows = len(engine._rows)
    for seat in (-1, 99):
        with pytest.raises(ValueError, match=rf"seat: expected an integer in 0..2, got {seat}"):
            engine.set_seat(seat, "threshold:stick=12")
    assert len(engine._rows) == rows  # a refused seat adds no policy rows
    with pytest.raises(DeckError, match=r"orders: expected 3 full packs of 52 cards \(shape \(3, 52\)\), got shape \(156,\)"):
        engine.new_round(orders=np.tile(np.arange(52), 3))
    with pytest.raises(DeckError, match="orders: expected 1 pack orders"):
        engine.new_round([0], orders=5)


def test_apply_ids_names_the_table_not_the_position() -> None:
    engine = _engine()
    engine.new_round()
    with pytest.raises(ValueError, match=r"actions\[1\] \(table 0\): id 99 is out of range"):
        engine.apply_ids([2, 0], [0, 99])
    with pytest.raises(ValueError, match=r"id 9223372036854775808 is out of range"):
        engine.apply_ids([0], np.array([2**63], dtype=np.uint64))


class _Answer:
    """A batched policy that answers what it is told to."""

    name = "answer"

    def __init__(self, answer) -> None:
        self.answer = answer

    def act_batch(self, obs: np.ndarray, masks: np.ndarray):
        return self.answer(masks)


def test_a_batched_callback_must_answer_one_legal_id_per_table() -> None:
    engine = BatchedEngine("pagat", 1, 2, seed=0, policies=["banker_threshold", None])
    engine.play_round()
    tables = np.array([0, 1])
    seats = engine.current_seats(tables)
    rngs = [np.random.default_rng(0)] * 2
    legal = engine.masks(tables)[0]
    illegal = int(np.flatnonzero(~legal[0])[0])
    for answer, message in [
        (lambda m: np.full(len(m), -1), r"id -1 is out of range"),  # was played as the last id
        (lambda m: np.zeros(2 * len(m), dtype=np.int64), r"expected shape \(2,\)"),
        (lambda m: None, r"expected shape \(2,\)"),
        (lambda m: m.argmax(axis=1) + 0.5, "expected integers, got dtype"),
        (lambda m: np.full(len(m), illegal), rf"chose action {illegal} .*not legal at table 0 \(seat 1\)"),
    ]:
        with pytest.raises(RuntimeError, match=message):
            decide_batch(engine, _Answer(answer), tables, seats, rngs)
    kinds, amounts = decide_batch(engine, _Answer(lambda m: m.argmax(axis=1)), tables, seats, rngs)
    assert kinds.shape == amounts.shape == (2,)


def test_scripted_thresholds_are_whole_numbers_as_the_batched_engine_reads_them() -> None:
    with pytest.raises(ValueError, match=r"stick_at: expected an integer in 0..21, got 16.5"):
        ThresholdPlayer(stick_at=16.5)
    with pytest.raises(ValueError, match=r"stand: expected an integer in 0..22, got 16.5"):
        BankerThreshold(stand=16.5)
    with pytest.raises(ValueError, match=r"split_ranks: expected rank indices"):
        ThresholdPlayer(split_ranks=(0.5,))
    with pytest.raises(ValueError, match=r"double_on: expected an integer"):
        ThresholdPlayer(double_on=("x",))
    with pytest.raises(ValueError, match=r"buy_amount: expected 'min', 'max' or a number of chips"):
        ThresholdPlayer(buy_amount=10**30)
    with pytest.raises(ValueError, match="double_on_ace: expected True or False, got 'no'"):
        BankerThreshold(double_on_ace="no")
    assert make_policy("threshold:stick=15", "pagat").stick_at == 15  # the registry's specs still parse


class _Flaky:
    """A player opponent that raises at its ``fail_at``-th decision."""

    name = "flaky"

    def __init__(self) -> None:
        self.calls, self.fail_at = 0, None
        self.inner = make_policy("threshold", "pagat")

    def act(self, view, legal, rng):
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyError("boom")
        return self.inner.act(view, legal, rng)


def test_after_an_opponent_fails_mid_step_the_vector_env_steps_no_more_until_reset() -> None:
    flaky = _Flaky()
    env = PontoonVectorEnv(num_envs=2, num_players=2, learner_seat=2, opponents={"players": flaky})
    env.reset(seed=0)
    flaky.fail_at = flaky.calls + 1
    with pytest.raises(KeyError, match="boom"):
        for _ in range(20):
            env.step(env.action_masks().argmax(axis=1))
    with pytest.raises(RuntimeError, match=r"an earlier call failed part-way, step failed \(KeyError: 'boom'\).*call reset\(\)"):
        env.step(env.action_masks().argmax(axis=1))
    env.reset(seed=1)  # clears it
    env.step(env.action_masks().argmax(axis=1))
    env.close()
    with pytest.raises(RuntimeError, match="step: the environment is closed"):
        env.step(np.zeros(2, dtype=np.int64))


def test_action_masks_is_a_copy_the_caller_may_change() -> None:
    env = PontoonVectorEnv(num_envs=2, num_players=1, illegal_action="raise")
    env.reset(seed=0)
    kept = env.action_masks()
    kept[:] = True  # must not make an illegal id legal
    illegal = int(np.flatnonzero(~env.action_masks()[0])[0])
    with pytest.raises(IllegalActionError, match="table 0"):
        env.step(np.array([illegal, int(env.action_masks()[1].argmax())]))
    before = env.action_masks()
    env.step(before.argmax(axis=1))
    assert not np.shares_memory(before, env.action_masks())


def test_dict_observation_final_observations_are_in_the_observation_space() -> None:
    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    env = PontoonVectorEnv(num_envs=8, num_players=1, dict_observation=True)
    env.reset(seed=0)
    for _ in range(40):
        _, _, terminated, truncated, info = env.step(env.action_masks().argmax(axis=1))
        ended = np.flatnonzero(terminated | truncated)
        if ended.size:
            final = info["final_obs"]
            i = int(ended[0])
            row = {key: rows[i] for key, rows in final.items()}
            assert env.single_observation_space.contains(row)
            assert not row["action_mask"].any()  # as the single env's last observation: no legal id
            break
    else:
        pytest.fail("no episode ended")
    sb3 = PontoonSB3VecEnv(num_envs=8, num_players=1, dict_observation=True, seed=0)
    sb3.reset()
    for _ in range(40):
        _, _, dones, infos = sb3.step(sb3.action_masks().argmax(axis=1))
        if dones.any():
            terminal = infos[int(np.flatnonzero(dones)[0])]["terminal_observation"]
            assert sb3.observation_space.contains(terminal)
            break


@pytest.mark.parametrize("rules", ["pagat", "shoot"])  # native, and the reference fallback
def test_max_episode_steps_truncates_as_gymnasiums_time_limit(rules: str) -> None:
    env = gym.make_vec("Pontoon-v0", num_envs=4, vectorization_mode="vector_entry_point", rules=rules,
                       episode="session", session_rounds=50, max_episode_steps=3)
    _, info = env.reset(seed=0)
    steps = np.zeros(4, dtype=int)
    for _ in range(12):
        _, _, terminated, truncated, info = env.step(info["action_mask"].argmax(axis=1))
        steps += 1
        assert (truncated == (steps >= 3)).all() and not (terminated & ~truncated).any()
        assert info["action_mask"].any(axis=1).all()
        if truncated.any():
            assert info["_final_obs"][truncated].all()
        steps[terminated | truncated] = 0
    env.close()
    with pytest.raises(ValueError, match=r"max_episode_steps: expected an integer >= 1, got 0"):
        gym.make_vec("Pontoon-v0", num_envs=2, vectorization_mode="vector_entry_point", rules=rules,
                     max_episode_steps=0)


def test_the_sb3_adapter_checks_actions_penalty_and_indices() -> None:
    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    with pytest.raises(ValueError, match="legalize_penalty: expected a finite number, got nan"):
        PontoonSB3VecEnv(num_envs=2, num_players=1, legalize_penalty=float("nan"))
    env = PontoonSB3VecEnv(num_envs=2, num_players=1, seed=0)
    env.reset()
    for actions, message in [(np.array([3.9, 0.0]), "expected integers, got dtype"),
                             (np.array(["3", "0"]), "expected integers, got dtype"),
                             (np.zeros((2, 2), dtype=np.int64), r"expected shape \(2,\)")]:
        with pytest.raises(TypeError, match=message):
            env.step_async(actions)
    with pytest.raises(ValueError, match=r"env_method\('reset'\) acts on every env .* got \[0\]"):
        env.env_method("reset", indices=[0])
    with pytest.raises(ValueError, match=r"set_attr\('illegal_penalty'\) acts on every env"):
        env.set_attr("illegal_penalty", 2.0, indices=[1])
    with pytest.raises(ValueError, match=r"indices: expected env indices in 0..1, got \[5\]"):
        env.env_method("action_masks", indices=[5])
    assert len(env.env_method("action_masks", indices=[1])) == 1


def test_make_vec_falls_back_for_other_rules_whatever_else_is_asked() -> None:
    """info_level and render_mode the native env does not offer were refused before the rules were
    found not native, so the reference fallback that offers them was never reached."""
    env = gym.make_vec("Pontoon-v0", num_envs=2, vectorization_mode="vector_entry_point", rules="shoot",
                       info_level="seat")
    _, info = env.reset(seed=0)
    assert type(env).__name__ == "ReferenceVectorEnv" and info["action_mask"].any(axis=1).all()
    with pytest.raises(ValueError, match="info_level: the native vector environment gives info_level='basic' only"):
        gym.make_vec("Pontoon-v0", num_envs=2, vectorization_mode="vector_entry_point", info_level="seat")


@pytest.mark.parametrize("rules", ["pagat", "shoot"])
def test_autoreset_mode_seed_and_a_truncated_final_mask_on_both_vector_envs(rules: str) -> None:
    """autoreset_mode=SAME_STEP reached PontoonEnv in the fallback (a TypeError); np_random_seed
    ignored the seed natively; a truncated episode's final mask was all zeros natively."""
    from gymnasium.vector import AutoresetMode

    env = gym.make_vec("Pontoon-v0", num_envs=2, vectorization_mode="vector_entry_point", rules=rules,
                       autoreset_mode=AutoresetMode.SAME_STEP, dict_observation=True, episode="session",
                       session_rounds=50, max_episode_steps=1)
    env.reset(seed=3)
    assert env.np_random_seed in (3, (3, 4))  # the native env's, and SyncVectorEnv's (seed, seed + 1)
    _, _, terminated, truncated, info = env.step(env.action_masks().argmax(axis=1))
    cut = np.flatnonzero(truncated & ~terminated)
    assert cut.size
    final = info["final_obs"]
    rows = final["action_mask"][cut] if isinstance(final, dict) else [final[i]["action_mask"] for i in cut]
    assert all(np.asarray(row).any() for row in rows)  # the pending decision's mask
    with pytest.raises(ValueError, match="autoreset in the same step"):
        gym.make_vec("Pontoon-v0", num_envs=2, vectorization_mode="vector_entry_point", rules=rules,
                     autoreset_mode=AutoresetMode.NEXT_STEP)
