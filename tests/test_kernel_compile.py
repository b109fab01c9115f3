"""The vector env's compiled entry points see one argument-type signature whatever the step (reset,
step, autoreset): numba compiles a function once per signature, so a second one (``None`` for an
array, a literal ``0`` for an ``int64``) is a second compile of the whole callee tree."""

from __future__ import annotations

import hashlib
import inspect

import numpy as np
import pytest

from pontoon_env.batched import kernel as kn
from pontoon_env.envs.vector import PontoonVectorEnv
from helpers import random_legal


def test_vector_env_entry_points_compile_one_signature():
    env = PontoonVectorEnv(num_envs=16, num_players=2)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):  # rounds end and tables autoreset within this many steps
        mask = info["action_mask"]
        actions = random_legal(mask, rng)
        _, _, _, _, info = env.step(actions)
    env.close()
    # The entry points are called from Python, so they list what they were given, cached or not.
    # env_step both starts episodes (reset) and steps them: one signature for both.
    assert len(kn.env_step.signatures) == 1, kn.env_step.signatures
    # env_outputs runs only where a table waited for Python (none here), once at most.
    assert len(kn.env_outputs.signatures) <= 1, kn.env_outputs.signatures
    # Functions called only from compiled code list a signature only when this process compiled
    # them (an empty cache, as in CI), not when their callers came from the cache.
    for entry in (kn._settle, kn._public_at, kn._reverse):
        assert len(entry.signatures) <= 1, (entry.__name__, entry.signatures)


def test_compiled_only_helpers_refuse_python_calls():
    """The kernel's helpers are compiled without a Python entry point (it shortens the first
    compile); called from Python they raise a clear error instead of crashing the interpreter."""
    for helper in (kn._rank, kn.legal, kn.apply_action):
        with pytest.raises(TypeError, match="runs only inside compiled code"):
            helper(1)


def kernel_dependency_fingerprint() -> str:
    """The hash :data:`~pontoon_env.batched.kernel.DEPENDENCY_FINGERPRINT` must equal (see there)."""
    from pontoon_env.batched import rng, state, tables
    from pontoon_env.game.actions import ActionKind, Phase
    from pontoon_env.game.hands import HandClass

    parts = []
    for module in (state, tables):
        for name in sorted(vars(module)):
            value = getattr(module, name)
            if name.isupper() and isinstance(value, (int, tuple)) and not isinstance(value, bool):
                parts.append(f"{module.__name__}.{name}={value!r}")
    for enum in (ActionKind, Phase, HandClass):
        parts.extend(f"{enum.__name__}.{member.name}={int(member)}" for member in enum)
    parts.append(inspect.getsource(rng))
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()


def test_kernel_cache_is_invalidated_by_what_it_compiles_in():
    """Numba's cache would serve the kernel compiled against old constants or an old ``rng`` after
    a change to those modules alone: the kernel carries their hash, so that such a change fails
    here until ``kernel.py`` is edited (and its cache with it)."""
    assert kn.DEPENDENCY_FINGERPRINT == kernel_dependency_fingerprint(), (
        "the kernel compiles in constants or code that changed (state, tables, rng, the enums): set "
        f"kernel.DEPENDENCY_FINGERPRINT = {kernel_dependency_fingerprint()!r} so numba compiles it afresh"
    )
