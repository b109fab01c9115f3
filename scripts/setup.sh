#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment and install everything the main job and the
# tests need. torch is pinned to a CPU build: `torch==2.13.0` where the local index holds it, else
# PyTorch's CPU wheel index, so that no multi-GB CUDA build is pulled in.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
if ! "$VENV/bin/python" -c "import torch" 2>/dev/null; then
  "$VENV/bin/python" -m pip install -q "torch==2.13.0" \
    || "$VENV/bin/python" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
"$VENV/bin/python" -m pip install -q -e ".[all,dev]"
echo "virtual environment ready: $VENV"
