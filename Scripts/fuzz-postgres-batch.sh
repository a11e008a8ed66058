#!/usr/bin/env bash
# Fuzzes the decoding of the rows a PostgreSQL dump receives (records and arrays of columns in PostgreSQL's
# binary format) with libFuzzer for a given time.
#
#   Scripts/fuzz-postgres-batch.sh [seconds] [extra libFuzzer options…]     (default: 60 seconds)
#
# Builds Tests/Fuzz/PostgresBatchFuzzer.swift with DBBPostgres's Dump/RecordDecoder.swift and
# Dump/FieldBatch.swift (`swiftc -sanitize=fuzzer,address`) into .build-fuzz/, and keeps what it finds in
# .build-fuzz/postgres-corpus. A crash leaves its input in .build-fuzz/ (crash-…).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true
. Scripts/fuzz-build-dbbsql.sh
mkdir -p "$out/postgres-corpus"

echo "building the fuzzer…"
swiftc $features -sanitize=fuzzer,address -parse-as-library -module-name DBBPostgres -package-name DBBBuilder \
    -I "$out" -I "$deps" -I Modules/CSQLite \
    Modules/DBBPostgres/Dump/RecordDecoder.swift Modules/DBBPostgres/Dump/FieldBatch.swift \
    Tests/Fuzz/PostgresBatchFuzzer.swift "$out/libDBBSQL.a" $depobjs -lsqlite3 -o "$out/postgres-batch-fuzzer"

# Seeds: a record of an integer, a text and a NULL; and two arrays of one int8 element each.
printf '\x00\x02\x00\x00\x26\x00\x00\x00\x03\x00\x00\x00\x14\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x07\x00\x00\x00\x19\x00\x00\x00\x02hi\x00\x00\x00\x19\xff\xff\xff\xff' \
    >"$out/postgres-corpus/record"
array='\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x14\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x2a'
printf "\\x01\\x01\\x01$array$array" >"$out/postgres-corpus/arrays"

echo "fuzzing for $seconds seconds…"
cd "$out"
./postgres-batch-fuzzer postgres-corpus -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 "$@"
