# Sourced by the fuzz scripts, from the repository's root: builds DBBSQL as a static library into .build-fuzz/
# and sets what a fuzzer's own build needs.
#   out       the folder of the fuzzers, their corpora and what they find (.build-fuzz)
#   features  the upcoming features Package.swift sets for the library targets (their imports need them)
#   deps      the modules of swift-log and swift-metrics, which DBBSQL imports, from the package's debug build
#   depobjs   their objects, to link
out=.build-fuzz
mkdir -p "$out"
features="-enable-upcoming-feature InternalImportsByDefault -enable-upcoming-feature MemberImportVisibility"
deps=.build/debug/Modules
if ! ls .build/debug/Logging.build/*.o .build/debug/CoreMetrics.build/*.o > /dev/null 2>&1; then
    swift build --target DBBSQL
fi
depobjs="$(ls .build/debug/Logging.build/*.o .build/debug/CoreMetrics.build/*.o)"
echo "building DBBSQL for the fuzzer…"
swiftc $features -parse-as-library -emit-module -emit-library -static -module-name DBBSQL -package-name DBBBuilder \
    -I Modules/CSQLite -I "$deps" -emit-module-path "$out/DBBSQL.swiftmodule" -o "$out/libDBBSQL.a" \
    $(find Modules/DBBSQL -name '*.swift')
