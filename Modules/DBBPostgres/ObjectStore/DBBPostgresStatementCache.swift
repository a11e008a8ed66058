internal import DBBSQL
internal import Synchronization

/// The statements a connection has prepared, by text and the types of their values, and which others it sent
/// once: a statement is prepared the second time it is sent, so that one sent once costs one round trip, and a
/// repeated one is parsed and planned by the server once. Used on the connection's queue only.
struct DBBPostgresStatementCache {
    /// A statement's text with `?` placeholders and its values' types, three bits a value.
    struct Key: Hashable {
        let sql: String
        let types: UInt64
    }

    /// Whether statements are prepared at all (``DBBPostgresConfiguration/preparedStatements``).
    let isOn: Bool
    /// The most statements kept prepared on one connection; the oldest is deallocated to make room.
    static let capacity = 256
    /// The most statements sent once that are remembered; the record starts again when it is full.
    static let remembered = 4_096
    private var prepared: [Key: DBBPostgresConnection.PreparedStatement] = [:]
    private var order: [Key] = []
    private var sentOnce: Set<Key> = []

    init(isOn: Bool) { self.isOn = isOn }

    /// The key of a statement and its values, or `nil` when it is not to be prepared: the cache is off, or the
    /// statement binds more than 21 values (a multi-row statement, whose text varies with its row count).
    func key(_ sql: String, _ arguments: [DBBValue]) -> Key? {
        guard isOn, arguments.count <= 21 else { return nil }
        var types: UInt64 = 1
        for argument in arguments {
            let type: UInt64 =
                switch argument {
                case .null: 1
                case .integer: 2
                case .real: 3
                case .text: 4
                case .blob: 5
                }
            types = types << 3 | type
        }
        return Key(sql: sql, types: types)
    }

    /// The statement prepared for `key`, if any.
    func prepared(_ key: Key) -> DBBPostgresConnection.PreparedStatement? { prepared[key] }

    /// Whether the statement was sent before; records that it was.
    mutating func sentBefore(_ key: Key) -> Bool {
        if sentOnce.contains(key) { return true }
        if sentOnce.count >= Self.remembered { sentOnce.removeAll(keepingCapacity: true) }
        sentOnce.insert(key)
        return false
    }

    /// Keeps a statement just prepared, deallocating the oldest one when the cache is full.
    mutating func keep(
        _ statement: DBBPostgresConnection.PreparedStatement, for key: Key,
        deallocatingOn connection: DBBPostgresConnection
    ) {
        if prepared.count >= Self.capacity, let oldest = order.first {
            order.removeFirst()
            if let statement = prepared.removeValue(forKey: oldest) { connection.deallocate(statement) }
        }
        prepared[key] = statement
        order.append(key)
        sentOnce.remove(key)
    }

    /// Forgets one statement, deallocating it on the connection.
    mutating func forget(_ key: Key, deallocatingOn connection: DBBPostgresConnection) {
        guard let statement = prepared.removeValue(forKey: key) else { return }
        order.removeAll { $0 == key }
        connection.deallocate(statement)
    }

    /// Forgets every statement, deallocating them on `connection` when it is given (not when the connection
    /// ended, which ended its statements).
    mutating func forgetAll(deallocatingOn connection: DBBPostgresConnection?) {
        if let connection { for statement in prepared.values { connection.deallocate(statement) } }
        prepared.removeAll()
        order.removeAll()
        sentOnce.removeAll()
    }
}

/// A store's schema version, which each migration advances: a connection seeing a new one prepares its
/// statements again, since a migration may have changed what they return.
final class DBBPostgresSchemaVersion: Sendable {
    private let value = Atomic<Int>(0)

    /// The version now.
    var current: Int { value.load(ordering: .acquiring) }

    /// Advances the version.
    func advance() { value.add(1, ordering: .releasing) }
}
