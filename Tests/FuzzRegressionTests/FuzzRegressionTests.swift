import Foundation
import FuzzChecks
import Testing

/// Every input kept for the fuzzers (seeds and the crashes they found), replayed as plain tests.
@Suite struct FuzzRegressionTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz")

    /// The kept inputs of one fuzzer.
    private static func inputs(_ fuzzer: String) throws -> [Data] {
        var inputs: [Data] = []
        for folder in ["corpus", "regressions"] {
            let directory = root.appendingPathComponent(folder).appendingPathComponent(fuzzer)
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where !name.hasPrefix(".") {
                inputs.append(try Data(contentsOf: directory.appendingPathComponent(name)))
            }
        }
        return inputs
    }

    @Test func requestLines() throws {
        let inputs = try Self.inputs("FuzzRPCLine")
        #expect(!inputs.isEmpty)
        for input in inputs { input.withUnsafeBytes(FuzzChecks.rpcLine) }
    }

    @Test func listFiles() throws {
        let inputs = try Self.inputs("FuzzListFile")
        #expect(!inputs.isEmpty)
        for input in inputs { input.withUnsafeBytes(FuzzChecks.listFile) }
    }
}
