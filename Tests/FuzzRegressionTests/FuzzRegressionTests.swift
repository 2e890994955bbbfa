import Foundation
import FuzzChecks
import Testing

/// Every input kept for the fuzzers (seeds and the crashes they found), replayed as plain tests.
@Suite struct FuzzRegressionTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The kept inputs of one fuzzer, by folder and name.
    private static func inputs(_ fuzzer: String) throws -> [(name: String, bytes: Data)] {
        var inputs: [(String, Data)] = []
        for folder in ["corpus", "regressions"] {
            let directory = root.appendingPathComponent(folder).appendingPathComponent(fuzzer)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasPrefix(".") {
                inputs.append(
                    ("\(folder)/\(fuzzer)/\(name)", try Data(contentsOf: directory.appendingPathComponent(name)))
                )
            }
        }
        return inputs
    }

    @Test func requestLines() throws {
        let inputs = try Self.inputs("FuzzRPCLine")
        #expect(inputs.count > 10, "the corpus is there")
        for input in inputs {
            let broken = input.bytes.withUnsafeBytes(FuzzChecks.rpcLine)
            #expect(broken == nil, "\(input.name): \(broken ?? "")")
        }
    }

    @Test func pageMessages() throws {
        let inputs = try Self.inputs("FuzzPageMessage")
        #expect(inputs.count > 10, "the corpus is there")
        for input in inputs {
            let broken = input.bytes.withUnsafeBytes(FuzzChecks.pageMessage)
            #expect(broken == nil, "\(input.name): \(broken ?? "")")
        }
    }

    @Test func calDAVBodies() throws {
        let inputs = try Self.inputs("FuzzCalDAV")
        #expect(inputs.count > 10, "the corpus is there")
        for input in inputs {
            let broken = input.bytes.withUnsafeBytes(FuzzChecks.calDAV)
            #expect(broken == nil, "\(input.name): \(broken ?? "")")
        }
    }

    @Test func listFiles() throws {
        let inputs = try Self.inputs("FuzzListFile")
        #expect(inputs.count > 10, "the corpus is there")
        for input in inputs {
            let broken = input.bytes.withUnsafeBytes(FuzzChecks.listFile)
            #expect(broken == nil, "\(input.name): \(broken ?? "")")
        }
    }
}
