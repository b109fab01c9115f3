"""The batched engine: N Pontoon tables as arrays, stepped together in compiled code.

* :mod:`~pontoon_env.batched.tables`: the rules as arrays, generated from the rule code;
* :mod:`~pontoon_env.batched.state`: the tables' state as a structure of arrays;
* :mod:`~pontoon_env.batched.kernel`: the compiled round, native seats, observations, episodes;
* :mod:`~pontoon_env.batched.engine`: :class:`BatchedEngine`, the Python face of it;
* :mod:`~pontoon_env.batched.policies`: scripted policies as native seats, the optimal table;
* :mod:`~pontoon_env.batched.rng`: counter-based streams shared with the reference path;
* :mod:`~pontoon_env.batched.evaluate`: batched evaluation, per-round equal to the reference.

The Gymnasium vector environment is :mod:`pontoon_env.envs.vector`; docs: ``docs/batched.md``.
"""

from pontoon_env.batched.engine import BatchedEngine, NotNativeError, native_rules
from pontoon_env.batched.rng import CounterGenerator, deal_orders
from pontoon_env.batched.tables import NATIVE_PRESETS

__all__ = ["NATIVE_PRESETS", "BatchedEngine", "CounterGenerator", "NotNativeError", "deal_orders", "native_rules"]
