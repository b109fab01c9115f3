"""Tests of the exact solver (pontoon_env.solver).

The DP is checked against a small, self-contained infinite-deck Monte Carlo simulator written here
from the rules text (it deals real card codes, classifies them with ``hands.classify`` and settles
with ``settlement``), so the DP's transitions, splits, buys, doubles, naturals and banker play are
all compared with an independent implementation.

The simulator's rules of play (which moves a hand has, which pairs split, when a hand stops) are an
independent reading of docs/rules.md written here on purpose, *not* :mod:`pontoon_env.game.legality`:
the solver calls that module, so a differential test must not.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pontoon_env.game.cards import CARD_VALUE, card_code
from pontoon_env.game.hands import HandClass, classify, hand_total, is_natural, same_rank, same_value
from pontoon_env.game.rules import Rules, make_rules
from pontoon_env.game.settlement import banker_natural_at_deal, standing_hand_payout
from pontoon_env.solver import (
    BankerResponse,
    BankerRule,
    Decision,
    HandState,
    PolicyFn,
    Signal,
    banker_best_response,
    banker_outcomes,
    default_banker_rule,
    evaluate_player_policy,
    representative_values,
    scripted_move,
    scripted_stake,
    solve,
    strategy_chart,
    threshold_policy,
)

PRESETS = ("pagat", "casino", "pontoon_1939", "pontoon_2011")


# --------------------------------------------------------------------------------------------------
# An independent infinite-deck simulator
# --------------------------------------------------------------------------------------------------


class _Cards:
    """Infinite deck: uniform ranks, drawn in batches for speed."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.buf: list[int] = []

    def draw(self) -> int:
        if not self.buf:
            self.buf = (self.rng.integers(0, 13, 4096) * 4).tolist()
        return self.buf.pop()


def _pair_value(rules: Rules, cards: list[int]) -> int:
    """Value of a splittable pair under the rules, else 0."""
    if len(cards) != 2 or rules.split == "none":
        return 0
    pair = same_value(*cards) if rules.split == "value" else same_rank(*cards)
    value = CARD_VALUE[cards[0]]
    if not pair or (rules.split_aces_only and value != 1):
        return 0
    return value


def _play_round(
    rules: Rules,
    banker_rule: BankerRule,
    policy: PolicyFn,
    deck: _Cards,
    stake: int,
    response: BankerResponse | None = None,
) -> float:
    """One round; returns the player's chips won divided by ``stake``."""
    p1, b1 = deck.draw(), deck.draw()
    banker_doubled = rules.banker_double and CARD_VALUE[b1] in banker_rule.double_on
    initial = stake * (2 if banker_doubled else 1)
    p2, b2 = deck.draw(), deck.draw()
    banker = [b1, b2]
    if rules.banker_natural_at_deal and is_natural(banker):
        return banker_natural_at_deal(rules, is_natural([p1, p2])) * initial / stake
    paid = rules.natural_paid_at_deal
    if paid and is_natural([p1, p2]):
        if is_natural(banker):
            return initial * standing_hand_payout(rules, classify([p1, p2]), classify(banker)) / stake
        return paid * initial / stake

    pending: list[tuple[list[int], bool]] = [([p1, p2], False)]
    hands = 1
    finished: list[tuple[list[int], int, bool]] = []  # (cards, stake, split hand)
    while pending:
        cards, split_hand = pending.pop(0)
        twisted, doubled, chips, last_buy = False, False, initial, 0
        first_move = True
        while True:
            total, soft = hand_total(cards)
            soft_21_draws = rules.draw_on_soft_21 and soft and total == 21 and len(cards) >= 3  # D19
            if (total >= 21 and not soft_21_draws) or len(cards) >= 5:
                break
            legal = []
            if total >= rules.stick_min:
                legal.append("stick")
            legal.append("twist")
            no_fifth = (
                rules.no_buy_fifth_at_or_below and len(cards) == 4 and total <= rules.no_buy_fifth_at_or_below
            )
            if rules.allow_buy and total < 21 and not twisted and not no_fifth and not doubled:
                low, high = (
                    (initial, last_buy or 2 * initial) if rules.buy_limits == "pagat" else (1, initial)
                )
                legal += ["buy_min", "buy_max"] if low < high else ["buy_max"]
            if rules.double_allowed and not doubled and 2 <= len(cards) <= 4:
                legal.append("double")
            pair_value = _pair_value(rules, cards) if first_move else 0
            extra: dict[str, int] = {}
            if pair_value:
                extra = {"hands": hands, "pending_pairs": sum(1 for c, _ in pending if _pair_value(rules, c))}
                if hands < rules.max_split_hands:
                    legal.append("split")
            decision = Decision(
                total,
                soft,
                len(cards),
                tuple(legal),
                pair_value=pair_value,
                twisted=twisted,
                stake=chips,
                initial_stake=initial,
                last_buy=last_buy,
                doubled=doubled,
                split_hand=split_hand,
                banker_doubled=banker_doubled,
                **extra,
            )
            move = policy(decision)
            assert move in legal, (move, decision)
            first_move = False
            if move == "stick":
                break
            if move == "split":
                hands += 1
                pending[:0] = [([cards[0], deck.draw()], True), ([cards[1], deck.draw()], True)]
                cards = []
                break
            if move == "twist":
                twisted = True
            elif move in ("buy_min", "buy_max"):
                if rules.buy_limits == "pagat":
                    low, high = initial, last_buy or 2 * initial
                else:
                    low, high = 1, initial
                last_buy = low if move == "buy_min" else high
                chips += last_buy
            elif move == "double":
                doubled = True
                chips *= 2
            cards = cards + [deck.draw()]
        if cards:
            finished.append((cards, chips, split_hand))

    won = 0.0
    standing = []
    for cards, chips, split_hand in finished:
        if hand_total(cards)[0] > 21:
            won -= chips
        else:
            standing.append((cards, chips, split_hand))
    if standing:
        if len(finished) > 1 or finished[0][2]:
            signal = Signal(True)
        else:
            cards, chips, _ = standing[0]
            signal = Signal(False, len(cards), chips, is_natural(cards))
        # The banker stops at five cards only where he can make the trick (D9); otherwise he draws
        # on by his rule.
        banker_trick = rules.five_card_trick and rules.dealer_five_card_trick
        while True:
            total, soft = hand_total(banker)
            if total >= 21 or (banker_trick and len(banker) >= 5):
                break
            if response is not None:
                draw = response.draws(signal, total, soft, len(banker), banker_doubled)
            else:
                draw = banker_rule.draws(total, soft)
            if not draw:
                break
            banker.append(deck.draw())
        banker_result = classify(
            banker, five_card_trick=rules.five_card_trick and rules.dealer_five_card_trick
        )
        for cards, chips, split_hand in standing:
            result = classify(
                cards,
                split=split_hand,
                five_card_trick=rules.five_card_trick,
                split_pontoon_is_pontoon=rules.split_pontoon == "pontoon",
            )
            won += chips * standing_hand_payout(rules, result, banker_result)
    return won / stake


def _monte_carlo(
    rules: Rules,
    banker_rule: BankerRule,
    policy: PolicyFn,
    rounds: int,
    seed: int,
    stake: int = 1,
    response: BankerResponse | None = None,
) -> tuple[float, float]:
    """(mean, standard error) of the per-unit result over ``rounds`` rounds."""
    deck = _Cards(seed)
    results = np.fromiter(
        (_play_round(rules, banker_rule, policy, deck, stake, response) for _ in range(rounds)), float, rounds
    )
    return float(results.mean()), float(results.std(ddof=1) / math.sqrt(rounds))


def _rich_policy(d: Decision) -> str:
    """A fixed policy that uses every move kind: splits aces and eights, doubles 10-11, buys on low
    totals, sticks at 17+ (or the minimum), else twists."""
    if "split" in d.legal and d.pair_value in (1, 8):
        return "split"
    if "double" in d.legal and not d.soft and d.total in (10, 11) and d.n_cards == 2:
        return "double"
    if "buy_max" in d.legal and d.total <= 11:
        return "buy_max" if d.total >= 9 or "buy_min" not in d.legal else "buy_min"
    if "stick" in d.legal and (d.total >= 17 or d.n_cards == 4 and d.total >= 15):
        return "stick"
    return "twist"


def _assert_close(exact: float, mean: float, se: float) -> None:
    assert abs(exact - mean) < 4 * se, f"DP {exact:+.5f} vs Monte Carlo {mean:+.5f} ± {se:.5f}"


# --------------------------------------------------------------------------------------------------
# DP vs Monte Carlo
# --------------------------------------------------------------------------------------------------


def test_threshold_policy_matches_monte_carlo_pagat() -> None:
    rules = make_rules("pagat")
    banker = BankerRule(17)
    policy = threshold_policy(15)
    exact = evaluate_player_policy(rules, banker, policy)
    mean, se = _monte_carlo(rules, banker, policy, 200_000, seed=1)
    _assert_close(exact, mean, se)


@pytest.mark.parametrize(
    ("preset", "stake", "seed"),
    [("pagat", 1, 2), ("casino", 1, 3), ("pontoon_1939", 10, 4), ("pontoon_2011", 10, 5)],
)
def test_rich_policy_matches_monte_carlo(preset: str, stake: int, seed: int) -> None:
    # Splits with re-splits (up to 4 / 3 hands), buys at both ends of their ranges (1-chip minimum
    # buys at stake 10 for 1939/2011), the casino double, the banker's double and 1939 naturals.
    rules = make_rules(preset)
    banker = default_banker_rule(rules)
    exact = evaluate_player_policy(rules, banker, _rich_policy, stake=stake)
    mean, se = _monte_carlo(rules, banker, _rich_policy, 60_000, seed=seed, stake=stake)
    _assert_close(exact, mean, se)


def test_optimal_policy_matches_monte_carlo_pagat_options() -> None:
    rules = make_rules("pagat", bust_pays_double=False, split_pontoon="21", max_split_hands=3)
    banker = BankerRule(16, hit_soft=True)
    solution = solve(rules, banker)
    mean, se = _monte_carlo(rules, banker, solution.as_policy(), 60_000, seed=6)
    _assert_close(solution.ev, mean, se)


def test_banker_best_response_matches_monte_carlo() -> None:
    rules = make_rules("pagat")
    banker = BankerRule(17)
    policy = threshold_policy(16)
    response = banker_best_response(rules, banker, policy)
    mean, se = _monte_carlo(rules, banker, policy, 60_000, seed=7, response=response)
    _assert_close(response.player_ev, mean, se)


# --------------------------------------------------------------------------------------------------
# Optimality and monotonicity
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_optimal_beats_every_fixed_policy(preset: str) -> None:
    rules = make_rules(preset)
    solution = solve(rules)
    policies: list[Callable[[Decision], str]] = [threshold_policy(k) for k in range(12, 22)]
    policies.append(_rich_policy)
    for policy in policies:
        assert solution.ev >= evaluate_player_policy(rules, None, policy) - 1e-12
    # Re-evaluating the optimal policy as a fixed policy gives back its EV exactly.
    assert evaluate_player_policy(rules, None, solution.as_policy()) == pytest.approx(solution.ev, abs=1e-12)


@pytest.mark.parametrize(
    ("preset", "restricted", "full"),
    [
        ("pagat", {"stick_min": 16}, {"stick_min": 15}),
        ("pagat", {"split_aces_only": True}, {}),
        ("pagat", {"split": "none"}, {}),
        ("pagat", {"max_split_hands": 2}, {}),
        ("pagat", {"bust_pays_double": False}, {}),
        ("pagat", {"split_pontoon": "21"}, {}),
        ("pagat", {"allow_buy": False, "buy_limits": "none"}, {}),
        ("pagat", {"buy_limits": "initial"}, {}),
        ("casino", {"double_allowed": False}, {}),
        ("casino", {"split": "rank"}, {}),
        ("pontoon_2011", {}, {"no_buy_fifth_at_or_below": 0}),
        ("pontoon_2011", {}, {"split_aces_only": False}),
    ],
)
def test_restricting_the_player_never_helps(preset: str, restricted: dict, full: dict) -> None:
    small = solve(make_rules(preset, **restricted), BankerRule(17)).ev
    large = solve(make_rules(preset, **full), BankerRule(17)).ev
    assert small <= large + 1e-12


def test_stake_choice_is_at_least_fixed_stakes() -> None:
    solution = solve("pagat")
    rules = solution.rules
    assert solution.ev_stake_choice >= rules.min_stake * solution.ev - 1e-9
    assert solution.ev_stake_choice >= rules.max_stake * solution.ev - 1e-9
    for value, ev in solution.first_card_ev.items():
        assert solution.stake_choice[value] == ("stake_max" if ev > 0 else "stake_min")
    assert scripted_stake(solution, card_code(0, 2)) == "stake_max"  # an ace
    assert scripted_stake(solution, card_code(6, 1)) == "stake_min"  # a seven


def test_1939_per_unit_ev_depends_on_stake_through_one_chip_buys() -> None:
    solution = solve("pontoon_1939")
    at_min, at_max = solution.first_card_ev_by_stake[1], solution.first_card_ev_by_stake[10]
    assert any(abs(at_min[v] - at_max[v]) > 1e-6 for v in at_min)


# --------------------------------------------------------------------------------------------------
# Building blocks
# --------------------------------------------------------------------------------------------------


@given(st.lists(st.integers(0, 12), min_size=2, max_size=5))
@settings(max_examples=200, deadline=None)
def test_representative_hand_has_the_statistic(ranks: list[int]) -> None:
    cards = [card_code(rank, 0) for rank in ranks]
    total, soft = hand_total(cards)
    values = representative_values(total, soft, len(cards))
    assert values is not None
    codes = [card_code(v - 1, 0) for v in values]
    assert hand_total(codes) == (total, soft)
    assert classify(codes).hand_class == classify(cards).hand_class


@pytest.mark.parametrize(
    "rule", [BankerRule(17), BankerRule(17, hit_soft=True), BankerRule(13), BankerRule(22)]
)
def test_banker_outcomes_follow_the_rule(rule: BankerRule) -> None:
    outcomes = banker_outcomes("pagat", rule)
    assert sum(outcomes.values()) == pytest.approx(1.0)
    for result in outcomes:
        if result.hand_class == HandClass.TOTAL:  # he stood (not 21, bust or five cards)
            assert result.total >= rule.stand_on, result
    naturals = sum(p for r, p in outcomes.items() if r.hand_class == HandClass.PONTOON)
    assert naturals == pytest.approx(2 * (1 / 13) * (4 / 13))


@pytest.mark.parametrize(
    ("preset", "rule"), [("pagat", BankerRule(17)), ("casino", None), ("pagat", BankerRule(22))]
)
def test_banker_without_five_card_trick_draws_past_five_cards(preset: str, rule: BankerRule | None) -> None:
    # D9 off: no five-card trick and no five-card stop, so his final hand is distributed exactly as
    # under rules that know no five-card trick at all; with it on, five-card hands stop short.
    off = banker_outcomes(make_rules(preset, dealer_five_card_trick=False), rule)
    none = banker_outcomes(make_rules(preset, five_card_trick=False, dealer_five_card_trick=False), rule)
    assert off.keys() == none.keys()
    for result, p in off.items():
        assert p == pytest.approx(none[result], abs=1e-15)
    assert sum(off.values()) == pytest.approx(1.0)
    assert not any(r.hand_class == HandClass.FIVE_CARD_TRICK for r in off)
    assert sum(p for r, p in off.items() if r.cards > 5) > 1e-4
    stand_on = (rule or default_banker_rule(make_rules(preset))).stand_on
    assert all(r.total >= stand_on for r in off if r.hand_class == HandClass.TOTAL)
    on = banker_outcomes(preset, rule)
    assert max(r.cards for r in on) == 5
    assert any(r.hand_class == HandClass.FIVE_CARD_TRICK for r in on)


def test_hitting_soft_17_stands_on_17_less_often() -> None:
    def standing_17(rule: BankerRule) -> float:
        outcomes = banker_outcomes("casino", rule)
        return sum(p for r, p in outcomes.items() if r.hand_class == HandClass.TOTAL and r.total == 17)

    assert standing_17(BankerRule(17, hit_soft=True)) < standing_17(BankerRule(17)) - 0.01


@pytest.mark.parametrize("preset", ["pagat", "casino", "pontoon_1939", "pontoon_2011"])
def test_banker_best_response_dominates_the_fixed_rule(preset: str) -> None:
    banker = BankerRule(17)
    policy = threshold_policy(16)
    response = banker_best_response(preset, banker, policy)
    assert response.fixed_rule_banker_ev == pytest.approx(-evaluate_player_policy(preset, banker, policy))
    assert response.banker_ev >= response.fixed_rule_banker_ev - 1e-12
    assert response.player_ev == -response.banker_ev
    if preset == "pagat":
        # The player sticks on 16 or more: a banker on a hard 16 facing an unsplit three-card hand
        # (no buy, stake 1) beats only a 16 by standing, so he draws; on 20 he stands.
        signal = Signal(False, 3, 1, False)
        assert response.draws(signal, 16, False, 2) is True
        assert response.draws(signal, 20, False, 2) is False
        assert (False, signal) in response.signals


# --------------------------------------------------------------------------------------------------
# Scripted use
# --------------------------------------------------------------------------------------------------


def _c(text: str) -> int:
    """A card code from a rank letter or number (hearts)."""
    ranks = {"A": 0, "T": 9, "J": 10, "Q": 11, "K": 12}
    return card_code(ranks[text] if text in ranks else int(text) - 1, 1)


def test_scripted_moves_are_legal_and_sensible() -> None:
    solution = solve("pagat")
    legal = ("stick", "twist", "buy_min", "buy_max")
    assert scripted_move(solution, [_c("K"), _c("Q")], False, 0, 1, 1, legal) == "stick"
    assert scripted_move(solution, [_c("5"), _c("6")], False, 0, 1, 1, legal) == "buy_max"
    # Aces are worth more bought (five-card tricks at up to 7 stakes) than split in pagat.
    assert scripted_move(solution, [_c("A"), _c("A")], False, 0, 1, 1, (*legal, "split")) == "buy_max"
    assert scripted_move(solution, [_c("8"), _c("8")], False, 0, 1, 1, (*legal, "split")) == "split"
    assert scripted_move(solution, [_c("8"), _c("8")], False, 0, 1, 1, legal) == "stick"
    # Below the stick minimum the only choices are drawing ones.
    assert scripted_move(solution, [_c("9"), _c("5")], True, 0, 1, 1, ("twist",)) == "twist"
    move, ev = solution.best_action(HandState(20, False, 2))
    assert move == "stick" and 0.3 < ev < 1
    casino = solve("casino")
    assert scripted_move(casino, [_c("5"), _c("6")], False, 0, 1, 1, ("twist", "double")) == "double"
    assert (
        scripted_move(casino, [_c("K"), _c("Q")], False, 0, 1, 1, ("stick", "twist", "double", "split"))
        == "stick"
    )
    assert scripted_move(casino, [_c("A"), _c("A")], False, 0, 1, 1, ("twist", "double", "split")) == "split"


def test_strategy_chart_lists_every_row() -> None:
    solution = solve("pagat")
    chart = strategy_chart(solution)
    lines = chart.splitlines()
    assert any(line.startswith("hard 20") and line.split()[2] == "S" for line in lines)
    assert any(line.startswith("hard  5") and line.split()[2] != "S" for line in lines)
    assert sum(line.startswith("pair") for line in lines) == 10
    assert len([line for line in lines if line.startswith(("hard", "soft"))]) == 17 + 9
    assert "twist" in strategy_chart(solution, after="twist")


# --------------------------------------------------------------------------------------------------
# The solver's policy in the table engine
# --------------------------------------------------------------------------------------------------


class _Stacked:
    """A deck that deals a given card order (the same order the engine is stacked with)."""

    def __init__(self, cards: list[int]) -> None:
        self.cards = list(cards)

    def draw(self) -> int:
        return self.cards.pop(0)


def _engine_round(game, solution, banker_rule: BankerRule, cards: list[int], stake: int) -> int:  # type: ignore[no-untyped-def]  # noqa: E501
    """Play one engine round with the solver's scripted moves; returns the player's net chips."""
    from pontoon_env.game.actions import Action, ActionKind, Phase

    rules = game.rules
    game.new_round(deck=cards)
    while not game.is_round_over:
        legal = game.legal_actions()
        phase = game.phase
        if phase == Phase.STAKE:
            game.apply(Action(ActionKind.STAKE, stake))
        elif phase == Phase.BANKER_DOUBLE:
            first = game.banker_hands[0].cards[0]
            doubles = CARD_VALUE[first] in banker_rule.double_on
            game.apply(Action(ActionKind.DOUBLE_STAKES if doubles else ActionKind.NO_DOUBLE))
        elif phase == Phase.BANKER_TURN:
            if len(legal) == 1:  # the casino dealer's forced move
                game.apply(Action(legal[0].kind))
                continue
            total, soft = hand_total(game.banker_hands[0].cards)
            game.apply(Action(ActionKind.DRAW if banker_rule.draws(total, soft) else ActionKind.STAND))
        elif phase == Phase.PLAYER_TURN:
            player = game.players[0]
            hand = player.hands[player.active]
            moves: dict[str, Action] = {}
            for option in legal:
                if option.kind == ActionKind.BUY:
                    moves["buy_max"] = Action(ActionKind.BUY, option.max_amount)
                    if option.min_amount < option.max_amount:
                        moves["buy_min"] = Action(ActionKind.BUY, option.min_amount)
                else:
                    moves[option.kind.name.lower()] = Action(option.kind)
            later = player.hands[player.active + 1 :]
            pending = sum(1 for h in later if not h.done and _pair_value(rules, h.cards))
            move = scripted_move(
                solution,
                hand.cards,
                hand.twisted,
                hand.last_buy,
                hand.initial,
                len(player.hands),
                tuple(moves),
                stake=hand.stake,
                doubled=hand.doubled,
                split_hand=hand.split,
                pending_pairs=pending,
                banker_doubled=game.stakes_doubled,
            )
            game.apply(moves[move])
        else:  # pragma: no cover - no other phase in these presets with one player
            raise AssertionError(f"unexpected phase {phase!r}")
    return game.seat_result(1)


@pytest.mark.parametrize(
    ("preset", "stake", "options"),
    [
        ("pagat", 1, {}),
        ("casino", 1, {}),
        ("pontoon_1939", 10, {}),
        ("pontoon_2011", 10, {}),
        # D9 off: the banker makes no five-card trick and draws on past five cards by his rule.
        ("pagat", 1, {"dealer_five_card_trick": False}),
        ("casino", 1, {"dealer_five_card_trick": False}),
    ],
)
def test_engine_plays_the_solver_policy_like_the_reference_simulator(
    preset: str, stake: int, options: dict
) -> None:
    # Same card order into the engine and into the simulator above: every round must come out the
    # same, so the solver's model of the rules (which the simulator checks statistically) is the
    # engine's. Eight decks and random card codes make the engine's stacked pack an infinite deck.
    engine = pytest.importorskip("pontoon_env.game.engine")
    rules = make_rules(preset, decks=8, bank_passing="none", **options)
    banker_rule = default_banker_rule(rules)
    solution = solve(rules, banker_rule, stake=stake)
    policy = solution.as_policy()
    game = engine.PontoonGame(rules, num_players=1, seed=0, banker=0)
    rng = np.random.default_rng(11)
    splits = 0
    banker_past_five = 0
    for _ in range(1500):
        cards = rng.integers(0, 52, 30).tolist()
        net = _engine_round(game, solution, banker_rule, cards, stake)
        splits += len(game.players[0].hands) > 1
        banker_past_five += len(game.banker_hands[0].cards) > 5
        expected = _play_round(rules, banker_rule, policy, _Stacked(cards), stake)  # type: ignore[arg-type]
        assert net == pytest.approx(expected * stake), (cards, game.round_report())
    assert splits > 0 or preset == "pontoon_2011"
    # The banker draws a sixth card only where he has no five-card trick (and then does, here).
    assert (banker_past_five > 0) == (not rules.dealer_five_card_trick)


# --------------------------------------------------------------------------------------------------
# Banker strategies that depend on what the banker sees (exploitability of a learned banker)
# --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", PRESETS)
def test_a_strategy_that_plays_the_fixed_rule_changes_nothing(preset):
    rules = make_rules(preset)
    rule = default_banker_rule(rules)
    response = banker_best_response(rules, rule)
    fixed = {key: rule.draws(key[2], key[3]) for key in response._draws}
    assert solve(rules, rule, banker_strategy=fixed).ev == pytest.approx(solve(rules, rule).ev, abs=1e-12)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_policy_against_the_banker_best_response_strategy_scores_the_response(preset):
    """Two computations of one number: the banker best response's player EV, and the same policy
    evaluated against the response read back as a strategy table."""
    rules = make_rules(preset)
    rule = default_banker_rule(rules)
    optimal = solve(rules, rule)
    response = banker_best_response(rules, rule, optimal)
    against = evaluate_player_policy(rules, rule, optimal.as_policy(), banker_strategy=response._draws)
    assert against == pytest.approx(response.player_ev, abs=1e-9)
    # the player's exact best response to that banker does at least as well
    assert solve(rules, rule, banker_strategy=response._draws).ev >= against - 1e-12
