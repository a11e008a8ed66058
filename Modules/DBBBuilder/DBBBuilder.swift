// The umbrella module: `import DBBBuilder` gives every module of the package.
@_exported import DBBExport
@_exported import DBBSQL
