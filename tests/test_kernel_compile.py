"""How the compiled kernel is put together for a short first compile (docs/batched.md, "compile").

Numba compiles every non-inlined function once per argument-type signature and links each callee's
code into every caller; these tests keep the two properties that keep that work down: helpers
inlined into their caller have exactly one calling function, and the vector env's entry points see one
signature whatever the step (reset, step, autoreset, a callback seat).
"""

from __future__ import annotations

import ast
import inspect

import numpy as np

from pontoon_env.batched import kernel as kn
from pontoon_env.envs.vector import PontoonVectorEnv


def _decorated(tree: ast.Module, name: str) -> set[str]:
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
            and any(isinstance(d, ast.Name) and d.id == name for d in node.decorator_list)}


def test_every_inlined_helper_has_one_caller():
    tree = ast.parse(inspect.getsource(kn))
    inlined = _decorated(tree, "once")
    assert len(inlined) > 20, "the helpers marked @once"
    callers: dict[str, set[str]] = {name: set() for name in inlined}
    for function in (node for node in tree.body if isinstance(node, ast.FunctionDef)):
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in callers:
                callers[node.func.id].add(function.name)
    assert {name: sorted(who) for name, who in callers.items() if len(who) != 1} == {}


def test_vector_env_entry_points_compile_one_signature():
    env = PontoonVectorEnv(num_envs=16, num_players=2)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):  # rounds end and tables autoreset within this many steps
        mask = info["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask])
        _, _, _, _, info = env.step(actions)
    env.close()
    assert len(kn.env_run.signatures) == 1, kn.env_run.signatures
    assert len(kn.env_outputs.signatures) == 1, kn.env_outputs.signatures
