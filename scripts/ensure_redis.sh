#!/usr/bin/env bash
# Make sure a Redis answers at REDIS_URL's host:port (default 127.0.0.1:6379); start a local one if not.
set -euo pipefail
url=${REDIS_URL:-redis://127.0.0.1:6379/0}
hostport=${url#redis://}; hostport=${hostport%%/*}; hostport=${hostport##*@}
host=${hostport%%:*}; port=${hostport##*:}
[ "$port" = "$host" ] && port=6379
if redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1; then exit 0; fi
case $host in 127.*|localhost|::1) ;; *) echo "Redis at $host:$port does not answer" >&2; exit 1 ;; esac
command -v redis-server >/dev/null || { apt-get update -qq; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server; }
mkdir -p var/redis
echo "starting a local redis-server on $host:$port"
redis-server --daemonize yes --bind "$host" --port "$port" --save "" --appendonly no \
  --dir "$PWD/var/redis" --logfile "$PWD/var/redis/redis.log"
for _ in $(seq 50); do redis-cli -h "$host" -p "$port" ping >/dev/null 2>&1 && exit 0; sleep 0.1; done
echo "redis-server did not start; see var/redis/redis.log" >&2; exit 1
