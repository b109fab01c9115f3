#!/usr/bin/env bash
# The README's main job: train a player and a banker on `pagat` (lean PPO, reinforcement learning
# alone) and a belief banker (banker_smart's stopping on beliefs learnt from showdowns), measure
# them against every baseline and the exact optimum (player) or the exact best response (banker)
# on the same deals, and write the tables and charts to results/.
#
# Run from the repository root inside the project's virtual environment:
#     bash scripts/main_job.sh
# It prints how long each phase took and records it, with the date and the machine, in
# $OUT/timings.json (`python -m pontoon_tools.timings show $OUT/timings.json` prints it again).
#
# What it writes (pontoon_tools/report.py says which file holds which table):
#   $OUT/summary.json     every number of the tables (the README's tables are generated from it:
#                         python -m pontoon_tools.report --markdown results/summary.json)
#   $OUT/report.md        the tables: player, banker, timings
#   $OUT/player.json, banker.json   the full protocols; PNG charts and text strategy charts
#
# Environment variables:
#   PLAYER_RUN   run directory of the player                 (default runs/main-player)
#   BANKER_RUN   run directory of the banker                 (default runs/main-banker)
#   OUT          results directory                           (default results)
#   PLAYER_STEPS learner decisions of the player             (default 20000000, train.py's own)
#   BANKER_STEPS learner decisions of the banker             (default 2000000)
#   BELIEF_RUN   run directory of the belief banker          (default runs/main-belief-banker)
#   BELIEF_ROUNDS rounds of showdowns the belief banker learns from (default 300000)
#   ROUNDS       paired rounds of the player's measurement   (default 3000000)
#   BANKER_ROUNDS paired rounds of the banker's measurement  (default 20000; banker_smart is slow)
#   EVAL_SEED    seed of the measured deals; training evaluates on seed+10000 (default 1)
#   PYTHON       interpreter                                 (default python)
#   TRAIN_ARGS   extra train.py arguments for both trainings (default none)
set -euo pipefail
cd "$(dirname "$0")/.."

PLAYER_RUN=${PLAYER_RUN:-runs/main-player}
BANKER_RUN=${BANKER_RUN:-runs/main-banker}
OUT=${OUT:-results}
# train.py's own default for a lean_ppo player: 20,000,000 took seeds 0-3 to 0.005-0.017 below the
# optimum, every interval inside the 0.03 target (10,000,000: 0.021-0.034; docs/training.md)
PLAYER_STEPS=${PLAYER_STEPS:-20000000}
BANKER_STEPS=${BANKER_STEPS:-2000000}
ROUNDS=${ROUNDS:-3000000}
BANKER_ROUNDS=${BANKER_ROUNDS:-20000}
BELIEF_RUN=${BELIEF_RUN:-runs/main-belief-banker}
BELIEF_ROUNDS=${BELIEF_ROUNDS:-300000}
EVAL_SEED=${EVAL_SEED:-1}
PYTHON=${PYTHON:-python}
read -r -a TRAIN_EXTRA <<< "${TRAIN_ARGS:-}"

now() { "$PYTHON" -c 'import time; print(f"{time.time():.3f}")'; }
seconds() { "$PYTHON" -c "print(f'{$2 - $1:.1f}')"; }
mkdir -p "$OUT"
started=$(now)

echo "== training a player on pagat (train.py defaults, $PLAYER_STEPS steps) -> $PLAYER_RUN"
"$PYTHON" train.py --rules pagat --role player --timesteps "$PLAYER_STEPS" --out "$PLAYER_RUN" \
    ${TRAIN_EXTRA[@]+"${TRAIN_EXTRA[@]}"}
player_trained=$(now)

echo "== training a banker on pagat (one threshold player, $BANKER_STEPS steps) -> $BANKER_RUN"
"$PYTHON" train.py --rules pagat --role banker --seats 1 --timesteps "$BANKER_STEPS" --out "$BANKER_RUN" \
    ${TRAIN_EXTRA[@]+"${TRAIN_EXTRA[@]}"}
banker_trained=$(now)

echo "== training a belief banker on pagat (one threshold player, $BELIEF_ROUNDS rounds of showdowns) -> $BELIEF_RUN"
"$PYTHON" train.py --rules pagat --role banker --algo belief --seats 1 --timesteps "$BELIEF_ROUNDS" \
    --eval-rounds 0 --out "$BELIEF_RUN"
belief_trained=$(now)

echo "== measuring both on the same deals ($ROUNDS player rounds, $BANKER_ROUNDS banker rounds, seed $EVAL_SEED)"
"$PYTHON" -m pontoon_tools.report --player "$PLAYER_RUN" --banker "$BANKER_RUN" --belief-banker "$BELIEF_RUN" \
    --rounds "$ROUNDS" --banker-rounds "$BANKER_ROUNDS" --seed "$EVAL_SEED" --out "$OUT" > /dev/null
measured=$(now)

"$PYTHON" -m pontoon_tools.timings write "$OUT/timings.json" \
    "train_player=$(seconds "$started" "$player_trained")" "train_banker=$(seconds "$player_trained" "$banker_trained")" \
    "train_belief_banker=$(seconds "$banker_trained" "$belief_trained")" "measure=$(seconds "$belief_trained" "$measured")"
# The timings go into the summary and the report too (no measurement is repeated).
"$PYTHON" -m pontoon_tools.report --timings "$OUT/timings.json" --out "$OUT"
echo "tables: $OUT/report.md (numbers: $OUT/summary.json); charts: $OUT/*.png; timings: $OUT/timings.json"
