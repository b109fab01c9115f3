"""The package layout shows its layers, and the code keeps to them.

Layers, lowest first: the game (``pontoon_env.game``) < the encoding < the solver < the agents < the
batched engine < the environments (``pontoon_env.envs``) < the tooling (``pontoon_tools``, the
scripts). An import may only point down (or within its own layer), lazy imports inside functions
included; and each layer imports with every layer above it (and the learning libraries the game
does not need) made unimportable.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

LAYERS: dict[str, int] = {
    "pontoon_env.game": 0,
    "pontoon_env.encoding": 1,
    "pontoon_env.solver": 2,
    "agents": 3,
    "pontoon_env.batched": 4,
    "pontoon_env.envs": 5,
    "pontoon_env.benchmark": 5,
    "pontoon_tools": 6,
}
"""Each package or module of the project and its layer."""


def _layer(module: str) -> tuple[str, int] | None:
    for prefix, rank in sorted(LAYERS.items(), key=lambda item: -len(item[0])):
        if module == prefix or module.startswith(prefix + "."):
            return prefix, rank
    return None


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, at any depth (function bodies too), with its line."""
    tree = ast.parse(path.read_text())
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _project_modules() -> list[Path]:
    files = []
    for package in ("pontoon_env", "agents", "pontoon_tools"):
        files += sorted((ROOT / package).rglob("*.py"))
    return files


def test_every_import_points_down_the_layers():
    violations = []
    for path in _project_modules():
        name = _module_name(path)
        if name == "pontoon_env":  # the package facade re-exports the game and registers the envs
            continue
        source = _layer(name)
        assert source is not None, f"{name} belongs to no layer: add it to LAYERS"
        for line, target in _imports(path):
            layer = _layer(target)
            if layer is None or layer[0] == source[0]:
                continue
            if layer[1] > source[1]:
                violations.append(f"{path.relative_to(ROOT)}:{line}: {name} ({source[0]}) imports {target} ({layer[0]})")
    assert not violations, "imports that point up a layer:\n" + "\n".join(violations)


def test_the_game_imports_no_learning_or_plotting_library():
    for path in sorted((ROOT / "pontoon_env" / "game").rglob("*.py")):
        for line, target in _imports(path):
            top = target.split(".")[0]
            assert top not in {"gymnasium", "torch", "matplotlib", "pettingzoo", "stable_baselines3", "sb3_contrib", "numba"}, (
                f"{path.relative_to(ROOT)}:{line} imports {target}"
            )


_BLOCKED_ABOVE = {
    "pontoon_env.game": ["gymnasium", "torch", "matplotlib", "pettingzoo", "stable_baselines3", "sb3_contrib", "agents",
                         "pontoon_tools", "pontoon_env.envs", "pontoon_env.solver", "pontoon_env.encoding"],
    "pontoon_env.solver": ["gymnasium", "torch", "matplotlib", "agents", "pontoon_tools", "pontoon_env.envs"],
    "agents": ["gymnasium", "torch", "matplotlib", "pontoon_tools", "pontoon_env.envs"],
}

_PLAY_A_ROUND = """
import numpy as np
from pontoon_env.game import PontoonGame
from pontoon_env.game.policy import RandomPolicy
from pontoon_env.game.runner import play_round
game = PontoonGame("pagat", 3, seed=0, banker=0)
results = play_round(game, [RandomPolicy()] * 4, np.random.default_rng(0))
assert sum(results) == 0, results
"""


@pytest.mark.parametrize("layer", sorted(_BLOCKED_ABOVE))
def test_each_layer_imports_with_the_layers_above_it_absent(layer):
    blocked = _BLOCKED_ABOVE[layer]
    script = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in blocked)
    script += f"import {layer}\n"
    if layer == "agents":
        script += "import agents.registry, agents.optimal, agents.banker_smart\n"
    script += _PLAY_A_ROUND
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
