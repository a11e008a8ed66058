import DBBObjects
import Foundation
import Testing

@Suite struct DBBObjectsSmokeTests {
    @Test(arguments: Storage.allCases) func saveAndLoadGraph(storage: Storage) throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let ann = Person(dbManager: manager)
        ann.firstName = "Ann"
        ann.lastName = "Lee"
        ann.nicknames = ["A", "Annie"]
        let bo = Person(dbManager: manager)
        bo.firstName = "Bo"
        ann.spouse = bo
        bo.spouse = ann
        let project = Project(dbManager: manager)
        project.name = "Apollo"
        project.tags = ["space", "moon", "urgent"]
        project.projectLead = ann
        let meeting = Meeting(dbManager: manager)
        meeting.purpose = "Kickoff"
        meeting.participants = [bo, ann]
        meeting.project = project
        project.meetings = [meeting]
        try project.save()
        #expect(project.idNum > 0)
        #expect(ann.idNum > 0 && bo.idNum > 0 && meeting.idNum > 0)

        let loaded = try #require(Project.instanceWithIDNumber(project.idNum, manager: manager))
        #expect(loaded.name == "Apollo")
        #expect(loaded.tags == ["space", "moon", "urgent"])
        let lead = try #require(loaded.projectLead)
        #expect(lead.firstName == "Ann")
        #expect(lead.nicknames == ["A", "Annie"])
        #expect(lead.spouse?.firstName == "Bo")
        #expect(lead.spouse?.spouse === lead)
        let loadedMeeting = try #require(loaded.meetings.first)
        #expect(loadedMeeting.participants.map(\.firstName) == ["Bo", "Ann"])
        #expect(loadedMeeting.participants[1] === lead)
        #expect(loadedMeeting.project === loaded)
    }
}
