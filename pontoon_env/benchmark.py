"""Named benchmark tasks: frozen specifications that everybody trains and scores on alike.

Each :class:`Task` fixes the rules and their options, the table size and the learner's seat, the
other seats' policies, the episode mode, and the evaluation protocol (seed, rounds, the policies
that anchor the normalised score). :data:`TASKS` lists them by name; each is registered with
Gymnasium under :attr:`Task.gym_id`, so ``gymnasium.make("pagat/player-1-v0")`` builds the task's
training environment. A task's name never changes meaning: a change of any field is a new
``version``.

The score (computed by ``python -m pontoon_tools.benchmark``) is 0 for the ``random`` policy and
1 for the task's ceiling: the exact solver's optimal player (player tasks) or the exact banker best
response (banker tasks at one player seat). Tasks without an exact ceiling anchor 1 at their best
scripted policy and say so (:attr:`Task.ceiling_exact`). The optimum is for an infinite deck, so a
policy that uses the pack's memory may score above 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

__all__ = ["TASKS", "Task", "get_task", "register_tasks", "task_names"]


@dataclass(frozen=True)
class Task:
    """One benchmark task (see the module docstring)."""

    name: str
    """``<preset>/<role>-<what>``, e.g. ``pagat/player-1``."""
    description: str
    preset: str
    role: Literal["player", "banker"]
    num_players: int
    opponents: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    """The other seats' policies, as ``PontoonEnv(opponents=...)`` takes them."""
    options: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    """Rules options on top of the preset."""
    learner_seat: int | None = None
    episode: Literal["round", "session"] = "round"
    session_rounds: int = 10
    ceiling: str = "optimal"
    """The policy spec that scores 1."""
    ceiling_exact: bool = True
    """Whether the ceiling is an exact optimum (else the best scripted policy)."""
    best_scripted: str = "threshold"
    """The strongest scripted policy in the learner's seat (a row of the results table)."""
    eval_seed: int = 20_261_201
    eval_rounds: int = 200_000
    """Rounds (round tasks) or sessions (session tasks) of the full protocol."""
    version: int = 0

    def __hash__(self) -> int:
        # a task is named by its name and version (the generated hash failed on the mapping fields)
        return hash((self.name, self.version))

    @property
    def gym_id(self) -> str:
        """The Gymnasium id of the task's training environment (``namespace/name-vN``)."""
        return f"{self.name}-v{self.version}"

    @property
    def env_id(self) -> str:
        """The base environment the task configures."""
        return "PontoonBanker-v0" if self.role == "banker" else "Pontoon-v0"

    def env_kwargs(self) -> dict[str, Any]:
        """The ``gymnasium.make`` arguments of the task's environment (besides the id)."""
        kwargs: dict[str, Any] = {
            "rules": self.preset,
            "rule_options": dict(self.options),
            "num_players": self.num_players,
            "opponents": dict(self.opponents),
            "episode": self.episode,
        }
        if self.learner_seat is not None:
            kwargs["learner_seat"] = self.learner_seat
        if self.episode == "session":
            kwargs["session_rounds"] = self.session_rounds
        return kwargs

    def as_dict(self) -> dict[str, Any]:
        """The whole specification as plain data (for result files)."""
        return {
            "name": self.name,
            "version": self.version,
            "gym_id": self.gym_id,
            "description": self.description,
            "env_id": self.env_id,
            "env_kwargs": self.env_kwargs(),
            "ceiling": self.ceiling,
            "ceiling_exact": self.ceiling_exact,
            "best_scripted": self.best_scripted,
            "eval_seed": self.eval_seed,
            "eval_rounds": self.eval_rounds,
        }


def _frozen(**items: Any) -> MappingProxyType:
    return MappingProxyType(dict(items))


_BANKER_VS_THRESHOLD = _frozen(banker="banker_threshold", players="threshold")

TASKS: dict[str, Task] = {
    task.name: task
    for task in (
        Task(
            "pagat/player-1",
            "the home game, one player against the threshold banker (stands on 17)",
            "pagat",
            "player",
            1,
            _BANKER_VS_THRESHOLD,
        ),
        Task(
            "pagat/player-4",
            "the home game at a full table: the learner in the first seat, three threshold players",
            "pagat",
            "player",
            4,
            _BANKER_VS_THRESHOLD,
            learner_seat=1,
            eval_rounds=100_000,
        ),
        Task(
            "pagat/player-session",
            "one player for ten rounds on one pack that carries over: the seen cards count",
            "pagat",
            "player",
            1,
            _BANKER_VS_THRESHOLD,
            episode="session",
            session_rounds=10,
            ceiling_exact=False,
            eval_rounds=20_000,
        ),
        Task(
            "pagat/banker-1",
            "the banker against one threshold player",
            "pagat",
            "banker",
            1,
            _frozen(players="threshold"),
            ceiling="banker_best_response:player=threshold",
            best_scripted="banker_smart",
        ),
        Task(
            "pagat/banker-2",
            "the banker against two threshold players (no exact ceiling: banker_smart anchors 1)",
            "pagat",
            "banker",
            2,
            _frozen(players="threshold"),
            ceiling="banker_smart",
            ceiling_exact=False,
            best_scripted="banker_smart",
            eval_rounds=100_000,
        ),
        Task(
            "casino/player-1",
            "online-casino Pontoon against the fixed dealer (hits soft 17)",
            "casino",
            "player",
            1,
            _frozen(banker="casino_dealer"),
        ),
        Task(
            "pontoon_1939/player-1",
            "the 1939 rules against the threshold banker (who never doubles)",
            "pontoon_1939",
            "player",
            1,
            _BANKER_VS_THRESHOLD,
        ),
        Task(
            "pontoon_2011/player-1",
            "the 2011 rules against the threshold banker",
            "pontoon_2011",
            "player",
            1,
            _BANKER_VS_THRESHOLD,
        ),
    )
}
"""Every task, by name."""


def task_names() -> list[str]:
    """The names of every task, in the order of :data:`TASKS`."""
    return list(TASKS)


def get_task(name: str) -> Task:
    """The task called ``name`` (with or without its ``-vN`` suffix).

    Raises:
        KeyError: naming the unknown task and listing the known ones.
    """
    if not isinstance(name, str):
        raise KeyError(f"benchmark task: expected a task name such as 'pagat/player-1', got {name!r}")
    base, _, version = name.rpartition("-v")
    candidate = TASKS.get(name) or (TASKS.get(base) if version.isdigit() else None)
    if candidate is None or (version.isdigit() and base in TASKS and int(version) != candidate.version):
        raise KeyError(f"unknown benchmark task {name!r}; expected one of {task_names()}")
    return candidate


def register_tasks() -> None:
    """Register every task's Gymnasium id (idempotent)."""
    import gymnasium as gym

    for task in TASKS.values():
        if task.gym_id not in gym.registry:
            entry = "pontoon_env.envs.gymnasium_env:PontoonEnv"
            gym.register(id=task.gym_id, entry_point=entry, kwargs={"role": task.role, **task.env_kwargs()})
