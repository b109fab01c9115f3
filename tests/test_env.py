"""The Gymnasium environment: API conformance, rewards against the ledger, masks, errors, options."""

from __future__ import annotations

import pathlib
import re
import warnings
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import pontoon_env  # noqa: F401 - registers the ids
from pontoon_env import PRESETS, Action, ActionKind, IllegalActionError, LegalAction, RulesError
from pontoon_env.envs.gymnasium_env import PontoonEnv
from pontoon_env.game.runner import PolicyError
from pontoon_env.game.observation import SeatView
from helpers import random_legal


class Stand:
    """A banker that always stands (the casino dealer's forced draws excepted)."""

    name = "always_stand"

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        kinds = [option.kind for option in legal]
        if ActionKind.STAND in kinds:
            return Action(ActionKind.STAND)
        return Action(legal[0].kind, legal[0].min_amount)


class Recorder:
    """Plays the first legal action and remembers the seats it was asked to play."""

    name = "recorder"

    def __init__(self) -> None:
        self.seats: set[int] = set()

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        self.seats.add(view.seat)
        return Action(legal[0].kind, legal[0].min_amount)


class Cheater:
    name = "cheater"

    def act(self, view: SeatView, legal: Sequence[LegalAction], rng: np.random.Generator) -> Action:
        return Action(ActionKind.BANKER_SPLIT)


def play_episode(
    env: gym.Env, rng: np.random.Generator, seed: int | None = None
) -> tuple[list[float], list[dict]]:
    """Random legal actions to the end of an episode; the rewards and infos."""
    _, info = env.reset(seed=seed)
    rewards, infos = [], [info]
    done = False
    while not done:
        action = random_legal(info["action_mask"], rng)
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        infos.append(info)
        done = terminated or truncated
    return rewards, infos


# ----------------------------------------------------------------------------- conformance


@pytest.mark.parametrize("env_id", ["Pontoon-v0", "PontoonBanker-v0"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_gymnasium_and_sb3_checkers_pass_without_warnings(preset, env_id, capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env = gym.make(env_id, rules=preset, num_players=3, illegal_action="penalty")
        check_env(env.unwrapped)
        sb3_check_env(env.unwrapped)
        dict_env = gym.make(
            env_id, rules=preset, num_players=3, illegal_action="penalty", dict_observation=True
        )
        check_env(dict_env.unwrapped, skip_render_check=True)
        sb3_check_env(dict_env)


def test_session_episodes_pass_the_checkers_too():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for preset in sorted(PRESETS):
            for role in ("player", "banker"):
                env = gym.make(
                    "Pontoon-v0",
                    rules=preset,
                    role=role,
                    num_players=2,
                    episode="session",
                    bankroll=40,
                    bank_rotation=True,
                    illegal_action="penalty",
                )
                check_env(env.unwrapped, skip_render_check=True)
                sb3_check_env(env)


def test_registered_ids_set_the_role():
    player = gym.make("Pontoon-v0", rules="pagat", num_players=2)
    _, info = player.reset(seed=0)
    assert info["role"] == "player" and info["seat"] in (1, 2)
    banker = gym.make("PontoonBanker-v0", rules="pagat", num_players=2)
    _, info = banker.reset(seed=0)
    assert info["role"] == "banker" and info["seat"] == 0
    assert player.unwrapped.action_names[:6] == [
        "stake:1",
        "stake:4",
        "stake:7",
        "stake:10",
        "stick",
        "twist",
    ]


def test_docstring_has_the_gymnasium_sections_and_the_index_table():
    doc = PontoonEnv.__doc__ or ""
    for section in (
        "Description",
        "Action Space",
        "Observation Space",
        "Rewards",
        "Episode End",
        "Arguments",
        "Version History",
    ):
        assert f"## {section}" in doc
    assert "`own`" in doc and "Observation size: **403**" in doc and "{OBSERVATION_TABLE}" not in doc


# ------------------------------------------------------------------------- rewards and ledger


@pytest.mark.parametrize("role", ["player", "banker"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_round_rewards_sum_to_the_ledger(preset, role):
    env = gym.make("Pontoon-v0", rules=preset, role=role, num_players=3, info_level="full")
    rng = np.random.default_rng(1)
    for episode in range(6):
        rewards, infos = play_episode(env, rng, seed=episode)
        game = env.unwrapped.game
        seat = infos[-1]["seat"]
        assert sum(rewards) * game.rules.min_stake == pytest.approx(game.seat_result(seat))
        assert infos[-1]["round_result"] == game.seat_result(seat)
        assert infos[-1]["settlement"]["result"][str(seat)] == game.seat_result(seat)
        assert infos[-1]["settlement"]["ledger"] == game.ledger.as_dicts()


@pytest.mark.parametrize("preset", ["pagat", "shoot", "vingt_un_1850"])
def test_session_rewards_sum_to_every_round_of_the_session(preset):
    env = gym.make(
        "PontoonBanker-v0",
        rules=preset,
        num_players=3,
        episode="session",
        session_rounds=6,
        bank_rotation=True,
    )
    rng = np.random.default_rng(2)
    rewards, infos = play_episode(env, rng, seed=4)
    game = env.unwrapped.game
    seat = infos[0]["seat"]
    round_results = [report["round_result"] for info in infos for report in info.get("rounds", [])]
    assert game.round_index == len(round_results) == 6
    assert sum(rewards) * game.rules.min_stake == pytest.approx(sum(round_results))
    owned = game.kitty if seat == game.banker else 0  # D22: the banker's kitty is his
    assert sum(round_results) == game.balances[seat] - game.rules.bankroll + owned


def test_a_session_that_ends_before_the_learners_first_decision_is_not_handed_out():
    # A player who twists to 21 mostly busts, so the banker often has nothing to decide: with one
    # round a session, many sessions end before the banker's first decision. reset() deals afresh
    # until one has a decision (it used to return the finished session, with an all-False mask).
    env = gym.make("PontoonBanker-v0", num_players=1, opponents="threshold:stick=21",
                   episode="session", session_rounds=1)
    for seed in range(40):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any(), seed
        assert not env.unwrapped.game.is_round_over


def test_a_sessions_rounds_before_the_first_decision_are_in_resets_info():
    # Their chips are credited to the first step, so the rounds listed by reset's and the steps'
    # infos add up to the episode's return (seed 0 plays two rounds before the banker decides).
    env = gym.make("PontoonBanker-v0", num_players=1, opponents="threshold:stick=21",
                   episode="session", session_rounds=5)
    listed_before_a_decision = 0
    for seed in range(20):
        rewards, infos = play_episode(env, np.random.default_rng(seed), seed=seed)
        listed_before_a_decision += len(infos[0].get("rounds", []))
        round_results = [report["round_result"] for info in infos for report in info.get("rounds", [])]
        assert len(round_results) == env.unwrapped.game.round_index
        assert sum(rewards) == pytest.approx(sum(round_results))
    assert listed_before_a_decision > 0  # the case under test occurred


def test_a_player_broke_before_the_learners_first_decision_gets_a_fresh_table():
    # With 10 chips, a player who twists to 21 soon owes the banker (a bust, a banker's pontoon
    # paid double) and can stake no more; the banker then never has a decision. reset() used to
    # deal on at that table until it gave up after 1,000 rounds.
    env = gym.make("PontoonBanker-v0", num_players=1, bankroll=10, opponents="threshold:stick=21")
    for seed in range(10):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].any()
        assert min(env.unwrapped.game.balances) >= env.unwrapped.rules.min_stake


def test_a_stacked_deck_gives_a_known_reward():
    env = gym.make("Pontoon-v0", rules="pagat", num_players=1, opponents={"banker": Stand()}, info_level="seat")
    obs, info = env.reset(seed=0, options={"deck": ["9S", "7H", "KD", "8C"]})
    names = env.unwrapped.action_names
    assert env.unwrapped.game.players[0].hands[0].cards == [pontoon_env.parse_card("9S")]
    obs, reward, terminated, _, info = env.step(names.index("stake:4"))
    assert (reward, terminated) == (0.0, False)
    obs, reward, terminated, _, info = env.step(names.index("stick"))  # 19 against the banker's 15
    assert terminated and reward == 4.0
    assert info["settlement"]["hands"][0]["payout"] == 4 and info["round_result"] == 4


def test_same_seed_same_trajectory():
    def trajectory() -> list:
        env = gym.make("Pontoon-v0", rules="shoot", num_players=3, episode="session", session_rounds=4)
        rng = np.random.default_rng(7)
        obs, info = env.reset(seed=123)
        seen = [obs]
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(
                random_legal(info["action_mask"], rng)
            )
            seen += [obs, reward]
            done = terminated or truncated
        return seen

    first, second = trajectory(), trajectory()
    assert len(first) == len(second)
    assert all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def test_round_episodes_deal_on_at_the_same_table_until_a_seed_is_given():
    env = gym.make("Pontoon-v0", rules="pagat", num_players=4)
    rng = np.random.default_rng(0)
    play_episode(env, rng, seed=3)
    first_game = env.unwrapped.game
    play_episode(env, rng)
    assert env.unwrapped.game is first_game and first_game.round_index >= 2
    env.reset(seed=3)
    assert env.unwrapped.game is not first_game and env.unwrapped.game.round_index == 1


# ------------------------------------------------------------------------------ actions


def test_masks_agree_everywhere_and_illegal_actions_raise():
    env = gym.make("Pontoon-v0", rules="pagat", num_players=2, dict_observation=True, illegal_action="raise")
    obs, info = env.reset(seed=5)
    mask = env.unwrapped.action_masks()
    assert np.array_equal(mask, info["action_mask"]) and np.array_equal(mask, obs["action_mask"].astype(bool))
    stick = env.unwrapped.action_names.index("stick")
    assert not mask[stick]  # the first decision is the stake
    with pytest.raises(IllegalActionError, match=r"action 4 \(stick\) is not legal.*stake:1"):
        env.step(stick)
    env.step(int(np.flatnonzero(mask)[0]))  # the state was left as it was


def test_penalty_mode_ends_the_episode():
    env = gym.make("Pontoon-v0", rules="pagat", illegal_penalty=-3.0)  # "penalty" is the default
    env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(env.unwrapped.action_names.index("draw"))
    assert (reward, terminated, truncated) == (-3.0, True, False)
    assert "not legal" in info["illegal_action"] and not info["action_mask"].any()


def test_action_types():
    env = gym.make("Pontoon-v0", rules="pagat")
    env.reset(seed=0)
    with pytest.raises(TypeError, match="integer id"):
        env.step(1.0)
    with pytest.raises(TypeError, match="integer id"):
        env.step("stick")
    with pytest.raises(ValueError, match="out of range"):
        env.step(99)
    env.step(np.array(0, dtype=np.int64))  # a 0-d array, as a vectorised learner sends it


# ------------------------------------------------------------------------- configuration


def test_bad_configuration_is_refused_with_clear_messages():
    with pytest.raises(RulesError, match="unknown preset 'pagot'"):
        gym.make("Pontoon-v0", rules="pagot")
    with pytest.raises(RulesError, match="unknown rules option 'stick_minimum'"):
        gym.make("Pontoon-v0", rule_options={"stick_minimum": 16})
    with pytest.raises(ValueError, match="learner_seat"):
        gym.make("Pontoon-v0", num_players=2, learner_seat=3)
    with pytest.raises(ValueError, match="learner_seat"):
        gym.make("PontoonBanker-v0", learner_seat=2)
    with pytest.raises(ValueError, match="num_players"):
        gym.make("Pontoon-v0", num_players=0)
    with pytest.raises(ValueError, match="opponents"):
        gym.make("Pontoon-v0", opponents={"dealer": "random"})
    with pytest.raises(ValueError, match="episode"):
        gym.make("Pontoon-v0", episode="game")
    with pytest.raises(ValueError, match="unknown keys"):
        gym.make("Pontoon-v0").reset(options={"decks": ["AS"]})
    # switches are booleans: the string "False" is truthy and used to turn them on silently
    with pytest.raises(ValueError, match=r"bank_rotation: expected True or False, got 'False' \(str\)"):
        gym.make("Pontoon-v0", bank_rotation="False")
    with pytest.raises(ValueError, match="dict_observation: expected True or False"):
        gym.make("Pontoon-v0", dict_observation="false")
    with pytest.raises(ValueError, match="illegal_penalty: expected a finite number, got nan"):
        gym.make("Pontoon-v0", illegal_penalty=float("nan"))
    with pytest.raises(ValueError, match=r"action_levels\['stake'\]: expected a list of levels.*got 'max'"):
        gym.make("Pontoon-v0", action_levels={"stake": "max"})
    assert gym.make("Pontoon-v0", bank_rotation=np.bool_(True)).unwrapped.bank_rotation is True


def test_an_illegal_policy_is_named_with_its_seat():
    env = gym.make("PontoonBanker-v0", rules="pagat", num_players=2, opponents={2: Cheater()})
    with pytest.raises(PolicyError, match=re.escape("policy 'cheater' in seat 2")):
        for _ in range(5):
            env.reset()


def test_an_opponent_failing_mid_step_ends_the_episode_until_reset():
    # The table is half-played after the failure: the episode is over, not left with a stale mask.
    env = gym.make("Pontoon-v0", num_players=1, opponents={"banker": Cheater()})
    _, info = env.reset(seed=0)
    names = env.unwrapped.action_names
    with pytest.raises(PolicyError, match="policy 'cheater' in seat 0"):
        for _ in range(100):  # stick as soon as allowed: the banker's turn comes unless the hand busts
            legal = [names[i] for i in np.flatnonzero(info["action_mask"])]
            _, _, terminated, _, info = env.step(names.index("stick" if "stick" in legal else legal[0]))
            if terminated:
                _, info = env.reset()
    assert not env.unwrapped.action_masks().any()
    with pytest.raises(RuntimeError, match="the episode is over; call reset"):
        env.step(0)
    _, info = env.reset()
    assert info["action_mask"].any()


def test_opponent_specs_drive_their_seats():
    recorder, banker = Recorder(), Recorder()
    env = gym.make(
        "Pontoon-v0",
        rules="pontoon_1939",
        num_players=3,
        learner_seat=2,
        opponents={"players": recorder, "banker": banker},
    )
    play_episode(env, np.random.default_rng(0), seed=1)
    assert recorder.seats == {1, 3} and banker.seats == {0}


def test_rules_as_a_dict_and_bankroll_limits():
    env = gym.make(
        "Pontoon-v0",
        rules={"preset": "casino", "decks": 2},
        bankroll=25,
        num_players=2,
        episode="session",
        session_rounds=200,
        action_levels={"stake": [1, 10]},
    )
    rules = env.unwrapped.rules
    assert (rules.preset, rules.decks, rules.bankroll) == ("casino", 2, 25)
    rng = np.random.default_rng(3)
    rewards, infos = play_episode(env, rng, seed=0)
    balance = infos[-1]["balance"]
    ended_broke = balance < rules.min_stake or env.unwrapped.game.round_index < 200
    assert ended_broke and sum(rewards) == pytest.approx(balance - 25)


def test_bank_rotation_keeps_or_moves_the_bank():
    kept = gym.make("PontoonBanker-v0", rules="pagat", num_players=4, episode="session", session_rounds=40)
    _, infos = play_episode(kept, np.random.default_rng(0), seed=8)
    assert all(report["banker"] == 0 for info in infos for report in info.get("rounds", []))
    moved = gym.make(
        "PontoonBanker-v0",
        rules="pagat",
        num_players=4,
        episode="session",
        session_rounds=40,
        bank_rotation=True,
    )
    _, infos = play_episode(moved, np.random.default_rng(0), seed=8)
    assert {report["banker"] for info in infos for report in info.get("rounds", [])} != {0}
    assert any(info["role"] == "player" for info in infos)


def test_render_modes(capsys):
    for mode in ("ansi", "rgb_array", "human"):
        env = gym.make("Pontoon-v0", rules="pagat", render_mode=mode)
        env.reset(seed=0)
        frame = env.render()
        if mode == "ansi":
            assert isinstance(frame, str) and frame
        elif mode == "rgb_array":
            assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        else:
            assert frame is None and capsys.readouterr().out


# ----------------------------------------------------------------- trained models in a seat


def test_maskable_ppo_trains_and_plays_as_an_opponent(tmp_path):
    import json

    from sb3_contrib import MaskablePPO

    from agents.model import CheckpointError, ModelPolicy, load_checkpoint

    env = gym.make("Pontoon-v0", rules="pagat", num_players=2)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    model.save(tmp_path / "player.zip")
    (tmp_path / "player.json").write_text(
        json.dumps({**env.unwrapped.checkpoint_config(), "algo": "MaskablePPO"})
    )

    table = gym.make("PontoonBanker-v0", rules="pagat", num_players=2, opponents=str(tmp_path / "player.zip"))
    rewards, _ = play_episode(table, np.random.default_rng(0), seed=0)  # a model never plays illegally
    for _ in range(8):
        play_episode(table, np.random.default_rng(0))
    policy = table.unwrapped.opponents.policy(1, banker=False)
    assert isinstance(policy, ModelPolicy)

    with pytest.raises(CheckpointError, match="trained for preset 'pagat'.*'casino'"):
        load_checkpoint(tmp_path / "player.zip", "casino")
    with pytest.raises(CheckpointError, match="does not exist"):
        load_checkpoint(tmp_path / "missing.zip")
    with pytest.raises(CheckpointError, match="observes .* values"):
        ModelPolicy(model, "pagat", num_players=4)


# ------------------------------------------------------------------------------------ docs

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs" / "environments.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_docs_tables_are_generated_from_the_code():
    from pontoon_env import make_rules
    from pontoon_env.encoding import ActionTable, ObservationEncoder

    text = DOCS.read_text()
    assert ActionTable(make_rules("pagat")).markdown_table() in text
    blocks = "\n".join(ObservationEncoder(make_rules("pagat"), 5).markdown_table().splitlines()[2:9])
    assert blocks in text
    for preset in PRESETS:
        sizes = [str(ObservationEncoder(make_rules(preset), n + 1).size) for n in (1, 2, 4, 9)]
        assert f"| `{preset}` | " + " | ".join(sizes) + " |" in text


def test_docs_examples_run(capsys):
    train, table, _ = python_blocks(DOCS.read_text())
    assert "total_timesteps=50_000" in train
    quick = train.replace("total_timesteps=50_000", "total_timesteps=64").replace(
        "seed=0, verbose=0)", "seed=0, verbose=0, n_steps=64, batch_size=32, n_epochs=1)"
    )
    assert quick.count("n_steps=64") == 1
    exec(quick, {})
    assert capsys.readouterr().out.strip() in PontoonEnv(rules="pagat").action_names
    namespace: dict = {}
    exec(table, namespace)
    assert namespace["table"].unwrapped.game.round_index >= 5
