"""The native vector environment: the single environment's episodes, batched.

The differential test drives one PontoonEnv per vector table on the same packs (its fresh tables
are built from the vector table's stream) with the same learner actions, and requires the same
observations, masks, rewards, terminations, truncations and final observations, step by step,
through round and session episodes, both roles, autoresets and illegal-action penalties.
"""

from __future__ import annotations

import weakref

import gymnasium as gym
import numpy as np
import pytest

import pontoon_env  # noqa: F401  (registers the ids)
from pontoon_env import IllegalActionError
from pontoon_env.batched import CounterGenerator
from pontoon_env.batched import kernel as kn
from pontoon_env.batched.rng import STREAM_DECK, stream_seed
from pontoon_env.envs.gymnasium_env import PontoonEnv
from pontoon_env.envs.vector import PontoonVectorEnv, ReferenceVectorEnv
from pontoon_env.game.engine import PontoonGame
from helpers import random_legal


def synced(vec: PontoonVectorEnv, t: int, **kwargs) -> PontoonEnv:
    """A single env whose fresh tables are vector table ``t``'s (same pack order and stream)."""
    env = PontoonEnv(**kwargs)
    generation = [0]

    def new_game() -> None:
        seed = int(vec.ecfg[kn.E_SEED])
        rng = CounterGenerator(stream_seed(seed, STREAM_DECK, t, generation[0]))
        generation[0] += 1
        order = [i % 52 for i in range(52 * env.rules.decks)]
        rng.shuffle(order)
        game = PontoonGame(env.rules, env.num_players, seed=0, banker=0)
        game.pack.rng = np.random.default_rng(0)
        game.pack.stack(order)
        game.pack.rng = rng
        env._game, env._rounds_played, env._pending, env._ledger_pos = game, 0, 0, 0

    env._new_game = new_game  # the one private hook: where a fresh table's pack comes from
    return env


CASES = [
    dict(rules="pagat", role="player", num_players=4, learner_seat=2),
    dict(rules="pagat", role="banker", num_players=3),
    dict(rules="casino", role="player", num_players=2, learner_seat=1),
    dict(rules="pontoon_1939", role="banker", num_players=2, episode="session", session_rounds=4),
    dict(rules="pontoon_2011", role="player", num_players=5, learner_seat=3, episode="session", session_rounds=3),
    dict(rules="pagat", role="player", num_players=3, learner_seat=1, opponents={"banker": "banker_smart"}),
    # optimal players look their moves up in a table that compiled code reaches between calls
    dict(rules="pagat", role="player", num_players=3, learner_seat=1, opponents={"players": "optimal"}),
    # ...and in sessions, where a round Python finishes for such a table can end and the next begin
    # within the episode (the step's info is then rewritten by kernel.env_outputs)
    dict(rules="pagat", role="player", num_players=3, learner_seat=1, episode="session", session_rounds=3,
         opponents={"players": "optimal"}),
]


@pytest.mark.parametrize("kwargs", CASES, ids=lambda k: "-".join(
    [k["rules"], k["role"], k.get("episode", "round"), *k.get("opponents", {}).values()]))
def test_vector_env_steps_like_the_single_env(kwargs):
    n = 12
    vec = PontoonVectorEnv(num_envs=n, **kwargs)
    obs, info = vec.reset(seed=11)
    singles = [synced(vec, t, **kwargs) for t in range(n)]
    single_infos = [env.reset(seed=0) for env in singles]
    single_obs = [o for o, _ in single_infos]
    single_info = [i for _, i in single_infos]
    rng = np.random.default_rng(3)
    endings = 0
    for step in range(120):
        for t, env in enumerate(singles):
            assert np.array_equal(obs[t], single_obs[t]), (step, t)
            assert np.array_equal(info["action_mask"][t], env.action_masks()), (step, t)
            # the per-table info the single env gives (after a step that ended an episode, the
            # next episode's, as a same-step autoreset hands out)
            for key in ("seat", "role", "balance", "round_index"):
                assert info[key][t] == single_info[t][key], (step, t, key)
        actions = random_legal(info["action_mask"], rng)
        if step % 17 == 5:
            actions[step % n] = vec.table.index("bid:min")  # never legal natively: the penalty path
        kept = info.get("final_obs")
        kept_copy = None if kept is None else kept.copy()
        obs, rewards, terminated, truncated, info = vec.step(actions)
        assert info["action_mask"].any(axis=1).all(), "a mask is all False"
        if kept is not None:  # a final_obs a caller kept is its own: later steps leave it alone
            assert np.array_equal(kept, kept_copy)
        if "final_obs" in info:  # only the rows of ended episodes hold an observation
            assert not info["final_obs"][~info["_final_obs"]].any()
        for t, env in enumerate(singles):
            o, r, te, tr, i = env.step(int(actions[t]))
            assert (r, te, tr) == (rewards[t], terminated[t], truncated[t]), (step, t)
            assert ("illegal_action" in i) == bool(info.get("_illegal_action", np.zeros(n, bool))[t])
            if te or tr:
                endings += 1
                assert info["_final_obs"][t] and np.array_equal(info["final_obs"][t], o), (step, t)
                single_obs[t], single_info[t] = env.reset()
            else:
                single_obs[t], single_info[t] = o, i
    assert endings > n


@pytest.mark.parametrize("kwargs", CASES[:5], ids=lambda k: "-".join([k["rules"], k["role"]]))
def test_any_action_id_gets_the_single_envs_verdict(kwargs):
    """The step checks the learner's id on its own (kernel.legal_id), not through the whole mask:
    ids drawn from all of them, legal or not (repeated amounts included), are judged, applied and
    penalised as the single env does, table for table."""
    n = 8
    vec = PontoonVectorEnv(num_envs=n, **kwargs)
    obs, info = vec.reset(seed=5)
    singles = [synced(vec, t, **kwargs) for t in range(n)]
    for env in singles:
        env.reset(seed=0)
    rng = np.random.default_rng(7)
    illegal = 0
    for step in range(60):
        masks = info["action_mask"]
        # half the tables an id from the whole table, the others a legal one (to play deeper)
        actions = np.array([rng.integers(vec.table.n) if (t + step) % 2 else rng.choice(np.flatnonzero(masks[t]))
                            for t in range(n)])
        obs, rewards, terminated, truncated, info = vec.step(actions)
        flagged = info.get("_illegal_action", np.zeros(n, bool))
        assert np.array_equal(flagged, ~masks[np.arange(n), actions]), step
        illegal += int(flagged.sum())
        for t, env in enumerate(singles):
            o, r, te, tr, i = env.step(int(actions[t]))
            assert (r, te, tr) == (rewards[t], terminated[t], truncated[t]), (step, t)
            assert ("illegal_action" in i) == bool(flagged[t]), (step, t)
            if te or tr:
                o = env.reset()[0]
            assert np.array_equal(o, obs[t]), (step, t)
    assert illegal > 20


def test_final_obs_buffers_are_reused_only_when_nobody_holds_them():
    vec = PontoonVectorEnv(num_envs=16, num_players=2)
    _, info = vec.reset(seed=2)
    rng = np.random.default_rng(1)
    handed = []  # weak references to every final_obs handed out
    kept = []  # (final_obs, a copy) of some steps, held to the end
    reused = 0
    for step in range(80):
        actions = random_legal(info["action_mask"], rng)
        _, _, terminated, truncated, info = vec.step(actions)
        if "final_obs" not in info:
            continue
        final = info["final_obs"]
        assert np.array_equal(info["_final_obs"], terminated | truncated)
        assert not final[~info["_final_obs"]].any()  # a reused buffer comes back zeroed
        reused += any(ref() is final for ref in handed)
        assert not any(final is held for held, _ in kept)
        handed.append(weakref.ref(final))
        if step % 5 == 0:
            kept.append((final, final.copy()))
        del final
    assert reused > 20  # a loop like this one frees each buffer by the step after next
    assert all(np.array_equal(held, copy) for held, copy in kept)


def test_observation_buffers_are_handed_out_uncopied_and_never_written_while_held():
    """step returns its observation buffer itself (no copy); a buffer, or a view of one, that the
    caller keeps is never written again, and one let go is reused."""
    vec = PontoonVectorEnv(num_envs=16, num_players=2)
    obs, info = vec.reset(seed=4)
    rng = np.random.default_rng(2)
    kept = [(obs, obs.copy())]  # the reset's observations, held to the end
    view = None
    seen: set[int] = set()
    reused = 0
    for step in range(60):
        actions = random_legal(info["action_mask"], rng)
        obs, _, _, _, info = vec.step(actions)
        assert obs is vec._obs  # handed out as it is, not copied
        assert all(obs is not held for held, _ in kept)
        reused += id(obs) in seen
        seen.add(id(obs))
        if step == 10:
            kept.append((obs, obs.copy()))
        if step == 20:
            view = (obs[3], obs[3].copy())  # a view keeps its whole buffer from being written
    assert reused > 40
    assert all(np.array_equal(held, copy) for held, copy in kept)
    assert view is not None and np.array_equal(view[0], view[1])
    # the step's observations are those of the tables now, whichever buffer holds them
    again = PontoonVectorEnv(num_envs=16, num_players=2)
    fresh, _ = again.reset(seed=4)
    assert np.array_equal(fresh, kept[0][1])


def test_make_vec_builds_the_native_env_and_falls_back_for_other_rules():
    env = gym.make_vec("Pontoon-v0", num_envs=3, vectorization_mode="vector_entry_point", num_players=2)
    assert isinstance(env.unwrapped, PontoonVectorEnv)
    assert env.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    banker = gym.make_vec("PontoonBanker-v0", num_envs=2, vectorization_mode="vector_entry_point")
    assert banker.unwrapped.role == "banker"
    fallback = gym.make_vec("Pontoon-v0", num_envs=2, rules="shoot")
    assert isinstance(fallback, ReferenceVectorEnv)
    obs, info = fallback.reset(seed=0)
    assert fallback.action_masks().shape == (2, fallback.single_action_space.n)


def test_masked_random_play_never_sees_an_empty_mask_and_rewards_sum_to_the_chips():
    vec = PontoonVectorEnv(num_envs=64, rules="pagat", num_players=4, learner_seat=1)
    obs, info = vec.reset(seed=5)
    balance = info["balance"].astype(np.float64)
    earned = np.zeros(64)
    rng = np.random.default_rng(0)
    for _ in range(200):
        mask = vec.action_masks()
        assert mask.any(axis=1).all()
        obs, rewards, terminated, truncated, info = vec.step(random_legal(mask, rng))
        earned += rewards
    # Round episodes deal on at the same table: every chip the learner moved is in some reward,
    # except the current round's (paid at its end) and rounds skipped without a decision (none here).
    open_round = info["balance"] - balance - earned
    assert np.all(np.abs(open_round) <= 7 * 10 * 4)  # at most the stake of a round in progress


def test_gymnasium_sync_vectorisation_gives_an_all_false_row_only_for_an_ended_episode():
    # docs/environments.md: the single env's mask on the step that ends an episode is all False,
    # and Gymnasium's own NEXT_STEP autoreset ignores that row's next action (it resets the table).
    env = gym.make_vec("Pontoon-v0", num_envs=4, vectorization_mode="sync", num_players=2)
    obs, info = env.reset(seed=3)
    env.single_action_space.seed(3)
    ended = np.zeros(4, dtype=bool)
    empty_rows = 0
    for _ in range(60):
        mask = info["action_mask"]
        assert np.array_equal(~mask.any(axis=1), ended)  # all False exactly where an episode just ended
        empty_rows += int(ended.sum())
        actions = np.array([env.single_action_space.sample(mask=row.astype(np.int8)) for row in mask])
        obs, rewards, terminated, truncated, info = env.step(actions)
        ended = terminated | truncated
    assert empty_rows > 0
    env.close()


def test_same_seed_same_trajectory_and_errors_name_the_table():
    def run(seed):
        vec = PontoonVectorEnv(num_envs=8, num_players=3, opponents={"players": "random"})
        obs, info = vec.reset(seed=seed)
        out = [obs]
        for _ in range(30):
            obs, reward, *_ , info = vec.step(info["action_mask"].argmax(axis=1))
            out += [obs, reward]
        return out

    first, second, other = run(4), run(4), run(5)
    assert all(np.array_equal(a, b) for a, b in zip(first, second))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))

    vec = PontoonVectorEnv(num_envs=4, illegal_action="raise")
    vec.reset(seed=0)
    with pytest.raises(TypeError, match=r"shape \(4,\)"):
        vec.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(TypeError, match="dtype"):
        vec.step(np.zeros(4))
    with pytest.raises(ValueError, match=r"actions\[2\] \(table 2\): id 77"):
        vec.step(np.array([0, 0, 77, 0]))
    stick = vec.table.index("stick")
    with pytest.raises(IllegalActionError, match=rf"table 0: seat \d: action {stick} \(stick\) is not legal now"):
        vec.step(np.full(4, stick))
    with pytest.raises(ValueError, match="info_level"):
        PontoonVectorEnv(num_envs=2, info_level="full")
    with pytest.raises(ValueError, match="seed: the native vector environment takes one integer seed"):
        vec.reset(seed=[1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"seed: expected an integer in 0\.\.9223372036854775807"):
        vec.reset(seed=2**64)


def test_the_reference_vector_env_checks_every_action_before_any_table_steps():
    # Behind the same API on the reference engine (shoot is not native): one bad id used to step
    # the tables before it (table 0 could settle and reset, its reward lost) before raising.
    vec = gym.make_vec("Pontoon-v0", num_envs=3, vectorization_mode="vector_entry_point", rules="shoot",
                       num_players=1, illegal_action="raise")
    _, info = vec.reset(seed=0)
    games = [env.unwrapped.game for env in vec.unwrapped.envs]
    before = [(game.round_index, game.phase, list(game.balances)) for game in games]
    legal = info["action_mask"].argmax(axis=1)
    with pytest.raises(ValueError, match=r"actions\[2\] \(table 2\): id 99"):
        vec.step(np.array([legal[0], legal[1], 99]))
    with pytest.raises(TypeError, match="dtype"):
        vec.step(legal.astype(float))
    illegal = int(np.flatnonzero(~info["action_mask"][1])[0])
    with pytest.raises(IllegalActionError, match=r"table 1: seat \d in phase STAKE: action"):
        vec.step(np.array([legal[0], illegal, legal[2]]))
    assert [(game.round_index, game.phase, list(game.balances)) for game in games] == before
    vec.step(legal)  # and the tables play on


def test_sb3_adapter_trains_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import VecMonitor

    from pontoon_env.envs.sb3 import PontoonSB3VecEnv

    env = VecMonitor(PontoonSB3VecEnv(num_envs=64, num_players=2, seed=0))
    assert is_masking_supported(env)
    env.reset()
    assert get_action_masks(env).shape == (64, env.action_space.n)
    model = MaskablePPO("MlpPolicy", env, n_steps=8, batch_size=256, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    assert model.num_timesteps >= 1024

    legalized = PontoonSB3VecEnv(num_envs=4, num_players=2, seed=0, legalize_penalty=1.0)
    legalized.reset()
    _, rewards, _, infos = legalized.step(np.full(4, legalized.venv.table.index("bid:min")))
    assert all(info.get("illegal_action") for info in infos) and (rewards <= -1.0 + 1e-6 + 20).all()
