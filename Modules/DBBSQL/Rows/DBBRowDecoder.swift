internal import Foundation

/// Decodes a row into a `Decodable` type: each coding key names a column.
struct DBBRowDecoder: Decoder {
    let row: DBBRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func decode<T: Decodable>(_ type: T.Type, from row: DBBRow) throws -> T {
        row.statement.decodingPosition = 0
        do {
            return try T(from: DBBRowDecoder(row: row))
        } catch let error as DBBError {
            throw error
        } catch let error as DecodingError {
            throw DBBError.library(
                .mismatch, message: "cannot decode \(T.self): \(Self.describe(error))", sql: row.statement.sql,
                context: "decoding a row")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "no column named \(key.stringValue)"
        case .valueNotFound(_, let context), .typeMismatch(_, let context), .dataCorrupted(let context):
            "\(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        @unknown default: "\(error)"
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(row: row, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch(
            [Any].self, .init(codingPath: codingPath, debugDescription: "a row decodes into a keyed type"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(
            Any.self, .init(codingPath: codingPath, debugDescription: "a row decodes into a keyed type"))
    }

    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: DBBRow
        let codingPath: [any CodingKey]

        var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

        func contains(_ key: Key) -> Bool { row.statement.decodingIndex(of: key.stringValue) != nil }

        private func column(_ key: Key) throws -> Int32 {
            guard let index = row.statement.decodingIndex(of: key.stringValue) else {
                throw DecodingError.keyNotFound(
                    key, .init(codingPath: codingPath, debugDescription: "no column named \(key.stringValue)"))
            }
            return Int32(index)
        }

        private func read<T: DBBColumnReadable>(_ type: T.Type, _ key: Key) throws -> T {
            try T.read(from: row, at: column(key))
        }

        func decodeNil(forKey key: Key) throws -> Bool { row.isNull(at: Int(try column(key))) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try read(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try read(type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try read(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try read(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try read(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try read(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try read(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try read(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try read(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try read(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try read(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try read(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try read(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try read(type, key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            // The common column types first: comparing metatypes is cheaper than a dynamic cast of the type to
            // a protocol; once T is known to be the type, the value's cast is a checked one that succeeds.
            if T.self == Data.self, let value = try read(Data.self, key) as? T { return value }
            if T.self == Date.self, let value = try read(Date.self, key) as? T { return value }
            if T.self == URL.self, let value = try read(URL.self, key) as? T { return value }
            if let readable = type as? any DBBColumnReadable.Type {
                // swift-format-ignore: NeverForceUnwrap
                return try readable.read(from: row, at: column(key)) as! T
            }
            // Any other Decodable value (a struct, an array, a dictionary) is stored as JSON text.
            let value = row.value(at: Int(try column(key)))
            guard let data = value.dataValue else {
                throw DecodingError.typeMismatch(
                    type,
                    .init(
                        codingPath: codingPath + [key],
                        debugDescription:
                            "column \(key.stringValue) holds \(value.storageClass.rawValue), not JSON text"
                    ))
            }
            let decoder = JSONDecoder()
            if row.codingOptions.dateStrategy == .secondsSince1970 { decoder.dateDecodingStrategy = .secondsSince1970 }
            if row.codingOptions.dateStrategy == .iso8601 { decoder.dateDecodingStrategy = .iso8601 }
            do {
                return try decoder.decode(type, from: data)
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath + [key],
                        debugDescription: "column \(key.stringValue) does not hold JSON text for \(T.self)",
                        underlyingError: error))
            }
        }

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            throw DecodingError.typeMismatch(
                type, .init(codingPath: codingPath + [key], debugDescription: "rows have no nested containers"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch(
                [Any].self, .init(codingPath: codingPath + [key], debugDescription: "rows have no nested containers"))
        }

        func superDecoder() throws -> any Decoder { DBBRowDecoder(row: row, codingPath: codingPath) }
        func superDecoder(forKey key: Key) throws -> any Decoder { DBBRowDecoder(row: row, codingPath: codingPath) }
    }
}
