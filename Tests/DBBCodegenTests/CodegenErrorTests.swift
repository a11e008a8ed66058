import Foundation
import Testing

/// Bad input run as a process: a clear message on standard error, a non-zero exit code, nothing on standard
/// output, and no file written or changed.
@Suite struct CodegenErrorTests {
    static let supported =
        "supported are Bool, Int, Int8, Int16, Int32, Int64, UInt, UInt8, UInt16, UInt32, UInt64, Float, Double, "
        + "String, Date, Data, a DBBTableObject subclass, an array of any of these but Data ([String], [Person]), "
        + "and an optional of any of them (Date?, [Int]?, Person?)"

    /// Property specifications the generator refuses (exit code 65), with their messages.
    static let unsupportedInput: [([String], String)] = [
        (["Site", "homepage:URL"], "unsupported type 'URL' for property 'homepage': \(supported)"),
        (["Site", "id:UUID?"], "unsupported type 'UUID?' for property 'id': \(supported)"),
        (["Site", "price:Decimal"], "unsupported type 'Decimal' for property 'price': \(supported)"),
        (["Site", "x:string"], "unsupported type 'string' for property 'x': did you mean String?"),
        (["Site", "blobs:[Data]"], "unsupported type '[Data]' for property 'blobs': arrays of Data have no storage"),
        (["Site", "x:[String?]"], "unsupported type '[String?]' for property 'x': array elements cannot be optional"),
        (["Site", "x:[[Int]]"], "unsupported type '[[Int]]' for property 'x': arrays of arrays have no storage"),
        (["Site", "x:[String:Int]"], "unsupported type '[String:Int]' for property 'x': dictionaries have no storage"),
        (["Site", "x:Int??"], "unsupported type 'Int??' for property 'x': nested optionals have no storage"),
        (
            ["Site", "x:Int!"],
            "unsupported type 'Int!' for property 'x': write an optional (T?) instead of an implicitly unwrapped one"
        ),
        (
            ["Site", "name"],
            "property 'name' has no type: write it as name:Type (for example name:String) or pass --default-type"
        ),
        (["Site", "name:"], "property 'name:' has no type after ':'"),
        (["Site", "1name:String"], "'1name' in '1name:String' is not a valid property name"),
        (["Site", "first name:String"], "'first name' in 'first name:String' is not a valid property name"),
        (
            ["Site", "idNum:Int"],
            "property name 'idNum' is taken by DBBTableObject or Swift; choose another name (map it to a column of "
                + "that name with --column)"
        ),
        (["Site", "a:Int", "a:String"], "property 'a' is listed twice"),
        (["site-x", "a:Int"], "'site-x' is not a valid class name"),
        (["class", "a:Int"], "'class' is not a valid class name"),
        (
            ["DBBTableObject", "a:Int"],
            "'DBBTableObject' is not a valid class name: every generated class is a subclass of DBBTableObject"
        ),
        (["Site", "a:Int", "--column", "nope=x"], "--column names 'nope', which is not a property of Site"),
        (["Site", "a:Int", "--column", "a"], "--column 'a' is not of the form property=column"),
        (["Site", "a:Int", "--index", "b"], "--index names 'b', which is not a property of Site"),
        (["Site", "a:Int", "--index", "a,a"], "--index lists 'a' twice"),
        (
            ["Site", "tags:[String]", "--index", "tags"],
            "--index names 'tags', a [String] kept in a join table; only properties stored in the class's own table "
                + "can be indexed"
        ),
        (["Site", "a:Int", "--default-type", "Any"], "unsupported type 'Any' for --default-type: \(supported)"),
    ]

    @Test func unsupportedTypesAndBadSyntaxAreDataErrors() throws {
        for (arguments, message) in Self.unsupportedInput {
            let run = try Codegen.run(arguments)
            #expect(run.exitCode == 65, "\(arguments)")
            #expect(run.standardOutput == "", "\(arguments)")
            #expect(run.standardError == "dbb-codegen: error: \(message)\n", "\(arguments)")
        }
    }

    @Test func anErrorLeavesAnExistingOutputFileAlone() throws {
        let folder = try TemporaryFolder()
        let existing = try folder.write("// mine\n", to: "Site.swift")
        let run = try Codegen.run(["Site", "homepage:URL", "--output", existing.path, "--force"])
        #expect(run.exitCode == 65)
        #expect(try String(contentsOf: existing, encoding: .utf8) == "// mine\n")
        #expect(try folder.contents() == ["Site.swift"])
    }

    @Test func outputRefusesToReplaceAFileWithoutForce() throws {
        let folder = try TemporaryFolder()
        let existing = try folder.write("// mine\n", to: "Site.swift")
        let refused = try Codegen.run(["Site", "name:String", "-o", existing.path])
        #expect(refused.exitCode == 73)
        #expect(refused.standardError == "dbb-codegen: error: \(existing.path) exists; pass --force to replace it\n")
        #expect(try String(contentsOf: existing, encoding: .utf8) == "// mine\n")

        let replaced = try Codegen.run(["Site", "name:String", "-o", existing.path, "--force"])
        #expect(replaced.exitCode == 0)
        #expect(try String(contentsOf: existing, encoding: .utf8).contains("final class Site: DBBTableObject {"))
        #expect(try folder.contents() == ["Site.swift"])

        let noOutput = try Codegen.run(["Site", "name:String", "--force"])
        #expect(noOutput.exitCode == 64)
        #expect(noOutput.standardError.contains("--force needs -o"))
    }

    @Test func badPropertiesFileLinesAreReportedAndMissingFilesCannotBeRead() throws {
        let folder = try TemporaryFolder()
        let file = try folder.write("name: String\nlinks: [URL]\n", to: "site.txt")
        let run = try Codegen.run(["Site", "--properties-file", file.path])
        #expect(run.exitCode == 65)
        #expect(
            run.standardError
                == "dbb-codegen: error: unsupported type '[URL]' for property 'links': \(Self.supported)\n")

        let missing = folder.file("missing.txt")
        let noFile = try Codegen.run(["Site", "--properties-file", missing.path])
        #expect(noFile.exitCode == 66)
        #expect(noFile.standardError == "dbb-codegen: error: cannot read properties file \(missing.path)\n")
    }

    @Test func anUnwritableOutputIsReported() throws {
        let folder = try TemporaryFolder()
        let target = folder.file("no/such/folder/Site.swift")
        let run = try Codegen.run(["Site", "a:Int", "--output", target.path])
        #expect(run.exitCode == 73)
        #expect(run.standardError == "dbb-codegen: error: cannot write \(target.path)\n")
        #expect(try folder.contents() == [])
    }

    /// Argument combinations the command line refuses (exit code 64, with the usage).
    @Test(arguments: [
        ([], "give a class name and its properties, or --database"),
        (["Site"], "give the properties of Site or a --properties-file"),
        (
            ["--database", "x.sqlite", "Site"],
            "--database takes no class name or properties; use --table or --all-tables"
        ),
        (["--database", "x.sqlite"], "--database needs either --table NAME or --all-tables"),
        (
            ["--database", "x.sqlite", "--table", "a", "--all-tables"],
            "--database needs either --table NAME or --all-tables"
        ),
        (
            ["--database", "x.sqlite", "--table", "a", "--table", "b", "--class-name", "X"],
            "--class-name needs exactly one --table"
        ),
        (
            ["--database", "x.sqlite", "--table", "a", "--class-name", "my-class"],
            "--class-name 'my-class' is not a valid class name"
        ),
        (
            ["--database", "x.sqlite", "--table", "a", "--class-name", "DBBTableObject"],
            "--class-name 'DBBTableObject' is not a valid class name: every generated class is a subclass of "
                + "DBBTableObject"
        ),
        (
            ["--database", "x.sqlite", "--all-tables", "--index", "a"],
            "--properties-file, --default-type, --column, --index and --unique do not apply to --database"
        ),
        (["Site", "a:Int", "--table", "t"], "--table, --all-tables and --class-name need --database"),
        (["Site", "a:Int", "--unique"], "--unique needs --index"),
        (["Site", "a:Int", "--import", "My Module"], "--import 'My Module' is not a module name"),
        (["Site", "a:Int", "--frobnicate"], "Unknown option '--frobnicate'"),
    ])
    func badArgumentCombinationsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try Codegen.run(arguments)
        #expect(run.exitCode == 64)
        #expect(run.standardOutput == "")
        #expect(run.standardError.hasPrefix("Error: \(message)\nUsage: dbb-codegen"))
    }
}
