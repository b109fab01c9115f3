"""What every RLlib piece needs first: the pinned Ray release and one clear error when Ray is missing.

It sits with the agents because an RLlib checkpoint plays a seat like any policy
(:mod:`agents.rllib_policy`), and the experiment tooling (:mod:`pontoon_tools.rllib`) builds on it.
"""

from __future__ import annotations

from typing import Any

RAY_VERSION = "2.60.0"
"""The Ray release the ``rllib`` extra pins and the tests run on."""

INSTALL_HINT = (
    "pip install 'pontoon-env[rllib]' (Ray RLlib pins gymnasium==1.2.2: "
    "bash scripts/setup_rllib.sh makes a separate .venv-rllib for it)"
)


class RayMissingError(ImportError):
    """Ray RLlib (or torch, which its PPO module needs) is not installed in this environment."""


def require_ray() -> Any:
    """Import and return the ``ray`` package, or raise :class:`RayMissingError` saying how to install it.

    Every entry point that needs Ray calls this first, so a missing install is one sentence naming
    the extra rather than a traceback from deep inside an import.
    """
    try:
        import ray
        import ray.rllib  # noqa: F401 - plain `ray` installs without RLlib
        import torch  # noqa: F401 - RLlib's PPO module here is a torch module
    except ImportError as error:
        raise RayMissingError(
            f"Ray RLlib {RAY_VERSION} with torch is required but not installed ({error}); {INSTALL_HINT}"
        ) from error
    return ray
