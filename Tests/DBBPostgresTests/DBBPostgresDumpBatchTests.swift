import Testing

@testable import DBBPostgres

/// How many rows a dump of PostgreSQL asks for in a table's first batch (no server needed).
struct DBBPostgresDumpBatchTests {
    @Test(
        "a small table is read in one batch; a larger one first as far as 1 MiB goes, at least 64 rows",
        arguments: [
            // (rows, bytes on disk, columns, first batch)
            (0, 8_192, 2, 1),
            (10, 8_192, 2, 11),
            (64, 16_384, 2, 64),
            (1_000, nil, 2, 64),
            (1_000, 0, 2, 64),
            (3_000, 98_304, 2, 3_001),
            // 16,049 rows of 7 columns in 1,310,720 bytes: 1,048,576 / (81.67 + 7 × 20) = 4,730.3.
            (16_049, 1_310_720, 7, 4_730),
            // Long values: fewer rows than 64 would fit, so 64.
            (66, 13_000_000, 2, 64),
            // Many columns, mostly NULL (a bit each on disk): the batch's 20 bytes a field count.
            (10_000, 1_600_000, 1_000, 64),
            (10_000_000, 500_000_000, 4, 8_065),
            (10_000_000, 50_000_000, 1, 41_943),
            (100_000_000, 200_000_000, 1, 47_662),
        ] as [(Int, Int?, Int, Int)])
    func firstBatch(rows: Int, diskBytes: Int?, columns: Int, expected: Int) {
        #expect(TableReader.firstBatch(rows: rows, diskBytes: diskBytes, columns: columns) == expected)
    }
}
