#!/usr/bin/env bash
# Builds the DocC documentation of every library module and fails on any warning.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
for target in DBBSQL DBBSchema DBBQuery DBBObjects DBBExport DBBMacros DBBBuilder DBBPostgres; do
    log=$(mktemp)
    swift package --scratch-path .build-docs generate-documentation --target "$target" >"$log" 2>&1 || status=1
    warnings=$(grep -c 'warning:' "$log" || true)
    echo "$target: $warnings warning(s)"
    if [ "$warnings" != 0 ]; then grep 'warning:' "$log"; status=1; fi
    rm -f "$log"
done
exit $status
