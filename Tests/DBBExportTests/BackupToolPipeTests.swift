import DBBExport
import DBBSQL
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `-` as the dump: `dbb-backup` processes joined by real pipes, as a shell runs them.
@Suite("dbb-backup through pipes")
struct BackupToolPipeTests {
    /// What a pipeline produced: each process's exit status and standard error, and the last one's output.
    struct PipelineRun {
        var statuses: [Int32]
        var errors: [String]
        var output: Data
    }

    /// Runs `dbb-backup` processes joined by pipes, each one's standard output into the next one's standard
    /// input; the first reads `input` through a pipe too, and the last one's output is read through a pipe.
    static func pipeline(_ commands: [[String]], input: Data = Data()) throws -> PipelineRun {
        let tool = URL(fileURLWithPath: BackupToolTests.tool)
        let folder = try TemporaryFolder()
        // A reader that stops early must not kill this process with SIGPIPE while it feeds the input.
        signal(SIGPIPE, SIG_IGN)
        let inputPipe = Pipe()
        var stdin: Any = inputPipe
        var processes: [Process] = []
        var errorFiles: [URL] = []
        var handles: [FileHandle] = []
        defer { for handle in handles { try? handle.close() } }
        let outputPipe = Pipe()
        for (index, arguments) in commands.enumerated() {
            let process = Process()
            process.executableURL = tool
            process.arguments = arguments
            process.standardInput = stdin
            let next = index == commands.count - 1 ? outputPipe : Pipe()
            process.standardOutput = next
            let errorFile = folder.file("stderr\(index)")
            try Data().write(to: errorFile)
            let errors = try FileHandle(forWritingTo: errorFile)
            handles.append(errors)
            process.standardError = errors
            errorFiles.append(errorFile)
            try process.run()
            processes.append(process)
            stdin = next
        }
        let writer = inputPipe.fileHandleForWriting
        let feeding = DispatchGroup()
        DispatchQueue.global().async(group: feeding) {
            try? writer.write(contentsOf: input)  // fails harmlessly when the reader has stopped
            try? writer.close()
        }
        let output = outputPipe.fileHandleForReading.readDataToEndOfFile()
        feeding.wait()
        for process in processes { process.waitUntilExit() }
        return PipelineRun(
            statuses: processes.map(\.terminationStatus),
            errors: try errorFiles.map { String(decoding: try Data(contentsOf: $0), as: UTF8.self) }, output: output)
    }

    /// The dump's JSON text with its creation time taken out, the one thing two dumps of a database differ in.
    static func textWithoutCreationTime(_ gzipped: Data) throws -> String {
        let folder = try TemporaryFolder()
        let file = folder.file("normalise.json.gz")
        try gzipped.write(to: file)
        let text = String(decoding: try gunzip(file), as: UTF8.self)
        return text.replacingOccurrences(
            of: #""created":"[^"]*""#, with: #""created":"""#, options: .regularExpression)
    }

    @Test("dump to - writes to standard output the bytes a dump to a file holds, and restore - reads them")
    func dumpToStandardOutput() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let file = folder.file("file.json.gz")
        #expect(try ToolProcess.run("dbb-backup", ["dump", "-q", original.path, file.path]).exitCode == 0)

        let piped = try Self.pipeline([["dump", original.path, "-"]])
        #expect(piped.statuses == [0])
        // The summary goes to standard error, out of the dump's way; no progress bar without a terminal.
        #expect(piped.errors[0].hasPrefix("dumped 15607 rows of 11 tables to standard output ("))
        #expect(!piped.errors[0].contains("\r"))
        let fileText = try Self.textWithoutCreationTime(try Data(contentsOf: file))
        #expect(try Self.textWithoutCreationTime(piped.output) == fileText)
        let fileBytes = try Data(contentsOf: file)
        #expect(piped.output.prefix(10) == fileBytes.prefix(10))  // the gzip header
        #expect(piped.output.suffix(4) == fileBytes.suffix(4))  // the last member's length
        #expect(fileText.contains(#""created":"""#))
        #expect(try folder.contents() == ["chinook.sqlite", "file.json.gz"])  // no file named -

        // dump db - | restore - copy: a real pipeline between two processes.
        let copy = folder.file("copy.sqlite")
        let chained = try Self.pipeline([["dump", "-q", original.path, "-"], ["restore", "-", copy.path]])
        #expect(chained.statuses == [0, 0], "\(chained.errors)")
        #expect(
            String(decoding: chained.output, as: UTF8.self) == "restored 15607 rows of 11 tables into \(copy.path)\n")
        #expect(try SQLComparison.differences(original: original, restored: copy) == [])
    }

    @Test("inspect -, verify - and verify - --against read the dump from standard input")
    func readFromStandardInput() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let file = folder.file("c.json.gz")
        #expect(try ToolProcess.run("dbb-backup", ["dump", "-q", original.path, file.path]).exitCode == 0)
        let dump = try Data(contentsOf: file)

        let inspected = try Self.pipeline([["inspect", "-"]], input: dump)
        #expect(inspected.statuses == [0], "\(inspected.errors)")
        #expect(String(decoding: inspected.output, as: UTF8.self).contains("total: 15607 rows in 11 tables"))
        let verified = try Self.pipeline([["verify", "--json", "-"]], input: dump)
        #expect(verified.statuses == [0], "\(verified.errors)")
        let report = try #require(try JSONSerialization.jsonObject(with: verified.output) as? [String: Any])
        #expect(report["totalRows"] as? Int == 15607 && report["compressedBytes"] as? Int == dump.count)
        let compared = try Self.pipeline([
            ["dump", "-q", original.path, "-"], ["verify", "-", "--against", original.path],
        ])
        #expect(compared.statuses == [0, 0], "\(compared.errors)")
        #expect(String(decoding: compared.output, as: UTF8.self).contains("identical to \(original.path)"))

        // Damage read through a pipe is reported as it is from a file, without a file name.
        var damaged = dump
        damaged[dump.count / 2] ^= 0x55
        let failed = try Self.pipeline([["verify", "-"]], input: damaged)
        #expect(failed.statuses == [65])
        #expect(failed.errors[0].hasPrefix("dbb-backup: error: "), "\(failed.errors)")
        #expect(failed.errors[0].contains("compressed byte offset") && !failed.errors[0].contains("file "))
        let target = folder.file("never.sqlite")
        let refused = try Self.pipeline([["restore", "-", target.path]], input: damaged)
        #expect(refused.statuses == [65])
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(try folder.contents() == ["c.json.gz", "chinook.sqlite"])
    }

    @Test(
        "with the dump on standard output, the progress bar still reaches a terminal on standard error",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressBesideStandardOutput() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let out = folder.file("out.json.gz")
        let script = URL(fileURLWithPath: "/usr/bin/script")
        // script(1) gives the tool a terminal; the shell sends standard output to a file.
        let shown = try ToolProcess.run(
            executable: script, ["-qec", "\(BackupToolTests.tool) dump \(original.path) - > \(out.path)", "/dev/null"])
        #expect(shown.exitCode == 0)
        #expect(shown.standardOutput.contains("\rdumping ["))
        #expect(shown.standardOutput.contains("dumped 15607 rows of 11 tables to standard output"))
        #expect(try DBBExport.verify(dumpAt: out).totalRows == 15607)
        // Compressed bytes are not written to a terminal.
        let refused = try ToolProcess.run(
            executable: script, ["-qec", "\(BackupToolTests.tool) dump \(original.path) -", "/dev/null"])
        #expect(refused.exitCode == 64)
        #expect(refused.standardOutput.contains("dbb-backup: error: refusing to write a compressed dump to a terminal"))
        for command in ["restore - \(folder.path("never.sqlite"))", "inspect -", "verify -"] {
            let waiting = try ToolProcess.run(
                executable: script, ["-qec", "\(BackupToolTests.tool) \(command)", "/dev/null"])
            #expect(waiting.exitCode == 64, "\(command)")
            #expect(waiting.standardOutput.contains("refusing to read a compressed dump from a terminal"), "\(command)")
        }
        #expect(try folder.contents() == ["chinook.sqlite", "out.json.gz"])
    }
}
