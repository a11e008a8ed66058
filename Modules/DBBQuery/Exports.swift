@_exported import DBBSchema
