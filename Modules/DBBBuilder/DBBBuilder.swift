// The umbrella module: `import DBBBuilder` gives every module of the package.
@_exported public import DBBExport
@_exported public import DBBMacros
@_exported public import DBBObjects
@_exported public import DBBQuery
@_exported public import DBBSQL
@_exported public import DBBSchema
