import DBBPostgres
import DBBSQL
import Foundation
import Testing

/// Several hosts in one configuration: libpq's URL syntax, `target_session_attrs`, and a search that skips the
/// hosts that are down or of the wrong role.
struct DBBPostgresHostListTests {
    typealias Host = DBBPostgresConfiguration.Host

    @Test func aURLListsSeveralHostsAsLibpqWritesThem() throws {
        let configuration = try DBBPostgresConfiguration(
            url: "postgres://app:s3cret@10.0.0.1:5432,10.0.0.2:5433,[::1]:5434,db4/app?target_session_attrs=read-write"
                + "&sslmode=disable&max_standby_lag=2.5&read_your_writes_timeout=1&failover_timeout=20")
        #expect(
            configuration.hosts == [
                Host("10.0.0.1", port: 5432), Host("10.0.0.2", port: 5433), Host("::1", port: 5434), Host("db4"),
            ])
        #expect(configuration.host == "10.0.0.1" && configuration.port == 5432)
        #expect(configuration.username == "app" && configuration.password == "s3cret")
        #expect(configuration.database == "app")
        #expect(configuration.targetSessionAttributes == .readWrite)
        #expect(configuration.maxStandbyLag == 2.5)
        #expect(configuration.readYourWritesTimeout == 1)
        #expect(configuration.failoverTimeout == 20)
        let shown = configuration.description
        #expect(
            shown
                == "postgres://app:***@10.0.0.1:5432,10.0.0.2:5433,[::1]:5434,db4:5432/app?sslmode=disable"
                + "&target_session_attrs=read-write&max_standby_lag=2.5&read_your_writes_timeout=1&failover_timeout=20")
        #expect(!shown.contains("s3cret") && !String(reflecting: configuration).contains("s3cret"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("s3cret"))
        // The description reads back as the same configuration, but for the password.
        var again = try DBBPostgresConfiguration(url: shown)
        again.password = "s3cret"
        #expect(again == configuration)
    }

    @Test func aSingleHostURLIsWhatItWas() throws {
        let configuration = try DBBPostgresConfiguration(url: "postgres://app:pw@127.0.0.1:6543/app?sslmode=disable")
        #expect(configuration.hosts == [Host("127.0.0.1", port: 6543)])
        #expect(configuration.targetSessionAttributes == .any && configuration.pooler == .none)
        #expect(configuration.description == "postgres://app:***@127.0.0.1:6543/app?sslmode=disable")
    }

    @Test func poolerSettingsReadFromTheURL() throws {
        let configuration = try DBBPostgresConfiguration(
            url: "postgres://app@pool:6432/app?pooler=transaction&listen_hosts=10.0.0.1:5432,10.0.0.2")
        #expect(configuration.pooler == .transaction)
        #expect(configuration.listenHosts == [Host("10.0.0.1"), Host("10.0.0.2")])
        #expect(configuration.preparedStatements, "the setting stays as given; the pooler turns preparing off")
        #expect(
            configuration.description
                == "postgres://app@pool:6432/app?sslmode=prefer&pooler=transaction&listen_hosts=10.0.0.1:5432,"
                + "10.0.0.2:5432")
    }

    @Test(arguments: [
        ("postgres://app:pw@a:1,,b/app", "empty entry"),
        ("postgres://app:pw@a:1,b:x/app", "the port 'x' of 'b:x' is not a number"),
        ("postgres://app:pw@a:1,b:70000/app", "not between 1 and 65535"),
        ("postgres://app:pw@a,[::1/app", "opens a bracket"),
        ("postgres://app:pw@a,b/app?target_session_attrs=leader", "unknown target_session_attrs 'leader'"),
        ("postgres://app:pw@a,b/app?max_standby_lag=soon", "max_standby_lag is a number of seconds"),
        ("postgres://app:pw@a,b/app?pooler=statement", "pooler is none, session or transaction"),
        ("postgres://app:pw@a/app?listen_hosts=x:y", "listen_hosts: the port 'y'"),
    ])
    func aWrongHostListIsNamedWithoutThePassword(url: String, problem: String) {
        do {
            _ = try DBBPostgresConfiguration(url: url)
            Issue.record("\(url) was accepted")
        } catch let error as DBBError {
            #expect(error.kind == .misuse)
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(!error.description.contains(":pw@"), "\(error.description)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test(.postgres) func aConnectionSkipsHostsThatAreDownAndTellsWhichItUsed() async throws {
        let server = try await TestPostgres.shared().configuration
        let down = Host("127.0.0.1", port: try TestPostgres.freeLoopbackPort())
        var list = server
        list.hosts = [down, server.hosts[0]]
        let configuration = list
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            #expect(db.server == server.hosts[0])
            #expect(db.wasStandby == false, "a list asks each server its role")
            #expect(try db.fetchAll("SELECT 1") == [[.integer(1)]])
        }
        let asynchronous = try await DBBPostgresConnection.connect(configuration)
        #expect(asynchronous.server == server.hosts[0])
        try await asynchronous.close()
    }

    @Test(.postgres) func aServerOfTheWrongRoleIsNotTaken() async throws {
        let server = try await TestPostgres.shared().configuration
        let down = Host("127.0.0.1", port: try TestPostgres.freeLoopbackPort())
        var list = server
        list.hosts = [down, server.hosts[0]]
        list.targetSessionAttributes = .standby
        let standbyOnly = list
        list.targetSessionAttributes = .preferStandby
        let preferStandby = list
        try await TestPostgres.onQueue {
            // The only server is a primary: a standby is wanted, none is found, and each host says why.
            do {
                _ = try DBBPostgresConnection.connect(standbyOnly)
                Issue.record("a primary was taken for a standby")
            } catch let error as DBBError {
                #expect(error.sqlState == "08001")
                #expect(error.message.contains("\(down): connection refused"), "\(error.message)")
                #expect(error.message.contains("\(server.hosts[0]): is a primary"), "\(error.message)")
                #expect(error.message.contains("target_session_attrs=standby"))
                #expect(!error.description.contains(server.password!))
            }
            // prefer-standby takes the primary when there is no standby.
            let db = try DBBPostgresConnection.connect(preferStandby)
            defer { try? db.close() }
            #expect(db.server == server.hosts[0] && db.wasStandby == false)
        }
    }

    @Test(.postgres) func aWrongPasswordEndsTheSearch() async throws {
        var list = try await TestPostgres.shared().configuration
        list.hosts = [list.hosts[0], list.hosts[0]]
        list.password = "wrong"
        let configuration = list
        try await TestPostgres.onQueue {
            do {
                _ = try DBBPostgresConnection.connect(configuration)
                Issue.record("a wrong password logged in")
            } catch let error as DBBError {
                #expect(error.sqlState == "28P01")
            }
        }
    }
}
