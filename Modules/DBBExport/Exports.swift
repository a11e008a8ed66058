// What DBBExport's public API exposes from DBBSQL, so that `import DBBExport` alone is enough to call it
// and to catch its errors: `DBBError` (thrown when SQLite fails) and `DBBDatabase` (taken by
// `dump(_:to:options:progress:)`). The rest of DBBSQL stays behind `import DBBSQL`.
@_exported import class DBBSQL.DBBDatabase
@_exported import struct DBBSQL.DBBError
