import DBBMacrosImplementation
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// What `@DBBTable` writes, and the errors it reports, checked on source text.
@Suite struct DBBTableExpansionTests {
    static let macros = DBBMacroNames.implementations.mapValues { MacroSpec(type: $0) }

    private func expect(
        _ source: String, expandsTo expanded: String, diagnostics: [DiagnosticSpec] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        assertMacroExpansion(
            source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: Self.macros,
            failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
    }

    @Test func theIssuesFirstExample() {
        expect(
            """
            @DBBTable
            final class Person: DBBTableObject {
                @Unique var name = ""
                @Indexed var code = ""
                var budget = 0.0
                var startDate: Date?
                var active = false
                var tags: [String] = []
                var lead: Person?
                @CascadeDelete var meetings: [Meeting] = []
                @Transient var scratch = 0
            }
            """,
            expandsTo: """
                final class Person: DBBTableObject {
                    var name = "" {
                        didSet {
                            dbbPropertyDidChange(self.name)
                        }
                    }
                    var code = "" {
                        didSet {
                            dbbPropertyDidChange(self.code)
                        }
                    }
                    var budget = 0.0 {
                        didSet {
                            dbbPropertyDidChange(self.budget)
                        }
                    }
                    var startDate: Date? {
                        didSet {
                            dbbPropertyDidChange(self.startDate)
                        }
                    }
                    var active = false {
                        didSet {
                            dbbPropertyDidChange(self.active)
                        }
                    }
                    var tags: [String] = [] {
                        didSet {
                            dbbPropertyDidChange(self.tags)
                        }
                    }
                    var lead: Person? {
                        didSet {
                            dbbPropertyDidChange(self.lead)
                        }
                    }
                    var meetings: [Meeting] = [] {
                        didSet {
                            dbbPropertyDidChange(self.meetings)
                        }
                    }
                    var scratch = 0

                    override class var tracksChanges: Bool { self == Person.self }

                    override class var persistenceMapping: DBBTableMapping {
                        super.persistenceMapping.merging(
                            DBBTableMapping(
                                [
                                    "name": .init(get: { (object: Person) -> String in object.name }, set: { $0.name = $1 }).keyed(by: \\Person.name),
                                    "code": .init(get: { (object: Person) -> String in object.code }, set: { $0.code = $1 }).keyed(by: \\Person.code),
                                    "budget": .init(get: { (object: Person) -> Double in object.budget }, set: { $0.budget = $1 }).keyed(by: \\Person.budget),
                                    "startDate": .init(get: { (object: Person) -> Date? in object.startDate }, set: { $0.startDate = $1 }).keyed(by: \\Person.startDate),
                                    "active": .init(get: { (object: Person) -> Bool in object.active }, set: { $0.active = $1 }).keyed(by: \\Person.active),
                                    "tags": .init(get: { (object: Person) -> [String] in object.tags }, set: { $0.tags = $1 }).keyed(by: \\Person.tags),
                                    "lead": .init(get: { (object: Person) -> Person? in object.lead }, set: { $0.lead = $1 }).keyed(by: \\Person.lead),
                                    "meetings": .init(get: { (object: Person) -> [Meeting] in object.meetings }, set: { $0.meetings = $1 }).keyed(by: \\Person.meetings),
                                ],
                                attributes: ["name": ColumnAttribute.unique, "meetings": ColumnAttribute.cascadingDeletion],
                                indexers: [DBBIndexer(columnsToIndex: ["code"])]))
                    }

                    override class var dbbRowReader: DBBRowReader? {
                        // A load sets each property here, not through the mapping's `set:` closures: edit both alike.
                        guard self == Person.self else { return nil }
                        return DBBRowReader(Person.self, properties: ["active", "budget", "code", "lead", "meetings", "name", "startDate", "tags"]) { object, row, positions in
                            guard let object = object as? Person else {
                                throw DBBRowReader.wrongClass(object, expected: Person.self)
                            }
                            if let value = try row.dbbValue(at: positions[0], as: object.active) { object.active = value }
                            if let value = try row.dbbValue(at: positions[1], as: object.budget) { object.budget = value }
                            if let value = try row.dbbValue(at: positions[2], as: object.code) { object.code = value }
                            if let value = try row.dbbValue(at: positions[3], as: object.lead) { object.lead = value }
                            if let value = try row.dbbValue(at: positions[4], as: object.meetings) { object.meetings = value }
                            if let value = try row.dbbValue(at: positions[5], as: object.name) { object.name = value }
                            if let value = try row.dbbValue(at: positions[6], as: object.startDate) { object.startDate = value }
                            if let value = try row.dbbValue(at: positions[7], as: object.tags) { object.tags = value }
                        }
                    }

                    required init(dbManager: DBBManager) {
                        super.init(dbManager: dbManager)
                    }
                }
                """)
    }

    @Test func tableOptionsColumnNamesForeignKeysAndDefaults() {
        expect(
            """
            @DBBTable(name: "Artist", idColumn: "ArtistId", timestamps: false)
            final class Artist: DBBTableObject {
                @Column("Name") var name: String?
                @ForeignKey("LabelId") var label: Label?
                @ForeignKey var agent: Agent?
                @NotNull @Unique var code: String
                var born: Date, `default`: Int
            }
            """,
            expandsTo: """
                final class Artist: DBBTableObject {
                    var name: String? {
                        didSet {
                            dbbPropertyDidChange(self.name)
                        }
                    }
                    var label: Label? {
                        didSet {
                            dbbPropertyDidChange(self.label)
                        }
                    }
                    var agent: Agent? {
                        didSet {
                            dbbPropertyDidChange(self.agent)
                        }
                    }
                    
                    var code: String {
                        didSet {
                            dbbPropertyDidChange(self.code)
                        }
                    }
                    var born: Date, `default`: Int

                    override class var tableName: String { "Artist" }

                    override class var idColumnName: String { "ArtistId" }

                    override class var hasTimestampColumns: Bool { false }

                    override class var tracksChanges: Bool { self == Artist.self }

                    override class var persistenceMapping: DBBTableMapping {
                        super.persistenceMapping.merging(
                            DBBTableMapping(
                                [
                                    "name": .init(columnName: "Name", get: { (object: Artist) -> String? in object.name }, set: { $0.name = $1 }).keyed(by: \\Artist.name),
                                    "label": .init(columnName: "LabelId", foreignKey: true, get: { (object: Artist) -> Label? in object.label }, set: { $0.label = $1 }).keyed(by: \\Artist.label),
                                    "agent": .init(foreignKey: true, get: { (object: Artist) -> Agent? in object.agent }, set: { $0.agent = $1 }).keyed(by: \\Artist.agent),
                                    "code": .init(get: { (object: Artist) -> String in object.code }, set: { $0.code = $1 }).keyed(by: \\Artist.code),
                                    "born": .init(get: { (object: Artist) -> Date in object.born }, set: { $0.born = $1 }).keyed(by: \\Artist.born),
                                    "default": .init(get: { (object: Artist) -> Int in object.`default` }, set: { $0.`default` = $1 }).keyed(by: \\Artist.`default`),
                                ],
                                attributes: ["code": "\\(ColumnAttribute.notNull) \\(ColumnAttribute.unique)"]))
                    }

                    override class var dbbRowReader: DBBRowReader? {
                        // A load sets each property here, not through the mapping's `set:` closures: edit both alike.
                        guard self == Artist.self else { return nil }
                        return DBBRowReader(Artist.self, properties: ["agent", "born", "code", "default", "label", "name"]) { object, row, positions in
                            guard let object = object as? Artist else {
                                throw DBBRowReader.wrongClass(object, expected: Artist.self)
                            }
                            if let value = try row.dbbValue(at: positions[0], as: object.agent) { object.agent = value }
                            if let value = try row.dbbValue(at: positions[1], as: object.born) { object.born = value }
                            if let value = try row.dbbValue(at: positions[2], as: object.code) { object.code = value }
                            if let value = try row.dbbValue(at: positions[3], as: object.`default`) { object.`default` = value }
                            if let value = try row.dbbValue(at: positions[4], as: object.label) { object.label = value }
                            if let value = try row.dbbValue(at: positions[5], as: object.name) { object.name = value }
                        }
                    }

                    required init(dbManager: DBBManager) {
                        self.code = ""
                        self.born = Date(timeIntervalSinceReferenceDate: 0)
                        self.`default` = 0
                        super.init(dbManager: dbManager)
                    }
                }
                """)
    }

    @Test func aPublicClassWithItsOwnInitializerKeepsIt() {
        expect(
            """
            @DBBTable(indexes: [DBBIndexer(columnsToIndex: ["a", "b"], unique: true)])
            public final class Pair: Base {
                @Indexed var a = 0
                private(set) var b = "x"
                var observed = 1.5 { didSet { print(observed) } }
                var twice: Int { a * 2 }
                var other: Int {
                    get { a }
                    set { a = newValue }
                }
                static let shared = 1
                @Transient let fixed = 3

                public required init(dbManager: DBBManager) {
                    super.init(dbManager: dbManager)
                    attributesDictionary = ["b": ColumnAttribute.notNull]
                }
            }
            """,
            expandsTo: """
                public final class Pair: Base {
                    var a = 0 {
                        didSet {
                            dbbPropertyDidChange(self.a)
                        }
                    }
                    private(set) var b = "x" {
                        didSet {
                            dbbPropertyDidChange(self.b)
                        }
                    }
                    var observed = 1.5 { didSet { print(observed) } }
                    var twice: Int { a * 2 }
                    var other: Int {
                        get { a }
                        set { a = newValue }
                    }
                    static let shared = 1
                    let fixed = 3

                    public required init(dbManager: DBBManager) {
                        super.init(dbManager: dbManager)
                        attributesDictionary = ["b": ColumnAttribute.notNull]
                    }

                    public override class var tracksChanges: Bool { self == Pair.self }

                    public override class var persistenceMapping: DBBTableMapping {
                        super.persistenceMapping.merging(
                            DBBTableMapping(
                                [
                                    "a": .init(get: { (object: Pair) -> Int in object.a }, set: { $0.a = $1 }).keyed(by: \\Pair.a),
                                    "b": .init(get: { (object: Pair) -> String in object.b }, set: { $0.b = $1 }).keyed(by: \\Pair.b),
                                    "observed": .init(get: { (object: Pair) -> Double in object.observed }, set: { $0.observed = $1 }).keyed(by: \\Pair.observed),
                                ],
                                indexers: [DBBIndexer(columnsToIndex: ["a"])] + [DBBIndexer(columnsToIndex: ["a", "b"], unique: true)]))
                    }

                    public override class var dbbRowReader: DBBRowReader? {
                        // A load sets each property here, not through the mapping's `set:` closures: edit both alike.
                        guard self == Pair.self else { return nil }
                        return DBBRowReader(Pair.self, properties: ["a", "b", "observed"]) { object, row, positions in
                            guard let object = object as? Pair else {
                                throw DBBRowReader.wrongClass(object, expected: Pair.self)
                            }
                            if let value = try row.dbbValue(at: positions[0], as: object.a) { object.a = value }
                            if let value = try row.dbbValue(at: positions[1], as: object.b) { object.b = value }
                            if let value = try row.dbbValue(at: positions[2], as: object.observed) { object.observed = value }
                        }
                    }
                }
                """)
    }

    @Test func misuseOfTheClassIsReportedOnItsLine() {
        expect(
            """
            @DBBTable
            struct Point {
                var x = 0
            }
            """,
            expandsTo: """
                struct Point {
                    var x = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@DBBTable applies to a class that inherits DBBTableObject, not to a struct", line: 1,
                    column: 1)
            ])
        expect(
            """
            @DBBTable
            enum Kind {
                case a
            }
            """,
            expandsTo: """
                enum Kind {
                    case a
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@DBBTable applies to a class that inherits DBBTableObject, not to an enum", line: 1,
                    column: 1)
            ])
        expect(
            """
            @DBBTable
            final class Loose {
                var x = 0
            }
            """,
            expandsTo: """
                final class Loose {
                    var x = 0
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@DBBTable class 'Loose' must inherit DBBTableObject (or another @DBBTable class)",
                    line: 2, column: 13)
            ])
    }

    @Test func misuseOfAPropertyIsReportedOnItsLine() {
        expect(
            """
            @DBBTable
            final class Bad: DBBTableObject {
                let id2 = 0
                var lookup: [String: Int] = [:]
                var link: URL?
                var blobs: [Data] = []
                var maybes: [Int?] = []
                var total = compute()
                var items = []
                var owner: Person
                @Unique var tags: [String] = []
                @ForeignKey var count = 0
                @CascadeDelete var names: [String] = []
                @Column var title = ""
            }
            """,
            expandsTo: """
                final class Bad: DBBTableObject {
                    let id2 = 0
                    var lookup: [String: Int] = [:] {
                        didSet {
                            dbbPropertyDidChange(self.lookup)
                        }
                    }
                    var link: URL? {
                        didSet {
                            dbbPropertyDidChange(self.link)
                        }
                    }
                    var blobs: [Data] = [] {
                        didSet {
                            dbbPropertyDidChange(self.blobs)
                        }
                    }
                    var maybes: [Int?] = [] {
                        didSet {
                            dbbPropertyDidChange(self.maybes)
                        }
                    }
                    var total = compute() {
                        didSet {
                            dbbPropertyDidChange(self.total)
                        }
                    }
                    var items = [] {
                        didSet {
                            dbbPropertyDidChange(self.items)
                        }
                    }
                    var owner: Person {
                        didSet {
                            dbbPropertyDidChange(self.owner)
                        }
                    }
                    var tags: [String] = [] {
                        didSet {
                            dbbPropertyDidChange(self.tags)
                        }
                    }
                    var count = 0 {
                        didSet {
                            dbbPropertyDidChange(self.count)
                        }
                    }
                    var names: [String] = [] {
                        didSet {
                            dbbPropertyDidChange(self.names)
                        }
                    }
                    var title = "" {
                        didSet {
                            dbbPropertyDidChange(self.title)
                        }
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'let' property 'id2' cannot be loaded from the database; make it 'var', or mark it @Transient",
                    line: 3, column: 5),
                DiagnosticSpec(
                    message: "property 'lookup' has type '[String: Int]', which cannot be stored: dictionaries are not "
                        + "a storage type; mark it @Transient to leave it out", line: 4, column: 17),
                DiagnosticSpec(
                    message: "property 'link' has type 'URL?', which cannot be stored: store its 'absoluteString' in a "
                        + "String property; mark it @Transient to leave it out", line: 5, column: 15),
                DiagnosticSpec(
                    message: "property 'blobs' has type '[Data]', which cannot be stored: arrays of Data are not a "
                        + "storage type; mark it @Transient to leave it out", line: 6, column: 16),
                DiagnosticSpec(
                    message: "property 'maybes' has type '[Int?]', which cannot be stored: arrays of optionals are not "
                        + "a storage type; mark it @Transient to leave it out", line: 7, column: 17),
                DiagnosticSpec(
                    message: "write the type of property 'total' (for example 'var total: String'): @DBBTable reads "
                        + "types as written, and infers them only from literals, initializer calls such as Date() or "
                        + "Address(), and cases such as Status.open", line: 8,
                    column: 9),
                DiagnosticSpec(
                    message: "an empty array literal does not say its element type: write 'var items: [Element] = []'",
                    line: 9, column: 9),
                DiagnosticSpec(
                    message: "@Unique does not apply to property 'tags': it is stored in a join table, not a column",
                    line: 11, column: 5),
                DiagnosticSpec(
                    message: "@ForeignKey does not apply to property 'count': only a reference to one object is a "
                        + "foreign key", line: 12, column: 5),
                DiagnosticSpec(
                    message: "@CascadeDelete does not apply to property 'names': only references kept in a join table "
                        + "cascade", line: 13, column: 5),
                DiagnosticSpec(
                    message: "@Column needs the column's name as a string: @Column(\"name\")", line: 14, column: 5),
            ])
    }

    @Test func aReferenceWithNoValueNeedsTheClassesOwnInitializer() {
        expect(
            """
            @DBBTable
            final class Card: DBBTableObject {
                var owner: Person
            }
            """,
            expandsTo: """
                final class Card: DBBTableObject {
                    var owner: Person {
                        didSet {
                            dbbPropertyDidChange(self.owner)
                        }
                    }
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "property 'owner' of type 'Person' needs an initial value (or make it optional), or the "
                        + "class must write its own 'required init(dbManager:)'", line: 3, column: 9)
            ])
    }

    @Test func markersOutsideAPropertyAreErrors() {
        expect(
            """
            final class Plain {
                @Unique func run() {}
            }
            """,
            expandsTo: """
                final class Plain {
                    func run() {}
                }
                """,
            diagnostics: [
                DiagnosticSpec(message: "@Unique marks a stored property of a @DBBTable class", line: 2, column: 5)
            ])
    }
}
