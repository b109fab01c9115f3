"""Agent ids and the policy mapping of the RLlib table, without Ray (so they load and test anywhere).

An agent id is ``f"{role}_{seat}"``: the seat deciding, and whether it banks at that moment.
Mapping the role, not the seat, to a policy is what lets one banker policy learn every banker
decision although the bank changes seats (see :mod:`pontoon_tools.rllib.env`). It sits with the agents because a saved
checkpoint needs the same mapping to play a seat (:mod:`agents.rllib_policy`).
"""

from __future__ import annotations

ROLES = ("banker", "player")
"""The two decision roles."""

POLICY_LAYOUTS = ("shared", "per_seat")
"""``shared``: one banker and one player policy; ``per_seat``: one banker policy, one player policy per seat."""


def agent_id(role: str, seat: int) -> str:
    """The agent id of ``seat`` deciding as ``role``: ``banker_0``, ``player_3`` ..."""
    return f"{role}_{seat}"


def parse_agent_id(agent: str) -> tuple[str, int]:
    """``(role, seat)`` of an agent id made by :func:`agent_id`.

    Raises:
        ValueError: the id is not ``<banker|player>_<seat>``.
    """
    role, _, seat = str(agent).rpartition("_")
    if role not in ROLES or not seat.isdigit():
        raise ValueError(f"agent id: expected 'banker_<seat>' or 'player_<seat>', got {agent!r}")
    return role, int(seat)


def module_for_agent(agent: str, policies: str = "shared") -> str:
    """The RLModule (policy) id that plays ``agent``.

    ``policies="shared"``: ``"banker"`` for every banker decision, ``"player"`` for every player
    decision, whatever the seat. ``policies="per_seat"``: one banker module, and one player module
    per table seat (``"player_seat_2"``).
    """
    role, seat = parse_agent_id(agent)
    if policies not in POLICY_LAYOUTS:
        raise ValueError(f"policies: expected one of {list(POLICY_LAYOUTS)}, got {policies!r}")
    if role == "banker" or policies == "shared":
        return role
    return f"player_seat_{seat}"


def module_ids(policies: str, num_players: int) -> list[str]:
    """Every module id that :func:`module_for_agent` can return at a table of ``num_players`` players."""
    if policies == "shared":
        return list(ROLES)
    if policies == "per_seat":
        return ["banker"] + [f"player_seat_{seat}" for seat in range(num_players + 1)]
    raise ValueError(f"policies: expected one of {list(POLICY_LAYOUTS)}, got {policies!r}")
