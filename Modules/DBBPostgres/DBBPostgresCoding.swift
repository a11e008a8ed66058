internal import DBBSQL
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// Binding `DBBValue`s as `$n` parameters and reading columns back into them.
enum DBBPostgresCoding {
    /// Seconds from 1970-01-01 to 2000-01-01 (UTC), PostgreSQL's epoch for dates and timestamps.
    static let postgresEpoch: Double = 946_684_800

    /// A query with its arguments bound; text with a NUL character is refused before anything is sent.
    static func query(
        _ sql: String, _ arguments: [DBBPostgresConnection.Argument], context: String
    ) throws -> PostgresQuery {
        var binds = PostgresBindings(capacity: arguments.count)
        for (index, argument) in arguments.enumerated() {
            switch argument {
            case .value(.null):
                binds.appendNull()
            case .value(.integer(let value)):
                binds.append(value)
            case .value(.real(let value)):
                binds.append(value)
            case .value(.text(let value)):
                try refuseNUL(value, argument: index + 1, sql: sql, context: context)
                binds.append(value)
            case .value(.blob(let value)):
                var buffer = ByteBuffer()
                buffer.writeBytes(value)
                binds.append(buffer)
            case .integerArray(let values):
                binds.append(values)
            case .textArray(let values):
                for value in values { try refuseNUL(value, argument: index + 1, sql: sql, context: context) }
                binds.append(values)
            }
        }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// Values bound to a prepared statement, each in PostgreSQL's binary format with its type; text with a NUL
    /// character is refused before anything is sent.
    static func data(_ values: [DBBValue], sql: String, context: String) throws -> [PostgresData] {
        var data: [PostgresData] = []
        data.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            switch value {
            case .null:
                data.append(.null)
            case .integer(let value):
                data.append(PostgresData(int64: value))
            case .real(let value):
                data.append(PostgresData(double: value))
            case .text(let value):
                try refuseNUL(value, argument: index + 1, sql: sql, context: context)
                data.append(PostgresData(string: value))
            case .blob(let value):
                data.append(PostgresData(bytes: value))
            }
        }
        return data
    }

    /// The type a prepared statement's text gives a parameter that binds `value` (`nil` for `NULL`, whose type the
    /// server infers), matching the type ``data(_:sql:context:)`` sends.
    static func cast(for value: DBBValue) -> String? {
        switch value {
        case .null: nil
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    private static func refuseNUL(_ text: String, argument: Int, sql: String, context: String) throws {
        if text.utf8.contains(0) {
            throw DBBError.misuse(
                "argument \(argument) is text with a NUL character (U+0000), which PostgreSQL cannot store in text",
                recovery: "remove the NUL characters, or store the value as Data (bytea)", sql: sql,
                context: "\(context): binding argument \(argument)")
        }
    }

    /// The rows of a result as values, with the column names and the changed-row count.
    static func result(_ result: PostgresQueryResult, sql: String, context: String) throws -> DBBPostgresResult {
        var rows: [[DBBValue]] = []
        rows.reserveCapacity(result.rows.count)
        var columnNames: [String] = []
        for row in result.rows {
            var values: [DBBValue] = []
            values.reserveCapacity(row.count)
            for cell in row {
                values.append(try value(of: cell, sql: sql, context: context))
            }
            if columnNames.isEmpty { columnNames = row.map(\.columnName) }
            rows.append(values)
        }
        return DBBPostgresResult(
            columnNames: columnNames, rows: rows, rowsChanged: result.metadata.rows ?? 0,
            command: result.metadata.command)
    }

    /// One column's value. Rows come in PostgreSQL's binary format.
    static func value(of cell: PostgresCell, sql: String, context: String) throws -> DBBValue {
        guard var bytes = cell.bytes, cell.dataType != .void else { return .null }
        func malformed() -> DBBError {
            DBBError.library(
                .mismatch,
                message: "column \(cell.columnIndex + 1) ('\(cell.columnName)') of type \(cell.dataType) has a "
                    + "value of \(bytes.readableBytes) bytes that is not in PostgreSQL's binary format",
                sql: sql, context: context)
        }
        switch cell.dataType {
        case .int8:
            guard bytes.readableBytes == 8, let value = bytes.readInteger(as: Int64.self) else { throw malformed() }
            return .integer(value)
        case .int4:
            guard bytes.readableBytes == 4, let value = bytes.readInteger(as: Int32.self) else { throw malformed() }
            return .integer(Int64(value))
        case .int2:
            guard bytes.readableBytes == 2, let value = bytes.readInteger(as: Int16.self) else { throw malformed() }
            return .integer(Int64(value))
        case .oid:
            guard bytes.readableBytes == 4, let value = bytes.readInteger(as: UInt32.self) else { throw malformed() }
            return .integer(Int64(value))
        case .bool:
            guard bytes.readableBytes == 1, let value = bytes.readInteger(as: UInt8.self) else { throw malformed() }
            return .integer(value == 0 ? 0 : 1)
        case .float8:
            guard bytes.readableBytes == 8, let bits = bytes.readInteger(as: UInt64.self) else { throw malformed() }
            return .real(Double(bitPattern: bits))
        case .float4:
            guard bytes.readableBytes == 4, let bits = bytes.readInteger(as: UInt32.self) else { throw malformed() }
            return .real(Double(Float(bitPattern: bits)))
        case .numeric:
            // Rows of a prepared statement come in binary whatever their description says.
            let binary = PostgresCell(
                bytes: cell.bytes, dataType: .numeric, format: .binary, columnName: cell.columnName,
                columnIndex: cell.columnIndex)
            guard let decimal = try? binary.decode(Decimal.self) else { throw malformed() }
            let text = decimal.description
            if let integer = Int64(text) { return .integer(integer) }
            guard let real = Double(text) else { throw malformed() }
            return .real(real)
        case .text, .varchar, .bpchar, .name, .json, .unknown, .char:
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .jsonb:
            // A version byte (1), then the JSON text.
            guard bytes.readInteger(as: UInt8.self) == 1 else { throw malformed() }
            return .text(bytes.readString(length: bytes.readableBytes) ?? "")
        case .bytea:
            return .blob(Data(bytes.readableBytesView))
        case .timestamp, .timestamptz:
            // Microseconds since 2000-01-01; the extremes are infinity and -infinity.
            guard bytes.readableBytes == 8, let micros = bytes.readInteger(as: Int64.self) else { throw malformed() }
            if micros == .max { return .real(.infinity) }
            if micros == .min { return .real(-.infinity) }
            let seconds = micros.quotientAndRemainder(dividingBy: 1_000_000)
            return .real(Double(seconds.quotient) + postgresEpoch + Double(seconds.remainder) / 1_000_000)
        case .date:
            // Days since 2000-01-01; the extremes are infinity and -infinity.
            guard bytes.readableBytes == 4, let days = bytes.readInteger(as: Int32.self) else { throw malformed() }
            if days == .max { return .real(.infinity) }
            if days == .min { return .real(-.infinity) }
            return .real(Double(days) * 86_400 + postgresEpoch)
        default:
            throw DBBError.library(
                .mismatch,
                message: "column \(cell.columnIndex + 1) ('\(cell.columnName)') has type "
                    + "\(cell.dataType.knownSQLName ?? "with OID \(cell.dataType.rawValue)"), which DBBPostgres does "
                    + "not read; cast it in the query, for example \(cell.columnName)::text",
                sql: sql, context: context)
        }
    }
}
