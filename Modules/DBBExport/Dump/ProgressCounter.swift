/// Counts the progress of a pass over a dump and reports it: at the start, at the start of each table,
/// every ``DBBExport/progressInterval`` rows within a table, and at the end of each table.
struct ProgressCounter {
    private(set) var state = DBBExportProgress(
        tablesDone: 0, tableCount: 0, rowsDone: 0, rowCount: 0, currentTable: nil)
    private let report: ((DBBExportProgress) -> Void)?
    /// Rows counted in the current table since the last report.
    private var sinceReport = 0

    init(_ report: ((DBBExportProgress) -> Void)?) {
        self.report = report
    }

    /// Sets the totals and reports.
    mutating func begin(tableCount: Int, rowCount: Int) {
        state.tableCount = tableCount
        state.rowCount = rowCount
        report?(state)
    }

    /// Names the table being worked on and reports.
    mutating func beginTable(_ name: String) {
        state.currentTable = name
        report?(state)
    }

    /// Counts rows of the current table; reports once a report interval's worth have been counted.
    mutating func add(rows: Int) {
        sinceReport += rows
        guard sinceReport >= DBBExport.progressInterval else { return }
        state.rowsDone += sinceReport
        sinceReport = 0
        report?(state)
    }

    /// Counts the rest of the current table's rows and the table itself, and reports.
    mutating func endTable() {
        state.rowsDone += sinceReport
        sinceReport = 0
        state.tablesDone += 1
        report?(state)
    }

    /// Clears the current table and reports.
    mutating func finish() {
        state.currentTable = nil
        report?(state)
    }
}
