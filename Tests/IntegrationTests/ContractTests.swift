// Issue 62: one machine-readable contract, docs/listd.openrpc.json, held to the real listd and to
// docs/protocol.md. The conformance session (Tests/Contract/conformance.py) goes over every
// method, notification, delegate question and error against real listds and checks every message
// they send with a JSON Schema validator; the methods table of protocol.md must name what the
// contract names.
import Foundation
import Testing

@Suite(.offThePool) struct ContractTests {
    static let contract = DocExamplesTests.root + "/docs/listd.openrpc.json"

    /// Every message listd sends in the session conforms, and every part of the contract is seen;
    /// so do the complete examples docs/protocol.md shows (its addItem reply once lacked fields
    /// listd always sends).
    @Test func listdKeepsItsContract() throws {
        let main = try Daemon.start()
        let idle = try Daemon.start(in: try Sandbox(), arguments: ["--idle-ms", "300"])
        let full = try Daemon.start(in: try Sandbox(), arguments: ["--max-connections", "3"])
        defer { withExtendedLifetime((main, idle, full)) {} }
        let run = try ChildProcess.run(
            "/usr/bin/env",
            [
                "python3", DocExamplesTests.root + "/Tests/Contract/conformance.py",
                "--contract", Self.contract,
                "--socket", main.sandbox.socket, "--file", main.sandbox.file,
                "--idle-socket", idle.sandbox.socket, "--full-socket", full.sandbox.socket,
                "--document", DocExamplesTests.root + "/docs/protocol.md",
            ]
        )
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("; 0 failures"), "\(run.stdout)")
        #expect(run.stdout.contains("5 complete examples of"), "protocol.md's complete examples are checked: \(run.stdout)")
    }

    /// docs/protocol.md's methods table lists every method of the contract, each with the
    /// params the contract gives it (optional ones with `?`; `editId` and `basedOn`, which every
    /// edit takes, are said once above the table), and no other.
    @Test func protocolDocumentNamesWhatTheContractNames() throws {
        let document = try String(contentsOfFile: DocExamplesTests.root + "/docs/protocol.md", encoding: .utf8)
        let data = try Data(contentsOf: URL(fileURLWithPath: Self.contract))
        let contract = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        var wanted: [String: Set<String>] = [:]
        for method in contract["methods"] as? [[String: Any]] ?? [] {
            let params = (method["params"] as? [[String: Any]] ?? []).compactMap { param -> String? in
                guard let name = param["name"] as? String, name != "editId", name != "basedOn" else { return nil }
                return name + (param["required"] as? Bool == true ? "" : "?")
            }
            wanted[method["name"] as? String ?? ""] = Set(params)
        }
        var documented: [String: Set<String>] = [:]
        for line in document.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`"), wanted[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] != nil
            else { continue }
            let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            guard cells[1] == "—" || cells[1].hasPrefix("`{") else { continue }
            // `{list, item, section?, quantities?: {item: amount}}`: the names before any `:`.
            let inner = cells[1] == "—" ? "" : String(cells[1].dropFirst(2).dropLast(2))
            var names: Set<String> = []
            var depth = 0
            var current = ""
            var skipping = false
            for character in inner + "," {
                switch character {
                case "{", "[": depth += 1
                case "}", "]": depth -= 1
                case ":" where depth == 0: skipping = true
                case "," where depth == 0:
                    let param = current.trimmingCharacters(in: .whitespaces)
                    if !param.isEmpty { names.insert(param) }
                    current = ""
                    skipping = false
                default: if depth == 0, !skipping { current.append(character) }
                }
            }
            documented[name] = names
        }
        for (method, params) in wanted {
            #expect(documented[method] == params, "protocol.md's row of \(method): \(documented[method].map { $0.sorted() } ?? []) — the contract: \(params.sorted())")
        }
    }
}
