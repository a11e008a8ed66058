// The types of the modules below that DBBObjects' own API takes, returns or throws, so that `import DBBObjects`
// alone is enough to write a model class and to save, fetch and delete its objects: the mapping
// (`DBBPropertyPersistence`, `DBBTableMapping`, `DBBIndexer`, `ColumnAttribute`, `DBBTableLayout`), the protocols an enum or a
// Codable value declares to be a property (`DBBPersistableValue`, `DBBCodableValue`), the query options and sort
// directions, the error, the connection that `manager.write`/`read` hand to their closures, and what
// `setInstrumentation` takes (the statement log and metrics settings). The rest of DBBSQL, DBBSchema and
// DBBQuery (typed conditions, `DBBValue`, error kinds in `catch` patterns) stays behind its own import; only the
// umbrella `DBBBuilder` re-exports whole modules.
@_exported public import struct DBBQuery.ColumnSorting
@_exported public import struct DBBQuery.DBBQueryOptions
@_exported public import class DBBSQL.DBBDatabase
@_exported public import struct DBBSQL.DBBError
@_exported public import struct DBBSQL.DBBLogging
@_exported public import struct DBBSQL.DBBMetrics
@_exported public import struct DBBSchema.ColumnAttribute
@_exported public import typealias DBBSchema.ColumnAttributes
@_exported public import protocol DBBSchema.DBBCodableValue
@_exported public import struct DBBSchema.DBBIndexer
@_exported public import protocol DBBSchema.DBBPersistableValue
@_exported public import struct DBBSchema.DBBPropertyPersistence
@_exported public import enum DBBSchema.DBBTableLayout
@_exported public import struct DBBSchema.DBBTableMapping
