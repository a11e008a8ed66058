#!/usr/bin/env bash
# Fuzzes the dump reader with libFuzzer for a given time.
#
#   Scripts/fuzz-dump-reader.sh [seconds] [extra libFuzzer options…]     (default: 60 seconds)
#
# Builds Tests/Fuzz/DumpReaderFuzzer.swift with DBBExport's sources (`swiftc -sanitize=fuzzer,address`)
# into .build-fuzz/, starts from the seed corpus of real dumps (Tests/Corpus/Seeds) and the hostile
# dumps (Tests/Corpus/HostileDumps, decompressed), and keeps what it finds in .build-fuzz/corpus.
# A crash leaves its input in .build-fuzz/ (crash-…); add it, gzip-compressed, to
# Tests/Corpus/HostileDumps so `swift test` checks it from then on.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
. Scripts/fuzz-build-dbbsql.sh
mkdir -p "$out/corpus"

echo "building the fuzzer…"
swiftc $features -sanitize=fuzzer,address -parse-as-library -module-name DBBExport -package-name DBBBuilder \
    -I "$out" -I "$deps" -I Modules/CSQLite -I Modules/CZlib \
    $(find Modules/DBBExport -name '*.swift') Tests/Fuzz/DumpReaderFuzzer.swift \
    "$out/libDBBSQL.a" $depobjs -lsqlite3 -lz -o "$out/dump-reader-fuzzer"

cp Tests/Corpus/Seeds/*.json "$out/corpus/"
for dump in Tests/Corpus/HostileDumps/*.json.gz; do
    gzip -dc "$dump" >"$out/corpus/hostile-$(basename "$dump" .json.gz).json"
done

echo "fuzzing for $seconds seconds…"
cd "$out"
./dump-reader-fuzzer corpus -max_total_time="$seconds" -max_len=262144 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@"
