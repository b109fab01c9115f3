#!/usr/bin/env bash
# The README's main job: train a player on `pagat` with the default settings, then benchmark it
# against the baselines on the same cards and write the tables and charts to results/.
#
# Run from the repository root inside the project's virtual environment:
#     bash scripts/main_job.sh
# It takes about 7 minutes on 2 CPU cores (5-5.5 minutes of training, 1.5 of evaluation).
#
# Environment variables:
#   RUN          run directory of the player               (default runs/main-player)
#   OUT          results directory                          (default results)
#   ROUNDS       evaluation rounds per policy               (default 20000)
#   EVAL_SEED    evaluation seed; training evaluates on seed+10000, so these are fresh deals (default 1)
#   PYTHON       interpreter                                (default python)
#   WITH_BANKER  1 to also train a banker (--role banker) and compare it with the threshold bankers
#                in $OUT/banker (about 8 more minutes; not part of the 10-minute budget)
set -euo pipefail
cd "$(dirname "$0")/.."

RUN=${RUN:-runs/main-player}
OUT=${OUT:-results}
ROUNDS=${ROUNDS:-20000}
EVAL_SEED=${EVAL_SEED:-1}
PYTHON=${PYTHON:-python}
WITH_BANKER=${WITH_BANKER:-0}
# The best simple threshold player against banker_threshold, by the paired grid in docs/training.md.
BEST_THRESHOLD=threshold

started=$(date +%s)
mkdir -p "$OUT"

echo "== training a player on pagat (defaults) -> $RUN"
"$PYTHON" train.py --rules pagat --role player --out "$RUN"
trained=$(date +%s)

echo "== evaluating $RUN/model.zip against $BEST_THRESHOLD, random and the exact optimum on the same deals" \
     "($ROUNDS rounds, seed $EVAL_SEED)"
"$PYTHON" evaluate.py --run "$RUN" --compare "$RUN/model.zip" "$BEST_THRESHOLD" random --optimality-gap \
    --rounds "$ROUNDS" --seed "$EVAL_SEED" --out "$OUT"
finished=$(date +%s)
echo "player: training $((trained - started)) s, evaluation $((finished - trained)) s, total $((finished - started)) s"

if [[ "$WITH_BANKER" == "1" ]]; then
    BANKER_RUN=${BANKER_RUN:-runs/main-banker}
    echo "== training a banker on pagat (defaults) -> $BANKER_RUN"
    "$PYTHON" train.py --rules pagat --role banker --out "$BANKER_RUN"
    echo "== evaluating $BANKER_RUN/model.zip against the threshold bankers on the same deals"
    "$PYTHON" evaluate.py --run "$BANKER_RUN" --compare "$BANKER_RUN/model.zip" banker_threshold casino_dealer \
        banker_smart --rounds "$ROUNDS" --seed "$EVAL_SEED" --out "$OUT/banker"
    echo "banker: $(( $(date +%s) - finished )) s"
fi

echo "tables: $OUT/report.txt, $OUT/comparison.csv, $OUT/summary.csv; charts: $OUT/*.png"
