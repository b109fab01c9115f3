#!/usr/bin/env bash
# The RLlib path's tests in its own environment (.venv-rllib, gymnasium pinned by Ray; see
# scripts/setup_rllib.sh for why it is separate): the environment, PettingZoo, encoding and
# hidden-information tests again on Ray's gymnasium, then the RLlib tests, which train for two
# iterations on two cores, save, reload and score the checkpoint through evaluate.py, and join a
# `ray start --head` on loopback by --address. --dist loadgroup keeps the tests that share one
# training run on one worker, so it trains once.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_rllib.sh
VENV="${VENV_RLLIB:-.venv-rllib}"
"$VENV/bin/python" -m pytest -n 2 --dist loadgroup -p no:cacheprovider \
  tests/test_env.py tests/test_pettingzoo.py tests/test_encoding.py tests/test_hidden_info.py \
  tests/test_rllib_errors.py tests/test_rllib_cli.py tests/test_rllib.py tests/test_rllib_folders.py \
  tests/test_rllib_evaluate_rules.py "$@"
