"""The measurement protocol of trained players and bankers: paired against the exact optimum on the
same deals, exploitability by the exact solver, every number with its interval.

``python -m pontoon_tools.protocol player RUN [--rules R] [--rounds N]`` and ``... banker RUN`` print
and save one protocol as JSON; :mod:`pontoon_tools.ablation` and ``scripts/main_job.sh`` call the same
functions, so every table is made by one code path.

Player protocol (:func:`player_protocol`): the model and the solver's optimal policy (``optimal``)
play the same ``rounds`` fresh-pack deals in the learner's seat against a fixed banker (the batched
evaluator: same pack orders, same seat streams), and the paired difference *optimal − model* per
round is the **gap**, with its normal 95% interval (rounds are independent). Beside it, from the
exact solver over an infinite deck: the optimum's EV, the EV of the model's strategy read off its
play (:mod:`pontoon_tools.exploit`), and how much the banker's exact best response takes from it.

Banker protocol (:func:`banker_protocol`): the model and each scripted banker play the same deals
against the same fixed players; paired differences *model − scripted*; at one player seat also the
banker's exact best response to that player (``banker_best_response:player=...``) and, from the
solver, the player's exact best response to the model's drawing rule read off its play.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import uuid
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pontoon_env.game.rules import Rules, resolve_rules
from pontoon_tools.evaluation import (EvaluationError, check_role, check_scripted_role, estimate, load_policy,
                                      play_match, write_json)
from pontoon_tools.settings import require_file_out, require_minimums, under_a_file

__all__ = ["banker_protocol", "exact_player", "paired", "player_protocol", "read_model", "session_protocol"]

CACHE = Path("results/cache")
"""Per-round results of the scripted references (the same for every model measured on the same deals)."""


def paired(a: np.ndarray, b: np.ndarray) -> dict[str, float]:
    """Mean of ``a - b`` per round with its 95% interval and half-width."""
    diff = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    e = estimate(diff)
    return {"mean": e.mean, "low": e.low, "high": e.high, "half_width": (e.high - e.low) / 2,
            "differ": float((diff != 0).mean())}


def _ev(a: np.ndarray) -> dict[str, float]:
    e = estimate(np.asarray(a, dtype=np.float64))
    return {"mean": e.mean, "low": e.low, "high": e.high}


def _cached_match(rules: Rules, num_players: int, specs: Sequence[str], rounds: int, seed: int,
                  cache: Path | None, policies: Sequence[Any] | None = None) -> Any:
    """``play_match`` of scripted specs, its per-round arrays cached on disk by their inputs.

    ``policies``, when given, are played in place of loading ``specs`` (a policy no registry spec
    builds, such as the best response to a parameterised player); ``specs`` then only name them in
    the cache key, so each must say everything that sets its policy's play."""
    if policies is None:
        policies = [load_policy(spec, rules, num_players) for spec in specs]
    if cache is None:
        return play_match(rules, num_players, list(policies), rounds, seed)
    from pontoon_tools.evaluation import rules_dict

    key = json.dumps({"rules": rules_dict(rules), "players": num_players, "specs": list(specs), "rounds": rounds,
                      "seed": seed}, sort_keys=True, default=str)
    path = cache / (hashlib.sha1(key.encode()).hexdigest()[:16] + ".npz")
    cached = _read_cache(path, (rounds, num_players + 1))
    if cached is not None:
        return cached
    result = play_match(rules, num_players, list(policies), rounds, seed)
    _write_cache(path, result.net, result.staked)
    return _Arrays(result.net, result.staked)


def _read_cache(path: Path, shape: tuple[int, int]) -> _Arrays | None:
    """The cached match at ``path``, or ``None`` when there is none or it cannot be used: a file
    cut short by a killed run, or otherwise corrupt, is played again (and replaced) rather than
    breaking every later measurement on the same deals."""
    if not path.is_file():
        return None
    try:
        with np.load(path) as data:
            net, staked = np.asarray(data["net"]), np.asarray(data["staked"])
    except (OSError, ValueError, EOFError, KeyError, TypeError, AttributeError, zipfile.BadZipFile) as error:
        print(f"[protocol] cache {str(path)!r} is unreadable ({type(error).__name__}: {error}); playing the match "
              "again", file=sys.stderr, flush=True)
        return None
    if net.shape != shape or staked.shape != shape:
        print(f"[protocol] cache {str(path)!r} holds arrays of shape {net.shape}, expected {shape}; playing the "
              "match again", file=sys.stderr, flush=True)
        return None
    return _Arrays(net, staked)


def _write_cache(path: Path, net: np.ndarray, staked: np.ndarray) -> None:
    """Write a cache entry atomically (a temporary file in the same folder, then ``os.replace``):
    a run killed while writing leaves no half-written entry under the real name. A cache that
    cannot be written costs only the time to play the match again next time, so it warns."""
    # A name of this process alone (two runs may fill the same cache), opened as a plain file so
    # that it gets the usual permissions (a NamedTemporaryFile's are the owner's only).
    temporary = path.with_name(f"{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(temporary, "xb") as handle:
            np.savez_compressed(handle, net=net, staked=staked)
        os.replace(temporary, path)
    except OSError as error:
        print(f"[protocol] cannot write the cache {str(path)!r}: {error}", file=sys.stderr, flush=True)
        temporary.unlink(missing_ok=True)


class _Arrays:
    """The two arrays of a match the protocols read (a cached match has no more)."""

    def __init__(self, net: np.ndarray, staked: np.ndarray) -> None:
        self.net, self.staked = net, staked

    def ev(self, seat: int) -> np.ndarray:
        return self.net[:, seat]


def read_model(model: Any, rules: Rules, num_players: int, role: str, opponents: dict[str, str],
               steps: int = 48, tables: int = 4096, seed: int = 0) -> Any:
    """The model's decisions over ``steps`` steps of ``tables`` tables (for :mod:`pontoon_tools.exploit`):
    one fresh pack per round, as the evaluation deals, unless an opponent is a checkpoint (a model
    plays only at the rules it was trained for, whose pack carries over)."""
    from pontoon_env.envs.vector import make_vector_env
    from pontoon_tools import exploit

    checkpoint = any(str(spec).endswith(".zip") for spec in opponents.values())
    table_rules = rules if checkpoint else rules.replace(pack="fresh_each_round")
    venv = make_vector_env(num_envs=tables, rules=table_rules, num_players=num_players,
                           role=role, learner_seat=1 if role == "player" else None, opponents=opponents,
                           action_levels=_levels(model))
    try:
        return exploit.collect_decisions(venv, exploit.model_act_batch(model), steps, seed=seed), venv
    finally:
        venv.close()


def _read_tables(rounds: int) -> int:
    """Tables the strategy is read at: 4,096 (about 80,000 rounds in 48 steps) for a full
    measurement, fewer for a quick one."""
    return 4096 if rounds >= 50_000 else 256


def _levels(model: Any) -> Any:
    return getattr(model, "_pontoon_levels", None)


def _load(path: str | Path, rules: Rules, num_players: int, role: str) -> tuple[Any, Any, dict[str, Any]]:
    from agents.checkpoint import action_levels, read_config
    from agents.model import ModelPolicy

    _, config = read_config(path)
    check_role(path, role)  # a banker's network read as a player's would give numbers that mean nothing
    policy = ModelPolicy(str(path), rules, num_players)
    policy.model._pontoon_levels = action_levels(config)
    return policy, policy.model, config


def player_protocol(path: str | Path, rules: str | Rules = "pagat", banker: str | None = None, *,
                    rounds: int = 200_000, seed: int = 1, read_steps: int = 48, baselines: Sequence[str] = (),
                    cache: Path | None = CACHE) -> dict[str, Any]:
    """The player protocol (module docstring) for the checkpoint at ``path``, one player seat;
    ``baselines`` (player specs) are played on the same deals too, each with the paired difference
    *model − baseline* (``versus``)."""
    from pontoon_env import solver
    from pontoon_tools import exploit
    from pontoon_tools.evaluation import banker_rule_for

    rules = resolve_rules(rules)
    banker = banker or ("casino_dealer" if rules.dealer_rule == "hit_soft_17" else "banker_threshold")
    # the exact optimum needs a banker with a fixed drawing rule: refuse another before any play
    rule = banker_rule_for(banker, rules, flag="--opponent (the player protocol's banker)")
    optimal_spec = _optimal_against(rule, rules, banker)
    started = time.perf_counter()
    policy, model, config = _load(path, rules, 1, "player")
    banker_policy = load_policy(banker, rules, 1)
    played = play_match(rules, 1, [banker_policy, policy], rounds, seed)
    model_s = time.perf_counter() - started
    optimal = _cached_match(rules, 1, [banker, optimal_spec], rounds, seed, cache)
    gap = paired(optimal.ev(1), played.ev(1))
    exact_optimum = solver.solve(rules, rule).ev_stake_choice / rules.min_stake
    decisions, venv = read_model(model, rules, 1, "player", {"banker": banker}, steps=read_steps,
                                 tables=_read_tables(rounds), seed=seed)
    table = exploit.read_player(decisions, venv.single.encoder if hasattr(venv, "single") else
                                venv.envs[0].unwrapped.encoder, _action_table(rules, config), rules)
    exact = exploit.player_gap(rules, table, rule)
    exploit_row = exploit.player_exploitability(rules, table, rule)
    exploit_row.pop("response", None)
    versus = {}
    for name in baselines:
        other = _cached_match(rules, 1, [banker, name], rounds, seed, cache)
        versus[name] = {"ev": _ev(other.ev(1)), "model_minus": paired(played.ev(1), other.ev(1)),
                        "mean_stake": float(other.staked[:, 1].mean())}
    versus["optimal"] = {"ev": _ev(optimal.ev(1)), "model_minus": paired(played.ev(1), optimal.ev(1)),
                         "mean_stake": float(optimal.staked[:, 1].mean())}
    return {
        "rules": rules.preset, "banker": banker, "rounds": rounds, "seed": seed, "model": str(path),
        "model_ev": _ev(played.ev(1)), "optimal_ev": _ev(optimal.ev(1)), "versus": versus,
        "gap": gap, "gap_ok": bool(gap["mean"] <= 0.03 and gap["half_width"] <= 0.02),
        "mean_stake": {"model": float(played.staked[:, 1].mean()), "optimal": float(optimal.staked[:, 1].mean())},
        "exact": {"optimal_ev": exact_optimum, "read_ev": exact["player_ev"], "read_gap": exact["gap"],
                  "read_decisions": table.decisions, "read_keys": table.keys_seen,
                  "read_agreement": table.agreement, "read_misses": len(table.misses),
                  "stakes": table.stake_choice(rules), **{f"banker_br_{k}": v for k, v in exploit_row.items()}},
        "train": {"timesteps": config.get("timesteps"), "wall_time_s": config.get("wall_time_s"),
                  "train_timings": config.get("train_timings"), "algo": config.get("algo")},
        "measure_s": round(time.perf_counter() - started, 1), "model_play_s": round(model_s, 1),
    }


def _optimal_against(rule: Any, rules: Rules, banker: str) -> str:
    """The ``optimal`` spec that plays the solver's optimum against the banker's fixed ``rule``:
    plain ``optimal`` answers a banker standing on 17, so a ``banker_threshold:stand=K`` gets
    ``optimal:stand=K`` (the gap is measured against the optimum for the banker played, as the
    exact numbers are). A rule ``optimal`` cannot answer (hitting soft 17 where the rules' dealer
    does not) is refused, naming the flag, before any round is played."""
    if rule.hit_soft != (rules.dealer_rule == "hit_soft_17"):
        raise EvaluationError(f"--opponent (the player protocol's banker): expected a banker whose soft-17 rule is "
                              f"the {rules.preset!r} dealer's (the optimal player answers no other), got {banker!r}")
    return "optimal" if rule.stand_on == 17 else f"optimal:stand={rule.stand_on}"


def _action_table(rules: Rules, config: dict[str, Any]) -> Any:
    from agents.checkpoint import action_levels, table_rules
    from pontoon_env.encoding import ActionTable

    return ActionTable(table_rules(rules, int(config.get("num_players", 1))), action_levels(config))


BANKER_BASELINES = ("banker_threshold", "casino_dealer", "banker_smart")
PLAYERS_FLAG = "--opponent (the banker protocol's players)"
"""How a refusal of the banker protocol's player spec names it (the CLI's flag that chose it)."""
BELIEF_READ_ROUNDS = 20_000
"""Rounds a belief banker's drawing rule is read from at a one-seat table (it decides per seat view,
on the reference engine, so its decisions are read there rather than on the vector env)."""


def banker_protocol(path: str | Path, rules: str | Rules = "pagat", player: str = "threshold", *,
                    rounds: int = 100_000, seed: int = 1, baselines: Sequence[str] = BANKER_BASELINES,
                    read_steps: int = 48, cache: Path | None = CACHE, read_rounds: int | None = None) -> dict[str, Any]:
    """The banker protocol (module docstring) for the checkpoint at ``path`` (its own table size),
    every player seat driven by ``player``. A belief banker's drawing rule is read at one seat from
    ``read_rounds`` rounds (default ``min(rounds, BELIEF_READ_ROUNDS)``): a key no round reached is
    read as the fixed rule's, so too few rounds understate it against a player of many hands."""
    from pontoon_tools import exploit

    rules = resolve_rules(rules)
    # A banker policy in the players' seats would play the default player under its own name.
    check_scripted_role(player, "player", PLAYERS_FLAG)
    check_role(player, "player", PLAYERS_FLAG)
    started = time.perf_counter()
    from agents.banker_belief import is_belief_run, load_belief_banker
    from agents.checkpoint import read_config, read_run_config

    belief = is_belief_run(path)
    if belief:  # a belief banker (train.py --algo belief): a table, not a network to read decisions off
        config = read_run_config(path) or {}
        seats = int(config.get("num_players", 1))
    else:
        seats = int(read_config(path)[1]["num_players"])
    if read_rounds is not None and not (belief and seats == 1):
        # only a belief banker at one seat has its rule read from played rounds: the number would be ignored
        what = "a belief banker at a table of 2 or more seats (no exact section)" if belief else \
            "a PPO banker, whose rule is read off the vector env" + ("" if seats == 1 else " (no exact section at "
                                                                    f"{seats} seats)")
        raise EvaluationError(f"--read-rounds: expected only for a belief banker at a one-seat table; {str(path)!r} "
                              f"is {what}, got --read-rounds {read_rounds}")
    # The exact section (one seat) answers the very player played, parameters and all: refuse one
    # the solver cannot model before the match, not after it.
    exact = exact_player(player, rules) if seats == 1 else None
    if belief:
        policy, model = load_belief_banker(path, rules), None
    else:
        policy, model, config = _load(path, rules, seats, "banker")
    players = [load_policy(player, rules, seats) for _ in range(seats)]
    played = play_match(rules, seats, [policy, *players], rounds, seed)
    out: dict[str, Any] = {"rules": rules.preset, "player": player, "seats": seats, "rounds": rounds, "seed": seed,
                           "model": str(path), "model_ev": _ev(played.ev(0)), "versus": {}}
    for name in baselines:
        other = _cached_match(rules, seats, [name] + [player] * seats, rounds, seed, cache)
        out["versus"][name] = {"ev": _ev(other.ev(0)), "model_minus": paired(played.ev(0), other.ev(0))}
    if exact is not None:
        # The registry's banker_best_response takes only a plain player name: the response to a
        # parameterised threshold player is built here, and named (and cached) by the full spec.
        from agents.banker_response import BankerBestResponse

        name = f"banker_best_response:player={player}"
        responder = BankerBestResponse(rules, exact)
        other = _cached_match(rules, 1, [name, player], rounds, seed, cache,
                              policies=[responder, load_policy(player, rules, 1)])
        out["versus"][name] = {"ev": _ev(other.ev(0)), "model_minus": paired(played.ev(0), other.ev(0))}
    out["beats_all"] = all(out["versus"][n]["model_minus"]["low"] > 0 for n in baselines)
    if exact is not None:
        br = out["versus"][name]["model_minus"]
        out["br_gap"] = {"mean": -br["mean"], "low": -br["high"], "high": -br["low"], "half_width": br["half_width"]}
        best = exploit.banker_best_response_ev(rules, exact)
        if belief:  # a SeatView policy: its decisions are read on the reference engine, encoded as the envs do
            from agents.checkpoint import table_rules
            from pontoon_env.encoding import ObservationEncoder

            decisions = exploit.reference_decisions(rules, [policy, load_policy(player, rules, 1)], seat=0,
                                                    rounds=read_rounds or min(rounds, BELIEF_READ_ROUNDS), seed=seed)
            encoder = ObservationEncoder(table_rules(rules, 1), 2)
        else:
            decisions, venv = read_model(model, rules, 1, "banker", {"players": player}, steps=read_steps,
                                         tables=_read_tables(rounds), seed=seed)
            encoder = venv.single.encoder if hasattr(venv, "single") else venv.envs[0].unwrapped.encoder
        table = exploit.read_banker(decisions, encoder, _action_table(rules, config), rules)
        result = exploit.banker_exploitability(rules, table, exact)
        out["exact"] = {**best, "read_decisions": table.decisions, "read_agreement": table.agreement,
                        "read_banker_ev": -result["reference_ev"],
                        "read_br_gap": best["br_banker_ev"] + result["reference_ev"],
                        "player_br_ev": result["br_ev"], "exploitability": result["exploitability"]}
    out["train"] = {"timesteps": config.get("timesteps"), "wall_time_s": config.get("wall_time_s"),
                    "algo": config.get("algo")}
    out["measure_s"] = round(time.perf_counter() - started, 1)
    return out


def exact_player(spec: str, rules: Rules, flag: str = PLAYERS_FLAG) -> Any:
    """The fixed player ``spec`` as the exact solver takes it (:func:`agents.banker_response.solver_player`):
    ``"optimal"`` (the optimum against a banker standing on 17, the one it answers), or the
    :class:`~agents.scripted.ThresholdPlayer` that ``spec`` builds, parameters and all.

    Raises:
        EvaluationError: naming ``flag``, for a player the solver cannot model (``random``, a
            checkpoint, ``optimal:stand=K`` for K other than 17, a threshold player buying a fixed
            number of chips or making shoot bets the solver leaves out).
    """
    from agents.scripted import ThresholdPlayer

    name = str(spec).strip().partition(":")[0].strip().lower()
    expected = ("the exact section (one player seat) needs a player the solver can model, threshold[:params] or "
                "optimal")
    try:
        policy = load_policy(spec, rules, 1) if name in ("threshold", "optimal") else None
    except (ValueError, KeyError) as error:  # the registry's own refusal of a parameter
        raise EvaluationError(f"{flag}: {error}") from None
    if name == "optimal" and getattr(policy, "stand", 17) == 17:
        return "optimal"
    if name == "optimal":
        raise EvaluationError(f"{flag}: {expected} against a banker standing on 17 (the banker's fixed rule the best "
                              f"response starts from); got {spec!r}")
    if type(policy) is not ThresholdPlayer:
        raise EvaluationError(f"{flag}: {expected}; got {spec!r}, whose play the exact solver cannot model")
    try:
        policy.solver_policy()
        if rules.shoot and policy.shoot != "none":
            raise ValueError(f"the solver leaves shoot bets out; got shoot={policy.shoot!r}")
    except ValueError as error:
        raise EvaluationError(f"{flag}: {expected}; got {spec!r}: {error}") from None
    return policy


def session_returns(act_batch: Any, rules: Rules, banker: str, sessions_per_table: int, session_rounds: int,
                    tables: int, seed: int, levels: Any = None) -> np.ndarray:
    """Each table's first ``sessions_per_table`` session returns (stake units), ``[tables, sessions]``:
    ``session_rounds`` rounds on one pack that carries over (the rules' own pack), the learner in
    seat 1 choosing by ``act_batch``. Table ``t``'s ``k``-th session starts from the same shuffle
    whoever plays it (the env's counter-based streams), so two players are paired session by session."""
    from pontoon_env.envs.vector import make_vector_env

    venv = make_vector_env(num_envs=tables, rules=rules, num_players=1, learner_seat=1, opponents={"banker": banker},
                           episode="session", session_rounds=session_rounds, action_levels=levels)
    try:
        obs, _ = venv.reset(seed=seed)
        out = np.full((tables, sessions_per_table), np.nan)
        done = np.zeros(tables, dtype=np.int64)
        running = np.zeros(tables)
        while (done < sessions_per_table).any():
            masks = venv.action_masks()
            obs, reward, terminated, truncated, _ = venv.step(np.asarray(act_batch(obs, masks), dtype=np.int64))
            running += reward
            for t in np.flatnonzero(terminated | truncated):
                if done[t] < sessions_per_table:
                    out[t, done[t]] = running[t]
                done[t] += 1
                running[t] = 0.0
        return out
    finally:
        venv.close()


def session_protocol(path: str | Path, rules: str | Rules = "pagat", banker: str = "banker_threshold", *,
                     session_rounds: int = 20, sessions_per_table: int = 4, tables: int = 4096,
                     seed: int = 1) -> dict[str, Any]:
    """The model against the solver's optimal policy on the same sessions of ``session_rounds``
    rounds on a carried-over pack (docs/training.md, "Beyond the optimum"): EVs per round and the
    paired difference per round (model − optimal), over ``tables x sessions_per_table`` sessions.
    The optimum is the solver's against ``banker``'s own fixed drawing rule (refused, naming the
    flag, before any play when it has none)."""
    from pontoon_env import solver
    from pontoon_tools import exploit
    from pontoon_tools.evaluation import banker_rule_for

    rules = resolve_rules(rules)
    flag = "--opponent (the session protocol's banker)"
    # A player policy in the banker's seat would bank as the default banker under its own name.
    check_scripted_role(banker, "banker", flag)
    rule = banker_rule_for(banker, rules, flag=flag)
    started = time.perf_counter()
    policy, model, config = _load(path, rules, 1, "player")
    levels = _levels(model)
    mine = session_returns(exploit.model_act_batch(model), rules, banker, sessions_per_table, session_rounds, tables,
                           seed, levels)
    table = _action_table(rules, config)
    encoder = _encoder(rules)
    # Solved against the banker played (SolverPlayer's default is the banker standing on 17).
    solution = solver.solve(rules.replace(shoot=False) if rules.shoot else rules, rule)
    solver_player = exploit.SolverPlayer(rules, table, encoder, solution=solution)
    theirs = session_returns(solver_player.act_batch, rules, banker, sessions_per_table, session_rounds, tables, seed,
                             levels)
    a, b = mine.reshape(-1) / session_rounds, theirs.reshape(-1) / session_rounds
    return {"rules": rules.preset, "banker": banker, "session_rounds": session_rounds, "sessions": int(a.size),
            "seed": seed, "model": str(path), "model_ev": _ev(a), "optimal_ev": _ev(b), "model_minus_optimal": paired(a, b),
            "train": {"timesteps": config.get("timesteps"), "episode": config.get("episode")},
            "measure_s": round(time.perf_counter() - started, 1)}


def _encoder(rules: Rules) -> Any:
    from pontoon_env.encoding import ObservationEncoder
    from pontoon_env.game.engine import PontoonGame

    return ObservationEncoder(PontoonGame(rules, 1, seed=0, banker=0).rules, 2)


def _format_player(row: dict[str, Any]) -> str:
    g, e = row["gap"], row["exact"]
    return (f"{row['rules']} vs {row['banker']}, {row['rounds']:,} paired rounds (seed {row['seed']}): model EV "
            f"{row['model_ev']['mean']:+.4f}, optimal {row['optimal_ev']['mean']:+.4f}; gap optimal - model "
            f"{g['mean']:+.4f} [{g['low']:+.4f}, {g['high']:+.4f}] (half-width {g['half_width']:.4f}, rounds differing "
            f"{g['differ']:.3f}); mean stake {row['mean_stake']['model']:.2f} vs {row['mean_stake']['optimal']:.2f}\n"
            f"  exact (infinite deck): optimum {e['optimal_ev']:+.4f}, model's read strategy {e['read_ev']:+.4f}, gap "
            f"{e['read_gap']:+.4f} ({e['read_keys']} keys from {e['read_decisions']:,} decisions, agreement "
            f"{e['read_agreement']:.3f}); banker best response takes {e['banker_br_exploitability']:+.4f} more")


def _format_banker(row: dict[str, Any]) -> str:
    lines = [f"{row['rules']}, banker vs {row['seats']} x {row['player']}, {row['rounds']:,} paired rounds "
             f"(seed {row['seed']}): model EV {row['model_ev']['mean']:+.4f}"]
    for name, v in row["versus"].items():
        d = v["model_minus"]
        lines.append(f"  model - {name}: {d['mean']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}] ({name} EV {v['ev']['mean']:+.4f})")
    if "exact" in row:
        e = row["exact"]
        lines.append(f"  exact: best-response banker EV {e['br_banker_ev']:+.4f}, model's read rule {e['read_banker_ev']:+.4f} "
                     f"(gap {e['read_br_gap']:+.4f}); player's best response to it {e['player_br_ev']:+.4f} "
                     f"(exploitability {e['exploitability']:+.4f})")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pontoon_tools.protocol", description=__doc__.split("\n\n")[0])
    parser.add_argument("role", choices=("player", "banker", "session"))
    parser.add_argument("model", help="a checkpoint (.zip) or run directory")
    parser.add_argument("--rules", default="pagat")
    parser.add_argument("--opponent", default=None, help="player, session: the banker spec (default banker_threshold; "
                        "player: casino_dealer under casino), a fixed drawing rule the solver answers; banker: the "
                        "player spec (default threshold; at one seat threshold[:params] or optimal)")
    parser.add_argument("--rounds", type=int, default=None, help="player, banker: paired rounds (default 200,000 "
                        "player, 100,000 banker); session plays --sessions-per-table x 4,096 sessions instead")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=None, help="write the protocol as JSON here")
    parser.add_argument("--session-rounds", type=int, default=None, help="session: rounds per session (default 20)")
    parser.add_argument("--read-rounds", type=int, default=None,
                        help=f"banker: rounds a belief banker's drawing rule is read from at one seat "
                             f"(default the smaller of --rounds and {BELIEF_READ_ROUNDS:,})")
    parser.add_argument("--sessions-per-table", type=int, default=None,
                        help="session: sessions at each of the 4,096 tables (default 4)")
    parser.add_argument("--cache", default=None,
                        help=f"player, banker: the folder of the scripted references' per-round results, "
                             f"kept between runs (default {CACHE})")
    parser.add_argument("--no-cache", action="store_true",
                        help="player, banker: play the references again, reading and writing no cache")
    args = parser.parse_args(argv)
    # A flag another role does not read would be silently ignored: refuse it instead.
    for flag, value, roles in (("--rounds", args.rounds, ("player", "banker")),
                               ("--cache", args.cache, ("player", "banker")),
                               ("--no-cache", args.no_cache or None, ("player", "banker")),
                               ("--read-rounds", args.read_rounds, ("banker",)),
                               ("--session-rounds", args.session_rounds, ("session",)),
                               ("--sessions-per-table", args.sessions_per_table, ("session",))):
        if value is not None and args.role not in roles:
            how = (" (it plays --sessions-per-table x 4,096 sessions of --session-rounds rounds)"
                   if args.role == "session" and flag == "--rounds" else "")
            parser.error(f"{flag}: used only by the {' and '.join(roles)} protocol{'s' if len(roles) > 1 else ''}; "
                         f"expected no {flag} with {args.role}{how}, got {value}")
    args.session_rounds = 20 if args.session_rounds is None else args.session_rounds
    args.sessions_per_table = 4 if args.sessions_per_table is None else args.sessions_per_table
    given = [(flag, value, 1) for flag, value in (("--rounds", args.rounds), ("--read-rounds", args.read_rounds))
             if value is not None]  # None: the defaults
    require_minimums(parser, *given, ("--session-rounds", args.session_rounds, 1),
                     ("--sessions-per-table", args.sessions_per_table, 1), ("--seed", args.seed, 0))
    if args.cache is not None and args.no_cache:
        parser.error(f"--cache: expected no --cache with --no-cache, got {args.cache!r}")
    if args.cache is not None and under_a_file(args.cache):
        parser.error(f"--cache: expected a folder, got {args.cache!r}, a file or a path under one")
    require_file_out(parser, "--out", args.out)  # found before the run, not by write_json after it
    try:
        row, text = _run(args)
    except (ValueError, OSError) as error:  # a checkpoint or rules that do not fit: the message says why
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    print(text)
    if args.out:
        write_json(row, Path(args.out))
    return 0


def _run(args: argparse.Namespace) -> tuple[dict[str, Any], str]:
    """The protocol ``args`` ask for: its row and its text."""
    cache = None if args.no_cache else Path(args.cache) if args.cache is not None else CACHE
    if args.role == "player":
        row = player_protocol(args.model, args.rules, args.opponent, rounds=args.rounds if args.rounds is not None else 200_000,
                              seed=args.seed, cache=cache)
        text = _format_player(row)
    elif args.role == "banker":
        row = banker_protocol(args.model, args.rules, args.opponent or "threshold", rounds=args.rounds if args.rounds is not None else 100_000,
                              seed=args.seed, read_rounds=args.read_rounds, cache=cache)
        text = _format_banker(row)
    else:
        row = session_protocol(args.model, args.rules, args.opponent or "banker_threshold", seed=args.seed,
                               session_rounds=args.session_rounds, sessions_per_table=args.sessions_per_table)
        d = row["model_minus_optimal"]
        text = (f"{row['rules']} vs {row['banker']}, {row['sessions']:,} sessions of {row['session_rounds']} rounds on "
                f"one carried-over pack (seed {row['seed']}): model EV/round {row['model_ev']['mean']:+.4f}, optimal "
                f"{row['optimal_ev']['mean']:+.4f}; model - optimal {d['mean']:+.4f} [{d['low']:+.4f}, {d['high']:+.4f}]")
    return row, text


if __name__ == "__main__":
    sys.exit(main())



