internal import DBBSQL
internal import Dispatch
internal import Foundation
internal import Synchronization

/// Reads on hot standbys that see this manager's commits (read-your-writes), and standbys too far behind left
/// alone.
///
/// After each commit, while some reader is on a standby, the writer asks the primary for its WAL position
/// (`pg_current_wal_lsn()`, one round trip). A read on a standby first makes sure the standby has replayed that
/// position: a reader that saw it replayed, less than a second ago, reads at once; otherwise it asks the standby
/// (`pg_last_wal_replay_lsn()`), again every few milliseconds, for up to the configuration's
/// `readYourWritesTimeout`, and the read runs on the primary when that passes. The same check measures the
/// standby's lag, the time since the last transaction it replayed while it has received WAL it has not replayed;
/// a standby further behind than `maxStandbyLag` is not read from until it catches up.
extension DBBPostgresObjectStore {
    /// The position after the last commit, in bytes, and the standby's replay position and lag.
    static let commitPositionQuery = "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"
    static let replayQuery =
        "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint, CASE WHEN pg_last_wal_receive_lsn() = "
        + "pg_last_wal_replay_lsn() THEN 0 ELSE COALESCE(EXTRACT(epoch FROM now() - "
        + "pg_last_xact_replay_timestamp()), 0) END::double precision"

    /// How long a standby's replay position and lag stay known without asking again.
    static let replayCheckInterval: UInt64 = 1_000_000_000

    /// Whether some reader reads on a hot standby, so that commits note their position.
    private var readsOnStandbys: Bool { readers.contains { $0.onStandby.load(ordering: .relaxed) } }

    /// Notes the WAL position after a commit on the writer; call on the writer's queue, after the commit.
    func noteCommit(on connection: Connection) {
        guard readsOnStandbys else { return }
        do {
            let rows = try connection.objects.connection.fetchAll(Self.commitPositionQuery)
            guard let position = rows.first?.first?.int64Value else { throw CancellationError() }
            lastCommit.max(Int(position), ordering: .relaxed)
        } catch {
            // The commit happened; where it ended is unknown: read on the primary until the next commit.
            lastCommit.store(.max, ordering: .relaxed)
        }
    }

    /// The connection for a read: the next reader, unless it is on a standby that has not replayed this manager's
    /// last commit within the timeout, or lags too far behind; then the writer.
    ///
    /// When the reader's standby has not caught up in time, the other readers' standbys are asked once each before
    /// the primary: while the primary is being replaced, the synchronous standby, which has every acknowledged
    /// commit, keeps serving reads.
    func readConnection() throws -> Connection {
        let reader = nextReaderConnection()
        // The common case, a reader that needs no check, allocates nothing.
        guard let needed = catchUpNeeded(reader) else { return reader }
        for (candidate, timeout) in candidates(after: reader, needed: needed) {
            if catchUpNeeded(candidate) == nil { return candidate }
            let fresh = try candidate.waiting { [configuration] in
                candidate.catchUp(to: needed, timeout: timeout, maxLag: configuration.maxStandbyLag)
            }
            if fresh { return candidate }
        }
        return writer
    }

    /// ``readConnection()`` without blocking the calling task.
    func readConnection() async throws -> Connection {
        let reader = nextReaderConnection()
        // The common case, a reader that needs no check, allocates nothing.
        guard let needed = catchUpNeeded(reader) else { return reader }
        for (candidate, timeout) in candidates(after: reader, needed: needed) {
            if catchUpNeeded(candidate) == nil { return candidate }
            let fresh = try await candidate.suspending { [configuration] in
                candidate.catchUp(to: needed, timeout: timeout, maxLag: configuration.maxStandbyLag)
            }
            if fresh { return candidate }
        }
        return writer
    }

    /// The connections to try for a read that must see `needed`, in order, each with how long it may wait for its
    /// standby: the chosen reader first, with the whole timeout, then the other readers on standbys, asked once.
    /// None when the position of the last commit is unknown: the read runs on the writer.
    private func candidates(after reader: Connection, needed: Int) -> [(Connection, Double)] {
        if needed == .max { return [] }
        let others = readers.filter { $0 !== reader && $0.onStandby.load(ordering: .relaxed) }
        return [(reader, configuration.readYourWritesTimeout)] + others.map { ($0, 0) }
    }

    /// The position a reader on a standby must have replayed before it reads, when it must be checked; `nil` when
    /// the reader may read at once (it is not on a standby, or it saw that position replayed, recently enough).
    private func catchUpNeeded(_ reader: Connection) -> Int? {
        guard reader !== writer, reader.onStandby.load(ordering: .relaxed) else { return nil }
        let needed = lastCommit.load(ordering: .relaxed)
        let recent =
            DispatchTime.now().uptimeNanoseconds &- reader.checkedAt.load(ordering: .relaxed) < Self.replayCheckInterval
        if recent, needed <= reader.replayed.load(ordering: .relaxed) { return nil }
        return needed
    }
}

extension DBBPostgresObjectStore.Connection {
    /// Waits until the standby has replayed `position`, for up to `timeout` seconds; call on the connection's
    /// queue. Returns `false` when it did not, when it lags more than `maxLag` seconds, or when it cannot be
    /// asked (its connection ended: the next work connects again).
    func catchUp(to position: Int, timeout: Double, maxLag: Double) -> Bool {
        let start = DispatchTime.now().uptimeNanoseconds
        var pause = 0.001
        while true {
            guard let row = try? objects.connection.fetchAll(DBBPostgresObjectStore.replayQuery).first,
                row.count == 2
            else { return false }
            guard let replayed = row[0].int64Value else {
                // No replay position: the server is no longer in recovery (it was promoted), and has every commit.
                onStandby.store(false, ordering: .relaxed)
                return true
            }
            self.replayed.store(Int(replayed), ordering: .relaxed)
            checkedAt.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
            if (row[1].doubleValue ?? 0) > maxLag {
                checkedAt.store(0, ordering: .relaxed)
                return false
            }
            if Int(replayed) >= position { return true }
            if Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 + pause > timeout { return false }
            Thread.sleep(forTimeInterval: pause)
            pause = min(pause * 2, 0.02)
        }
    }
}
