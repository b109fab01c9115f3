"""Honest benchmarks: play policies at a Pontoon table and measure them with confidence intervals.

Every round is played by :func:`pontoon_env.game.runner.play_round`, the one loop through which
policies play the engine (``observe`` → ``Policy.act`` → a legality check → ``apply``), so a scripted
policy and a trained model (wrapped by :class:`agents.model.ModelPolicy`) are measured by exactly the
same loop as they are trained and charted in.

Seeding is what makes comparisons honest. Round ``i`` of a match with seed ``s`` is played on a
fresh table dealt from the pack order :func:`pontoon_env.batched.rng.deal_orders` ``(s, i)``, and
each seat gets its own random stream from :func:`pontoon_env.batched.rng.seat_stream_seed`
``(s, i, seat)`` (with a stacked ``deck`` prefix, ``SeedSequence([s, i])`` shuffles the rest). Two matches with the same seed therefore deal the same pack order
in every round and give every other seat the same random stream, whatever the seat under test does:
the *paired* difference of two policies then only carries the noise of their different decisions,
not the noise of different cards, and small differences become visible (common random numbers).

A fresh table per round means the pack never carries over: each round is an independent sample, so
the usual CLT interval for a mean is valid. (The pack-carrying session is what
``episode="session"`` trains on; per-round EV is the quantity every table below reports.)

Units: EVs are in *stake units*, chips divided by ``rules.min_stake``, the environments' reward.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.checkpoint import CheckpointError, check_compatible, read_config, read_run_config
from pontoon_env.game.engine import PontoonGame
from pontoon_env.game.rules import PRESETS, Rules
from pontoon_env.game.runner import chooser, play_round
from pontoon_tools.settings import flag, parse_option, plural, setting, under_a_file

Z_95 = 1.959963984540054
"""Two-sided 95% normal quantile; rounds are i.i.d., so the CLT interval is the right one."""

BANKER_POLICY_NAMES = ("banker_threshold", "banker_smart", "casino_dealer", "banker_best_response")
"""Scripted names that drive the banker seat. :func:`scripted_role` reads the role from
:data:`agents.registry.REGISTRY`, which is the authority; this list is kept for callers that read it."""


class EvaluationError(ValueError):
    """A benchmark that cannot be run as asked (bad seat layout, missing solver, ...): the message
    names the setting, what it expects and what it got."""


# --------------------------------------------------------------------------------------------------
# Policies
# --------------------------------------------------------------------------------------------------


def load_policy(spec: Any, rules: Rules, num_players: int | None = None) -> Any:
    """Resolve ``spec`` (a scripted name such as ``"threshold:stick=16"``, a checkpoint path, or a
    policy object) to a policy through :func:`agents.registry.make_policy`.

    ``num_players`` is passed on to checkpoints, whose observation encoding depends on the table size.
    """
    if hasattr(spec, "act"):
        return spec
    from agents.registry import make_policy  # imported late: agents depends on this package

    return make_policy(str(spec), rules, num_players=num_players)


def _looks_like_checkpoint(spec: str) -> bool:
    return spec.endswith(".zip") or Path(spec).is_dir() or "/" in spec


def policy_label(spec: Any, depth: int = 2) -> str:
    """A short, readable name for a policy spec (a checkpoint shows its last ``depth`` path parts:
    its run folder and file by default)."""
    if not isinstance(spec, str):
        return str(getattr(spec, "name", type(spec).__name__))
    if _looks_like_checkpoint(spec):
        parts = Path(spec).parts
        return str(Path(*parts[-depth:])) if parts else spec
    return spec


def policy_labels(specs: Sequence[Any]) -> list[str]:
    """:func:`policy_label` of every spec, made unique: checkpoints whose short labels collide
    (``gen_01/player/model.zip`` and ``gen_02/player/model.zip`` are both ``player/model.zip``)
    get parent folders added until they differ. Without this two different models were reported
    under one name and their strategy charts written to the same file. The same spec given twice
    keeps one label (it is the same policy)."""
    depths = [2] * len(specs)
    labels = [policy_label(spec) for spec in specs]
    while True:
        groups: dict[str, list[int]] = {}
        for index, label in enumerate(labels):
            groups.setdefault(label, []).append(index)
        longer = False
        for members in groups.values():
            if len({str(specs[index]) for index in members}) < 2:
                continue  # one label for one spec: nothing to tell apart
            for index in members:
                spec = specs[index]
                if isinstance(spec, str) and _looks_like_checkpoint(spec) and depths[index] < len(Path(spec).parts):
                    depths[index] += 1
                    labels[index] = policy_label(spec, depths[index])
                    longer = True
        if not longer:  # unique, or no part left to add (two spellings of one path)
            return labels


def checkpoint_config(spec: Any) -> dict[str, Any] | None:
    """The run config saved with a checkpoint spec (:func:`agents.checkpoint.read_run_config`), or
    ``None`` for a spec that is no saved checkpoint (a scripted name, a missing path: loading it
    reports what is wrong)."""
    if not isinstance(spec, (str, Path)) or not _looks_like_checkpoint(str(spec)):
        return None
    return read_run_config(spec)


def scripted_role(spec: Any) -> str | None:
    """The role of a scripted policy name as :data:`agents.registry.REGISTRY` declares it
    (``"player"``, ``"banker"`` or ``"any"`` for one that plays both, such as ``random``), or
    ``None`` for a spec that names no scripted policy (a checkpoint path, an object).

    The name is read as :func:`agents.registry.make_policy` reads it (stripped, lower case, before
    any ``:params``), so a spec gets the role of the policy it will actually build.
    """
    if not isinstance(spec, str):
        return None
    from agents.registry import REGISTRY  # imported late: agents depends on this package

    entry = REGISTRY.get(spec.strip().partition(":")[0].strip().lower())
    return None if entry is None else entry.role


def guess_role(spec: Any) -> str:
    """``"banker"`` for banker policies (scripted banker names, banker checkpoints), else ``"player"``."""
    if not isinstance(spec, str):
        return "banker" if getattr(spec, "role", "player") == "banker" else "player"
    role = scripted_role(spec)
    if role is not None:  # the registry knows every scripted banker (banker_best_response included)
        return "banker" if role == "banker" else "player"
    config = checkpoint_config(spec)
    if config is not None:
        return str(config.get("role", "player"))
    return "player"


# --------------------------------------------------------------------------------------------------
# Playing rounds
# --------------------------------------------------------------------------------------------------


@dataclass
class MatchResult:
    """Per-round, per-seat outcomes of a match. Every array has shape ``(rounds, num_seats)``.

    For player seats ``hands`` counts the seat's hands (more than one after a split), ``staked`` the
    chips on them at the end (initial stakes, buys, doubles), ``busts``/``pontoons``/``tricks`` the
    hands of each class. For the banker seat the same counters describe the banker's hands.
    """

    rules: Rules
    num_players: int
    banker_seat: int
    labels: list[str]
    seed: int
    net: np.ndarray
    staked: np.ndarray
    initial: np.ndarray
    hands: np.ndarray
    busts: np.ndarray
    pontoons: np.ndarray
    tricks: np.ndarray
    wall_s: float = 0.0

    @property
    def rounds(self) -> int:
        return int(self.net.shape[0])

    @property
    def num_seats(self) -> int:
        return self.num_players + 1

    def ev(self, seat: int) -> np.ndarray:
        """Per-round result of ``seat`` in stake units (chips / ``min_stake``)."""
        return self.net[:, seat] / self.rules.min_stake


def round_generators(seed: int, index: int, num_seats: int) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The pack's generator and one generator per seat for round ``index`` of a match ``seed``.

    Independent streams per seat mean that changing what one seat does never shifts the random
    numbers another seat (or the pack) gets: the basis of paired comparisons.
    """
    children = np.random.SeedSequence([seed, index]).spawn(num_seats + 1)
    return np.random.default_rng(children[0]), [np.random.default_rng(child) for child in children[1:]]


def play_match(
    rules: Rules,
    num_players: int,
    policies: Sequence[Any],
    rounds: int,
    seed: int = 0,
    *,
    banker_seat: int = 0,
    labels: Sequence[str] | None = None,
    progress: bool = False,
    desc: str = "rounds",
    deck: Sequence[str | int] | None = None,
    engine: str = "auto",
) -> MatchResult:
    """Play ``rounds`` independent rounds with ``policies[seat]`` driving each seat.

    Round ``i`` is dealt from the match's own streams, the pack order
    :func:`pontoon_env.batched.rng.deal_orders` ``(seed, i)`` and one random stream per seat, so
    every policy put in a seat meets the same cards (paired comparisons). Where the batched engine
    plays the rules natively the whole match runs there (scripted seats compiled, every other seat,
    a trained model above all, asked once per step for all waiting tables); elsewhere each round is
    played by :func:`pontoon_env.game.runner.play_round` on the same streams. The two paths give
    the same result round by round (``tests/test_batched_evaluate.py``).

    Args:
        rules: the rule set.
        num_players: player seats besides the banker.
        policies: one policy per seat (``num_players + 1``), the banker's at ``banker_seat``.
        rounds: how many rounds.
        seed: the match seed.
        banker_seat: the seat that banks every round (a fresh table per round keeps it there).
        labels: names for the report (defaults to the policies' names).
        progress: show a tqdm bar (the reference path only; the batched path is quick).
        deck: a stacked pack prefix dealt at the top of every round (the rest shuffled by the
            round's generator), to measure a policy in one situation; always the reference path.
        engine: ``"auto"`` (batched where native), ``"reference"`` or ``"batched"``.

    Raises:
        EvaluationError: a policy list of the wrong length or a banker seat off the table.
        pontoon_env.game.runner.PolicyError: a policy answered with an illegal action.
    """
    import time

    from pontoon_env.batched import evaluate as batched
    from pontoon_env.batched.rng import CounterGenerator, deal_orders, seat_stream_seed
    from pontoon_env.batched.tables import native_problem

    num_seats = num_players + 1
    if len(policies) != num_seats:
        raise EvaluationError(f"expected {num_seats} policies (one per seat, banker included), got {len(policies)}")
    if not 0 <= banker_seat < num_seats:
        raise EvaluationError(f"banker_seat must be in 0..{num_players}, got {banker_seat}")
    if engine not in ("auto", "reference", "batched"):
        raise EvaluationError(f"engine: expected 'auto', 'reference' or 'batched', got {engine!r}")
    table_rules = PontoonGame(rules, num_players, seed=0, banker=banker_seat).rules
    problem = ("a stacked deck prefix" if deck is not None else native_problem(table_rules)
               or batched.layout_problem(policies))
    native = problem is None
    if engine == "batched" and not native:
        raise EvaluationError(f"engine='batched': the batched engine does not play this match natively ({problem})")
    labels = list(labels) if labels is not None else [policy_label(p) for p in policies]
    started = time.perf_counter()
    if native and engine != "reference":
        played = batched.batched_match(rules, num_players, list(policies), rounds, seed, banker_seat=banker_seat)
        arrays = {name: getattr(played, name) for name in batched.FIELDS}
    else:
        arrays = {name: np.zeros((rounds, num_seats), dtype=np.int64) for name in batched.FIELDS}
        iterator: Iterable[int] = range(rounds)
        if progress:
            from tqdm.auto import tqdm

            # disable=None: no bar when the output is not a terminal (logs of the main job stay readable).
            iterator = tqdm(iterator, desc=desc, unit="round", leave=False, mininterval=0.5, disable=None)
        seated = chooser(policies, num_seats)
        for index in iterator:
            if deck is None:  # the shared streams of the batched path
                order = deal_orders(seed, index, 1, table_rules.decks)[0].tolist()
                seat_rngs = [CounterGenerator(seat_stream_seed(seed, index, seat)) for seat in range(num_seats)]
                game = PontoonGame(rules, num_players, seed=0, banker=banker_seat)
            else:
                deck_rng, seat_rngs = round_generators(seed, index, num_seats)
                game = PontoonGame(rules, num_players, rng=deck_rng, banker=banker_seat)
                order = list(deck)
            arrays["net"][index] = play_round(game, seated, seat_rngs, deck=order)  # chips plus owned kitty (D22)
            _record_round(game, index, arrays)
    return MatchResult(
        rules=table_rules,
        num_players=num_players,
        banker_seat=banker_seat,
        labels=labels,
        seed=seed,
        wall_s=time.perf_counter() - started,
        **arrays,
    )


def _record_round(game: PontoonGame, index: int, arrays: dict[str, np.ndarray]) -> None:
    """The hand counts of a finished round (its results are already in ``arrays["net"]``)."""
    for name, values in game.round_counts().items():
        arrays[name][index] = values


# --------------------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Estimate:
    """A sample mean with its standard error and 95% confidence interval."""

    mean: float
    se: float
    n: int

    @property
    def low(self) -> float:
        return self.mean - Z_95 * self.se

    @property
    def high(self) -> float:
        return self.mean + Z_95 * self.se

    def covers(self, value: float) -> bool:
        return self.low <= value <= self.high

    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0

    def as_dict(self, prefix: str) -> dict[str, float]:
        return {prefix: self.mean, f"{prefix}_se": self.se, f"{prefix}_ci_low": self.low, f"{prefix}_ci_high": self.high}

    def __str__(self) -> str:
        return f"{self.mean:+.4f} ± {Z_95 * self.se:.4f}"


def estimate(samples: np.ndarray) -> Estimate:
    """Mean, standard error and 95% CI of i.i.d. ``samples`` (CLT; rounds are independent)."""
    samples = np.asarray(samples, dtype=np.float64)
    n = int(samples.size)
    if n == 0:
        return Estimate(math.nan, math.nan, 0)
    se = float(samples.std(ddof=1) / math.sqrt(n)) if n > 1 else math.inf
    return Estimate(float(samples.mean()), se, n)


def seat_summary(result: MatchResult, seat: int) -> dict[str, Any]:
    """Every reported statistic of one seat: EV with CI, outcome rates, hand-class rates, stakes."""
    ev = estimate(result.ev(seat))
    net = result.net[:, seat]
    hands = result.hands[:, seat]
    total_hands = max(int(hands.sum()), 1)
    is_banker = seat == result.banker_seat
    unit = result.rules.min_stake
    row: dict[str, Any] = {
        "seat": seat,
        "role": "banker" if is_banker else "player",
        "policy": result.labels[seat],
        "rounds": result.rounds,
        **ev.as_dict("ev"),
        "win_rate": float((net > 0).mean()),
        "lose_rate": float((net < 0).mean()),
        "push_rate": float((net == 0).mean()),
        "bust_rate": float(result.busts[:, seat].sum() / total_hands),
        "pontoon_rate": float(result.pontoons[:, seat].sum() / total_hands),
        "five_card_trick_rate": float(result.tricks[:, seat].sum() / total_hands),
        "hands_per_round": float(hands.mean()),
    }
    if is_banker:
        # The banker's take per player: his result shared over the players he faced.
        row.update(estimate(result.ev(seat) / result.num_players).as_dict("take_per_player"))
        row["mean_stake"] = float(np.delete(result.staked, seat, axis=1).sum(axis=1).mean() / unit)
        row["mean_initial_stake"] = float(np.delete(result.initial, seat, axis=1).sum(axis=1).mean() / unit)
    else:
        staked = result.staked[:, seat]
        row["mean_stake"] = float(staked.mean() / unit)
        row["mean_initial_stake"] = float(result.initial[:, seat].mean() / unit)
        row["ev_per_chip_staked"] = float(net.sum() / max(int(staked.sum()), 1))
    return row


def match_summary(result: MatchResult) -> list[dict[str, Any]]:
    """:func:`seat_summary` for every seat, banker first."""
    order = [result.banker_seat] + [s for s in range(result.num_seats) if s != result.banker_seat]
    return [seat_summary(result, seat) for seat in order]


def paired_difference(a: MatchResult, b: MatchResult, seat: int) -> Estimate:
    """Mean per-round difference ``a − b`` of ``seat``'s result, in stake units, with its CI.

    Only meaningful when both matches used the same seed (and so the same packs and random streams).
    """
    if a.seed != b.seed or a.rounds != b.rounds:
        raise EvaluationError(
            f"paired comparison needs the same seed and rounds: got seed {a.seed}/{b.seed}, rounds {a.rounds}/{b.rounds}"
        )
    return estimate(a.ev(seat) - b.ev(seat))


# --------------------------------------------------------------------------------------------------
# Comparisons: several policies in one seat, same cards
# --------------------------------------------------------------------------------------------------


@dataclass
class Comparison:
    """Several candidate policies played in one seat of the same table on the same seeds."""

    seat: int
    role: str
    candidates: list[str]
    results: list[MatchResult]
    table: list[str]
    """The policies of every seat with the candidate's seat shown as ``*``."""
    extra: dict[str, Any] = field(default_factory=dict)

    def rows(self) -> list[dict[str, Any]]:
        """One row per candidate: its seat statistics and its paired difference to the first."""
        rows = []
        reference = self.results[0]
        for label, result in zip(self.candidates, self.results):
            row = seat_summary(result, self.seat)
            row["policy"] = label
            diff = paired_difference(reference, result, self.seat)
            row.update({f"first_minus_this{k[4:]}": v for k, v in diff.as_dict("diff").items()})
            row["first_better"] = bool(diff.low > 0)
            rows.append(row)
        return rows


def compare_policies(
    rules: Rules,
    num_players: int,
    candidates: Sequence[tuple[str, Any]],
    table: Sequence[Any],
    seat: int,
    rounds: int,
    seed: int,
    *,
    banker_seat: int = 0,
    table_labels: Sequence[str] | None = None,
    progress: bool = False,
) -> Comparison:
    """Play every ``(label, policy)`` of ``candidates`` in ``seat`` with ``table`` in the other seats.

    All candidates see the same packs and the same per-seat random streams, so the paired difference
    of any two is precise. ``table`` holds one policy per seat; its entry at ``seat`` is ignored.
    """
    results = []
    labels_base = list(table_labels) if table_labels is not None else [policy_label(p) for p in table]
    for label, policy in candidates:
        policies = list(table)
        policies[seat] = policy
        labels = list(labels_base)
        labels[seat] = label
        results.append(
            play_match(rules, num_players, policies, rounds, seed, banker_seat=banker_seat, labels=labels,
                       progress=progress, desc=label)
        )
    shown = list(labels_base)
    shown[seat] = "*"
    role = "banker" if seat == banker_seat else "player"
    return Comparison(seat, role, [label for label, _ in candidates], results, shown)


# --------------------------------------------------------------------------------------------------
# Optimality gap (exact solver)
# --------------------------------------------------------------------------------------------------


def banker_rule_for(spec: str, rules: Rules, flag: str = "--optimality-gap") -> Any:
    """The solver's :class:`~pontoon_env.solver.BankerRule` equivalent to a scripted banker spec.

    Only fixed drawing rules have an exact solution: ``banker_threshold[:stand=K]`` (draw below K)
    and ``casino_dealer`` (hit soft 17). The spec is read by the registry's own parser, so it takes
    every spelling the policy takes (``double_ace=on``, the ``stand_on`` alias) and refuses what the
    policy refuses. Where the rules fix the dealer's play (``dealer_rule='hit_soft_17'``, the
    casino), the engine forces that rule whatever the banker's policy says, and so does the solver.
    ``flag`` is the option the error names (the one whose request needs the exact solution).
    """
    from agents.registry import REGISTRY, PolicySpecError, make_policy
    from agents.scripted import BankerThreshold, CasinoDealer
    from pontoon_env.game import legality
    from pontoon_env.solver import BankerRule

    name = str(spec).partition(":")[0].strip().lower()
    if name not in ("banker_threshold", "casino_dealer"):
        if name not in REGISTRY and not Path(str(spec)).exists():
            try:  # an unknown name: the registry's message ("unknown policy ...") says what is valid
                make_policy(spec, rules, role="banker")
            except PolicySpecError as error:
                raise EvaluationError(f"{flag}: {error}") from None
        raise EvaluationError(
            f"{flag} needs a banker with a fixed drawing rule (banker_threshold[:stand=K] or casino_dealer); "
            f"got banker {spec!r}, whose play the exact solver cannot model"
        )
    try:
        policy = make_policy(spec, rules, role="banker")
    except PolicySpecError as error:
        raise EvaluationError(f"{flag}: {error}") from None
    assert isinstance(policy, BankerThreshold)  # both names build one (CasinoDealer is a subclass)
    # The scripted banker doubles the stakes (1939) only with double_ace, on an ace.
    double_on = frozenset({1}) if policy.double_on_ace else frozenset()
    if rules.dealer_rule == "hit_soft_17" or isinstance(policy, CasinoDealer):  # the casino dealer's rule
        return BankerRule(legality.CASINO_DEALER_STANDS, hit_soft=True, double_on=double_on)
    # Below 2 he stands on every hand, as a banker standing on 2 does (no hand totals less).
    return BankerRule(max(policy.stand, 2), hit_soft=False, double_on=double_on)


def solver_optimum(rules: Rules, banker_spec: str) -> dict[str, Any]:
    """The exact optimal player EV per round (stake units, stake chosen optimally) against a banker.

    Raises:
        EvaluationError: the solver module is missing or does not support these rules / banker.
    """
    try:
        from pontoon_env import solver
    except ImportError as error:  # pragma: no cover - the solver ships with the package
        raise EvaluationError(f"--optimality-gap needs pontoon_env.solver, which cannot be imported: {error}") from error
    if rules.settlement not in getattr(solver, "SUPPORTED_SETTLEMENTS", (rules.settlement,)):
        raise EvaluationError(
            f"--optimality-gap: the exact solver supports settlements {list(solver.SUPPORTED_SETTLEMENTS)}, "
            f"not {rules.settlement!r} (preset {rules.preset!r})"
        )
    rule = banker_rule_for(banker_spec, rules)
    try:
        solution = solver.solve(rules, rule)
    except ValueError as error:  # rules the solver does not model (shoot bets ...): say which flag asked
        raise EvaluationError(f"--optimality-gap: {error}") from error
    return {
        "optimal_ev": float(solution.ev_stake_choice / rules.min_stake),
        "optimal_mean_stake": float(solution.mean_stake / rules.min_stake),
        "banker_rule": {"stand_on": rule.stand_on, "hit_soft": rule.hit_soft},
        "note": "exact expectimax over an infinite deck (each rank 1/13); the table deals from "
        f"{rules.decks} deck(s), so the gap also holds the finite-deck effect",
    }


# --------------------------------------------------------------------------------------------------
# Reports
# --------------------------------------------------------------------------------------------------

SUMMARY_COLUMNS = (
    ("seat", "seat", "{}"),
    ("role", "role", "{}"),
    ("policy", "policy", "{}"),
    ("ev", "EV/round", "{:+.4f}"),
    ("ev_ci", "95% CI", "{}"),
    ("win_rate", "win", "{:.3f}"),
    ("lose_rate", "lose", "{:.3f}"),
    ("push_rate", "push", "{:.3f}"),
    ("bust_rate", "bust", "{:.3f}"),
    ("pontoon_rate", "pontoon", "{:.3f}"),
    ("five_card_trick_rate", "5-card", "{:.3f}"),
    ("mean_stake", "stake", "{:.2f}"),
)


def _ci_text(row: Mapping[str, Any], prefix: str = "ev") -> str:
    return f"[{row[prefix + '_ci_low']:+.4f}, {row[prefix + '_ci_high']:+.4f}]"


def format_rows(rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str, str]], title: str = "") -> str:
    """A plain-text table (stable in logs and tests; rich is used for the terminal when present)."""
    header = [name for _, name, _ in columns]
    body = []
    for row in rows:
        cells = []
        for key, _, fmt in columns:
            if key.endswith("_ci"):
                cells.append(_ci_text(row, key[:-3]))
            else:
                value = row.get(key, "")
                cells.append(fmt.format(value) if value != "" else "")
        body.append(cells)
    widths = [max(len(str(c)) for c in column) for column in zip(header, *body)]
    lines = [title] if title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(str(c).ljust(w) for c, w in zip(cells, widths)) for cells in body]
    return "\n".join(lines)


COMPARISON_COLUMNS = (
    ("policy", "policy", "{}"),
    ("ev", "EV/round", "{:+.4f}"),
    ("ev_ci", "95% CI", "{}"),
    ("first_minus_this", "first − this", "{:+.4f}"),
    ("first_minus_this_ci", "paired 95% CI", "{}"),
    ("win_rate", "win", "{:.3f}"),
    ("bust_rate", "bust", "{:.3f}"),
    ("pontoon_rate", "pontoon", "{:.3f}"),
    ("five_card_trick_rate", "5-card", "{:.3f}"),
    ("mean_stake", "stake", "{:.2f}"),
)


def write_rows(rows: Sequence[Mapping[str, Any]], csv_path: Path) -> None:
    """Write ``rows`` as CSV with the union of their keys as columns."""
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    csv_path.parent.mkdir(parents=True, exist_ok=True)
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def write_json(data: Any, path: Path) -> None:
    """Write ``data`` as strict JSON: a statistic that is undefined or infinite (the confidence
    interval of a single round) is written ``null``, since ``Infinity``/``NaN`` are not JSON and
    break other readers (``jq``, browsers, strict parsers)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(strict_json_value(data), indent=2, default=_json_default, allow_nan=False) + "\n")


def strict_json_value(value: Any) -> Any:
    """``value`` with every non-finite float (``nan``, ``inf``, numpy's too) replaced by ``None``
    and numpy scalars and arrays made plain, recursively: what :func:`write_json` serialises."""
    if isinstance(value, Mapping):
        return {key: strict_json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [strict_json_value(item) for item in value]
    if isinstance(value, np.ndarray):
        return strict_json_value(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _json_default(value: Any) -> Any:
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def rules_dict(rules: Rules) -> dict[str, Any]:
    """Every option of ``rules`` by name (what ``make_rules(rules.preset, **options)`` rebuilds)."""
    import dataclasses

    return dataclasses.asdict(rules)


__all__ = [
    "Comparison",
    "Estimate",
    "EvaluationError",
    "MatchResult",
    "compare_policies",
    "estimate",
    "format_rows",
    "guess_role",
    "load_policy",
    "match_summary",
    "paired_difference",
    "play_match",
    "policy_label",
    "policy_labels",
    "round_generators",
    "scripted_role",
    "seat_summary",
    "solver_optimum",
    "strict_json_value",
    "write_json",
    "write_rows",
]


# --------------------------------------------------------------------------------------------------
# The evaluate.py driver
# --------------------------------------------------------------------------------------------------


TABLE, MEASURE, OUTPUT = "table", "what to measure", "output"
"""The sections of ``evaluate.py --help``."""
ROLES = ("player", "banker")
MAX_SEED = 2**63 - 1
"""The largest ``--seed``: the batched engine's counter streams take a signed 64-bit seed."""


@dataclass
class EvaluateSettings:
    """Everything ``evaluate.py`` can be asked, each setting declared once: its flags, types,
    defaults and help are derived from these fields (:mod:`pontoon_tools.settings`)."""

    # -- table
    rules: str | None = setting(
        None, f"rules preset: {', '.join(PRESETS)} (default: the checkpoint's rules if a checkpoint is given, "
        "else pagat)", group=TABLE, metavar="PRESET")
    options: dict[str, Any] = setting(
        help="override one rules option (repeatable), e.g. --option stick_min=16", default_factory=dict,
        flag="--option", group=TABLE, metavar="KEY=VALUE", parse=parse_option, repeat=True)
    seats: int | None = setting(
        None, "number of player seats besides the banker, 1-9 (default: one per --policies spec but the banker's, "
        "else the checkpoint's, else 4)", group=TABLE)
    banker_seat: int = setting(0, "the seat that banks every round", group=TABLE)
    learner_seat: int = setting(
        1, "the seat of --player, and of the compared policies when --role player (1: the banker's left, "
        "first to act)", group=TABLE)
    player: str | None = setting(
        None, "policy in --learner-seat (default threshold); not with --compare under --role player, whose "
        "policies take that seat", group=TABLE, metavar="SPEC")
    others: str | None = setting(None, "policy of the other player seats (default threshold)", group=TABLE,
                                 metavar="SPEC")
    banker: str | None = setting(
        None, "banker policy (default banker_threshold; casino_dealer under casino); not with --compare under "
        "--role banker, whose policies take the banker seat", group=TABLE, metavar="SPEC")
    policies: list[str] | None = setting(
        None, "one spec per seat, seat 0 first (overrides --player/--others/--banker; without --seats the table "
        "has one seat per spec; with --compare the compared policies take the --role seat)", group=TABLE,
        metavar="SPEC")

    # -- what to measure
    role: str | None = setting(
        None, "which seat --compare and --optimality-gap are about: the learner seat (player) or the banker seat "
        "(default: the --run's role, else guessed from the first --compare spec)", group=MEASURE, choices=ROLES)
    rounds: int = setting(20_000, "rounds per policy", group=MEASURE)
    seed: int = setting(0, "seed of the rounds", group=MEASURE)
    compare: list[str] | None = setting(
        None, "two or more policies played in the same seat on the same cards; reports each one's EV and the "
        "paired difference first − other with its 95% CI", group=MEASURE, metavar="SPEC")
    optimality_gap: bool = setting(
        False, "player role: EV(optimal) − EV(policy), both from the exact solver (pontoon_env.solver, infinite "
        "deck) and from the solver's policy played on the same cards; needs a fixed-rule banker "
        "(banker_threshold[:stand=K] or casino_dealer)", group=MEASURE)
    run: str | None = setting(
        None, "a train.py run directory: plots its learning curve and uses its model.zip in its role's seat unless "
        "--player/--banker say otherwise", group=MEASURE, metavar="DIR")

    # -- output
    out: str = setting("results/eval", "output directory", group=OUTPUT, metavar="DIR")
    charts: bool = setting(True, "skip the PNG charts", group=OUTPUT)
    progress: bool = setting(True, "no progress bars", group=OUTPUT)

    def validate(self) -> None:
        """Raise :class:`EvaluationError` naming the first invalid setting (its flag, what it
        expects, what it got); the seats are checked against the table in :func:`run_evaluation`."""

        def check(ok: bool, name: str, expected: str) -> None:
            if not ok:
                raise EvaluationError(
                    f"{flag(EvaluateSettings, name)}: expected {expected}, got {getattr(self, name)!r}")

        check(self.rounds >= 1, "rounds", "a positive number of rounds")
        check(self.seats is None or 1 <= self.seats <= 9, "seats", "1..9 players")
        check(isinstance(self.seed, int) and not isinstance(self.seed, bool) and self.seed >= 0,
              "seed", "an integer >= 0")
        # The batched engine's streams take a signed 64-bit seed; the reference path (a stacked deck,
        # rules it does not play natively) would take any size, so the same seed was accepted there
        # and refused, after --out was made, on the batched path. One range for every path, up front.
        check(self.seed <= MAX_SEED, "seed", f"an integer >= 0 and at most 2**63-1 ({MAX_SEED})")
        check(self.out is None or not under_a_file(self.out),
              "out", "a folder for the report (not a file, nor under one)")
        check(self.role is None or self.role in ROLES, "role", f"one of {list(ROLES)}")
        check(self.compare is None or len(self.compare) >= 2 or (self.optimality_gap and len(self.compare) == 1),
              "compare", "at least two policies (the first is compared with each other one)")
        check(self.policies is None or 2 <= len(self.policies) <= 10, "policies",
              "one spec per seat, 2..10 seats (a banker and 1..9 players)")


def _rules_and_seats(settings: EvaluateSettings, specs: Sequence[str | None]) -> tuple[Rules, int]:
    """The table's rules and size: as given, else from the seat list (``--policies``), else from the
    first checkpoint's config, else pagat with four players."""
    from agents.checkpoint import config_rules

    config = None
    source = None
    for spec in specs:
        config = checkpoint_config(spec)
        if config is not None:
            source = spec
            break
    if settings.rules is not None:
        from pontoon_tools.settings import rules_from_flags

        rules = rules_from_flags(settings.rules, settings.options)
    elif config is not None and config.get("rules") is not None:
        # The checkpoint's own rules first, so that a broken config is named as the checkpoint's
        # fault and only an --option that does not apply to them is named as --option's.
        config_rules(config, str(source))
        rules = _with_options(config["rules"], settings.options)
    else:
        rules = _with_options("pagat", settings.options)
    if settings.seats is not None:
        seats = settings.seats
    elif settings.policies:
        seats = len(settings.policies) - 1
    else:
        seats = int(config["num_players"]) if config is not None and config.get("num_players") is not None else 4
    return rules, seats


def _with_options(base: Any, options: Mapping[str, Any]) -> Rules:
    """``base`` rules with the ``--option`` overrides; a refusal names ``--option`` (as it does with
    ``--rules`` given, through :func:`pontoon_tools.settings.rules_from_flags`)."""
    from pontoon_env.game.rules import RulesError, resolve_rules

    try:
        return resolve_rules(base, dict(options))
    except RulesError as error:
        raise RulesError(f"--option: {error}") from None


def _check_roles(specs: Sequence[tuple[int, Any, str]], banker_seat: int) -> None:
    """Refuse a policy put in a seat of the other role (a banker model or ``banker_smart`` in a
    player seat ...). ``specs`` holds ``(seat, spec, what)``, ``what`` naming where the spec came
    from (``--player``, ``--compare`` ...) for the message.

    A scripted policy of the other role would not fail: it plays the seat's phases with a default
    policy of that role (:meth:`agents.scripted.ScriptedPolicy.other_role`), so it would be reported
    under its own name for another policy's play. A checkpoint's config says which role it learnt
    (:func:`agents.checkpoint.check_compatible`).
    """
    for seat, spec, what in specs:
        role = "banker" if seat == banker_seat else "player"
        check_scripted_role(spec, role, f"{what} {spec}" + (f" (seat {seat})" if what == "--policies" else ""))
        try:
            check_role(spec, role, f"{spec} (in seat {seat})")
        except CheckpointError as error:
            raise CheckpointError(f"{what}: {error}") from None


def check_scripted_role(spec: Any, role: str, label: str | None = None) -> None:
    """Refuse a scripted policy name ``spec`` that plays the other ``role`` (``banker_smart`` in a
    player seat, ``threshold`` in the banker's); one that plays both (``random``) and anything that
    is no scripted name pass.

    Raises:
        EvaluationError: naming ``label`` (default: the spec), the role expected and the one found.
    """
    found = scripted_role(spec)
    if found is not None and found != "any" and found != role:
        raise EvaluationError(f"{label or spec}: expected a {role} policy, got a {found} policy (it plays the "
                              f"{found}'s turns: in a {role} seat it would play the default {role} policy under its "
                              "own name)")


def check_role(spec: Any, role: str, label: str | None = None) -> None:
    """Refuse a saved checkpoint ``spec`` that learnt the other ``role`` (its config says which);
    a scripted name, and a multi-agent run ("both"), pass.

    Raises:
        CheckpointError: naming ``label`` (default: the spec) and ``role: expected ..., found ...``.
    """
    config = checkpoint_config(spec)
    if config is not None and config.get("role") in ROLES:
        check_compatible(label or str(spec), config, {"role": role})


def run_evaluation(settings: EvaluateSettings, announce: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Play, measure, compare and chart as ``settings`` ask; write everything under ``settings.out``.

    Every setting is checked before anything is played or written. The tables are written
    (``report.txt``, ``report.json``, the CSVs) and handed to ``announce`` (``evaluate.py`` prints
    them) *before* any chart is drawn, so a chart can never cost the numbers.

    Returns the report (also written as ``report.json``): the table of every seat, the comparison
    rows and the optimality gap when asked, and the paths of the files written.
    """
    report, context = measure(settings)
    if announce is not None:
        announce(report)
    if settings.charts:
        report["files"] += _charts(settings, report, *context)
        _write_report(report, Path(settings.out))
    return report


def measure(settings: EvaluateSettings) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """The tables of :func:`run_evaluation` (played, summarised and written), without the charts.

    Returns the report and what the charts need (rules, table size, banker seat, policies,
    their labels, the focus seat, the output folder, the compared candidates and the ``--run``'s
    learning curve, read before anything is written).
    """
    settings.validate()
    run_model = None
    run_config: dict[str, Any] | None = None
    if settings.run:
        from agents.banker_belief import is_belief_run

        if is_belief_run(settings.run):  # train.py --algo belief: the run directory is the policy
            run_model = str(settings.run)
            run_config = {"role": "banker", **(read_run_config(settings.run) or {})}
        else:
            run_model = str(Path(settings.run) / "model.zip")
            try:
                run_config = read_config(run_model)[1]
            except CheckpointError as error:
                raise EvaluationError(f"--run {settings.run!r}: {error}") from error
    role = settings.role or (str(run_config["role"]) if run_config else None)
    if role is None:
        role = "banker" if settings.compare and guess_role(settings.compare[0]) == "banker" else "player"
    if settings.compare:
        # --compare plays its policies in the role's seat, one after the other: a --player (--banker)
        # for that same seat would never play, yet was listed in the report's seats.
        seat_flag, seat_spec = ("--player", settings.player) if role == "player" else ("--banker", settings.banker)
        if seat_spec is not None:
            seat_name = f"learner seat (--learner-seat {settings.learner_seat})" if role == "player" else "banker seat"
            raise EvaluationError(
                f"{seat_flag}: expected no {seat_flag} with --compare under role {role!r} (the compared policies "
                f"play the {seat_name}, so {seat_flag} would never play), got {seat_spec!r}; put it in the "
                "--compare list instead"
            )
    player_spec = settings.player or (run_model if run_model and role == "player" else None)
    banker_spec = settings.banker or (run_model if run_model and role == "banker" else None)
    specs = list(settings.policies or []) + list(settings.compare or []) + [player_spec, banker_spec]
    rules, num_players = _rules_and_seats(settings, specs)
    num_seats = num_players + 1
    banker_seat = settings.banker_seat
    if not 0 <= banker_seat < num_seats:
        raise EvaluationError(f"--banker-seat: expected a seat in 0..{num_players}, got {banker_seat}")
    if settings.learner_seat == banker_seat or not 0 <= settings.learner_seat < num_seats:
        raise EvaluationError(
            f"--learner-seat: expected a player seat in 0..{num_players} other than the banker's ({banker_seat}), "
            f"got {settings.learner_seat}"
        )
    focus = settings.learner_seat if role == "player" else banker_seat
    if settings.optimality_gap and role != "player":
        raise EvaluationError("--optimality-gap: expected --role player (the solver optimises the player), "
                              f"got role {role!r}")
    history = _read_history(settings) if settings.run and settings.charts else None

    # One spec per seat.
    if settings.policies:
        seat_specs = list(settings.policies)
        if len(seat_specs) != num_seats:
            raise EvaluationError(
                f"--policies: expected {num_seats} specs (seat 0..{num_players}, banker at seat {banker_seat}), "
                f"got {len(seat_specs)}"
            )
        # Where each seat's spec came from, for a refusal's message.
        sources = ["--policies"] * num_seats
    else:
        from agents.registry import default_banker_policy

        default_banker = str(getattr(default_banker_policy(rules), "name", "banker_threshold"))
        seat_specs = [settings.others or "threshold"] * num_seats
        sources = ["--others"] * num_seats
        seat_specs[banker_seat] = banker_spec or default_banker
        sources[banker_seat] = "--run" if banker_spec and not settings.banker else "--banker"
        seat_specs[settings.learner_seat] = player_spec or "threshold"
        sources[settings.learner_seat] = "--run" if player_spec and not settings.player else "--player"
    checks = [(seat, spec, source) for seat, (spec, source) in enumerate(zip(seat_specs, sources))]
    if settings.others is not None and not settings.policies:
        # A player policy even at a one-player table, where it sits nowhere: refused all the same.
        checks.append((settings.learner_seat, settings.others, "--others"))
    if settings.compare:
        # The compared policies take the focus seat in turn and the first one plays the match the
        # summary reports: the report's seats name it there, not a spec that never played.
        seat_specs[focus] = settings.compare[0]
        checks = [entry for entry in checks if entry[0] != focus or entry[2] == "--others"]
        checks += [(focus, spec, "--compare") for spec in settings.compare]
    _check_roles(checks, banker_seat)
    policies = [load_policy(spec, rules, num_players) for spec in seat_specs]
    # One label per distinct spec over the table and the compared policies together, so two
    # checkpoints whose paths end alike are told apart in every row, table and chart file name.
    all_labels = policy_labels([*seat_specs, *(settings.compare or [])])
    labels = all_labels[:num_seats]
    candidates: list[tuple[str, Any]] = []
    if settings.compare:
        candidates = [(label, policies[focus] if index == 0 else load_policy(spec, rules, num_players))
                      for index, (label, spec) in enumerate(zip(all_labels[num_seats:], settings.compare))]
    gap_reference: tuple[str, Any] | None = None
    report: dict[str, Any] = {
        "rules": rules_dict(rules), "num_players": num_players, "banker_seat": banker_seat, "role": role,
        "focus_seat": focus, "rounds": settings.rounds, "seed": settings.seed, "seats": labels, "files": [],
    }
    if settings.optimality_gap:
        report["optimality_gap"] = solver_optimum(rules, seat_specs[banker_seat])
        from agents.optimal import OptimalPlayer

        stand = report["optimality_gap"]["banker_rule"]["stand_on"]
        gap_reference = (f"optimal:stand={stand}", OptimalPlayer(rules, stand=stand))
        hits_soft = report["optimality_gap"]["banker_rule"]["hit_soft"]
        if hits_soft != (rules.dealer_rule == "hit_soft_17"):
            # OptimalPlayer solves for the rules' own dealer rule; say so rather than hide it.
            assumed, played = ("stands", "hits") if hits_soft else ("hits", "stands")
            report["optimality_gap"]["note"] += (
                f"; the banker {played} on soft 17 but the simulated optimal player assumes he {assumed} on soft 17"
            )
        if not candidates:
            candidates = [(labels[focus], policies[focus])]

    # Everything is checked: play, then write.
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    files: list[str] = report["files"]
    if candidates:
        if gap_reference is not None:
            candidates = candidates + [gap_reference]
        comparison = compare_policies(rules, num_players, candidates, policies, focus, settings.rounds, settings.seed,
                                      banker_seat=banker_seat, table_labels=labels, progress=settings.progress)
        main = comparison.results[0]
        rows = comparison.rows()
        report["comparison"] = {"seat": focus, "table": comparison.table, "rows": rows}
        write_rows(rows, out / "comparison.csv")
        files.append(str(out / "comparison.csv"))
        if gap_reference is not None:
            optimal_result = comparison.results[-1]
            gap_rows = []
            for label, result in zip(comparison.candidates[:-1], comparison.results[:-1]):
                simulated = paired_difference(optimal_result, result, focus)
                exact = estimate(report["optimality_gap"]["optimal_ev"] - result.ev(focus))
                gap_rows.append({"policy": label, **simulated.as_dict("gap_vs_optimal_player"),
                                 **exact.as_dict("gap_vs_solver_ev")})
            report["optimality_gap"]["rows"] = gap_rows
    else:
        main = play_match(rules, num_players, policies, settings.rounds, settings.seed, banker_seat=banker_seat,
                          labels=labels, progress=settings.progress)
    summary = match_summary(main)
    report["summary"] = summary
    report["wall_s"] = main.wall_s
    write_rows(summary, out / "summary.csv")
    files.append(str(out / "summary.csv"))
    files += [str(out / "report.json"), str(out / "report.txt")]
    _write_report(report, out)
    return report, (rules, num_players, banker_seat, policies, labels, focus, out, candidates, history)


def _read_history(settings: EvaluateSettings) -> list[dict[str, Any]] | None:
    """The learning curve of ``--run`` (its ``eval_history.json``), read and checked before anything
    is played or written; ``None`` when the run has none.

    Raises:
        EvaluationError: naming the file, when it is unreadable or not the list of evaluation
            points train.py writes (a corrupt file used to stop the charts half-way with a bare
            JSON message that named no file).
    """
    return read_eval_history(Path(str(settings.run)) / "eval_history.json", f"--run {settings.run!r}")


def read_eval_history(path: Path, label: str) -> list[dict[str, Any]] | None:
    """A run's learning curve (``eval_history.json``) checked, for plotting: ``None`` when there is
    none; an undefined statistic (written ``null`` by :func:`write_json`) becomes ``nan``, a gap in
    the plot rather than a crash.

    Raises:
        EvaluationError: naming ``label`` and the file, when it is unreadable or not the list of
            evaluation points train.py writes.
    """
    if not path.is_file():
        return None
    expected = "a JSON list of evaluation points, each with its 'timesteps', as train.py writes"
    try:
        history = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise EvaluationError(f"{label}: {str(path)!r} is unreadable: expected {expected}, got {error}") from None
    if not isinstance(history, list) or not all(isinstance(point, dict) and "timesteps" in point
                                                for point in history):
        raise EvaluationError(f"{label}: {str(path)!r}: expected {expected}, got "
                              f"{type(history).__name__} {str(history)[:80]}")
    return [{key: math.nan if value is None else value for key, value in point.items()} for point in history]


def _write_report(report: Mapping[str, Any], out: Path) -> None:
    write_json(report, out / "report.json")
    (out / "report.txt").write_text(format_report(report) + "\n")


def _charts(settings: EvaluateSettings, report: dict[str, Any], rules: Rules, num_players: int, banker_seat: int,
            policies: list[Any], labels: list[str], focus: int, out: Path,
            candidates: Sequence[tuple[str, Any]], history: list[dict[str, Any]] | None) -> list[str]:
    """Draw the charts of a measured report; return the files written."""
    from pontoon_tools import plots

    written = []
    used: set[str] = set()

    def file_name(prefix: str, label: str) -> str:
        # Labels are unique (policy_labels), but two can still become one file name
        # ("a/b.zip" and "a_b.zip"): number the later one instead of overwriting the first chart.
        name, number = f"{prefix}_{_file_label(label)}", 2
        while name in used:
            name, number = f"{prefix}_{_file_label(label)}_{number}", number + 1
        used.add(name)
        return name
    if "comparison" in report:
        rows = report["comparison"]["rows"]
        title = f"{report['role']} seat {focus}: EV per round vs the same cards ({settings.rounds:,} rounds)"
    else:
        rows = [r for r in report["summary"]]
        title = f"EV per round by seat ({settings.rounds:,} rounds)"
    written.append(str(plots.plot_ev_bars(rows, out / "ev_bars.png", title=title)))
    if history:  # read and checked by measure() before anything was written
        written.append(str(plots.plot_learning_curve(history, out / "learning_curve.png",
                                                      title=f"learning curve: {settings.run}")))
    # Strategy charts: of the focus policy in its role, and of every compared player policy.
    to_chart: list[tuple[str, Any]] = []
    if report["role"] == "player":
        to_chart = list(candidates) or [(labels[focus], policies[focus])]
    charted: set[str] = set()
    for label, policy in to_chart:
        if label == "random" or label in charted:
            continue  # a random policy has no chart worth reading; the same spec twice, one chart
        charted.add(label)
        chart = plots.probe_player(policy, rules, num_players, banker_seat=banker_seat, title=f"player chart: {label}")
        name = file_name("strategy", label)
        written.append(str(plots.plot_player_chart(chart, out / f"{name}.png")))
        (out / f"{name}.txt").write_text(chart.as_text() + "\n")
        written.append(str(out / f"{name}.txt"))
    bankers: list[tuple[str, Any]] = [(labels[banker_seat], policies[banker_seat])]
    if report["role"] == "banker" and candidates:
        bankers = list(candidates)
    charted = set()
    for label, policy in bankers:
        if label == "random" or label in charted or rules.dealer_rule == "hit_soft_17":
            continue  # the casino dealer's drawing is fixed by the rules
        charted.add(label)
        chart = plots.probe_banker(policy, rules, num_players, banker_seat=banker_seat, title=f"banker chart: {label}")
        name = file_name("banker", label)
        written.append(str(plots.plot_banker_chart(chart, out / f"{name}.png")))
        (out / f"{name}.txt").write_text(chart.as_text() + "\n")
        written.append(str(out / f"{name}.txt"))
    return written


def _file_label(label: str) -> str:
    """A label as a safe file-name part (``runs/x/model.zip`` → ``x_model``)."""
    text = label[:-4] if label.endswith(".zip") else label
    return "".join(ch if ch.isalnum() or ch in "-_=" else "_" for ch in text).strip("_") or "policy"


def format_report(report: Mapping[str, Any]) -> str:
    """The report as plain-text tables (what evaluate.py prints and saves as report.txt)."""
    rules = report["rules"]
    head = (f"rules {rules['preset']!r}, {plural(report['num_players'], 'player')}, banker seat {report['banker_seat']}, "
            f"{report['rounds']:,} rounds, seed {report['seed']}; EV in stake units "
            f"({rules['min_stake']} chip) per round, 95% CI")
    parts = [head, "", format_rows(report["summary"], SUMMARY_COLUMNS, "seats:")]
    banker = next((row for row in report["summary"] if row["role"] == "banker"), None)
    if banker is not None:
        parts.append(f"banker take per player: {banker['take_per_player']:+.4f} "
                     f"[{banker['take_per_player_ci_low']:+.4f}, {banker['take_per_player_ci_high']:+.4f}]")
    if "comparison" in report:
        comparison = report["comparison"]
        parts += ["", format_rows(comparison["rows"], COMPARISON_COLUMNS,
                                  f"paired comparison in seat {comparison['seat']} (same packs, same random streams; "
                                  f"table: {', '.join(comparison['table'])}):")]
    if "optimality_gap" in report:
        gap = report["optimality_gap"]
        rule = gap["banker_rule"]
        stands = f"hits soft {rule['stand_on']}, stands on hard {rule['stand_on']}" if rule.get("hit_soft") \
            else f"stands on {rule['stand_on']}"
        parts += ["", f"optimality gap (banker {stands}): exact optimal EV "
                      f"{gap['optimal_ev']:+.4f} per round ({gap['note']})"]
        for row in gap.get("rows", []):
            parts.append(
                f"  {row['policy']}: optimal player − policy on the same cards {row['gap_vs_optimal_player']:+.4f} "
                f"[{row['gap_vs_optimal_player_ci_low']:+.4f}, {row['gap_vs_optimal_player_ci_high']:+.4f}]; "
                f"solver EV − policy {row['gap_vs_solver_ev']:+.4f} "
                f"[{row['gap_vs_solver_ev_ci_low']:+.4f}, {row['gap_vs_solver_ev_ci_high']:+.4f}]"
            )
    return "\n".join(parts)
