#!/usr/bin/env bash
# Runs the crash tests with many more SIGKILL rounds than `swift test` does.
#
#   Scripts/crash-test.sh [rounds]      (default: 200)
#
# Each round kills a child process at a random point: one that saves batches of objects through
# DBBManager (DBBObjectsCrashTests), and `dbb-backup restore` into a new path and over a crashed WAL
# database (RestoreCrashTests, `rounds` kills of each kind); the concurrent cold start of two processes
# on one new file runs `rounds` times too.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${1:-200}"
swift build --build-tests
DBB_CRASH_ROUNDS="$rounds" swift test --skip-build \
    --filter 'DBBObjectsCrashTests|RestoreCrashTests'
