#!/usr/bin/env bash
# `make run`: migrate, load the ReCAM competition, make sure an organizer exists, then serve the site
# on $HOST:$PORT with real Celery workers beside it: one for scoring, one for model jobs (it also serves
# the gpu queue: model jobs run on the CPU when no GPU worker is attached). Ctrl-C stops them all.
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
# Scoring has its own worker: tasks of ~20 ms must never wait behind an hours-long model job. Prefork
# (hard time limits hold), 2 processes for 2 cores, one message each (prefetch 1, acks_late: a killed
# process loses no task), no gossip/mingle chatter. Model jobs (cpu, gpu) get one process of their own.
$PYTHON -m celery -A tasks.app worker -l info -Q "${CELERY_SCORING_QUEUE:-scoring}" -n "scoring@%h" \
  --pool prefork --concurrency "${SCORING_CONCURRENCY:-2}" --prefetch-multiplier 1 --without-gossip --without-mingle \
  --logfile var/log/worker.log --pidfile var/worker.pid &
worker=$!
$PYTHON -m celery -A tasks.app worker -l info -Q "${CELERY_CPU_QUEUE:-cpu},${CELERY_GPU_QUEUE:-gpu},celery" -n "jobs@%h" \
  --concurrency "${JOBS_CONCURRENCY:-1}" --logfile var/log/jobs-worker.log --pidfile var/jobs-worker.pid &
jobs=$!
# The reaper (sent by beat) has a worker of its own: it must run while the scoring worker is dead or busy.
$PYTHON -m celery -A tasks.app worker -l info -Q "${CELERY_MAINTENANCE_QUEUE:-maintenance}" -n "maintenance@%h" \
  --pool solo --without-gossip --without-mingle --logfile var/log/maintenance-worker.log --pidfile var/maintenance-worker.pid &
maintenance=$!
$PYTHON -m celery -A tasks.app beat -l info --schedule var/celerybeat-schedule \
  --logfile var/log/beat.log --pidfile var/beat.pid &
beat=$!
trap 'kill $worker $jobs $maintenance $beat 2>/dev/null; wait $worker $jobs $maintenance $beat 2>/dev/null' EXIT INT TERM
echo "Site: http://$HOST:$PORT/   (worker logs: var/log/worker.log, var/log/jobs-worker.log)"
# gunicorn (a production server) with WhiteNoise serving /static/: runserver's static handler turned
# path-traversal probes into 500 pages. WEB_WORKERS sync workers (2 for 2 cores).
$PYTHON -m gunicorn config.wsgi:application --pythonpath platform --bind "$HOST:$PORT" \
  --workers "${WEB_WORKERS:-2}" --access-logfile - --error-logfile -
