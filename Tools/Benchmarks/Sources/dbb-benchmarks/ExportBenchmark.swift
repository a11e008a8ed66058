import DBBBuilder
import Foundation

/// Dump and restore of a generated database of one million mixed rows, timed against the sqlite3
/// command-line tool with gzip in the same run: `sqlite3 DB .dump | gzip -6` and `gunzip -c | sqlite3 NEW`.
///
/// Peak memory of DBBExport is measured in this process: the kernel's resident-set high-water mark is
/// reset before each phase (`/proc/self/clear_refs`) and read after it (`VmHWM`). The sqlite3 and gzip
/// processes are measured with `/usr/bin/time`.
enum ExportBenchmark {
    static let rowCount = 1_000_000

    static func run() {
        runWorkload("export") { try withTemporaryFolder("dbb-export-bench", measure) }
    }

    /// Timed by the wall clock, as the sqlite3 and gzip side runs in other processes.
    private static func measure(in folder: URL) throws {
        let source = folder.appendingPathComponent("source.sqlite")
        let generated = try wallTime { try ExportData.generate(at: source, rowCount: rowCount) }
        let sourceSize = fileSize(source)
        print("export: generated \(rowCount) rows (\(megabytes(sourceSize)) MiB) in \(seconds(generated))")

        let dump = folder.appendingPathComponent("dump.json.gz")
        let restored = folder.appendingPathComponent("restored.sqlite")
        let cliDump = folder.appendingPathComponent("dump.sql.gz")
        let cliRestored = folder.appendingPathComponent("restored-cli.sqlite")
        let timeTool = "/usr/bin/time"

        resetPeakMemory()
        let dumpTime = try wallTime { try DBBExport.dump(databaseAt: source, to: dump) }
        let dumpPeak = peakMemory()

        let cliDumpTime = try wallTime {
            try shell(
                "\(timeTool) -f %M -o '\(folder.path)/m1' sqlite3 '\(source.path)' .dump "
                    + "| \(timeTool) -f %M -o '\(folder.path)/m2' gzip -6 > '\(cliDump.path)'")
        }
        let cliDumpPeak = max(readKilobytes(folder, "m1"), readKilobytes(folder, "m2"))

        resetPeakMemory()
        let restoreTime = try wallTime { try DBBExport.restore(dumpAt: dump, to: restored) }
        let restorePeak = peakMemory()

        let cliRestoreTime = try wallTime {
            try shell(
                "\(timeTool) -f %M -o '\(folder.path)/m3' gzip -dc '\(cliDump.path)' "
                    + "| \(timeTool) -f %M -o '\(folder.path)/m4' sqlite3 '\(cliRestored.path)'")
        }
        let cliRestorePeak = max(readKilobytes(folder, "m3"), readKilobytes(folder, "m4"))

        guard try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil else {
            throw DBBError(.error, message: "the restored database differs from the dump")
        }
        print(
            "export: dump size \(megabytes(fileSize(dump))) MiB (sqlite3 .dump | gzip -6: "
                + "\(megabytes(fileSize(cliDump))) MiB)")
        report("dump", dumpTime, cliDumpTime, dumpPeak, cliDumpPeak, "sqlite3 .dump | gzip -6")
        report("restore", restoreTime, cliRestoreTime, restorePeak, cliRestorePeak, "gunzip -c | sqlite3")
        let limit = 64 * 1024
        print(
            "export: targets — dump \(dumpTime <= cliDumpTime ? "met" : "MISSED"), restore "
                + "\(restoreTime <= cliRestoreTime ? "met" : "MISSED"), peak memory under 64 MiB "
                + "\(dumpPeak < limit && restorePeak < limit ? "met" : "MISSED")")
    }

    private static func report(
        _ name: String, _ ours: Double, _ theirs: Double, _ ourPeak: Int, _ theirPeak: Int, _ reference: String
    ) {
        print(
            "export: \(name) \(seconds(ours)) vs \(reference) \(seconds(theirs)) — ratio "
                + String(format: "%.2f", ours / theirs) + "; peak memory \(ourPeak / 1024) MiB (whole process) "
                + "vs \(theirPeak / 1024) MiB")
    }

    private static func shell(_ command: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "set -e; " + command]
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DBBError(.error, message: "command failed (\(process.terminationStatus)): \(command)")
        }
    }

    /// Resets the kernel's peak-RSS mark of this process to its current RSS (Linux 4.0+).
    private static func resetPeakMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// This process's peak RSS in KiB since the last reset.
    private static func peakMemory() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
        else { return -1 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
    }

    private static func readKilobytes(_ folder: URL, _ name: String) -> Int {
        let text = (try? String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)) ?? ""
        return Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? -1
    }

    private static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    private static func megabytes(_ bytes: Int) -> String { String(format: "%.1f", Double(bytes) / 1_048_576) }
    private static func seconds(_ value: Double) -> String { String(format: "%.2f s", value) }
}
