"""Property tests: random legal play under every preset (and a few variants) with 1–9 players.

At every step the table must conserve chips and cards, keep every stake within its limits, offer
at least one legal action, refuse an illegal one (saying why) without changing anything, and a
seed must replay the same trajectory.
"""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pontoon_env import Action, ActionKind, IllegalActionError, Phase, PontoonGame, make_rules
from pontoon_env.game.actions import AMOUNT_KINDS
from pontoon_env.game.cards import CARD_RANK, CARDS_PER_DECK
from pontoon_env.game.hands import hand_total
from pontoon_env.game.rules import PRESETS

VARIANTS: list[tuple[str, dict]] = [(name, {}) for name in sorted(PRESETS)] + [
    ("pagat", {"bank_sale": True, "split_aces_only": True, "stick_min": 16}),
    ("pagat", {"bankroll": 25, "min_stake": 2}),
    ("shoot", {"bank_sale": True, "bankroll": 40}),
    ("casino", {"pack": "cut_card", "decks": 2, "dealer_five_card_trick": False}),
    ("vingt_un_1850", {"old_mode": True, "bankroll": 20, "ante": 2}),
    ("pontoon_1939", {"bankroll": 60, "max_stake": 5}),
    ("pontoon_2011", {"split_pontoon": "21", "five_card_trick_pays": 2}),
    ("shoot", {"shuffle_after_pontoon": False, "max_stake": 3}),  # the carried-over pack comes round
]
IDS = [name + ("+" + ",".join(opts) if opts else "") for name, opts in VARIANTS]
MAX_STEPS_PER_ROUND = 3000


def _net(game: PontoonGame) -> dict[object, int]:
    net: dict[object, int] = {}
    for transfer in game.ledger:
        assert transfer.amount > 0 and transfer.payer != transfer.payee, transfer
        net[transfer.payer] = net.get(transfer.payer, 0) - transfer.amount
        net[transfer.payee] = net.get(transfer.payee, 0) + transfer.amount
    return net


def _snapshot(game: PontoonGame) -> dict[str, object]:
    return {"balances": list(game.balances), "kitty": game.kitty, "pool": game.pool}


class Table:
    """Drives one game with a seeded random legal policy, checking the invariants at every step."""

    def __init__(self, preset: str, overrides: dict, players: int, seed: int) -> None:
        self.rules = make_rules(preset, **overrides)
        self.game = PontoonGame(self.rules, num_players=players, seed=seed)
        self.rules = self.game.rules  # D18 may have added a deck
        self.rng = np.random.default_rng(seed + 1)
        self.total = self.game.total_chips
        self.cards = CARDS_PER_DECK * self.rules.decks
        self.trajectory: list[tuple] = []

    # -------------------------------------------------------------- the invariants

    def check(self) -> None:
        game, rules = self.game, self.rules
        assert game.total_chips == self.total
        net = _net(game)
        for seat in range(game.num_seats):
            assert game.balances[seat] - self.start["balances"][seat] == net.get(seat, 0)
        assert game.kitty - self.start["kitty"] == net.get("kitty", 0)
        assert game.pool - self.start["pool"] == net.get("pool", 0)
        assert game.kitty >= 0 and game.pool >= 0
        assert game.card_count() == self.cards
        # The public memory of seen ranks: every face-up card on the table counted once, at most.
        on_table = [0] * 13
        for hand in [h for p in game.players for h in p.hands] + game.banker_hands:
            if not hand.returned:
                for card, public in zip(hand.cards, hand.public):
                    on_table[CARD_RANK[card]] += public
        for rank in range(13):
            assert on_table[rank] <= game.seen[rank] <= 4 * self.rules.decks, (rank, game.seen, on_table)
        for player in game.players:
            for hand in player.hands:
                self.check_hand(hand)
        if rules.shoot and not game.is_round_over:
            outstanding = sum(h.shoot for p in game.players for h in p.hands if not h.settled)
            assert outstanding <= game.kitty
        if not game.is_round_over:
            legal = game.legal_actions()
            assert legal, f"no legal action in phase {game.phase.name}"
            for option in legal:
                assert option.min_amount <= option.max_amount
                assert option.kind in AMOUNT_KINDS or option.max_amount == 0
            banker_phases = (Phase.BANK_SALE, Phase.KITTY, Phase.BANKER_DOUBLE, Phase.BANKER_TURN)
            assert (game.current_seat == game.banker) == (game.phase in banker_phases)

    def check_hand(self, hand) -> None:
        rules = self.rules
        if not hand.initial:
            return
        low, high = rules.min_stake, rules.max_stake
        if self.game._stakes_doubled:
            low, high = 2 * low, 2 * high
        if rules.fixed_stake:
            assert hand.initial == rules.min_stake
        assert low <= hand.initial <= high, (hand.initial, low, high)
        assert hand.stake <= rules.max_buy_total
        if rules.double_allowed and hand.doubled:
            assert hand.stake == 2 * hand.initial
        elif rules.buy_limits == "pagat":  # every buy in [initial, 2 x initial]
            assert hand.initial * (1 + hand.buys) <= hand.stake <= hand.initial * (1 + 2 * hand.buys)
        elif rules.buy_limits == "initial":  # every buy in [1, initial]
            assert hand.initial + hand.buys <= hand.stake <= hand.initial * (1 + hand.buys)
        else:
            assert hand.stake == hand.initial
        assert len(hand.cards) <= 5 or not rules.five_card_trick

    def check_legal_ranges(self) -> None:
        """Stakes and buys are offered exactly within their limits (bankrolls may narrow them)."""
        game, rules = self.game, self.rules
        offered = {option.kind: option for option in game.legal_actions()}
        unlimited = rules.bankroll == 0
        if game.phase == Phase.STAKE:
            stake = offered[ActionKind.STAKE]
            assert stake.min_amount == rules.min_stake and stake.max_amount <= rules.max_stake
            assert not unlimited or stake.max_amount == rules.max_stake
        if game.phase == Phase.PLAYER_TURN:
            player = game.players[game._turn]
            hand = player.hands[player.active]
            # An independent reading of the drawing rules (not pontoon_env.game.legality, on purpose):
            # a hand decides under 21, or on a soft 21 of 3+ cards where D19 lets it draw.
            total, soft = hand_total(hand.cards)
            soft_21_draws = rules.draw_on_soft_21 and soft and total == 21 and len(hand.cards) >= 3
            assert (total < 21 or soft_21_draws) and not hand.done
            buy = offered.get(ActionKind.BUY)
            if rules.buy_limits == "pagat":
                low, high = hand.initial, hand.last_buy or 2 * hand.initial
            else:
                low, high = 1, hand.initial
            may_buy = (
                rules.allow_buy
                and total < 21  # D4: never at 21
                and not hand.twisted
                and not (len(hand.cards) == 4 and total <= rules.no_buy_fifth_at_or_below)
            )
            if not may_buy:
                assert buy is None
            elif unlimited:
                assert buy is not None and (buy.min_amount, buy.max_amount) == (low, high)
            elif buy is not None:
                assert buy.min_amount == low and buy.max_amount <= high
            if ActionKind.STICK in offered:
                assert total >= rules.stick_min

    def check_report(self) -> None:
        """Each hand's reported payout adds up to its seat's stake transfers in the ledger."""
        game = self.game
        hand_reasons = {"bust", "settlement", "natural", "banker_natural"}
        report = game.round_report()
        for player in game.players:
            from_ledger = sum(
                (t.amount if t.payee == player.seat else -t.amount)
                for t in game.ledger
                if t.reason in hand_reasons and player.seat in (t.payer, t.payee)
            )
            assert sum(hand.payout for hand in player.hands) == from_ledger
            assert all(hand.settled for hand in player.hands)
        # Money moves between a player and the banker (the kitty, the pool, the bank's sale and the
        # 1800 natural, paid by every participant, aside).
        banker = report["banker"]
        for t in game.ledger:
            if t.reason in ("bust", "settlement", "banker_natural"):
                assert banker in (t.payer, t.payee) and {t.payer, t.payee} <= set(range(game.num_seats))
            elif t.reason == "natural" and self.rules.settlement != "vingt_un_1800":
                assert t.payer == banker
        # D22: a seat's result is its chip change plus the changes of the kitty it owned.
        net = _net(game)
        for seat in range(game.num_seats):
            owned = sum(
                (t.amount if t.payee == "kitty" else -t.amount)
                for t in game.ledger
                if "kitty" in (t.payer, t.payee) and t.kitty_owner == seat
            )
            assert report["result"][str(seat)] == net.get(seat, 0) + owned
        assert all(t.kitty_owner is not None for t in game.ledger if "kitty" in (t.payer, t.payee))
        assert report["kitty"] == net.get("kitty", 0) and report["pool"] == net.get("pool", 0)
        assert sum(report["result"].values()) + report["pool"] == 0

    # -------------------------------------------------------------- illegal actions

    def illegal_action(self) -> Action:
        legal = self.game.legal_actions()
        kinds = {option.kind for option in legal}
        missing = [kind for kind in ActionKind if kind not in kinds]
        amounts = [option for option in legal if option.kind in AMOUNT_KINDS]
        if amounts and self.rng.random() < 0.5:
            option = amounts[int(self.rng.integers(len(amounts)))]
            wrong = (
                option.max_amount + 1
                if self.rng.random() < 0.5 or option.min_amount == 0
                else option.min_amount - 1
            )
            return Action(option.kind, wrong)
        return Action(missing[int(self.rng.integers(len(missing)))], 1)

    def check_illegal(self) -> None:
        game = self.game
        action = self.illegal_action()
        before = pickle.dumps(game)
        with pytest.raises(IllegalActionError) as error:
            game.apply(action)
        message = str(error.value)
        assert str(action) in message and game.phase.name in message and "legal now:" in message
        assert message.split(f"{game.phase.name}: ", 1)[1].split("; legal now:")[0]  # the reason
        assert pickle.dumps(game) == before, f"illegal {action} changed the state"

    # -------------------------------------------------------------- play

    def choose(self) -> Action:
        legal = self.game.legal_actions()
        option = legal[int(self.rng.integers(len(legal)))]
        amount = int(self.rng.integers(option.min_amount, option.max_amount + 1))
        return Action(option.kind, amount)

    def play_round(self, illegal_every: float = 0.2) -> None:
        game = self.game
        self.start = _snapshot(game)
        game.new_round()
        self.trajectory.append(("round", game.banker))
        self.check()
        for _ in range(MAX_STEPS_PER_ROUND):
            if game.is_round_over:
                break
            self.check_legal_ranges()
            if self.rng.random() < illegal_every:
                self.check_illegal()
            action = self.choose()
            self.trajectory.append((game.phase.name, game.current_seat, str(action)))
            game.apply(action)
            self.check()
        else:  # pragma: no cover - a round that never ends
            raise AssertionError("the round did not end")
        self.trajectory.append(tuple(game.balances) + (game.kitty, game.pool))
        self.check_report()
        with pytest.raises(IllegalActionError, match="round is over"):
            game.apply(Action(ActionKind.STICK))


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(range(len(VARIANTS))), players=st.integers(1, 9), seed=st.integers(0, 2**31))
def test_random_legal_play_keeps_every_invariant(variant, players, seed):
    preset, overrides = VARIANTS[variant]
    table = Table(preset, overrides, players, seed)
    for _ in range(3):
        table.play_round()


@pytest.mark.parametrize(("preset", "overrides"), VARIANTS, ids=IDS)
def test_every_preset_and_seat_count_keeps_every_invariant(preset, overrides):
    for players in range(1, 10):
        table = Table(preset, overrides, players, seed=1000 * players + len(overrides))
        for _ in range(2):
            table.play_round(illegal_every=0.1)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(range(len(VARIANTS))), players=st.integers(1, 9), seed=st.integers(0, 2**31))
def test_same_seed_same_trajectory(variant, players, seed):
    preset, overrides = VARIANTS[variant]
    runs = []
    for _ in range(2):
        table = Table(preset, overrides, players, seed)
        for _ in range(3):
            table.play_round(illegal_every=0.0)
        runs.append((table.trajectory, table.game.pack.cards, list(table.game.ledger)))
    assert runs[0] == runs[1]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(range(len(VARIANTS))),
    players=st.integers(1, 9),
    seed=st.integers(0, 2**31),
    steps=st.integers(0, 40),
)
def test_clone_replays_like_the_original(variant, players, seed, steps):
    preset, overrides = VARIANTS[variant]
    table = Table(preset, overrides, players, seed)
    table.start = _snapshot(table.game)
    table.game.new_round()
    for _ in range(steps):
        if table.game.is_round_over:
            break
        table.game.apply(table.choose())
    copy = table.game.clone()
    state = np.random.default_rng(seed).integers(1 << 30)
    runs = []
    for game in (table.game, copy):
        rng = np.random.default_rng(state)
        trace = []
        while not game.is_round_over:
            legal = game.legal_actions()
            option = legal[int(rng.integers(len(legal)))]
            action = Action(option.kind, int(rng.integers(option.min_amount, option.max_amount + 1)))
            trace.append(str(action))
            game.apply(action)
        runs.append((trace, list(game.balances), game.pack.cards))
    assert runs[0] == runs[1]
