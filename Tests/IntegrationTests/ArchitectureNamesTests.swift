// docs/architecture.md is the map a newcomer reads first, and its walks name each hop as the code
// runs it (`ListFileStorage.write`, `ListCore+Save.swift`): every such name must still be in the
// code, so a rename or a removal fails here instead of leaving the map wrong.
import Foundation
import Testing

@Suite struct ArchitectureNamesTests {
    /// Types the walks name that are not the project's (SwiftNIO's, hummingbird-websocket's …).
    static let outsideTypes: Set<String> = [
        "NIOAsyncChannelOutboundWriter", "WebSocketOutboundWriter", "NIOThreadPool", "EventLoop", "FileDescriptor",
    ]

    /// The project's `.swift` files: each name, and each type's texts (the files that declare or
    /// extend it).
    static func swiftFiles() throws -> (names: Set<String>, texts: [String: [String]]) {
        var names: Set<String> = []
        var texts: [String: [String]] = [:]
        for folder in ["Sources", "Tests"] {
            let root = DocExamplesTests.root + "/" + folder
            guard let walk = FileManager.default.enumerator(atPath: root) else { continue }
            for case let path as String in walk where path.hasSuffix(".swift") {
                names.insert(String(path.split(separator: "/").last ?? ""))
                let text = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
                for match in text.matches(of: /(?:struct|enum|class|actor|protocol|extension)\s+([A-Z][A-Za-z0-9]*)/) {
                    texts[String(match.output.1), default: []].append(text)
                }
            }
        }
        return (names, texts)
    }

    @Test func everyNameTheMapCitesIsInTheCode() throws {
        let map = try String(contentsOfFile: DocExamplesTests.root + "/docs/architecture.md", encoding: .utf8)
        let files = try Self.swiftFiles()
        let cited = Set(map.matches(of: /`([A-Z][A-Za-z0-9]*(?:\+[A-Za-z0-9]+)?)\.([a-z][A-Za-z0-9]*)/).map {
            "\($0.output.1).\($0.output.2)"
        })
        #expect(cited.count > 50, "the map cites \(cited.count) names")
        var missing: [String] = []
        for name in cited.sorted() {
            let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
            let (type, member) = (parts[0], parts[1])
            if member == "swift" {
                if !files.names.contains(name) { missing.append(name) }
                continue
            }
            guard !Self.outsideTypes.contains(type) else { continue }
            // The member declared in a file that declares or extends the type.
            let declared = try Regex(
                member == "init"
                    ? "\\binit[(<]"
                    : "(func|var|let|case|typealias)\\s+\(member)\\b|case\\s+[^\\n]*[ ,]\(member)\\b"
            )
            if !(files.texts[type] ?? []).contains(where: { $0.contains(declared) }) { missing.append(name) }
        }
        #expect(missing.isEmpty, "docs/architecture.md names what the code no longer has: \(missing)")
    }

    /// Every action or event the map cites as `.name` is an enum case in the code (issue 65: the
    /// walk cited `.statusChanged`, an action long gone — a method of the core's now).
    @Test func everyCaseTheMapCitesIsACase() throws {
        let map = try String(contentsOfFile: DocExamplesTests.root + "/docs/architecture.md", encoding: .utf8)
        let texts = try Self.swiftFiles().texts.values.flatMap { $0 }
        let cited = Set(map.matches(of: /`\.([a-z][A-Za-z0-9]*)/).map { String($0.output.1) })
        #expect(cited.count > 15, "the map cites \(cited.count) cases")
        let missing = try cited.sorted().filter { name in
            let declared = try Regex("\\bcase\\s+(?:[^\\n]*[ ,])?\(name)\\b")
            return !texts.contains { $0.contains(declared) }
        }
        #expect(missing.isEmpty, "docs/architecture.md cites as cases what the code does not have as one: \(missing)")
    }

    /// The map's tiers hold (issue 65): a module of Sources/Core imports none of Shells, Tools or
    /// Products, and one of Shells none of Tools — read from every file's imports, so a new
    /// import that breaks a tier fails here.
    @Test func noModuleImportsFromAHigherTier() throws {
        let sources = DocExamplesTests.root + "/Sources"
        let tiers = ["Core", "Shells", "Products", "Tools"]
        var modules: [String: Set<String>] = [:]
        for tier in tiers {
            let folders = try FileManager.default.contentsOfDirectory(atPath: sources + "/" + tier)
            modules[tier] = Set(folders.map { $0.replacingOccurrences(of: "-", with: "_") })
        }
        #expect(modules["Core"]?.contains("ListCore") == true && modules["Shells"]?.contains("ListDaemon") == true)
        let forbidden = ["Core": ["Shells", "Products", "Tools"], "Shells": ["Products", "Tools"]]
        var crossings: [String] = []
        for (tier, above) in forbidden {
            let higher = above.reduce(into: Set<String>()) { $0.formUnion(modules[$1] ?? []) }
            guard let walk = FileManager.default.enumerator(atPath: sources + "/" + tier) else { continue }
            for case let path as String in walk where path.hasSuffix(".swift") {
                let text = try String(contentsOfFile: sources + "/" + tier + "/" + path, encoding: .utf8)
                for match in text.matches(of: /(?m)^(?:@testable )?import ([A-Za-z_][A-Za-z0-9_]*)/) where higher.contains(String(match.output.1)) {
                    crossings.append("\(tier)/\(path) imports \(match.output.1)")
                }
            }
        }
        #expect(crossings.isEmpty, "imports against the tiers: \(crossings)")
    }
}
