#!/usr/bin/env bash
# Load run of the example server: for each reader count given (default: 0 and 4), a fresh database seeded with
# 500 books, 50 members and 200 loans, then wrk's mixed workload (mixed.lua) on loopback for DURATION seconds.
# Needs wrk (Debian's package: apt-get install -y wrk). Prints one RESULT line per reader count.
# CONFIGURATION=debug uses the debug build (default: release); BINARY=path runs that library-server, unbuilt.
# LIBRARY_POSTGRES_URL=postgres://... runs on PostgreSQL (one host or libpq's host list): each run gets a schema
# of its own, made and dropped with psql (the password in the URL, PGPASSWORD or ~/.pgpass).
# THREADS (default 2) and TIMEOUT (wrk's, default 2s) pass to wrk; RECORDS=path has mixed.lua write each request to
# path.<thread> (with THREADS equal to CONNECTIONS).
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=${DURATION:-20}
CONNECTIONS=${CONNECTIONS:-16}
PORT=${PORT:-8089}
TIMEOUT=${TIMEOUT:-2s}
THREADS=${THREADS:-2}
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
CONFIGURATION=${CONFIGURATION:-release}
if [ -n "${BINARY:-}" ]; then
    binary=$BINARY
else
    swift build -c "$CONFIGURATION" --product library-server >/dev/null
    binary="$(swift build -c "$CONFIGURATION" --show-bin-path)/library-server"
fi
folder=$(mktemp -d)
postgres=${LIBRARY_POSTGRES_URL:-}
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
schema=""
# psql takes the URL without the library's own parameters, and makes the schema on the primary.
psql_url="${postgres%%\?*}?target_session_attrs=read-write"
cleanup() {
    rm -rf "$folder"
    if [ -n "$schema" ]; then psql -q "$psql_url" -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null || true; fi
}
trap cleanup EXIT

for count in ${*:-0 4}; do
    rm -f "$folder"/library.sqlite*
    server_url=""
    if [ -n "$postgres" ]; then
        schema="library_load_$$_$count"
        psql -q "$psql_url" -c "CREATE SCHEMA $schema" >/dev/null
        case "$postgres" in *\?*) server_url="$postgres&schema=$schema" ;; *) server_url="$postgres?schema=$schema" ;; esac
    fi
    LIBRARY_DATABASE="$folder/library.sqlite" LIBRARY_POSTGRES_URL=$server_url LIBRARY_READERS=$count \
        LIBRARY_PORT=$PORT LIBRARY_LOG_LEVEL=warning "$binary" &
    server=$!
    for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
    post() { curl -sf -X POST -H 'Content-Type: application/json' -d "$2" "http://127.0.0.1:$PORT$1" >/dev/null; }
    for i in $(seq 500); do post /books "{\"title\":\"Book $i\",\"author\":\"Author $((i % 37))\",\"year\":$((1900 + i % 120))}"; done
    for i in $(seq 50); do post /members "{\"name\":\"Member $i\",\"email\":\"m$i@example.org\"}"; done
    for i in $(seq 200); do post /loans "{\"bookID\":$i,\"memberID\":$((1 + i % 50))}"; done
    echo "readers=$count"
    wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout "$TIMEOUT" --latency -s load/mixed.lua "http://127.0.0.1:$PORT" | grep -E "RESULT|Latency|Requests/sec|Non-2xx|Socket errors"
    kill -TERM $server
    wait $server
    if [ -n "$schema" ]; then psql -q "$psql_url" -c "DROP SCHEMA $schema CASCADE" >/dev/null; schema=""; fi
done
