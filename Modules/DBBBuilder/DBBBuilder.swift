// The umbrella module: `import DBBBuilder` gives every module of the package; the macro's only with the
// `DBBTableMacro` trait, which is on unless the client turns the package's default traits off.
@_exported public import DBBExport
@_exported public import DBBObjects
@_exported public import DBBQuery
@_exported public import DBBSQL
@_exported public import DBBSchema

#if DBBTableMacro
    @_exported public import DBBMacros
#endif
