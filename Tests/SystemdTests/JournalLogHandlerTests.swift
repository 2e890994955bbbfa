import Foundation
import Logging
import Testing

@testable import Systemd

@Suite struct JournalFieldTests {
    @Test func metadataKeysBecomeJournalFieldNames() {
        #expect(JournalLogHandler.fieldName("list_name") == "LIST_NAME")
        #expect(JournalLogHandler.fieldName("client-pid") == "CLIENT_PID")
        #expect(JournalLogHandler.fieldName("_private") == "PRIVATE")
        #expect(JournalLogHandler.fieldName("élan") == "LAN")  // "_LAN": no leading underscore
    }

    @Test func levelsMapToSyslogPriorities() {
        #expect(JournalLogHandler.priority(.critical) == 2)
        #expect(JournalLogHandler.priority(.error) == 3)
        #expect(JournalLogHandler.priority(.warning) == 4)
        #expect(JournalLogHandler.priority(.notice) == 5)
        #expect(JournalLogHandler.priority(.info) == 6)
        #expect(JournalLogHandler.priority(.debug) == 7)
    }

    @Test func withoutAJournalStreamStderrIsNotTheJournal() {
        #expect(!JournalLogHandler.stderrIsJournal(environment: [:]))
        #expect(!JournalLogHandler.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] == nil))
    func notifyingWithoutAServiceManagerDoesNothing() throws {
        // The test runner has no NOTIFY_SOCKET: sd_notify returns 0, which means "nobody listens".
        #expect(try ServiceNotifier().notify("STATUS=test") == false)
    }
}
