#!/usr/bin/env bash
# `make baselines`: train every baseline on the trial sets (de-duplicated against the test and dev sets),
# score them on the dev sets with the one scorer, write var/baselines/report.md, and enter each one on
# the practice leaderboards as a baseline row. Reruns resume: finished trainings are reused.
# Settings (env): RECAM_DATA_DIR, XSUM_PATH, BASELINES_DIR (var/baselines),
# READERS ("ga att att-gloss encoder encoder-mlm lm-zs lm"; lm-zs = the SmolLM2 LM zero-shot, lm = LoRA
# fine-tuned; add gemma-zs / gemma for Gemma 3 270M, zero-shot / LoRA, at GEMMA_MODEL (default: the set-up's
# file, baselines.lm_loading.gemma_model_path()), LM_BUDGET_S (1500 per subtask), LM_ARTICLE_TOKENS (128), LM_THREADS (1) and LM_LORA_LAYERS (unset: the
# top quarter of the layers; 0 = all) for the fine-tuning, LM_DTYPE (float32 on CPU) for all LM runs), ADAPT_SECONDS (1500, the MLM stage of encoder-mlm,
# shared by both subtasks), ENCODER_MLM_BUDGET_S (900 per subtask),
# READER_EPOCHS (4), READER_MAX_TOKENS (250), READER_BUDGET_S (720 per run), ENCODER_BUDGET_S (3600),
# SEED (13), READER_CENTER_QUERY (1; 0 trains the readers without query centring, the paper-literal
# scoring, see docs/reference/baselines.md), BASELINES_SUBMIT (1; 0 skips the leaderboard step).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
DATA=${RECAM_DATA_DIR:-../shared/data/recam}
OUT=${BASELINES_DIR:-var/baselines}
READERS=${READERS:-"ga att att-gloss encoder encoder-mlm lm-zs lm"}
XSUM=${XSUM_PATH:-../shared/data/xsum/xsum_test_1k.jsonl}
SEED=${SEED:-13}
export NLTK_DATA=${NLTK_DATA:-$PWD/var/nltk_data} HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
TRIAL_1=$DATA/trail_data/Task_1_Imperceptibility.jsonl
TRIAL_2=$DATA/trail_data/Task_2_Nonspecificity.jsonl
DEV_1=$DATA/training_data/Task_1_dev.jsonl
DEV_2=$DATA/training_data/Task_2_dev.jsonl
EXCLUDE=()
for f in "$DATA"/test_data/Task_*_test.jsonl "$DEV_1" "$DEV_2"; do [ -f "$f" ] && EXCLUDE+=(--exclude "$f"); done
mkdir -p "$OUT/logs" "$OUT/models" "$OUT/predictions"
declare -A NAME=([ga]="GA Reader" [att]="Attentive Reader" [att-gloss]="Attentive Reader + gloss" [encoder]="MiniLM encoder"
  [encoder-mlm]="MiniLM encoder (masked word)" [lm-zs]="SmolLM2 LM (zero-shot)" [lm]="SmolLM2 LM (LoRA)"
  [gemma-zs]="Gemma 3 270M LM (zero-shot)" [gemma]="Gemma 3 270M LM (LoRA)")
if [[ " $READERS " == *" gemma"* ]]; then
  GEMMA=${GEMMA_MODEL:-$($PYTHON -c 'from baselines.lm_loading import gemma_model_path; print(gemma_model_path())')}
  [ -f "$GEMMA" ] || { echo "Gemma 3 270M not found at $GEMMA: run make setup (or set GEMMA_MODEL)" >&2; exit 1; }
fi

if [ "${BASELINES_SUBMIT:-1}" = 1 ]; then
  # the board must exist before hours of training end in its first recam_submit (a clone where `make run`
  # never ran has no tables): migrate and load the competition first, both idempotent
  $PYTHON manage.py migrate --noinput -v 0
  $PYTHON manage.py recam_competition --data "$DATA" > /dev/null
fi

if [[ " $READERS " == *" encoder-mlm "* ]]; then
  # stage 1 of encoder-mlm, once for both subtasks: MLM on XSum documents + trial articles (never dev/test)
  echo "== adapting the encoder (masked-language modelling, ${ADAPT_SECONDS:-1500} s)" >&2
  TEXTS=()
  [ -f "$XSUM" ] && TEXTS+=(--text "$XSUM")
  for f in "$DATA"/trail_data/Task_*.jsonl; do TEXTS+=(--text "$f"); done
  nice -n 10 $PYTHON -m baselines adapt "${TEXTS[@]}" "${EXCLUDE[@]}" --output "$OUT/models/encoder-mlm-adapted" \
    --seconds "${ADAPT_SECONDS:-1500}" --seed "$SEED" --threads "${ENCODER_THREADS:-1}" --quiet \
    > "$OUT/logs/encoder-mlm-adapt.log" 2>&1 || { echo "adaptation failed: see $OUT/logs/encoder-mlm-adapt.log" >&2; exit 1; }
fi

for n in 1 2; do
  trial_var=TRIAL_$n
  for reader in $READERS; do
    run=$reader-st$n
    if [[ "$reader" == *-zs ]] && [ "$n" = 2 ]; then
      # zero-shot: one model, trained on nothing; predicted once (X-zs-st1), copied for the report's columns
      rm -rf "$OUT/predictions/$reader-st2" && cp -r "$OUT/predictions/$reader-st1" "$OUT/predictions/$reader-st2"
      continue
    fi
    echo "== training $run" >&2
    reader_args=(--reader "$reader" --train "${!trial_var}" "${EXCLUDE[@]}")
    if [ "$reader" = lm-zs ]; then
      reader_args=(--reader lm --zero-shot)
      extra=()
    elif [ "$reader" = gemma-zs ]; then
      reader_args=(--reader lm --zero-shot --lm-model "$GEMMA")
      extra=()
    elif [ "$reader" = lm ] || [ "$reader" = gemma ]; then
      extra=(--time-budget "${LM_BUDGET_S:-1500}" --article-tokens "${LM_ARTICLE_TOKENS:-128}" --threads "${LM_THREADS:-1}")
      if [ "$reader" = gemma ]; then reader_args=(--reader lm --lm-model "$GEMMA" --train "${!trial_var}" "${EXCLUDE[@]}"); fi
    elif [ "$reader" = encoder ]; then
      extra=(--time-budget "${ENCODER_BUDGET_S:-3600}")
    elif [ "$reader" = encoder-mlm ]; then
      extra=(--time-budget "${ENCODER_MLM_BUDGET_S:-900}" --encoder-model "$OUT/models/encoder-mlm-adapted"
        --threads "${ENCODER_THREADS:-1}")
    else
      extra=(--epochs "${READER_EPOCHS:-4}" --max-length "${READER_MAX_TOKENS:-250}" --time-budget "${READER_BUDGET_S:-720}")
      if [ "${READER_CENTER_QUERY:-1}" = 1 ]; then extra+=(--center-query); else extra+=(--no-center-query); fi
    fi
    nice -n 10 $PYTHON -m baselines train "${reader_args[@]}" \
      --output "$OUT/models/$run" --seed "$SEED" "${extra[@]}" --quiet > "$OUT/logs/$run.log" 2>&1 \
      || { echo "training $run failed: see $OUT/logs/$run.log" >&2; exit 1; }
    for m in 1 2; do
      dev_var=DEV_$m
      nice -n 10 $PYTHON -m baselines predict --model "$OUT/models/$run" --input "${!dev_var}" \
        --output "$OUT/predictions/$run/subtask$m.csv"
    done
  done
done
$PYTHON -m baselines report --predictions-dir "$OUT/predictions" --dev1 "$DEV_1" --dev2 "$DEV_2" --output "$OUT/report.md"

if [ "${BASELINES_SUBMIT:-1}" = 1 ]; then
  for run_dir in "$OUT"/predictions/*-st[12]; do
    run=$(basename "$run_dir"); reader=${run%-st?}; n=${run##*-st}
    [[ "$run" == *-zs-st2 ]] && continue  # the copy of X-zs-st1: one board row for a zero-shot LM
    $PYTHON -m baselines bundle --subtask1 "$run_dir/subtask1.csv" --subtask2 "$run_dir/subtask2.csv" --output "$run_dir/submission.zip"
    trained=(--trained-on "$n"); what="trained on the Subtask $n trial set"
    if [[ "$reader" == *-zs ]]; then trained=(); what="zero-shot, trained on nothing"; fi
    $PYTHON manage.py recam_submit --team "${NAME[$reader]}" --phase practice --baseline \
      "${trained[@]}" --system-name "$run" --description "baseline $run, $what" \
      "$run_dir/submission.zip"
  done
fi
