// The umbrella module: `import DBBBuilder` gives every module of the package.
@_exported import DBBObjects
@_exported import DBBSQL
@_exported import DBBSchema
