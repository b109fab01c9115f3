#!/usr/bin/env bash
# Set up the virtual environment, then run the whole test suite on both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV="${VENV:-.venv}"
"$VENV/bin/python" -m pytest -n 2 "$@"
