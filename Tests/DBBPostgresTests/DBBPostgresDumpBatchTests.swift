import Testing

@testable import DBBPostgres

/// How many rows a dump of PostgreSQL asks for in a table's first batch (no server needed).
struct DBBPostgresDumpBatchTests {
    @Test(
        "a small table is read in one batch; a larger one first as far as 512 KiB of disk go, at least 64 rows",
        arguments: [
            // (rows, bytes on disk, first batch)
            (0, 8_192, 1),
            (10, 8_192, 11),
            (64, 16_384, 64),
            (1_000, nil, 64),
            (1_000, 0, 64),
            (3_000, 98_304, 3_001),
            // 16,049 rows in 1,310,720 bytes: 524,288 × 16,049 / 1,310,720 = 6,419.6.
            (16_049, 1_310_720, 6_419),
            // Long values: fewer rows than 64 would fit, so 64.
            (66, 13_000_000, 64),
            (10_000_000, 500_000_000, 10_485),
            (10_000_000, 50_000_000, 50_000),
        ] as [(Int, Int?, Int)])
    func firstBatch(rows: Int, diskBytes: Int?, expected: Int) {
        #expect(TableReader.firstBatch(rows: rows, diskBytes: diskBytes) == expected)
    }
}
