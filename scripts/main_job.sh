#!/usr/bin/env bash
# The README's main job: train a player on `pagat` with the default settings, then benchmark it
# against the baselines on the same cards and write the tables and charts to results/.
#
# Run from the repository root inside the project's virtual environment:
#     bash scripts/main_job.sh
# It prints how long each phase took and records it, with the date and the machine, in
# $OUT/timings.json (`python -m pontoon_tools.timings show $OUT/timings.json` prints it again).
#
# Environment variables:
#   RUN          run directory of the player               (default runs/main-player)
#   OUT          results directory                          (default results)
#   ROUNDS       evaluation rounds per policy               (default 20000)
#   EVAL_SEED    evaluation seed; training evaluates on seed+10000, so these are fresh deals (default 1)
#   PYTHON       interpreter                                (default python)
#   TRAIN_ARGS   extra train.py arguments (e.g. "--timesteps 20000" for a quick try; default none)
#   EVAL_ARGS    extra evaluate.py arguments (default none)
#   WITH_BANKER  1 to also train a banker (--role banker) and compare it with the threshold bankers
#                in $OUT/banker (timed as the phases train_banker and evaluate_banker)
set -euo pipefail
cd "$(dirname "$0")/.."

RUN=${RUN:-runs/main-player}
OUT=${OUT:-results}
ROUNDS=${ROUNDS:-20000}
EVAL_SEED=${EVAL_SEED:-1}
PYTHON=${PYTHON:-python}
WITH_BANKER=${WITH_BANKER:-0}
read -r -a TRAIN_EXTRA <<< "${TRAIN_ARGS:-}"
read -r -a EVAL_EXTRA <<< "${EVAL_ARGS:-}"
# The best simple threshold player against banker_threshold, by the paired grid in docs/training.md.
BEST_THRESHOLD=threshold

now() { "$PYTHON" -c 'import time; print(f"{time.time():.3f}")'; }
seconds() { "$PYTHON" -c "print(f'{$2 - $1:.1f}')"; }
mkdir -p "$OUT"
started=$(now)

echo "== training a player on pagat (defaults) -> $RUN"
"$PYTHON" train.py --rules pagat --role player --out "$RUN" ${TRAIN_EXTRA[@]+"${TRAIN_EXTRA[@]}"}
trained=$(now)

echo "== evaluating $RUN/model.zip against $BEST_THRESHOLD, random and the exact optimum on the same deals" \
     "($ROUNDS rounds, seed $EVAL_SEED)"
"$PYTHON" evaluate.py --run "$RUN" --compare "$RUN/model.zip" "$BEST_THRESHOLD" random --optimality-gap \
    --rounds "$ROUNDS" --seed "$EVAL_SEED" --out "$OUT" ${EVAL_EXTRA[@]+"${EVAL_EXTRA[@]}"}
finished=$(now)
phases=("train=$(seconds "$started" "$trained")" "evaluate=$(seconds "$trained" "$finished")")

if [[ "$WITH_BANKER" == "1" ]]; then
    BANKER_RUN=${BANKER_RUN:-runs/main-banker}
    echo "== training a banker on pagat (defaults) -> $BANKER_RUN"
    "$PYTHON" train.py --rules pagat --role banker --out "$BANKER_RUN" ${TRAIN_EXTRA[@]+"${TRAIN_EXTRA[@]}"}
    banker_trained=$(now)
    echo "== evaluating $BANKER_RUN/model.zip against the threshold bankers on the same deals"
    "$PYTHON" evaluate.py --run "$BANKER_RUN" --compare "$BANKER_RUN/model.zip" banker_threshold casino_dealer \
        banker_smart --rounds "$ROUNDS" --seed "$EVAL_SEED" --out "$OUT/banker" ${EVAL_EXTRA[@]+"${EVAL_EXTRA[@]}"}
    banker_finished=$(now)
    phases+=("train_banker=$(seconds "$finished" "$banker_trained")"
             "evaluate_banker=$(seconds "$banker_trained" "$banker_finished")")
fi

"$PYTHON" -m pontoon_tools.timings write "$OUT/timings.json" "${phases[@]}"
echo "tables: $OUT/report.txt, $OUT/comparison.csv, $OUT/summary.csv; charts: $OUT/*.png; timings: $OUT/timings.json"
