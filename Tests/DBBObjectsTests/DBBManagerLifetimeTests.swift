import DBBObjects
import Foundation
import Testing

@Suite struct DBBManagerLifetimeTests {
    /// A manager that nobody holds any more is released with its objects, and its connection closes:
    /// the WAL file is checkpointed into the database and removed.
    @Test func aManagerIsReleasedAndItsConnectionClosed() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("lifetime.sqlite")
        weak var released: DBBManager?
        do {
            let manager = try DBBManager(databaseURL: url)
            released = manager
            try manager.addTableClasses(Models.all)
            let project = Project(dbManager: manager)
            project.projectLead = Person(dbManager: manager)
            project.tags = ["a"]
            try project.save()
            #expect(Project.allInstances(manager: manager).count == 1)
            _ = try Project.fetch(options: .options(withConditions: ["tags = 'a'"]), manager: manager)
        }
        #expect(released == nil)
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal") == false)
    }

    @Test func closingCheckpointsTheLogAndLaterCallsFailClearly() throws {
        let test = try TestManager(.file)
        let url = test.folder.file("test.sqlite")
        let project = Project(dbManager: test.manager)
        let meeting = Meeting(dbManager: test.manager)
        project.meetings = [meeting]
        meeting.project = project  // a cycle: these objects keep the manager alive
        try project.save()
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        try test.manager.close()
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal") == false)
        #expect(project.saveToDB() == false)
        #expect(test.manager.errorMessage().contains("closed"))

        let reopened = try DBBManager(databaseURL: url)
        try reopened.addTableClasses(Models.all)
        #expect(Project.allInstances(manager: reopened).first?.meetings.count == 1)
    }
}
