// The expansion of `@DBBTable` names DBBObjects' types (`DBBManager`, `DBBTableMapping`, `DBBIndexer`) in the
// file of the class it maps, which imports DBBObjects (or the umbrella) for `DBBTableObject` anyway.
public import DBBSchema

/// Maps a `DBBTableObject` subclass: writes its class-level `DBBTableMapping` (every stored property,
/// read and written through direct closures), a whole-row reader (`dbbRowReader`, with which a SQLite load
/// makes each object and sets every column's property in one call) and its `required init(dbManager:)`.
///
/// ```swift
/// @DBBTable
/// final class Person: DBBTableObject {
///     @Unique var name = ""
///     @Indexed var code = ""
///     var budget = 0.0
///     var startDate: Date?
///     var tags: [String] = []
///     var lead: Person?
///     @CascadeDelete var meetings: [Meeting] = []
///     @Transient var scratch = 0          // not persisted
/// }
///
/// @DBBTable(name: "Artist", idColumn: "ArtistId", timestamps: false)
/// final class Artist: DBBTableObject {
///     @Column("Name") var name: String?
/// }
/// ```
///
/// Every stored `var` is persisted unless marked ``Transient()``; computed properties and `static` ones
/// are skipped. A property's type is read as written: annotate it, or initialize it with a literal
/// (`0` is `Int`, `0.0` is `Double`, `""` is `String`, `false` is `Bool`), an initializer call (`Date()`,
/// `Address()`) or a case (`Status.open`). Persisted types are the thirteen scalar types (`Bool`, the signed
/// and unsigned integers, `Float`, `Double`, `String`, `Date`, `Data`), enums and `Codable` values that
/// declare `DBBPersistableValue` or `DBBCodableValue`, `DBBTableObject` subclasses, arrays of these (but
/// `Data`), and optionals of all of them. A `let`, the macro on a struct, an enum or a class with no
/// superclass, or a type the macro knows cannot be stored (`URL`, a dictionary) is a compile-time error on that
/// line; another type that cannot be stored is an error in the expansion that lists what can.
///
/// Setting a persisted property marks the object dirty (`isDirty`, also when the value set
/// is the one it had); loading an object leaves it clean, and a save of a stored object that is not dirty
/// writes nothing. A property with `willSet` or `didSet` observers of its own is persisted but not tracked:
/// call `makeDirty()` in its observer.
///
/// A class that writes its own `required init(dbManager:)` keeps it (to set `attributesDictionary` or
/// other defaults); the macro then writes only the mapping. A subclass of a `@DBBTable` class marked
/// `@DBBTable` too adds its properties to its superclass's.
///
/// - Parameters:
///   - name: the table's name, when it is not the class's (`DBBTableObject.tableName`).
///   - idColumn: the integer primary key column's name, when it is not `id`
///     (`DBBTableObject.idColumnName`).
///   - layout: how a new table is laid out (`DBBTableObject.layout`): `.dbbBuilder` (the default) or `.lean`.
///   - timestamps: whether the table has `createdTime` and `modifiedTime` columns
///     (`DBBTableObject.hasTimestampColumns`). Default: `true` in DBBBuilder's layout, `false` in the lean one.
///   - indexes: further indexes, for example over several columns:
///     `[DBBIndexer(columnsToIndex: ["lastName", "firstName"])]`.
@attached(
    member, names: named(init(dbManager:)), named(persistenceMapping), named(dbbRowReader), named(tableName),
    named(idColumnName), named(hasTimestampColumns), named(layout), named(tracksChanges))
@attached(memberAttribute)
public macro DBBTable(
    name: String? = nil, idColumn: String? = nil, layout: DBBTableLayout = .dbbBuilder, timestamps: Bool? = nil,
    indexes: [DBBIndexer] = []
) = #externalMacro(module: "DBBMacrosPlugin", type: "DBBTableMacro")

/// Stores a property of a `@DBBTable` class in a column (or join table value column) of another name.
///
/// - Parameter name: the column's name.
@attached(peer)
public macro Column(_ name: String) = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Indexes a property's column (an index named `<Table>_<column>`).
@attached(peer)
public macro Indexed() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Makes a property's column `UNIQUE` (`ColumnAttribute.unique`).
@attached(peer)
public macro Unique() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Makes a property's column `NOT NULL` (`ColumnAttribute.notNull`).
@attached(peer)
public macro NotNull() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Leaves a property out of the mapping: it is neither saved nor loaded.
@attached(peer)
public macro Transient() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// On an array of objects: deleting the owner deletes the objects too (`ColumnAttribute.cascadingDeletion`).
@attached(peer)
public macro CascadeDelete() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Stores an object reference as an id column of the class's own table (a foreign key, as existing
/// databases lay it out) instead of a join table.
///
/// - Parameter column: the column's name. Default: the property's name.
@attached(peer)
public macro ForeignKey(_ column: String? = nil) =
    #externalMacro(module: "DBBMacrosPlugin", type: "DBBPropertyMarkerMacro")

/// Marks the object dirty when the property is set. `@DBBTable` attaches it to every stored property it maps;
/// it is not written by hand.
@attached(accessor, names: named(didSet))
public macro DBBTracked() = #externalMacro(module: "DBBMacrosPlugin", type: "DBBTrackedMacro")
