// The umbrella module: `import DBBBuilder` gives every module of the package.
@_exported import DBBExport
@_exported import DBBMacros
@_exported import DBBObjects
@_exported import DBBQuery
@_exported import DBBSQL
@_exported import DBBSchema
