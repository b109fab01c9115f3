"""The terminal game, driven by scripted input."""

from __future__ import annotations

from collections.abc import Iterator

from pontoon_tools.play import main, play


def _feeder(lines: list[str]):
    answers: Iterator[str] = iter(lines)

    def read(prompt: str) -> str:
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    return read


def _last_options(out: list[str]) -> list[str]:
    """The option lines of the last menu printed."""
    start = max(index for index, line in enumerate(out) if line == "Your options:")
    return [line.split(") ", 1)[1] for line in out[start + 1 :] if line.startswith("  ") and ") " in line]


def test_one_scripted_round_end_to_end() -> None:
    out: list[str] = []

    def read(prompt: str) -> str:
        # stake 3 chips, then stick as soon as sticking is legal (else twist), then stop
        if prompt.startswith("Play another"):
            return "n"
        options = _last_options(out)
        if options[0].startswith("stake"):
            return "1 3"
        return "stick" if "stick" in options else "twist"

    game = play("pagat", num_players=2, seat=1, seed=7, input_fn=read, print_fn=out.append)
    text = "\n".join(out)
    assert game.round_index == 1 and game.is_round_over
    assert "seat 1 stakes 3 (you)" in text
    assert "=== settlement ===" in text and "ledger:" in text and "this round:" in text
    assert "seat 1 (you) hand 1:" in text and "stake 3" in text
    report = game.round_report()
    assert f"seat 1 {game.seat_result(1):+d}" in text  # the round's net is explained
    assert text.count(" pays ") == len(report["ledger"])
    assert "sticks (you)" in text or "twists (you)" in text  # this seed gives the human a turn
    assert "Goodbye" in text


def test_bad_input_is_refused_with_a_reason_and_asked_again() -> None:
    out: list[str] = []
    read = _feeder(["7", "fly", "stake 99", "stake", "x", "2", "q"])
    play("pagat", num_players=1, seat=1, seed=0, input_fn=read, print_fn=out.append)
    text = "\n".join(out)
    assert "7 is not on the list: type a number from 1 to 1" in text
    assert "'fly' is not a legal action now; choose one of: stake" in text
    assert "stake takes 1..10 chips, not 99" in text
    assert "type a whole number from 1 to 10" in text
    assert "seat 1 stakes 2 (you)" in text
    # quit part-way through the first round: no round was played (it said "after 1 round")
    assert out[-1] == "Goodbye. Your chips after 0 rounds (the round you left is not counted): +0"


def test_main_applies_rule_options_and_reports_bad_ones() -> None:
    out: list[str] = []
    code = main(
        [
            "--rules",
            "pagat",
            "--players",
            "1",
            "--seed",
            "2",
            "--rounds",
            "1",
            "--option",
            "stick_min=16",
            "--opponents",
            "threshold:stick=17",
        ],
        input_fn=_feeder(["1 1"] + ["twist"] * 10),
        print_fn=out.append,
    )
    assert code == 0 and "=== settlement ===" in "\n".join(out)
    out.clear()
    assert main(["--option", "stick_minimum=16"], input_fn=_feeder([]), print_fn=out.append) == 2
    assert "stick_minimum" in out[-1]
    out.clear()
    assert main(["--opponents", "nobody"], input_fn=_feeder([]), print_fn=out.append) == 2
    assert "unknown policy 'nobody'" in out[-1]
    # no round to play is refused (it played one), and so is a negative seed
    assert main(["--rounds", "0"], input_fn=_feeder([]), print_fn=out.append) == 2
    assert "--rounds: expected a positive number of rounds, got 0" in out[-1]
    assert main(["--seed", "-1"], input_fn=_feeder([]), print_fn=out.append) == 2
    assert "--seed: expected an integer >= 0, got -1" in out[-1]
    # a digit str.isdigit takes and int() refuses: the flag is named, not int()'s message
    assert main(["--first-banker", "\u00b2"], input_fn=_feeder([]), print_fn=out.append) == 2
    assert "--first-banker: expected a seat number or 'draw', got '\u00b2'" in out[-1]


def test_the_final_board_names_a_five_card_trick() -> None:
    # Before: the board at the end of the round showed this hand as "total 20, stands".
    import numpy as np

    from agents.scripted import BankerThreshold
    from pontoon_env import Action, ActionKind, PontoonGame
    from pontoon_env.game.runner import play_round
    from pontoon_tools.play import final_board

    class TwistToFive:
        def act(self, view, legal, rng):
            kinds = {option.kind for option in legal}
            if ActionKind.STAKE in kinds:
                return Action(ActionKind.STAKE, 2)
            return Action(ActionKind.TWIST) if ActionKind.TWIST in kinds else Action(legal[0].kind, legal[0].min_amount)

    game = PontoonGame("pagat", 1, seed=0, banker=0)
    # Player 2, banker 10, player 3, banker 7 (he stands on 17), then the player twists 4, 5, 6.
    play_round(game, [BankerThreshold(), TwistToFive()], np.random.default_rng(0),
               deck=["2S", "10H", "3H", "7D", "4D", "5C", "6S"])
    board = final_board(game, seat=1)
    assert "Player seat 1 (you) | 2S 3H 4D 5C 6S | five-card trick (20), stake 2: won 4" in board
    assert "Banker seat 0" in board and "| 10H 7D" in board and "| total 17" in board
    assert "stands" not in board and "round 1  settled" in board


def test_the_human_is_a_policy_played_by_the_runner(monkeypatch) -> None:
    from pontoon_env.game.policy import Policy
    from pontoon_tools import play as play_module

    calls = []
    original = play_module.play_decision

    def counted(game, policies, rng, label=None):
        calls.append(policies(game.current_seat, game.phase))
        return original(game, policies, rng, label)

    monkeypatch.setattr(play_module, "play_decision", counted)
    out: list[str] = []

    def read(prompt: str) -> str:
        options = _last_options(out)
        if options[0].startswith("stake"):
            return "1 2"
        return "stick" if "stick" in options else "twist"

    game = play("pagat", num_players=2, seat=1, seed=7, max_rounds=1, input_fn=read, print_fn=out.append)
    moves = [line for line in out if line.startswith(("seat ", "banker (seat"))]
    assert game.round_index == 1 and len(calls) == len(moves) > 2  # every decision went through the runner
    humans = [policy for policy in calls if isinstance(policy, play_module.TerminalPlayer)]
    assert humans and isinstance(humans[0], Policy)
    assert sum(line.endswith("(you)") or "(you):" in line for line in moves) == len(humans)
    assert "Goodbye. Your chips after 1 round:" in out[-1]


def test_the_final_board_keeps_a_hidden_bust_face_down() -> None:
    # pontoon_2011 hands a bust in face down: the other players never see its cards. The board and
    # the settlement printed to seat 2 showed seat 1's "10H 6D KS" (a bought card among them).
    import numpy as np

    from agents.scripted import BankerThreshold, ThresholdPlayer
    from pontoon_env import Action, ActionKind, PontoonGame
    from pontoon_env.game.runner import play_round
    from pontoon_tools.play import explain_settlement, final_board

    class BuyOnce:
        def act(self, view, legal, rng):
            kinds = {option.kind: option for option in legal}
            if ActionKind.STAKE in kinds:
                return Action(ActionKind.STAKE, kinds[ActionKind.STAKE].min_amount)
            if ActionKind.BUY in kinds:
                return Action(ActionKind.BUY, kinds[ActionKind.BUY].min_amount)
            return Action(ActionKind.STICK)

    game = PontoonGame("pontoon_2011", 2, seed=0, banker=0)
    # seat 1: 10H 6D, buys KS (bust); seat 2: 9C 9S (sticks); banker: 10C 8H (stands on 18)
    play_round(game, [BankerThreshold(), BuyOnce(), ThresholdPlayer()], np.random.default_rng(0),
               deck=["10H", "9C", "10C", "6D", "9S", "8H", "KS"])
    assert [card for hand in game.round_report()["hands"][:1] for card in hand["cards"]] == ["10H", "6D", "KS"]
    for text in (final_board(game, seat=2), explain_settlement(game, seat=2)):
        assert "10H" not in text and "6D" not in text and "KS" not in text
        assert "?? ?? ??" in text and "bust" in text
    # the seat's own cards and the banker's shown hand stay readable, and the whole table without a seat
    assert "Player seat 2 (you) | 9C 9S" in final_board(game, seat=2)
    assert "10H 6D KS" in final_board(game)
