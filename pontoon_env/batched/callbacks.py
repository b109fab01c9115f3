"""Seats the compiled engine cannot play itself, answered in one call per step for all tables.

Three kinds of driver, tried in this order by :func:`decide_batch`:

1. an object with ``act_batch(obs, masks) -> ids`` (the batched callback protocol: ``obs`` is
   ``float32 [k, obs_size]``, the seat's observation at each of the ``k`` waiting tables, ``masks``
   ``bool [k, n_actions]``);
2. a trained model (:class:`agents.model.ModelPolicy`): one ``predict`` for all ``k`` tables on the
   batched observations (the same encoding the model was trained on), illegal picks of a model that
   cannot mask replaced by :meth:`ModelPolicy.legal_ids`;
3. any :class:`~pontoon_env.game.policy.Policy` (``banker_smart``, a custom object): its ``act`` on
   the seat's :class:`~pontoon_env.game.observation.SeatView`, rebuilt from the arrays by
   :func:`seat_view` (equal to ``observe(game, seat)``; the parity harness checks it).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.batched.engine import check_ids
from pontoon_env.game.actions import Action, ActionKind, LegalAction, Phase
from pontoon_env.game.observation import HIDDEN, HandView, SeatView


def _hand_view(engine: Any, t: int, k: int, h: int, sees_all: bool, visible: int) -> HandView:
    st = engine.state
    n = int(st.n_cards[t, k, h])
    cards = tuple(
        int(st.cards[t, k, h, c]) if (sees_all or st.public[t, k, h, c] or c < visible) else HIDDEN for c in range(n)
    )
    return HandView(
        cards, int(st.stake[t, k, h]), int(st.initial[t, k, h]), int(st.last_buy[t, k, h]), int(st.buys[t, k, h]),
        bool(st.twisted[t, k, h]), bool(st.doubled[t, k, h]), bool(st.split[t, k, h]), 0, bool(st.done[t, k, h]),
        bool(st.bust[t, k, h]), bool(st.declared[t, k, h]),
    )


def seat_view(engine: Any, t: int, seat: int) -> SeatView:
    """``observe(game, seat)`` for batched table ``t`` (what a Python policy sees)."""
    st = engine.state
    P = engine.num_players
    seated = bool(st.seated[t])
    banker = int(st.round_banker[t] if seated else st.banker[t])
    is_banker = seat == banker
    players: tuple[tuple[int, tuple[HandView, ...]], ...] = ()
    banker_hands: tuple[HandView, ...] = ()
    looked = int(st.looked[t])
    if seated:
        seats = [(banker + 1 + k) % engine.num_seats for k in range(P)]
        players = tuple(
            (s, tuple(_hand_view(engine, t, k, h, s == seat, 0) for h in range(int(st.n_hands[t, k]))))
            for k, s in enumerate(seats)
        )
        banker_hands = tuple(
            _hand_view(engine, t, P, h, False, looked if is_banker else 0) for h in range(int(st.n_hands[t, P]))
        )
    own = banker_hands if is_banker else next((hands for s, hands in players if s == seat), ())
    current = int(engine.current_seats([t])[0])
    to_act = current == seat
    active = 0
    if to_act and st.phase[t] == kn.PH_PLAYER_TURN:
        active = int(st.active[t, st.turn[t]])
    elif to_act and st.phase[t] == kn.PH_BANKER_TURN:
        active = int(st.banker_active[t])
    return SeatView(
        seat=seat, banker=banker, is_banker=is_banker, phase=Phase(int(st.phase[t])), to_act=to_act, own_hands=own,
        active_hand=active, players=players, banker_hands=banker_hands, seen_ranks=tuple(int(v) for v in st.seen[t]),
        cards_in_pack=int(st.size[t]), balances=tuple(int(v) for v in st.balance[t]), kitty=0, shoot_room=0,
        stakes_doubled=bool(st.stakes_doubled[t]), round_index=int(st.round_index[t]),
    )


def legal_actions(engine: Any, t: int) -> list[LegalAction]:
    """``game.legal_actions()`` of batched table ``t``."""
    n, kinds, lows, highs = engine.legal([t])
    return [LegalAction(ActionKind(int(kinds[0, j])), int(lows[0, j]), int(highs[0, j])) for j in range(n[0])]


def decide_batch(engine: Any, policy: Any, tables: np.ndarray, seats: np.ndarray,
                 rngs: list[np.random.Generator]) -> tuple[np.ndarray, np.ndarray]:
    """The (kinds, amounts) ``policy`` chooses for ``seats`` at ``tables`` (see the module docstring).

    Raises:
        RuntimeError: the policy chose an illegal action (naming the table, seat and action).
    """
    from agents.model import ModelPolicy

    if hasattr(policy, "act_batch") or isinstance(policy, ModelPolicy):
        obs = engine.observe(tables, seats)
        masks, amounts = engine.masks(tables)
        # The policy gets a copy: its answer is checked against ``masks``, which a policy that
        # changes its argument (``masks[:] = True``) would otherwise turn into a pass for illegal
        # ids (applied by the compiled engine unchecked: a split of a non-pair, a fifth hand).
        given = masks.copy()
        if hasattr(policy, "act_batch"):
            answer = policy.act_batch(obs, given)
        else:  # a sampling model draws from the seats' streams (made only then: they cost a third of an evaluation)
            streams = None if policy.deterministic else [rngs[int(t)] for t in tables]
            answer = policy.legal_ids(obs, given, streams)
        name = getattr(policy, "name", type(policy).__name__)
        try:
            # one integer id per table, in range (a -1 read as the last id was played as one)
            ids = check_ids(answer, tables.size, masks.shape[1], tables)
        except (TypeError, ValueError) as error:
            raise RuntimeError(f"policy {name!r} (seats {sorted({int(s) for s in seats})}): its act_batch "
                               f"answer is not one legal action id per table: {error}") from None
        rows = np.arange(tables.size)
        legal = masks[rows, ids]
        if not legal.all():
            bad = int(np.flatnonzero(~legal)[0])
            raise RuntimeError(
                f"policy {name!r} chose action {int(ids[bad])} ({engine.table.names[ids[bad]]}), not legal at "
                f"table {int(tables[bad])} (seat {int(seats[bad])}); legal: {np.flatnonzero(masks[bad]).tolist()}"
            )
        return engine.slot_kind[ids], amounts[rows, ids]
    kinds = np.zeros(tables.size, dtype=np.int64)
    chips = np.zeros(tables.size, dtype=np.int64)
    for i, (t, seat) in enumerate(zip(tables, seats)):
        legal = legal_actions(engine, int(t))
        action = policy.act(seat_view(engine, int(t), int(seat)), legal, rngs[int(t)])
        if not isinstance(action, Action) or not any(option.allows(action) for option in legal):
            raise RuntimeError(
                f"policy {getattr(policy, 'name', type(policy).__name__)!r} in seat {int(seat)} at table {int(t)} "
                f"chose {action!r}, not one of the legal actions {legal}"
            )
        kinds[i], chips[i] = int(action.kind), int(action.amount)
    return kinds, chips
