#!/usr/bin/env bash
# Create (or reuse) the RLlib virtual environment `.venv-rllib`, separate from `.venv`.
#
# Why a second environment: Ray RLlib pins gymnasium exactly (ray[rllib]==2.60.0 requires
# gymnasium==1.2.2), while the main environment runs the newest gymnasium (1.4.0). One shared
# environment would hold the whole project back to Ray's gymnasium; two keep both supported
# gymnasium versions installed and tested (scripts/test.sh on .venv, scripts/test_rllib.sh here).
# torch is pinned to the CPU build like scripts/setup.sh, so no multi-GB CUDA build is pulled in.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV_RLLIB:-.venv-rllib}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  "$VENV/bin/python" -m pip install -q "torch==2.13.0" \
    || "$VENV/bin/python" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
"$VENV/bin/python" -m pip install -q -e ".[rllib,train,multiagent,dev]"
"$VENV/bin/python" - <<'PY'
import gymnasium, ray
print(f"RLlib environment ready: ray {ray.__version__}, gymnasium {gymnasium.__version__}")
PY
