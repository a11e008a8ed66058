import DBBBuilder
print("DBBSQL \(DBBDatabase.sqliteVersion)")
