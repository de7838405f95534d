#!/usr/bin/env bash
# A development checkout's .env (git-ignored), written once: DJANGO_ENV=development and a generated
# SECRET_KEY, so `python manage.py ...` works from a plain shell as it does under make (the settings
# read .env; real environment variables win). Written only when DJANGO_ENV is development (make's
# default), never over an existing file: a production host keeps its own environment.
# Usage: scripts/write_env.sh [path]   (default: .env in the project root)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
target=${1:-.env}
if [ "${DJANGO_ENV:-}" != development ] || [ -e "$target" ]; then
  exit 0
fi
key=$("$PYTHON" -c "import secrets; print(secrets.token_urlsafe(50))")
umask 077
cat > "$target.partial" <<ENV
# Written by scripts/setup.sh for this development checkout; git-ignored. Delete it to get a new key.
# Every other setting and its default: .env.example.
DJANGO_ENV=development
SECRET_KEY=$key
ENV
mv "$target.partial" "$target"
echo "setup: wrote $target (DJANGO_ENV=development, a generated SECRET_KEY)"
