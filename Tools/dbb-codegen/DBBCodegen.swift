import ArgumentParser
import DBBSQL
import Foundation

/// `dbb-codegen`: writes `DBBTableObject` subclasses, from a class name and a property list or from the
/// tables of an existing SQLite database.
extension MappingStyle: ExpressibleByArgument {}

@main
struct DBBCodegen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbb-codegen",
        abstract: "Write DBBTableObject subclasses for DBBBuilder.",
        discussion: """
            Examples:
              dbb-codegen Project name:String 'startDate:Date?' 'tags:[String]'
              dbb-codegen Person --default-type String firstName lastName
              dbb-codegen Meeting --properties-file meeting.txt --index purpose
              dbb-codegen --database chinook.sqlite --table Album --table Artist
              dbb-codegen --database chinook.sqlite --all-tables -o Chinook.swift
              dbb-codegen --database northwind.sqlite --all-tables -o N.swift --force

            A table without an INTEGER PRIMARY KEY (a TEXT or composite key, or none)
            uses its rowid as its id, with its key columns as properties. A class
            name that would shadow a Swift or Foundation type gets 'Table' appended.

            Types: Bool, Int, Int8 to UInt64, Float, Double, String, Date, Data,
            DBBTableObject subclasses, arrays of these (not of Data), and optionals.
            A non-optional reference is generated optional. See Docs/CodeGenerator.md.

            Exit codes: 64 bad arguments, 65 unsupported input, 66 unreadable input,
            73 unwritable output (or an existing one without --force).
            """,
        version: DBBPackage.version)

    @Argument(
        help: ArgumentHelp(
            "The class name, then its properties as name:Type.", valueName: "class-name-and-properties"))
    var classAndProperties: [String] = []

    @Option(name: .customLong("properties-file"), help: "A file with one property per line (name: Type).")
    var propertiesFile: String?

    @Option(name: .customLong("default-type"), help: "The type of properties listed by name alone.")
    var defaultType: String?

    @Option(name: .customLong("column"), help: "A custom column name, as property=column. Repeatable.")
    var columns: [String] = []

    @Option(help: "The properties to index, comma-separated, in order.")
    var index: String?

    @Flag(help: "Make the --index index UNIQUE.")
    var unique = false

    @Option(help: "An SQLite database whose tables to map (opened read-only).")
    var database: String?

    @Option(name: .customLong("table"), help: "A table of --database to map. Repeatable.")
    var tables: [String] = []

    @Flag(name: .customLong("all-tables"), help: "Map every table of --database.")
    var allTables = false

    @Option(name: .customLong("class-name"), help: "The class name for a single --table.")
    var className: String?

    @Option(name: .customLong("import"), help: "The module the generated file imports.")
    var importModule = "DBBBuilder"

    @Option(
        help: ArgumentHelp(
            "How the classes map their properties: macro (@DBBTable), keypaths (key paths in init(dbManager:)), "
                + "or closures (a persistenceMapping with direct closures).", valueName: "macro|keypaths|closures"))
    var style: MappingStyle = .macro

    @Option(name: [.short, .customLong("output")], help: "Write to this file instead of standard output.")
    var output: String?

    @Flag(help: "Let -o replace an existing file.")
    var force = false

    func validate() throws {
        if database != nil {
            guard classAndProperties.isEmpty else {
                throw ValidationError("--database takes no class name or properties; use --table or --all-tables")
            }
            guard propertiesFile == nil, defaultType == nil, columns.isEmpty, index == nil, !unique else {
                throw ValidationError(
                    "--properties-file, --default-type, --column, --index and --unique do not apply to --database")
            }
            guard tables.isEmpty != !allTables else {
                throw ValidationError("--database needs either --table NAME or --all-tables")
            }
            guard className == nil || tables.count == 1 else {
                throw ValidationError("--class-name needs exactly one --table")
            }
            if let className, !Naming.isClassName(className) {
                throw ValidationError("--class-name " + Naming.invalidClassNameMessage(className))
            }
        } else {
            guard tables.isEmpty, !allTables, className == nil else {
                throw ValidationError("--table, --all-tables and --class-name need --database")
            }
            guard !classAndProperties.isEmpty else {
                throw ValidationError("give a class name and its properties, or --database")
            }
            guard classAndProperties.count > 1 || propertiesFile != nil else {
                throw ValidationError("give the properties of \(classAndProperties[0]) or a --properties-file")
            }
            guard !unique || index != nil else { throw ValidationError("--unique needs --index") }
        }
        guard !force || output != nil else { throw ValidationError("--force needs -o") }
        guard Naming.isIdentifier(importModule) else {
            throw ValidationError("--import '\(importModule)' is not a module name")
        }
    }

    func run() throws {
        do {
            // Checked before any work, so a refused run leaves the file and reads nothing.
            if let output, !force, FileManager.default.fileExists(atPath: output) {
                throw CodegenError(
                    "\(output) exists; pass --force to replace it", exitCode: CodegenError.cannotCreate)
            }
            let (source, notes) = try generate()
            for note in notes { FileHandle.standardError.write(Data("dbb-codegen: note: \(note)\n".utf8)) }
            if let output {
                do {
                    try Data(source.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw CodegenError("cannot write \(output)", exitCode: CodegenError.cannotCreate)
                }
            } else {
                FileHandle.standardOutput.write(Data(source.utf8))
            }
        } catch let error as CodegenError {
            FileHandle.standardError.write(Data("dbb-codegen: error: \(error.message)\n".utf8))
            throw ExitCode(error.exitCode)
        }
    }

    /// The generated file and the notes for standard error.
    private func generate() throws -> (String, notes: [String]) {
        if let database {
            let source = try DatabaseSource(path: database)
            let (classes, notes) = try source.generate(tables: allTables ? nil : tables, className: className)
            let name = URL(fileURLWithPath: database).lastPathComponent
            let header = ["Generated by dbb-codegen from \(name)."] + notes.map { "Note: \($0)." }
            return (ClassRenderer.file(classes, header: header, importing: importModule, style: style), notes)
        }
        var specifications = Array(classAndProperties.dropFirst())
        if let propertiesFile { specifications += try PropertyListSource.specifications(fromFile: propertiesFile) }
        let indexNames = index.map {
            $0.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        let list = PropertyListSource(
            className: classAndProperties[0], specifications: specifications, defaultType: defaultType,
            columns: columns, index: indexNames ?? [], unique: unique)
        let (generated, notes) = try list.generate()
        return (
            ClassRenderer.file(
                [generated], header: ["Generated by dbb-codegen."], importing: importModule, style: style), notes
        )
    }
}
