import DBBMacros
import DBBObjects
import Foundation

/// Macro-mapped classes, nested so that their names do not collide with other tests' (the table name is still
/// the class's own name).
enum MacroModels {
    /// One property of every persisted kind.
    @DBBTable
    final class EveryKind: DBBTableObject {
        var flag = false
        var int = 0
        var int8: Int8 = 0
        var int16: Int16 = 0
        var int32: Int32 = 0
        var int64: Int64 = 0
        var uint: UInt = 0
        var uint8: UInt8 = 0
        var uint16: UInt16 = 0
        var uint32: UInt32 = 0
        var uint64: UInt64 = 0
        var float: Float = 0
        var double = 0.0
        var text = ""
        var date = Date(timeIntervalSinceReferenceDate: 0)
        var data = Data()
        var optionalFlag: Bool?
        var optionalInt: Int?
        var optionalUInt8: UInt8?
        var optionalDouble: Double?
        var optionalText: String?
        var optionalDate: Date?
        var optionalData: Data?
        var flags: [Bool] = []
        var ints: [Int] = []
        var int16s: [Int16] = []
        var uint64s: [UInt64] = []
        var floats: [Float] = []
        var doubles: [Double] = []
        var texts: [String] = []
        var dates: [Date] = []
        var optionalTexts: [String]?
        var friend: Friend?
        var friends: [Friend] = []
        var optionalFriends: [Friend]?
        var unannotatedCount = 7
        var negative = -2.5
        var words = ["one", "two"]
        var stamp = Date(timeIntervalSinceReferenceDate: 100)
        var noInitialValue: Int
        var noInitialText: String
        @Transient var scratch = 0
        @Transient var cache: [String: Int] = [:]
        @Transient var transientCount: Int
        var computed: Int { int * 2 }
        static let shared = 0
    }

    @DBBTable
    final class Friend: DBBTableObject {
        @Unique var name = ""
        @Indexed @NotNull var code = ""
    }

    /// A chain: each level declares its own properties.
    @DBBTable
    class Animal: DBBTableObject {
        var legs = 0
    }

    @DBBTable
    final class Pet: Animal {
        @Column("nickname") var petName = ""
        var owner: Friend?
    }

    /// A class with an initializer of its own: it sets `attributesDictionary` and a non-optional reference.
    @DBBTable
    final class Keeper: DBBTableObject {
        var label: String
        var partner: Friend

        required init(dbManager: DBBManager) {
            label = "unnamed"
            partner = Friend(dbManager: dbManager)
            super.init(dbManager: dbManager)
            attributesDictionary = ["label": ColumnAttribute.notNull]
        }
    }

    /// Cascading deletion of an array of objects, and a foreign key column.
    @DBBTable(indexes: [DBBIndexer(columnsToIndex: ["title", "year"], unique: true)])
    final class Shelf: DBBTableObject {
        var title = ""
        var year = 0
        @CascadeDelete var items: [Friend] = []
        @ForeignKey var keeper: Keeper?
    }
}
