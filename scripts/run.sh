#!/usr/bin/env bash
# `make run`: migrate, load the ReCAM competition, make sure an organizer exists, then serve the site
# on $HOST:$PORT with a real Celery worker beside it (it also serves the gpu queue: model jobs run on the
# CPU when no GPU worker is attached). Ctrl-C stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
HOST=${HOST:-127.0.0.1}
PORT=${PORT:-8000}
mkdir -p var/log
$PYTHON manage.py migrate --noinput
if [ -d "$RECAM_DATA_DIR" ]; then
  $PYTHON manage.py recam_competition --data "$RECAM_DATA_DIR"
else
  echo "RECAM_DATA_DIR=$RECAM_DATA_DIR does not exist: the competition is created without test sets."
  echo "Put the official ReCAM files there (see README: Data) and run 'make run' again."
  $PYTHON manage.py recam_competition --data "$RECAM_DATA_DIR" || true
fi
$PYTHON manage.py recam_organizer
$PYTHON manage.py collectstatic --noinput -v 0
$PYTHON -m celery -A tasks.app worker -l info -Q "${CELERY_SCORING_QUEUE:-scoring},${CELERY_CPU_QUEUE:-cpu},${CELERY_GPU_QUEUE:-gpu},celery" --concurrency 2 \
  --logfile var/log/worker.log --pidfile var/worker.pid &
worker=$!
$PYTHON -m celery -A tasks.app beat -l info --schedule var/celerybeat-schedule \
  --logfile var/log/beat.log --pidfile var/beat.pid &
beat=$!
trap 'kill $worker $beat 2>/dev/null; wait $worker $beat 2>/dev/null' EXIT INT TERM
echo "Site: http://$HOST:$PORT/   (worker log: var/log/worker.log)"
$PYTHON manage.py runserver "$HOST:$PORT" --noreload
