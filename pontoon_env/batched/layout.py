"""Offsets of the observation vector and the action ids, read from the encoders themselves.

The compiled encoder (:func:`pontoon_env.batched.kernel.encode`) writes each value at an offset it
takes from :class:`~pontoon_env.encoding.ObservationEncoder`'s ``blocks`` (block start, repeat
count, stride and each field's offset, looked up by name), and decodes action ids with the slots
of :class:`~pontoon_env.encoding.ActionTable`. A renamed or removed field raises here, naming it,
rather than shifting the batched observation silently; a moved one is simply followed.
"""

from __future__ import annotations

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.encoding import ActionTable, ObservationEncoder

# (layout index, block, field or one of "start"/"count"/"stride"), in kernel.L_* order.
_TABLE_FIELDS = ("phase", "is_banker", "to_act", "stakes_doubled", "seen_ranks", "cards_in_pack", "kitty",
                 "shoot_room", "balance")
_OWN_FIELDS = ("present", "active", "ranks", "hidden", "num_cards", "total", "soft", "stake", "initial",
               "last_buy", "buys", "twisted", "doubled", "split", "shoot", "done", "bust", "declared")
_BANKER_FIELDS = ("present", "ranks", "hidden", "num_cards", "total", "soft", "split", "done")
_SEAT_FIELDS = ("is_banker", "in_round", "balance")
_HAND_FIELDS = ("present", "num_cards", "known_cards", "total", "soft", "stake", "buys", "twisted", "doubled",
                "split", "shoot", "bust", "declared")


def _block(encoder: ObservationEncoder, name: str):  # noqa: ANN202 - an encoding.Block
    for block in encoder.blocks:
        if block.name == name:
            return block
    raise KeyError(f"ObservationEncoder has no block {name!r}; the batched encoder needs it")


def _offset(block, name: str) -> int:  # noqa: ANN001
    for field in block.fields:
        if field.name == name:
            return int(field.offset)
    raise KeyError(f"ObservationEncoder block {block.name!r} has no field {name!r}; the batched encoder needs it")


def observation_layout(encoder: ObservationEncoder) -> np.ndarray:
    """The ``kernel.L_*`` offset vector of ``encoder``'s layout."""
    lay = np.zeros(kn.L_N, dtype=np.int64)
    table = _block(encoder, "table")
    lay[kn.L_TABLE] = table.start
    for index, name in zip(range(kn.L_PHASE, kn.L_BALANCE + 1), _TABLE_FIELDS, strict=True):
        lay[index] = _offset(table, name)
    own = _block(encoder, "own")
    lay[kn.L_OWN], lay[kn.L_OWN_COUNT], lay[kn.L_OWN_STRIDE] = own.start, own.count, own.stride
    for index, name in zip(range(kn.L_O_PRESENT, kn.L_O_DECLARED + 1), _OWN_FIELDS, strict=True):
        lay[index] = _offset(own, name)
    banker = _block(encoder, "banker")
    lay[kn.L_BANK], lay[kn.L_BANK_COUNT], lay[kn.L_BANK_STRIDE] = banker.start, banker.count, banker.stride
    for index, name in zip(range(kn.L_B_PRESENT, kn.L_B_DONE + 1), _BANKER_FIELDS, strict=True):
        lay[index] = _offset(banker, name)
    others = _block(encoder, "others")
    lay[kn.L_OTHERS] = others.start + _offset(others, "ranks")
    seat = _block(encoder, "seat")
    lay[kn.L_SEATS], lay[kn.L_SEAT_STRIDE] = seat.start, seat.stride
    for index, name in zip(range(kn.L_S_IS_BANKER, kn.L_S_BALANCE + 1), _SEAT_FIELDS, strict=True):
        lay[index] = _offset(seat, name)
    first = _offset(seat, "hand[0].present")
    lay[kn.L_S_HANDS] = first
    lay[kn.L_S_HAND_COUNT] = encoder.player_hands
    lay[kn.L_H_STRIDE] = _offset(seat, "hand[1].present") - first if encoder.player_hands > 1 else 0
    for index, name in zip(range(kn.L_H_PRESENT, kn.L_H_DECLARED + 1), _HAND_FIELDS, strict=True):
        lay[index] = _offset(seat, f"hand[0].{name}") - first
    return lay


def observation_scales(encoder: ObservationEncoder) -> np.ndarray:
    """The encoder's float scales (``kernel.F_*``), the very doubles it multiplies by."""
    scales = np.zeros(kn.F_N, dtype=np.float64)
    scales[kn.F_CHIPS] = encoder._scale_chips
    scales[kn.F_SEEN] = encoder._scale_seen
    scales[kn.F_PACK] = encoder._scale_pack
    scales[kn.F_CARDS] = encoder._scale_cards
    scales[kn.F_BALANCE_UNIT] = encoder._balance_unit
    return scales


def action_slots(table: ActionTable) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each id's kind, level type (0 none, 1 chips, 2 min, 3 max, 4 fraction) and level value."""
    kinds = np.array([int(slot.kind) for slot in table.slots], dtype=np.int64)
    types = np.zeros(table.n, dtype=np.int64)
    values = np.zeros(table.n, dtype=np.float64)
    for index, slot in enumerate(table.slots):
        level = slot.level
        if level is None:
            continue
        if level == "min":
            types[index] = 2
        elif level == "max":
            types[index] = 3
        elif isinstance(level, float):
            types[index], values[index] = 4, level
        else:
            types[index], values[index] = 1, float(level)
    return kinds, types, values
