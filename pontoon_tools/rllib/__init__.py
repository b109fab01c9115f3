"""Ray RLlib for the whole Pontoon table: every seat an agent, a banker policy and player policies.

The pieces, each in its own module so that the ones without Ray stay importable without it:

* :mod:`pontoon_tools.rllib.env`: :class:`~pontoon_tools.rllib.env.PontoonMultiAgentEnv`, an
  RLlib ``MultiAgentEnv`` over the PettingZoo AEC table whose agent ids say the *role* of each
  decision (``banker_2``, ``player_0``), so a policy mapping can send banker decisions to one
  policy and player decisions to another even though the bank moves between seats;
* :mod:`pontoon_tools.rllib.module`: the PPO ``RLModule`` that applies the action mask;
* :mod:`pontoon_tools.rllib.trainer`: the PPO configuration, the training loop, the run folder;
* :mod:`agents.rllib_policy`: a saved checkpoint as a :class:`agents.base.Policy` for any seat.

Ray RLlib is an optional extra (``pip install 'pontoon-env[rllib]'``). It pins gymnasium exactly
(``ray[rllib]==2.60.0`` needs ``gymnasium==1.2.2``), so it lives in its own virtual environment,
``.venv-rllib`` (``bash scripts/setup_rllib.sh``); see ``docs/rllib.md``.
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
