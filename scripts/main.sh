#!/usr/bin/env bash
# Set up the virtual environment, then run the main job (scripts/main_job.sh): a default training
# run of a player, a banker and a belief banker on `pagat` against scripted seats, and their
# evaluation against the baselines (results/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
VENV="${VENV:-.venv}"
source "$VENV/bin/activate"
bash scripts/main_job.sh "$@"
