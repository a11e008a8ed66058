import DBBSQL
import Foundation
import Testing

@Suite("Transactions and savepoints")
struct DBBDatabaseTransactionTests {
    private func count(_ db: DBBDatabase) throws -> Int {
        try db.fetchValue(Int.self, "SELECT count(*) FROM t") ?? -1
    }

    @Test("begin, commit and rollback, and whether a transaction is open", arguments: DatabaseKind.allCases)
    func beginCommitRollback(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.execute("CREATE TABLE t (x)")
            for (committed, transactionKind) in [DBBTransactionKind.deferred, .immediate, .exclusive].enumerated() {
                #expect(!db.isInTransaction)
                try db.beginTransaction(transactionKind)
                #expect(db.isInTransaction)
                try db.execute("INSERT INTO t VALUES (?)", transactionKind.rawValue)
                #expect(try count(db) == committed + 1)
                try db.rollback()
                #expect(!db.isInTransaction)
                #expect(try count(db) == committed)

                try db.beginTransaction(transactionKind)
                try db.execute("INSERT INTO t VALUES (?)", transactionKind.rawValue)
                try db.commit()
                #expect(!db.isInTransaction)
            }
            #expect(try db.fetchValues(String.self, "SELECT x FROM t") == ["DEFERRED", "IMMEDIATE", "EXCLUSIVE"])
            try db.rollback()  // nothing open: does nothing
            #expect(expectDBBError { try db.commit() }?.message.contains("no transaction is active") == true)
            try db.beginTransaction()
            #expect(expectDBBError { try db.beginTransaction() }?.resultCode == .error)
            #expect(db.isInTransaction)
            try db.rollback()
        }
    }

    @Test("the transaction kinds take the locks they promise, seen from a second connection")
    func lockKinds() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("locks.sqlite")
        let first = try DBBDatabase(path: path)
        try first.execute("CREATE TABLE t (x)")
        let second = try DBBDatabase(path: path)
        try second.setBusyTimeout(0)

        try first.beginTransaction(.deferred)  // no lock yet
        try second.inTransaction(.immediate) { db in try db.execute("INSERT INTO t VALUES (1)") }
        try first.rollback()

        try first.beginTransaction(.immediate)  // the write lock: another writer fails, a reader succeeds
        #expect(expectDBBError { try second.beginTransaction(.immediate) }?.resultCode == .busy)
        #expect(try second.fetchValue(Int.self, "SELECT count(*) FROM t") == 1)
        try first.commit()

        try first.beginTransaction(.exclusive)  // in rollback-journal mode, readers are kept out too
        #expect(expectDBBError { _ = try second.fetchValue(Int.self, "SELECT count(*) FROM t") }?.resultCode == .busy)
        try first.commit()
        #expect(try second.fetchValue(Int.self, "SELECT count(*) FROM t") == 1)
    }

    @Test("the closure form commits on return and rolls back on a thrown error", arguments: DatabaseKind.allCases)
    func closureForm(kind: DatabaseKind) throws {
        struct Abort: Error {}
        try withDatabase(kind) { db throws in
            try db.execute("CREATE TABLE t (x)")
            let result = try db.inTransaction(.immediate) { db -> Int in
                try db.execute("INSERT INTO t VALUES (1)")
                try db.execute("INSERT INTO t VALUES (2)")
                return db.changes
            }
            #expect(result == 1)
            #expect(try count(db) == 2)
            #expect(throws: Abort.self) {
                try db.inTransaction { db in
                    try db.execute("INSERT INTO t VALUES (3)")
                    throw Abort()
                }
            }
            #expect(!db.isInTransaction)
            #expect(try count(db) == 2)
        }
    }

    @Test("savepoints nest: an inner failure rolls back only the inner work", arguments: DatabaseKind.allCases)
    func nestedSavepoints(kind: DatabaseKind) throws {
        struct Abort: Error {}
        try withDatabase(kind) { db throws in
            try db.execute("CREATE TABLE t (x)")
            try db.inTransaction { db in
                try db.execute("INSERT INTO t VALUES ('outer')")
                try db.inSavepoint { db in
                    try db.execute("INSERT INTO t VALUES ('kept')")
                    #expect(throws: Abort.self) {
                        try db.inSavepoint { db in
                            try db.execute("INSERT INTO t VALUES ('dropped')")
                            throw Abort()
                        }
                    }
                }
                // inTransaction inside a transaction becomes a savepoint too.
                #expect(throws: Abort.self) {
                    try db.inTransaction { db in
                        try db.execute("INSERT INTO t VALUES ('also dropped')")
                        throw Abort()
                    }
                }
                #expect(db.isInTransaction)
            }
            #expect(try db.fetchValues(String.self, "SELECT x FROM t ORDER BY rowid") == ["outer", "kept"])

            // A savepoint outside a transaction acts as one.
            #expect(throws: Abort.self) {
                try db.inSavepoint { db in
                    try db.execute("INSERT INTO t VALUES ('gone')")
                    #expect(db.isInTransaction)
                    throw Abort()
                }
            }
            #expect(!db.isInTransaction)
            try db.inSavepoint { db in try db.execute("INSERT INTO t VALUES ('saved')") }
            #expect(try db.fetchValues(String.self, "SELECT x FROM t ORDER BY rowid") == ["outer", "kept", "saved"])
        }
    }

    @Test("a failing commit rolls back and reports the constraint")
    func failingCommit() throws {
        let db = try DBBDatabase.inMemory()
        try db.setForeignKeysEnabled(true)
        try db.executeStatements(
            """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED);
            """)
        let error = expectDBBError {
            try db.inTransaction { db in try db.execute("INSERT INTO child VALUES (42)") }
        }
        #expect(error?.resultCode == .constraint)
        #expect(error?.extendedCode == 787)  // SQLITE_CONSTRAINT_FOREIGNKEY
        #expect(!db.isInTransaction)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM child") == 0)
    }
}
