import DBBObjects
import Foundation
import InMemoryTracing
import MetricsTestKit
import Testing
import Tracing

@Suite struct DBBManagerInstrumentationTests {
    private static func manager(_ folder: TemporaryFolder, readers: Int) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("traced.sqlite"), readers: readers)
        try manager.addTableClasses(Models.all)
        return manager
    }

    @Test("each object operation and each write or read closure is a span with the database attributes")
    func spans() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, readers: 2)
        let tracer = InMemoryTracer()
        try manager.setInstrumentation(DBBInstrumentation(metrics: nil, tracer: tracer))

        let person = Person(dbManager: manager)
        person.lastName = "Traced"
        try await person.save()
        let found = try await Person.fetch(
            options: .options(withConditions: ["lastName = 'Traced'"]), manager: manager)
        let id = person.idNum
        try await manager.write { try Person.delete(ids: [id], manager: manager) }
        #expect(found.count == 1)

        let spans = tracer.finishedSpans
        #expect(spans.map(\.operationName) == ["save Person", "fetch Person", "delete Person", "write"])
        let save = try #require(spans.first)
        #expect(save.kind == .client)
        #expect(save.attributes["db.system.name"]?.toSpanAttribute() == "sqlite")
        #expect(save.attributes["db.namespace"]?.toSpanAttribute() == "traced.sqlite")
        #expect(save.attributes["db.operation.name"]?.toSpanAttribute() == "save")
        #expect(save.attributes["db.collection.name"]?.toSpanAttribute() == "Person")
        // The query text is off by default.
        #expect(spans[1].attributes["db.query.text"] == nil)
        // The delete inside the closure is the closure's child: the closure's span was current around it.
        #expect(spans[2].traceID == spans[3].traceID)
        #expect(spans.allSatisfy { $0.status == nil })

        tracer.clearAll()
        try manager.setInstrumentation(DBBInstrumentation(metrics: nil, tracer: tracer, tracesQueryText: true))
        _ = try await Person.fetch(options: .options(withConditions: ["lastName = 'Ann'"]), manager: manager)
        let text = tracer.finishedSpans.first?.attributes["db.query.text"]?.toSpanAttribute()
        #expect(text.map { "\($0)".contains("lastName") } == true)
    }

    @Test("a failed operation and a rolled-back closure end their spans with an error")
    func failedSpans() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, readers: 0)
        let tracer = InMemoryTracer()
        try manager.setInstrumentation(DBBInstrumentation(metrics: nil, tracer: tracer))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try manager.write { db in
                try db.execute("INSERT INTO Person (lastName) VALUES ('Gone')")
                throw Stop()
            }
        }
        let first = Company(dbManager: manager)
        first.name = "Same"
        try first.save()
        let second = Company(dbManager: manager)
        second.name = "Same"
        #expect(throws: DBBError.self) { try second.save() }
        let spans = tracer.finishedSpans.filter { $0.status != nil }
        #expect(tracer.finishedSpans.map(\.operationName) == ["write", "save Company", "save Company"])
        #expect(spans.map(\.operationName) == ["write", "save Company"])
        #expect(spans.allSatisfy { $0.status?.code == .error && $0.errors.count == 1 })
        #expect(try Person.fetchCount(manager: manager) == 0)
    }

    @Test("operations, transactions and waits are counted and timed; nothing without a backend")
    func metrics() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, readers: 2)
        let metrics = TestMetrics()
        try manager.setInstrumentation(DBBInstrumentation(metrics: DBBMetrics(factory: metrics), tracer: nil))

        let people = (0..<3).map { index in
            let person = Person(dbManager: manager)
            person.age = index
            return person
        }
        try await Person.save(people, manager: manager)
        _ = try await Person.fetchAll(manager: manager)
        _ = try await Person.fetchCount(manager: manager)
        let id = people[0].idNum
        try await manager.write { try Person.delete(ids: [id], manager: manager) }
        try await manager.read { _ = try Person.fetchAll(manager: manager) }
        let first = Company(dbManager: manager)
        first.name = "Same"
        try await first.save()
        let second = Company(dbManager: manager)
        second.name = "Same"
        await #expect(throws: DBBError.self) { try await second.save() }

        let base = [("db.system", "sqlite"), ("db.namespace", "traced.sqlite")]
        func operations(_ name: String) -> Int64 {
            metrics.counterTotal(label: "dbb.operations", dimensions: base + [("db.operation.name", name)])
        }
        #expect(operations("save") == 3)
        #expect(operations("fetch") == 2)
        #expect(operations("count") == 1)
        #expect(operations("delete") == 1)
        #expect(
            metrics.counterTotal(
                label: "dbb.operation.failures", dimensions: base + [("db.operation.name", "save")]) == 1)
        let commits = base + [("dbb.transaction", "write"), ("dbb.outcome", "commit")]
        #expect(metrics.counterTotal(label: "dbb.transactions", dimensions: commits) == 1)
        let reads = base + [("dbb.transaction", "read"), ("dbb.outcome", "commit")]
        #expect(metrics.counterTotal(label: "dbb.transactions", dimensions: reads) == 1)
        // Writes wait for the writer (save, delete, the write closure), reads for a reader.
        let writerWaits = try metrics.expectTimer("dbb.wait.duration", base + [("dbb.connection", "writer")])
        #expect(writerWaits.values.count == 5)
        let readerWaits = try metrics.expectTimer("dbb.wait.duration", base + [("dbb.connection", "reader")])
        #expect(readerWaits.values.count == 4)
        // The connections' statements are counted too, the writer's and the readers'.
        #expect(metrics.counterTotal(label: "dbb.statements", dimensions: base) > 6)

        try manager.setInstrumentation(DBBInstrumentation(metrics: nil, tracer: nil))
        metrics.reset()
        _ = try await Person.fetchAll(manager: manager)
        #expect(metrics.counters.isEmpty && metrics.timers.isEmpty)
    }

    @Test("with nothing bootstrapped, a new manager reports nothing")
    func defaults() {
        let instrumentation = DBBInstrumentation()
        #expect(instrumentation.logging == nil)
        #expect(instrumentation.metrics == nil)
        #expect(instrumentation.tracer == nil)
        #expect(!instrumentation.tracesQueryText)
    }
}
