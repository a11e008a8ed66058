@_exported import DBBSQL
