"""Ray RLlib for the whole Pontoon table: every seat an agent, a banker policy and player policies.

The pieces, each in its own module so that the ones without Ray stay importable without it:

* :mod:`pontoon_tools.rllib.env`: :class:`~pontoon_tools.rllib.env.PontoonMultiAgentEnv`, an
  RLlib ``MultiAgentEnv`` over the PettingZoo AEC table whose agent ids say the *role* of each
  decision (``banker_2``, ``player_0``), so a policy mapping can send banker decisions to one
  policy and player decisions to another even though the bank moves between seats;
* :mod:`agents.rllib_module`: the PPO ``RLModule`` that applies the action mask (with the agents,
  since a saved checkpoint needs it to play a seat);
* :mod:`pontoon_tools.rllib.trainer`: the PPO configuration, the training loop, the run folder;
* :mod:`agents.rllib_policy`: a saved checkpoint as a :class:`agents.base.Policy` for any seat.

Ray RLlib is an optional extra (``pip install 'pontoon-env[rllib]'``). It pins gymnasium exactly
(``ray[rllib]==2.60.0`` needs ``gymnasium==1.2.2``), so it lives in its own virtual environment,
``.venv-rllib`` (``bash scripts/setup_rllib.sh``); see ``docs/rllib.md``.
"""

from __future__ import annotations

from agents.rllib_support import INSTALL_HINT, RAY_VERSION, RayMissingError, require_ray

__all__ = ["INSTALL_HINT", "RAY_VERSION", "RayMissingError", "require_ray"]
