"""The action table and the observation encoder: ids, masks, amounts, layout and hidden information."""

from __future__ import annotations

import numpy as np
import pytest

from pontoon_env import PRESETS, Action, ActionKind, IllegalActionError, Phase, PontoonGame, make_rules
from pontoon_env.game.cards import CARD_RANK, parse_card
from pontoon_env.encoding import ActionTable, ObservationEncoder
import pontoon_env.encoding as encoding_module
from pontoon_env.game.observation import HIDDEN, observe

PAGAT_NAMES = [
    "stake:1",
    "stake:4",
    "stake:7",
    "stake:10",
    "stick",
    "twist",
    "buy:min",
    "buy:max",
    "split",
    "double",
    "shoot:min",
    "shoot:50%",
    "shoot:max",
    "no_shoot",
    "double_stakes",
    "no_double",
    "draw",
    "stand",
    "banker_split",
    "kitty:min",
    "kitty:50%",
    "kitty:max",
    "keep_bank",
    "sell:0",
    "sell:20",
    "sell:50",
    "bid:min",
    "bid:20",
    "bid:50",
    "pass",
    "take_bank",
    "decline_bank",
]


def game_at(preset: str, deck: list[str], players: int = 1, **overrides) -> PontoonGame:
    game = PontoonGame(make_rules(preset, **overrides), num_players=players, seed=3, banker=0)
    game.new_round(deck=deck)
    return game


def field(encoder: ObservationEncoder, vector: np.ndarray, name: str) -> np.ndarray:
    for row in encoder.index_table():
        if row.name == name:
            return vector[row.slice]
    raise KeyError(name)


# ------------------------------------------------------------------------------------ actions


def test_pagat_action_names_and_one_layout_for_every_preset():
    assert ActionTable(make_rules("pagat")).names == PAGAT_NAMES
    kinds = {preset: [slot.kind for slot in ActionTable(make_rules(preset)).slots] for preset in PRESETS}
    assert all(layout == kinds["pagat"] for layout in kinds.values())


def test_buy_levels_follow_the_legal_range_and_collapse_to_one_id():
    table = ActionTable(make_rules("pagat"))
    game = game_at("pagat", ["9S", "7H", "2D", "8C", "3H", "2C"])  # player 9+2, then buys
    game.apply(Action(ActionKind.STAKE, 4))
    legal = game.legal_actions()
    assert table.decode(table.index("buy:min"), legal) == Action(ActionKind.BUY, 4)
    assert table.decode(table.index("buy:max"), legal) == Action(ActionKind.BUY, 8)
    game.apply(Action(ActionKind.BUY, 4))  # later buys are within [4, 4]: one id only
    mask = table.mask(game.legal_actions())
    assert mask[table.index("buy:min")] and not mask[table.index("buy:max")]
    with pytest.raises(IllegalActionError, match="buy:max.*legal: .*buy:min"):
        table.decode(table.index("buy:max"), game.legal_actions())


def test_stake_levels_are_clipped_to_a_finite_bankroll():
    table = ActionTable(make_rules("pagat", bankroll=5))
    game = PontoonGame(make_rules("pagat", bankroll=5), num_players=1, seed=0, banker=0)
    game.new_round()
    legal = game.legal_actions()
    assert legal[0].max_amount == 5
    mask = table.mask(legal)
    assert [table.names[i] for i in np.flatnonzero(mask)] == ["stake:1", "stake:4", "stake:7"]
    assert table.decode(table.index("stake:7"), legal) == Action(ActionKind.STAKE, 5)


def test_fraction_levels_and_custom_levels():
    table = ActionTable(make_rules("shoot"), {"shoot": [0.25, "max"], "stake": [2, 5]})
    assert "shoot:25%" in table.names and "stake:2" in table.names and "stake:1" not in table.names
    game = game_at("shoot", [])
    game.apply(Action(ActionKind.KITTY, 9))
    legal = game.legal_actions()
    assert table.decode(table.index("stake:5"), legal) == Action(ActionKind.STAKE, 5)
    game.apply(Action(ActionKind.STAKE, 5))
    legal = game.legal_actions()  # shoot bet in [1, 9]
    assert table.decode(table.index("shoot:25%"), legal) == Action(ActionKind.SHOOT, 3)
    assert table.decode(table.index("shoot:max"), legal) == Action(ActionKind.SHOOT, 9)


@pytest.mark.parametrize("levels", [[-1], [1.5], ["half"], [True], [], "max", [1, 1]])
def test_malformed_levels_are_refused(levels):
    with pytest.raises(ValueError, match=r"action_levels\['stake'\]|duplicate"):
        ActionTable(make_rules("pagat"), {"stake": levels})


def test_unknown_level_kinds_are_named():
    with pytest.raises(ValueError, match=r"unknown keys \['stakes'\]"):
        ActionTable(make_rules("pagat"), {"stakes": [1]})


def test_unknown_action_name_lists_valid_names():
    with pytest.raises(KeyError, match="stick"):
        ActionTable(make_rules("pagat")).index("hit")


# ---------------------------------------------------------------------------------- layout


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_index_table_covers_the_vector_once(preset):
    encoder = ObservationEncoder(make_rules(preset), 5)
    rows = encoder.index_table()
    covered = np.zeros(encoder.size, dtype=int)
    for row in rows:
        covered[row.slice] += 1
    assert (covered == 1).all()
    assert len({row.name for row in rows}) == len(rows)
    low, high = encoder.bounds()
    assert (low < high).all()


def test_sizes_depend_on_hands_and_seats():
    assert ObservationEncoder(make_rules("pagat"), 5).size == 403
    assert ObservationEncoder(make_rules("casino"), 5).size == 321  # three hands after splits, not four
    assert ObservationEncoder(make_rules("vingt_un_1800"), 5).size == 157  # no splits
    assert ObservationEncoder(make_rules("pagat"), 3).size < 403


def test_encoded_values_of_a_known_position():
    # Two players: seat 1 has 9S + 2D, seat 2 has KC + 5H; the banker has 7H + 8C.
    game = game_at("pagat", ["9S", "KC", "7H", "2D", "5H", "8C", "3H"], players=2)
    game.apply(Action(ActionKind.STAKE, 4))
    game.apply(Action(ActionKind.STAKE, 10))
    game.apply(Action(ActionKind.TWIST))  # seat 1: 9 2 3 = 14, the 3 face up
    encoder = ObservationEncoder(game.rules, 3)
    seat1 = encoder.encode(observe(game, 1))
    assert field(encoder, seat1, "table.phase")[Phase.PLAYER_TURN] == 1
    assert field(encoder, seat1, "table.to_act")[0] == 1
    assert field(encoder, seat1, "own[0].total")[0] == pytest.approx(14 / 21)
    assert field(encoder, seat1, "own[0].stake")[0] == pytest.approx(0.4)
    assert field(encoder, seat1, "own[0].twisted")[0] == 1
    assert field(encoder, seat1, "banker.hidden")[0] == 1  # two face-down cards / 2
    assert field(encoder, seat1, "seat[2].is_banker")[0] == 1  # the banker sits two to seat 1's left
    assert field(encoder, seat1, "seat[1].hand[0].stake")[0] == pytest.approx(1.0)
    assert field(encoder, seat1, "seat[1].hand[0].known_cards")[0] == 0
    seat2 = encoder.encode(observe(game, 2))
    assert field(encoder, seat2, "seat[2].hand[0].known_cards")[0] == pytest.approx(1 / 5)  # the twisted 3
    assert field(encoder, seat2, "seat[2].hand[0].total")[0] == pytest.approx(3 / 21)
    assert field(encoder, seat2, "others.ranks")[2] == pytest.approx(0.25)
    assert field(encoder, seat2, "table.seen_ranks")[2] == pytest.approx(0.25)
    banker = encoder.encode(observe(game, 0))
    assert field(encoder, banker, "table.is_banker")[0] == 1
    assert field(encoder, banker, "own[0].total")[0] == pytest.approx(15 / 21)  # he has looked at both


def random_play_views(preset: str, players: int, rounds: int, seed: int):
    """``(encoder, view)`` for every seat at every decision of random legal play (60-chip bankrolls,
    until a seat cannot stake)."""
    rules = make_rules(preset, bankroll=60)
    encoder = ObservationEncoder(rules, players + 1)
    game = PontoonGame(rules, num_players=players, seed=seed)
    rng = np.random.default_rng(seed)
    for _round in range(rounds):
        if any(balance < rules.min_stake for balance in game.balances):
            break
        game.new_round()
        while not game.is_round_over:
            for seat in range(game.num_seats):
                yield encoder, observe(game, seat)
            option = game.legal_actions()[int(rng.integers(len(game.legal_actions())))]
            game.apply(Action(option.kind, int(rng.integers(option.min_amount, option.max_amount + 1))))


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_random_play_stays_inside_the_bounds(preset):
    for encoder, view in random_play_views(preset, players=3, rounds=25, seed=11):
        vector = encoder.encode(view)
        assert vector.dtype == np.float32 and np.isfinite(vector).all()
        assert (vector >= encoder.low).all() and (vector <= encoder.high).all()



def reference_encode(encoder: ObservationEncoder, view) -> np.ndarray:
    """The observation written straight from the field specs, one hand at a time, with the
    encoder's one-list helpers (``_own_values``, ``_banker_values``, ``_other_values``,
    ``_squash``): the readable reference that the packed, cached pieces of ``encode`` must match
    byte for byte."""
    rules = encoder.rules
    table = [0.0] * len(Phase)
    table[int(view.phase)] = 1.0
    table += [float(view.is_banker), float(view.to_act), float(view.stakes_doubled)]
    table += [count / (4 * rules.decks) for count in view.seen_ranks]
    table += [
        view.cards_in_pack / (52 * rules.decks),
        view.kitty / rules.max_stake,
        view.shoot_room / rules.max_stake,
        encoder._squash(view.balances[view.seat]),
    ]
    values = table
    active = view.active_hand if view.to_act else -1
    own = view.own_hands[: encoder.own_hands]
    for index, hand in enumerate(own):
        values += encoder._own_values(hand, index == active)
    values += [0.0] * encoder._own_stride * (encoder.own_hands - len(own))
    bankers = view.banker_hands[: encoder.banker_hands]
    for hand in bankers:
        values += encoder._banker_values(hand)
    values += [0.0] * encoder._banker_stride * (encoder.banker_hands - len(bankers))
    ranks = [0.0] * 13
    seats: list[float] = []
    in_round = dict(view.players)
    for slot in range(1, encoder.num_seats):
        seat = (view.seat + slot) % encoder.num_seats
        hands = in_round.get(seat, ())[: encoder.player_hands]
        seats += [float(seat == view.banker), float(bool(hands)), encoder._squash(view.balances[seat])]
        for hand in hands:
            seats += encoder._other_values(hand)
            for card in hand.known_cards:
                ranks[CARD_RANK[card]] += 0.25
        seats += [0.0] * encoder._other_hand_stride * (encoder.player_hands - len(hands))
    values += ranks + seats
    with np.errstate(over="ignore"):
        return np.minimum(np.array(values, dtype=np.float32), encoder.high)


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("players", [1, 3])
def test_encode_matches_the_one_list_reference(preset, players):
    for encoder, view in random_play_views(preset, players, rounds=15, seed=5):
        assert encoder.encode(view).tobytes() == reference_encode(encoder, view).tobytes()


def test_chips_past_float32s_range_are_capped_like_the_reference():
    # A stake beyond float32's range cannot be packed by struct: encode falls back to numpy's
    # conversion (inf), and the cap brings it back to the field's high, as the reference does.
    rules = make_rules("pagat")
    encoder = ObservationEncoder(rules, 2)
    game = game_at("pagat", ["10S", "9C", "7H", "8D"])
    view = observe(game, 1)
    huge = view._replace(own_hands=(view.own_hands[0]._replace(stake=10**60, shoot=10**60),))
    vector = encoder.encode(huge)
    assert vector.tobytes() == reference_encode(encoder, huge).tobytes()
    assert field(encoder, vector, "own[0].stake")[0] == field(encoder, encoder.high, "own[0].stake")[0]



def test_rank_counts_beyond_the_pack_are_encoded_like_the_reference():
    # Counts come from tables of 0..4 x decks; a hand-made view past that takes the packing path.
    encoder = ObservationEncoder(make_rules("pagat"), 2)
    view = observe(game_at("pagat", ["10S", "9C", "7H", "8D"]), 1)
    odd = view._replace(seen_ranks=(9,) + view.seen_ranks[1:])
    assert encoder.encode(odd).tobytes() == reference_encode(encoder, odd).tobytes()

# ------------------------------------------------------------------------- hidden information

# Two players and a banker. Every total is the same in both card sets (17, 17, 16; a bought card
# makes 19 or 20), so the round runs the same way whichever set a slot takes.
SLOTS = ("p1c1", "p2c1", "bc1", "p1c2", "p2c2", "bc2", "p1buy", "p2buy")
SET_A = {
    "p1c1": "10S",
    "p2c1": "9D",
    "bc1": "10C",
    "p1c2": "7H",
    "p2c2": "8C",
    "bc2": "6D",
    "p1buy": "2H",
    "p2buy": "2D",
}
SET_B = {
    "p1c1": "9S",
    "p2c1": "10D",
    "bc1": "9H",
    "p1c2": "8H",
    "p2c2": "7C",
    "bc2": "7D",
    "p1buy": "3C",
    "p2buy": "3D",
}
OWNER = {"p1c1": 1, "p1c2": 1, "p1buy": 1, "p2c1": 2, "p2c2": 2, "p2buy": 2, "bc1": 0, "bc2": 0}


def scripted(game: PontoonGame) -> Action:
    """The same decision in both games: minimum stakes, one minimum buy, then stick; banker stands."""
    legal = {option.kind: option for option in game.legal_actions()}
    for kind in (
        ActionKind.NO_SHOOT,
        ActionKind.NO_DOUBLE,
        ActionKind.DECLINE_BANK,
        ActionKind.KEEP_BANK,
        ActionKind.PASS,
        ActionKind.STAND,
    ):
        if kind in legal:
            return Action(kind)
    for kind in (ActionKind.STAKE, ActionKind.KITTY):
        if kind in legal:
            return Action(kind, legal[kind].min_amount)
    if game.phase == Phase.PLAYER_TURN:
        view = observe(game, game.current_seat)
        if view.own_hands[view.active_hand].num_cards == 2 and ActionKind.BUY in legal:
            return Action(ActionKind.BUY, legal[ActionKind.BUY].min_amount)
        return Action(ActionKind.STICK) if ActionKind.STICK in legal else Action(ActionKind.TWIST)
    return Action(game.legal_actions()[0].kind, game.legal_actions()[0].min_amount)


def deck_for(observer: int, vary_own: bool, allow_buy: bool) -> tuple[list[str], list[str]]:
    """Deck A and deck B: B differs from A in every card hidden from ``observer``."""
    deck_a = [SET_A[slot] for slot in SLOTS]
    deck_b = []
    for slot in SLOTS:
        hidden = OWNER[slot] != observer
        if slot.endswith("buy") and not allow_buy:
            hidden = False  # without buying these cards reach the banker face up (casino dealer)
        deck_b.append(SET_B[slot] if hidden != vary_own else SET_A[slot])
    return deck_a, deck_b


def observer_views(preset: str, observer: int, vary_own: bool) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """Play both games identically; return the observer's two encodings at each comparable decision."""
    rules = make_rules(preset)
    encoder = ObservationEncoder(rules, 3)
    deck_a, deck_b = deck_for(observer, vary_own, rules.allow_buy)
    games = []
    for deck in (deck_a, deck_b):
        game = PontoonGame(rules, num_players=2, seed=5, banker=0)
        game.new_round(deck=deck, bottom=["2C"])  # a brûlet pair never forms with a 2 at the bottom
        games.append(game)
    game_a, game_b = games
    pairs = []
    banker_cards_vary = observer != 0 or vary_own
    while not game_a.is_round_over:
        assert game_a.legal_actions() == game_b.legal_actions() and game_a.current_seat == game_b.current_seat
        if game_a.phase == Phase.BANKER_TURN and banker_cards_vary:
            break  # the banker turns his cards up: from here on they are public
        pairs.append(
            (
                encoder.encode(observe(game_a, observer)),
                encoder.encode(observe(game_b, observer)),
                game_a.current_seat == observer,
            )
        )
        action = scripted(game_a)
        game_a.apply(action)
        game_b.apply(action)
    return pairs


@pytest.mark.parametrize("observer", [0, 1, 2], ids=["banker", "player1", "player2"])
@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_hidden_cards_do_not_change_a_seats_observation(preset, observer):
    pairs = observer_views(preset, observer, vary_own=False)
    assert any(own_turn for _, _, own_turn in pairs), "the observer never decided: the scenario is broken"
    for view_a, view_b, _ in pairs:
        np.testing.assert_array_equal(view_a, view_b)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_same_scenario_does_see_the_observers_own_cards(preset):
    # The control: changing the observer's own cards must change what it sees, or the test above
    # would pass for an encoder that shows nothing.
    for observer in (1, 2):
        pairs = observer_views(preset, observer, vary_own=True)
        assert any(not np.array_equal(view_a, view_b) for view_a, view_b, _ in pairs)


def test_a_bought_card_stays_hidden_while_the_stake_shows():
    game = game_at("pagat", ["10S", "9D", "10C", "7H", "8C", "6D", "2H"], players=2)
    game.apply(Action(ActionKind.STAKE, 2))
    game.apply(Action(ActionKind.STAKE, 2))
    game.apply(Action(ActionKind.BUY, 3))
    view = observe(game, 2)
    hand = dict(view.players)[1][0]
    assert hand.cards.count(-1) == 3 and hand.stake == 5
    assert parse_card("2H") in game.players[0].hands[0].cards


def test_memos_cleared_at_their_bound_still_encode_like_the_reference(monkeypatch):
    # Every memo of encoded pieces (other hands, seen and summed ranks, own and banker cards) is
    # cleared once past the bound; with a bound of 1 that happens on nearly every call.
    monkeypatch.setattr(encoding_module, "_CACHE_BOUND", 1)
    for encoder, view in random_play_views("pagat", 3, rounds=10, seed=7):
        assert encoder.encode(view).tobytes() == reference_encode(encoder, view).tobytes()


def test_every_piece_is_capped_at_its_highs_like_the_reference():
    # encode() caps each cached piece when it builds it instead of the joined vector: a hand-made
    # view past every cap (table chips, another player's hand, the banker's hidden cards, the
    # others' summed ranks) must give the reference's bytes, each capped value at its field's high.
    encoder = ObservationEncoder(make_rules("pagat"), 3)
    game = game_at("pagat", ["10S", "9C", "7H", "8D", "6S", "5C"], players=2)
    view = observe(game, 1)
    players = tuple(
        (seat, tuple(hand._replace(stake=10**9, buys=40, shoot=10**9) for hand in hands)) for seat, hands in view.players
    )
    banker = (view.banker_hands[0]._replace(cards=(HIDDEN,) * 7),)
    odd = view._replace(players=players, banker_hands=banker, kitty=10**9, shoot_room=10**9, cards_in_pack=10**6)
    vector = encoder.encode(odd)
    assert vector.tobytes() == reference_encode(encoder, odd).tobytes()
    assert vector.flags.writeable  # a vector of its own: the caller may change it
    assert np.all(vector <= encoder.high) and np.all(vector >= encoder.low)
    for name in ("table.kitty", "table.shoot_room", "table.cards_in_pack", "banker.hidden", "seat[1].hand[0].stake"):
        assert field(encoder, vector, name)[0] == field(encoder, encoder.high, name)[0], name
