// listd's timers and thresholds are one table: what its flags set reaches the core, the
// connections' rules and the delegates' seats alike (issue 65: the table had been rebuilt from
// `CoreLimits.standard` at four sites, so a flag's value reached some parts and not others).
import Foundation
import ListModel
import ListRPC
import Logging
import Testing

@testable import ListCore
@testable import ListDaemon

@Suite struct OneLimitsTableTests {
    @Test func everyPartReadsTheTableListdWasGiven() async throws {
        var limits = CoreLimits.standard
        limits.quietPeriod = .milliseconds(77)
        limits.idleLimit = .seconds(41)
        limits.stallGrace = .seconds(9)
        limits.defaultDelegateTimeout = .milliseconds(1_234)
        let directory = try ScratchDirectories.make("one-limits-table", create: false)
        let nowhere = StderrLines(descriptor: open("/dev/null", O_WRONLY | O_CLOEXEC))
        let parts = try await ListdParts(
            filePath: directory + "/lists.md",
            limits: limits,
            logger: Logger(label: "test"),
            journal: .stderr(label: "test", lines: nowhere)
        )
        let owner = parts.owner
        #expect(parts.limits == limits)
        #expect(owner.limits == limits)
        let coreLimits = try await owner.loop.submit { owner.core.limits }.get()
        #expect(coreLimits == limits, "the core runs on the table listd was given")
        let settle = try await owner.loop.submit { owner.core.file.settle.quietPeriod }.get()
        #expect(settle == .milliseconds(77), "the list file's quiet period is the table's")
        let services = parts.connectionServices(RPCServer.Configuration(socketPath: "/unused", version: "test"), logger: Logger(label: "test"))
        #expect(services.rules.limits == limits, "the connections' rules read the same table")
        let delegate = try await LoopConnection(parts, id: 1)
        delegate.send(#"{"jsonrpc":"2.0","id":1,"method":"registerDelegate","params":{"name":"pantry"}}"# + "\n")
        let granted = try #require(try delegate.line("the registration")["result"] as? [String: Any])
        #expect(granted["timeoutMs"] as? Int == 1_234, "a delegate's default timeout is the table's")
    }
}
