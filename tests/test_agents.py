"""Scripted policies, the policy registry and the table runner."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from agents.banker_smart import BankerSmart, hand_belief
from agents.base import RandomPolicy
from agents.registry import (
    POLICY_NAMES,
    PolicySpecError,
    default_banker_policy,
    default_player_policy,
    make_policy,
)
from agents.scripted import BankerThreshold, CasinoDealer, RoleSplit, ThresholdPlayer, is_legal
from pontoon_tools.ev_table import mean_ci, play_rounds
from pontoon_env import PRESETS, Action, ActionKind, Phase, PontoonGame, make_rules
from pontoon_env.game.hands import HandClass
from pontoon_env.game.observation import HIDDEN, HandView, observe

HAS_SOLVER = importlib.util.find_spec("pontoon_env.solver") is not None
SCRIPTED_SPECS = [
    "threshold",
    "threshold:stick=17,buy=0,amount=min,bet=max,shoot=modest,split=all,soft=18",
    "threshold:stick=13,buy=14,bet=3,double=off",
    "casino_dealer",
    "banker_threshold:stand=15,double_ace=true,kitty=max",
    "banker_smart",
]


def _variants() -> list[tuple[str, dict]]:
    cases = [(preset, {}) for preset in PRESETS]
    cases += [
        ("pagat", {"bank_sale": True, "stick_min": 16, "split_aces_only": True}),
        ("shoot", {"bank_sale": True, "bankroll": 40}),
        ("casino", {"bankroll": 25}),
        ("pontoon_2011", {"bank_sale": True}),
    ]
    return cases


def _game_for(preset: str, options: dict, players: int, seed: int) -> PontoonGame:
    return PontoonGame(make_rules(preset, **options), players, seed=seed)


def _play_checked(game: PontoonGame, seats: list, rounds: int, rng: np.random.Generator) -> set[Phase]:
    """Play ``rounds`` rounds, asserting every policy's action is legal; return the phases seen."""
    phases: set[Phase] = set()
    for _ in range(rounds):
        game.new_round()
        while not game.is_round_over:
            seat = game.current_seat
            legal = game.legal_actions()
            action = seats[seat].act(observe(game, seat), legal, rng)
            assert is_legal(action, legal), (game.rules.preset, game.phase, action, legal)
            phases.add(game.phase)
            game.apply(action)
    return phases


@pytest.mark.parametrize("spec", SCRIPTED_SPECS)
@pytest.mark.parametrize(("preset", "options"), _variants(), ids=lambda value: str(value) if value else "")
def test_scripted_policies_only_take_legal_actions(spec: str, preset: str, options: dict) -> None:
    # The policy sits in every seat (so it also banks when the bank passes), then it shares the
    # table with random seats, which create odd states (tiny stakes, bought low totals, bids).
    rules = make_rules(preset, **options)
    rng = np.random.default_rng(7)
    same = [make_policy(spec, rules) for _ in range(4)]
    _play_checked(_game_for(preset, options, 3, seed=1), same, 25, rng)
    mixed = [make_policy(spec, rules) if seat % 2 else RandomPolicy() for seat in range(5)]
    mixed[0] = make_policy(spec, rules)
    _play_checked(_game_for(preset, options, 4, seed=2), mixed, 25, rng)


@pytest.mark.skipif(not HAS_SOLVER, reason="pontoon_env.solver is not installed")
@pytest.mark.parametrize("preset", ["pagat", "shoot", "casino", "pontoon_1939", "pontoon_2011"])
def test_optimal_policy_only_takes_legal_actions(preset: str) -> None:
    rules = make_rules(preset, bank_sale=True)
    seats = [make_policy("optimal", rules) for _ in range(4)]
    phases = _play_checked(PontoonGame(rules, 3, seed=3), seats, 40, np.random.default_rng(0))
    assert Phase.PLAYER_TURN in phases


def test_every_registered_name_builds_where_it_applies() -> None:
    rules = make_rules("pagat")
    for name in POLICY_NAMES:
        if name == "optimal" and not HAS_SOLVER:
            continue
        assert callable(make_policy(name, rules).act)


# ---------------------------------------------------------------------------- ThresholdPlayer


def _dealt(preset: str, deck: list[str], stake: int | None = None, **options) -> PontoonGame:
    """One player (seat 1) against the banker (seat 0); the stake placed when the preset asks."""
    game = PontoonGame(make_rules(preset, **options), 1, seed=0, banker=0)
    game.new_round(deck=deck)
    if game.phase == Phase.STAKE:
        game.apply(Action(ActionKind.STAKE, stake or game.rules.min_stake))
    return game


def _decide(policy, game: PontoonGame) -> Action:
    seat = game.current_seat
    return policy.act(observe(game, seat), game.legal_actions(), np.random.default_rng(0))


# pagat deals: player card, banker card, player card, banker card, then draws.
@pytest.mark.parametrize(
    ("cards", "policy", "expected"),
    [
        (["10S", "9D", "6H", "9C"], ThresholdPlayer(stick_at=16), Action(ActionKind.STICK)),
        (["10S", "9D", "5H", "9C"], ThresholdPlayer(stick_at=16), Action(ActionKind.TWIST)),
        (["10S", "9D", "5H", "9C"], ThresholdPlayer(stick_at=15), Action(ActionKind.STICK)),
        (
            ["10S", "9D", "4H", "9C"],
            ThresholdPlayer(stick_at=13),
            Action(ActionKind.TWIST),
        ),  # pagat stick minimum 15
        (["6S", "9D", "5H", "9C"], ThresholdPlayer(buy_at_or_below=11), Action(ActionKind.BUY, 4)),
        (
            ["6S", "9D", "5H", "9C"],
            ThresholdPlayer(buy_at_or_below=11, buy_amount="min"),
            Action(ActionKind.BUY, 2),
        ),
        (["6S", "9D", "5H", "9C"], ThresholdPlayer(buy_at_or_below=10), Action(ActionKind.TWIST)),
        (["AS", "9D", "6H", "9C"], ThresholdPlayer(stick_at=16, soft_stick_at=18), Action(ActionKind.TWIST)),
        (["AS", "9D", "6H", "9C"], ThresholdPlayer(stick_at=16), Action(ActionKind.STICK)),
        (["8S", "9D", "8H", "9C"], ThresholdPlayer(), Action(ActionKind.SPLIT)),
        (["10S", "9D", "10H", "9C"], ThresholdPlayer(), Action(ActionKind.STICK)),
        (["3S", "9D", "3H", "9C"], ThresholdPlayer(), Action(ActionKind.BUY, 4)),
    ],
)
def test_threshold_player_sticks_buys_and_splits_where_told(cards, policy, expected) -> None:
    game = _dealt("pagat", cards, stake=2)
    assert game.phase == Phase.PLAYER_TURN
    assert _decide(policy, game) == expected


def test_threshold_player_twists_once_buying_is_closed() -> None:
    game = _dealt("pagat", ["2S", "9D", "3H", "9C", "4D"], stake=2)
    game.apply(Action(ActionKind.TWIST))  # 2 + 3 + 4 = 9: buying would suit, but not after a twist
    assert ActionKind.BUY not in {option.kind for option in game.legal_actions()}
    assert _decide(ThresholdPlayer(), game) == Action(ActionKind.TWIST)


def test_threshold_player_bets_by_first_card() -> None:
    for first, stake in (("AS", 10), ("KD", 10), ("5H", 1)):
        game = PontoonGame(make_rules("pagat"), 1, seed=0, banker=0)
        game.new_round(deck=[first, "9D", "5C", "9C"])
        assert _decide(ThresholdPlayer(), game) == Action(ActionKind.STAKE, stake)
        assert _decide(ThresholdPlayer(bet="min"), game) == Action(ActionKind.STAKE, 1)


def test_threshold_player_casino_doubles_ten_and_eleven() -> None:
    # casino: stake first, then player card, dealer card, player card, dealer card.
    game = _dealt("casino", ["6S", "9D", "5H", "8C"], stake=1)
    assert _decide(ThresholdPlayer(), game) == Action(ActionKind.DOUBLE)
    assert _decide(ThresholdPlayer(double_on=()), game) == Action(ActionKind.TWIST)


def test_threshold_player_in_the_banker_seat_banks_sensibly() -> None:
    game = _dealt("pagat", ["10S", "10D", "8H", "6C", "9S"], stake=1)
    game.apply(Action(ActionKind.STICK))
    assert game.phase == Phase.BANKER_TURN  # banker holds 16
    assert _decide(ThresholdPlayer(), game) == Action(ActionKind.DRAW)


# ---------------------------------------------------------------------------- bankers


def _to_banker_turn(deck: list[str], player_moves: list[Action], preset: str = "pagat") -> PontoonGame:
    game = _dealt(preset, deck, stake=1)
    for move in player_moves:
        game.apply(move)
    assert game.phase == Phase.BANKER_TURN
    return game


def test_banker_threshold_draws_below_its_total() -> None:
    game = _to_banker_turn(["10S", "10D", "9H", "6C"], [Action(ActionKind.STICK)])  # banker 16
    assert _decide(BankerThreshold(17), game) == Action(ActionKind.DRAW)
    assert _decide(BankerThreshold(16), game) == Action(ActionKind.STAND)


def test_casino_dealer_hits_soft_17_where_the_banker_is_free() -> None:
    game = _to_banker_turn(["10S", "AD", "9H", "6C"], [Action(ActionKind.STICK)])  # banker A+6
    assert _decide(CasinoDealer(), game) == Action(ActionKind.DRAW)
    assert _decide(BankerThreshold(17), game) == Action(ActionKind.STAND)


def test_banker_threshold_doubles_on_an_ace_only_when_asked() -> None:
    game = PontoonGame(make_rules("pontoon_1939"), 1, seed=0, banker=0)
    game.new_round(deck=["10S", "AD", "9H", "6C"])
    game.apply(Action(ActionKind.STAKE, 2))
    assert game.phase == Phase.BANKER_DOUBLE
    assert _decide(BankerThreshold(double_on_ace=True), game) == Action(ActionKind.DOUBLE_STAKES)
    assert _decide(BankerThreshold(), game) == Action(ActionKind.NO_DOUBLE)


def test_banker_smart_chases_a_five_card_trick_that_the_threshold_banker_concedes() -> None:
    # The player makes a five-card trick (2+3+2+3+4 = 14): only a banker's five-card trick beats
    # it, so a banker on hard 18 loses the same by standing or busting and should draw.
    deck = ["2S", "10S", "3H", "8D", "2D", "3C", "4S"]
    game = _to_banker_turn(deck, [Action(ActionKind.TWIST)] * 3)
    assert _decide(BankerSmart(game.rules), game) == Action(ActionKind.DRAW)
    assert _decide(BankerThreshold(17), game) == Action(ActionKind.STAND)


def test_banker_smart_stands_on_20_and_draws_on_12() -> None:
    game = _to_banker_turn(["10S", "10D", "9H", "KC"], [Action(ActionKind.STICK)])
    assert _decide(BankerSmart(game.rules), game) == Action(ActionKind.STAND)
    game = _to_banker_turn(["10S", "10D", "9H", "2C"], [Action(ActionKind.STICK)])
    assert _decide(BankerSmart(game.rules), game) == Action(ActionKind.DRAW)


def _hidden_hand(cards: tuple[int, ...], **fields) -> HandView:
    values = dict(
        stake=1,
        initial=1,
        last_buy=0,
        buys=0,
        twisted=False,
        doubled=False,
        split=False,
        shoot=0,
        done=True,
        bust=False,
        declared=False,
    )
    values.update(fields)
    return HandView(cards=cards, **values)


def test_banker_smart_belief_respects_what_a_standing_hand_can_be() -> None:
    rules = make_rules("pagat")
    two = hand_belief(_hidden_hand((HIDDEN, HIDDEN)), rules)
    assert abs(sum(two.values()) - 1) < 1e-9
    # a standing unsplit two-card hand stuck at 15+ (pagat) and is no undeclared pontoon
    assert all(r.hand_class == HandClass.TOTAL and 15 <= r.total <= 20 for r in two)
    five = hand_belief(_hidden_hand((HIDDEN,) * 5), rules)
    assert all(r.hand_class == HandClass.FIVE_CARD_TRICK for r in five)
    declared = hand_belief(_hidden_hand((0, HIDDEN), declared=True), rules)
    assert [r.hand_class for r in declared] == [HandClass.PONTOON]


# ---------------------------------------------------------------------------- registry


def test_make_policy_parses_parameters() -> None:
    rules = make_rules("pagat")
    policy = make_policy("threshold:stick=17, buy=9,amount=min,bet=3,split=aces,double=9/10/11", rules)
    assert isinstance(policy, ThresholdPlayer)
    assert (policy.stick_at, policy.buy_at_or_below, policy.buy_amount, policy.bet) == (17, 9, "min", 3)
    assert policy.split_ranks == {0} and policy.double_on == {9, 10, 11}
    banker = make_policy("banker_threshold:stand=16,double_ace=yes", rules)
    assert isinstance(banker, BankerThreshold) and banker.stand == 16 and banker.double_on_ace
    assert isinstance(make_policy("banker_smart:margin=0.5", rules), BankerSmart)
    same = ThresholdPlayer()
    assert make_policy(same, rules) is same


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("thresold", ["unknown policy 'thresold'", "threshold", "banker_smart"]),
        ("threshold:stik=16", ["no parameter 'stik'", "stick", "buy"]),
        ("threshold:stick=abc", ["'stick'", "an integer in 0..21", "'abc'"]),
        ("threshold:stick=30", ["an integer in 0..21"]),
        ("threshold:stick", ["key=value"]),
        ("banker_threshold:double_ace=maybe", ["true/false"]),
        ("casino_dealer:stand=16", ["no parameter 'stand'", "none"]),
        ("runs/missing_model.zip", ["does not exist", "missing_model.zip"]),
    ],
)
def test_registry_errors_name_the_problem_and_the_choices(spec: str, fragments: list[str]) -> None:
    with pytest.raises(PolicySpecError) as error:
        make_policy(spec, make_rules("pagat"))
    for fragment in fragments:
        assert fragment in str(error.value)


def test_defaults_follow_the_rules() -> None:
    assert isinstance(default_banker_policy(make_rules("casino")), CasinoDealer)
    assert type(default_banker_policy("pagat")) is BankerThreshold
    assert isinstance(default_player_policy("pagat"), ThresholdPlayer)


@pytest.mark.skipif(not HAS_SOLVER, reason="pontoon_env.solver is not installed")
def test_optimal_is_refused_clearly_where_the_solver_cannot_go() -> None:
    with pytest.raises(PolicySpecError, match="vingt_un_1800"):
        make_policy("optimal", make_rules("vingt_un_1800"))


# ---------------------------------------------------------------------------- the table runner


def test_play_rounds_conserves_chips_and_keeps_the_banker_fixed() -> None:
    seen_bankers: set[int] = set()

    class Spy:
        def __init__(self, policy) -> None:
            self.policy = policy

        def act(self, view, legal, rng):
            seen_bankers.add(view.banker)
            return self.policy.act(view, legal, rng)

    rules = make_rules("pagat")
    policies = [Spy(BankerThreshold())] + [Spy(ThresholdPlayer()) for _ in range(4)]
    nets = play_rounds(rules, policies, 400, seed=5)
    assert nets.shape == (400, 5) and nets.dtype == np.int64
    assert (nets.sum(axis=1) == 0).all()  # pagat: chips move only between players and banker
    assert seen_bankers == {0}
    # the same seed plays the same rounds
    assert (play_rounds(rules, policies, 50, seed=5) == nets[:50]).all()


def test_play_rounds_without_fixed_banker_lets_the_bank_pass() -> None:
    seen_bankers: set[int] = set()

    class Spy:
        def act(self, view, legal, rng):
            seen_bankers.add(view.banker)
            return RoleSplit(ThresholdPlayer(), BankerThreshold()).act(view, legal, rng)

    play_rounds("pagat", {seat: Spy() for seat in range(5)}, 400, seed=5, fixed_banker=False)
    assert len(seen_bankers) > 1


def test_play_rounds_checks_the_seating() -> None:
    with pytest.raises(ValueError, match="missing"):
        play_rounds("pagat", {0: BankerThreshold(), 2: ThresholdPlayer()}, 1, num_players=2)


def test_mean_ci() -> None:
    mean, half = mean_ci(np.array([1.0, -1.0] * 50))
    assert mean == 0 and 0.19 < half < 0.2
