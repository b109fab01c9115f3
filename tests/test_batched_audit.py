"""Defects an audit of the batched engine's API found: each test failed on the code before its fix."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon_env.batched import BatchedEngine
from pontoon_env.batched.evaluate import _play_out
from pontoon_env.batched.parity import main as parity_main
from pontoon_env.envs.sb3 import PontoonSB3VecEnv
from pontoon_env.envs.vector import reference_vector_env
from pontoon_env.game.cards import DeckError


class FirstLegal:
    """A batched policy that counts the tables it was asked for."""

    def __init__(self) -> None:
        self.tables: list[int] = []

    def act_batch(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        self.tables.append(len(masks))
        return masks.argmax(axis=1)


def test_a_second_python_driver_for_a_seat_is_refused_not_swapped_in() -> None:
    # set_seat(1, A, tables=[0]) then set_seat(1, B, tables=[1]) left B driving table 0 too.
    engine = BatchedEngine("pagat", 1, 2, policies=["banker_threshold", None])
    a, b = FirstLegal(), FirstLegal()
    engine.set_seat(1, a, tables=[0])
    with pytest.raises(ValueError, match=r"seat 1 is driven by .* at tables \[0\]; .*for tables \[1\]"):
        engine.set_seat(1, b, tables=[1])
    engine.set_seat(1, a, tables=[1])  # the same driver everywhere
    _play_out(engine, engine.all, engine.play_round())
    assert sum(a.tables) >= 2 and not b.tables


def test_a_seat_made_native_at_some_tables_keeps_its_driver_at_the_others() -> None:
    # the driver was dropped: "table 0: seat 0 has no policy"
    engine = BatchedEngine("pagat", 1, 2, policies=[None, "threshold"])
    engine.set_seat(0, "banker_smart", tables=[0])
    engine.set_seat(0, "banker_threshold", tables=[1])
    assert 0 in engine.external_policies
    _play_out(engine, engine.all, engine.play_round())
    assert engine.is_over(engine.all).all()


def test_pack_orders_name_the_table_and_the_card() -> None:
    engine = BatchedEngine("pagat", 1, 4, policies=["banker_threshold", "threshold"])
    bad = np.arange(52)
    bad[5] = 52
    with pytest.raises(DeckError, match=r"orders\[1\] \(table 3\): card codes must be in 0\.\.51, got 52"):
        engine.new_round([2, 3], np.array([np.arange(52), bad]))
    with pytest.raises(DeckError, match=r"orders\[1\] \(table 3\): not a full pack .* 2 copies of AS"):
        engine.new_round([2, 3], np.array([np.arange(52), np.r_[np.arange(51), 0]]))
    with pytest.raises(DeckError, match=r"orders\[1\] \(table 3\): expected a full pack of 52 cards, got 50"):
        engine.new_round([2, 3], [list(range(52)), list(range(50))])  # numpy's "inhomogeneous shape"
    engine.new_round([2, 3], [list(range(52)), list(range(52))])  # nothing was changed by the refusals


@pytest.mark.parametrize(("argv", "message"), [
    (["--tables", "0", "--rounds", "10"], "--tables: expected an integer >= 1, got 0"),  # ZeroDivisionError
    (["--players", "10"], "--players: expected an integer in 1..9, got 10"),
    (["--seed", "-1"], "--seed: expected an integer in 0.."),
    (["--observe-every", "0"], "--observe-every: expected an integer >= 1, got 0"),
    (["--rules", "shoot"], "--rules: rules 'shoot': the batched engine does not play"),
])
def test_the_parity_command_checks_its_flags(argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        parity_main(argv)
    assert stopped.value.code == 2 and message in capsys.readouterr().err


def test_the_parity_command_plays_the_rounds_asked(capsys: pytest.CaptureFixture[str]) -> None:
    # --rounds 100 played 500 rounds (one at each of the 500 default tables)
    assert parity_main(["--rounds", "30", "--players", "2", "--no-observations"]) == 0
    assert "'rounds': 30," in capsys.readouterr().out


def test_the_sb3_adapter_reaches_the_reference_fallbacks_envs() -> None:
    # get_attr asked the SyncVectorEnv (AttributeError), set_attr changed no env
    env = PontoonSB3VecEnv(reference_vector_env(2, rules="shoot"))
    assert env.get_attr("num_players") == [4, 4] and env.has_attr("num_players") and not env.has_attr("nope")
    env.set_attr("illegal_penalty", -7.0)
    env.reset()
    masks = env.action_masks()
    env.step_async(np.array([np.flatnonzero(~row)[0] for row in masks]))
    assert env.step_wait()[1].tolist() == [-7.0, -7.0]
    assert env.get_attr("illegal_penalty", indices=[1]) == [-7.0]
