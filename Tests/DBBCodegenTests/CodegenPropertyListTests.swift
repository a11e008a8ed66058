import DBBBuilder
import Foundation
import Testing

/// The property-list modes run as a process: arguments, a properties file, and bare names with a default
/// type. The files in `Generated/` are their committed output, compiled with these tests.
@Suite struct CodegenPropertyListTests {
    static let projectArguments = [
        "Project", "name:String", "code:String", "startDate:Date?", "budget:Float", "meetings:[Meeting]",
        "tags:[String]", "subProject:Project?", "projectLead:Person", "--column", "name=itemName", "--index",
        "name,code",
    ]
    static let personArguments = [
        "Person", "--default-type", "String", "firstName", "lastName", "email:String?", "age:Int", "birthday:Date?",
        "spouse:Person?", "nicknames:[String]", "photo:Data?", "--column", "email=emailAddress", "--index",
        "lastName,firstName",
    ]
    static let meetingFile = """
        # One property per line.
        purpose: String
        startTime: Date?

        participants: [Person]
        project: Project?
        minutes

        """
    static let everyTypeArguments = [
        "EveryType", "flag:Bool", "int:Int", "int8:Int8", "int16:Int16", "int32:Int32", "int64:Int64", "uint:UInt",
        "uint8:UInt8", "uint16:UInt16", "uint32:UInt32", "uint64:UInt64", "float:Float", "double:Double",
        "text:String", "date:Date", "data:Data", "optionalInt:Int?", "optionalDouble:Double?", "optionalBool:Bool?",
        "optionalDate:Date?", "flags:[Bool]", "ints:[Int]", "bytes:[UInt8]", "floats:[Float]", "doubles:[Double]",
        "texts:[String]", "dates:[Date]", "optionalTexts:[String]?", "people:[Person]", "optionalPeople:[Person]?",
        "default:String", "--index", "int,text", "--unique",
    ]

    static func committed(_ name: String) throws -> String {
        try String(contentsOf: Codegen.generatedFolder.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func propertyListOutputIsTheCommittedProjectClass() throws {
        let run = try Codegen.run(Self.projectArguments)
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == (try Self.committed("Project.swift")))
        #expect(
            run.standardError
                == "dbb-codegen: note: property 'projectLead' is generated as Person?: a reference has no default object\n"
        )
        #expect(run.standardOutput.contains("    /// Declared `Person`; generated optional"))
        #expect(run.standardOutput.contains(#"@DBBTable(indexes: [DBBIndexer(columnsToIndex: ["name", "code"])])"#))
        #expect(run.standardOutput.contains(#"    @Column("itemName") var name = """#))

        let keyPaths = try Codegen.run(Self.projectArguments + ["--style", "keypaths"])
        #expect(keyPaths.exitCode == 0)
        #expect(
            keyPaths.standardOutput.contains(
                #""name": .init(\Project.name, columnName: "itemName", get: { $0.name }, set: { $0.name = $1 }),"#))
        #expect(keyPaths.standardOutput.contains(#""tags": .init(\Project.tags),"#))
        #expect(keyPaths.standardOutput.contains(#""projectLead": .init(\Project.projectLead),"#))
        #expect(keyPaths.standardOutput.contains(#"indexer: DBBIndexer(columnsToIndex: ["name", "code"]))"#))
    }

    @Test(arguments: [("closures", "EveryTypeClosures"), ("keypaths", "EveryTypeKeyPaths")])
    func everyStyleIsTheCommittedClass(style: String, className: String) throws {
        let run = try Codegen.run([className] + Self.everyTypeArguments.dropFirst() + ["--style", style])
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == (try Self.committed("\(className).swift")))
    }

    @Test func theThreeStylesWriteOneLayout() throws {
        func schema(_ type: DBBTableObject.Type) throws -> [String] {
            let manager = try DBBManager.inMemory()
            try manager.addTableClasses([Person.self, type])
            return try manager.queue.inDatabase { db in
                try db.fetchValues(
                    String.self,
                    "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master "
                        + "WHERE tbl_name LIKE '\(type.tableName)%' ORDER BY name")
            }.map { $0.replacingOccurrences(of: type.tableName, with: "T") }
        }
        let macro = try schema(EveryType.self)
        #expect(macro.count > 10)
        #expect(try schema(EveryTypeClosures.self) == macro)
        #expect(try schema(EveryTypeKeyPaths.self) == macro)

        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Person.self, EveryTypeClosures.self])
        let sample = EveryTypeClosures(dbManager: manager)
        sample.int16 = -16
        sample.optionalDate = Date(timeIntervalSinceReferenceDate: 9)
        sample.people = [Person(dbManager: manager)]
        try sample.save()
        let loaded = try #require(try EveryTypeClosures.fetchOne(id: sample.idNum, manager: manager))
        #expect(loaded.int16 == -16)
        #expect(loaded.optionalDate == Date(timeIntervalSinceReferenceDate: 9))
        #expect(loaded.people.count == 1)
    }

    @Test func anUnknownStyleIsABadArgument() throws {
        let run = try Codegen.run(["Site", "a:Int", "--style", "kvc"])
        #expect(run.exitCode == 64)
        #expect(run.standardError.contains("kvc"))
    }

    @Test func plainNamesTakeTheDefaultType() throws {
        let run = try Codegen.run(Self.personArguments)
        #expect(run.exitCode == 0)
        #expect(run.standardError == "")
        #expect(run.standardOutput == (try Self.committed("Person.swift")))
        #expect(run.standardOutput.contains("    var firstName = \"\"\n    var lastName = \"\"\n"))

        let names = try Codegen.run(["Contact", "--default-type", "String", "first", "last"])
        #expect(names.exitCode == 0)
        #expect(
            names.standardOutput.contains(
                "final class Contact: DBBTableObject {\n    var first = \"\"\n    var last = \"\"\n"))
    }

    @Test func propertiesFileGivesTheCommittedMeetingClass() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write(Self.meetingFile, to: "meeting.txt")
        let run = try Codegen.run(["Meeting", "--properties-file", file.path, "--default-type", "String?"])
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == (try Self.committed("Meeting.swift")))
        #expect(run.standardOutput.contains("    var minutes: String?\n"))
    }

    @Test func everyTypeOutputIsTheCommittedClass() throws {
        let run = try Codegen.run(Self.everyTypeArguments)
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == (try Self.committed("EveryType.swift")))
        #expect(run.standardOutput.contains("    var `default` = \"\"\n"))
        #expect(run.standardOutput.contains("    var uint16: UInt16 = 0\n"))
    }

    @Test func outputOptionWritesTheFileAndNothingToStandardOutput() throws {
        let folder = try TemporaryFolder()
        let target = folder.file("Project.swift")
        let run = try Codegen.run(Self.projectArguments + ["--output", target.path])
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == "")
        #expect(try String(contentsOf: target, encoding: .utf8) == (try Self.committed("Project.swift")))

        let short = try Codegen.run(["Tag", "label:String", "-o", "Tag.swift"], in: folder.url)
        #expect(short.exitCode == 0)
        #expect(try folder.contents() == ["Project.swift", "Tag.swift"])
        #expect(try String(contentsOf: folder.file("Tag.swift"), encoding: .utf8).contains("    var label = \"\"\n"))
    }

    @Test func generatedClassesRoundTripThroughAManager() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Person.self, Project.self, Meeting.self, EveryType.self])
        let lead = Person(dbManager: manager)
        lead.firstName = "Ada"
        lead.lastName = "Lovelace"
        lead.email = "ada@example.com"
        lead.nicknames = ["Enchantress"]
        let project = Project(dbManager: manager)
        project.name = "Engine"
        project.budget = 12.5
        project.tags = ["analytical", "steam"]
        project.projectLead = lead
        let meeting = Meeting(dbManager: manager)
        meeting.purpose = "Kick-off"
        meeting.participants = [lead]
        meeting.project = project
        project.meetings = [meeting]
        try project.save()

        let loaded = try #require(try Project.fetchOne(id: project.idNum, manager: manager))
        #expect(loaded.name == "Engine")
        #expect(loaded.budget == 12.5)
        #expect(loaded.tags == ["analytical", "steam"])
        #expect(loaded.projectLead?.lastName == "Lovelace")
        #expect(loaded.projectLead?.email == "ada@example.com")
        #expect(loaded.meetings.map(\.purpose) == ["Kick-off"])
        #expect(loaded.meetings.first?.participants.map(\.firstName) == ["Ada"])
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Project").map(\.name) }
        #expect(columns.contains("itemName"))
        let personIndexes = try manager.queue.inDatabase { db in try db.indexNames(in: "Person") }
        #expect(personIndexes.contains("Person_lastNamefirstName"))
    }

    @Test func everyTypeRoundTrips() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Person.self, Project.self, Meeting.self, EveryType.self])
        let sample = EveryType(dbManager: manager)
        sample.flag = true
        sample.int8 = -8
        sample.uint64 = 1 << 40
        sample.float = 1.5
        sample.double = 2.25
        sample.text = "text"
        sample.date = Date(timeIntervalSinceReferenceDate: 1_000)
        sample.data = Data([1, 2, 3])
        sample.optionalBool = false
        sample.bytes = [1, 255]
        sample.dates = [Date(timeIntervalSinceReferenceDate: 5)]
        sample.optionalTexts = ["a", "b"]
        sample.default = "keyword"
        try sample.save()

        let loaded = try #require(try EveryType.fetchOne(id: sample.idNum, manager: manager))
        #expect(loaded.flag)
        #expect(loaded.int8 == -8)
        #expect(loaded.uint64 == 1 << 40)
        #expect(loaded.float == 1.5)
        #expect(loaded.double == 2.25)
        #expect(loaded.date == Date(timeIntervalSinceReferenceDate: 1_000))
        #expect(loaded.data == Data([1, 2, 3]))
        #expect(loaded.optionalBool == false)
        #expect(loaded.optionalInt == nil)
        #expect(loaded.bytes == [1, 255])
        #expect(loaded.dates == [Date(timeIntervalSinceReferenceDate: 5)])
        #expect(loaded.optionalTexts == ["a", "b"])
        #expect(loaded.default == "keyword")
        let indexes = try manager.queue.inDatabase { db in try db.indexNames(in: "EveryType") }
        #expect(indexes.contains("EveryType_inttext"))
    }
}
