#!/usr/bin/env bash
# Set up the virtual environment, then run the main job: a short default training run of a player
# on `pagat` against scripted seats, and its evaluation against the baselines (results/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV="${VENV:-.venv}"
source "$VENV/bin/activate"
bash scripts/main_job.sh "$@"
