import Foundation
import Testing

/// Issue 35: a person's save never undoes what someone else did. Each case as a person hits it,
/// with the real listd and real editors: vim in tmux answering its "changed since reading" prompt,
/// `sed -i`, a script that reads the file, waits, and writes it back.
@Suite(.offThePool, .serialized) struct OlderCopyTests {
    /// Waits for `condition`, up to `seconds`; a wait that runs out fails the test with `what`.
    static func waitUntil(_ what: String, within seconds: Double = 10, _ condition: () throws -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try !condition() {
            guard Date() < deadline else {
                Issue.record("waited \(seconds) s for \(what)")
                return
            }
            usleep(10_000)
        }
    }

    /// listd on `text`, once it has tied the file's headings to its lists (and written their
    /// revision): what a person then opens is the file as listd shows it.
    static func start(_ text: String) throws -> (Sandbox, Daemon, LineConnection) {
        let sandbox = try Sandbox()
        try text.write(toFile: sandbox.file, atomically: true, encoding: .utf8)
        let daemon = try Daemon.start(in: sandbox)
        _ = try sandbox.read(when: { $0.contains(" rev=") })
        return (sandbox, daemon, try LineConnection(path: sandbox.socket))
    }

    static func list(_ client: LineConnection, _ name: String) throws -> (items: [String], checked: [String], quantities: [String: String]) {
        let list = try client.result("getList", ["list": name])
        return (
            list["items"] as? [String] ?? [], list["checked"] as? [String] ?? [],
            list["quantities"] as? [String: String] ?? [:]
        )
    }

    /// A terminal with vim in it, driven as a person types (tmux send-keys), read as they see it.
    final class VimInTmux {
        let session = "listd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        init(_ path: String) throws {
            let run = try ChildProcess.run(
                "/usr/bin/tmux",
                ["new-session", "-d", "-s", session, "-x", "200", "-y", "50", "vim -Nu NONE -n '\(path)'"]
            )
            #expect(run.status == 0, "tmux: \(run.stderr)")
        }
        func type(_ keys: String...) throws { _ = try ChildProcess.run("/usr/bin/tmux", ["send-keys", "-t", session] + keys) }
        func screen() throws -> String { try ChildProcess.run("/usr/bin/tmux", ["capture-pane", "-p", "-t", session]).stdout }
        deinit { _ = try? ChildProcess.run("/usr/bin/tmux", ["kill-session", "-t", session]) }
    }

    /// Case 1, in vim: the person opens the file; a client's add is confirmed and listd rewrites
    /// the file; the person ticks rice and saves, answering vim's warning with y. The add stays.
    @Test func vimWritingAnywayOverAConfirmedAddKeepsTheAdd() throws {
        let (sandbox, daemon, client) = try Self.start("# Pantry\n- rice\n- oats\n")
        defer { withExtendedLifetime(daemon) {} }
        let vim = try VimInTmux(sandbox.file)
        try Self.waitUntil("vim to show the file") { try vim.screen().contains("oats") }
        _ = try client.result("addItem", ["list": "Pantry", "item": "salt"])
        _ = try sandbox.read(when: { $0.contains("salt") })
        try vim.type(":%s/^- rice/- [x] rice/", "Enter")
        try vim.type(":w", "Enter")
        try Self.waitUntil("vim's warning that the file changed") { try vim.screen().contains("Do you really want to write to it") }
        try vim.type("y", "Enter")
        try Self.waitUntil("the tick to be taken in") { try Self.list(client, "Pantry").checked == ["rice"] }
        #expect(try Self.list(client, "Pantry").items == ["rice", "oats", "salt"])
        // The file shows salt again, and the tick.
        let text = try sandbox.read(when: { $0.contains("salt") && $0.contains("[x] rice") })
        #expect(text.contains("salt") && text.contains("[x] rice"), "\(text)")
        #expect(!daemon.logOutput.contains("removed “salt”"), "\(daemon.logOutput)")
    }

    /// Case 1, by a script that reads the file, waits, and writes it back with a line added: the
    /// client's add made meanwhile stays, and the script's line is an add, not a replace.
    @Test func aScriptThatReadsWaitsAndWritesKeepsWhatWasAddedMeanwhile() throws {
        let (sandbox, daemon, client) = try Self.start("# Pantry\n- rice\n- oats\n")
        defer { withExtendedLifetime(daemon) {} }
        let subscriber = try LineConnection(path: sandbox.socket)
        _ = try subscriber.result("subscribe", ["events": ["didUpdateShoppingList"]])
        let script = Thread {
            _ = try? ChildProcess.run(
                "/bin/sh",
                ["-c", "cd '\(sandbox.path)' && copy=$(cat lists.md) && touch read && while [ ! -e go ]; do sleep 0.01; done && printf '%s\\n- flour\\n' \"$copy\" > lists.md && touch done"]
            )
        }
        script.start()
        try Self.waitUntil("the script to read the file") { FileManager.default.fileExists(atPath: sandbox.path + "/read") }
        _ = try client.result("addItem", ["list": "Pantry", "item": "salt"])
        _ = try subscriber.readObject()
        _ = try sandbox.read(when: { $0.contains("salt") })
        FileManager.default.createFile(atPath: sandbox.path + "/go", contents: nil)
        try Self.waitUntil("the script to write") { FileManager.default.fileExists(atPath: sandbox.path + "/done") }
        let change = try subscriber.readObject()
        let steps = ((change["params"] as? [String: Any])?["changes"] as? [[String: Any]]) ?? []
        #expect(steps.map { "\($0["op"] ?? "") \($0["item"] ?? "")" } == ["add flour"], "\(change)")
        #expect(try Self.list(client, "Pantry").items.sorted() == ["flour", "oats", "rice", "salt"])
    }

    /// Case 4: a removal a delegate refuses is put back in the file at once, and the next,
    /// unrelated save (the delegate gone by then) does not remove the item.
    @Test func aRemovalADelegateRefusesIsPutBackAndNotMadeByTheNextSave() throws {
        let (sandbox, daemon, client) = try Self.start("# Groceries\n- milk\n- eggs\n- bread\n")
        defer { withExtendedLifetime(daemon) {} }
        var delegate: LineConnection? = try LineConnection(path: sandbox.socket)
        _ = try delegate?.result("registerDelegate", ["name": "keeper", "questions": ["shouldRemove"]])
        try shell(in: sandbox, "sed -i '/^- milk$/d' lists.md")
        let question = try #require(try delegate?.readObject())
        #expect((question["params"] as? [String: Any])?["item"] as? String == "milk")
        try delegate?.send(#"{"jsonrpc":"2.0","id":"\#(question["id"] as? String ?? "")","result":{"allow":false,"reason":"we need it"}}"#)
        let restored = try sandbox.read(when: { $0.contains("milk") })
        #expect(restored.contains("milk"), "the refused removal is put back in the file: \(restored)")
        // The delegate goes (whether listd has noticed yet or not, nothing must ask it again).
        delegate = nil
        try shell(in: sandbox, "sed -i 's/eggs$/[x] eggs/' lists.md")
        try Self.waitUntil("the tick to be taken in") { try Self.list(client, "Groceries").checked == ["eggs"] }
        #expect(try Self.list(client, "Groceries").items == ["milk", "eggs", "bread"])
    }

    /// Case 12: a line moved in the file to another section is asked `shouldMove`; a refused move
    /// puts the line back where it was, and says why there.
    @Test func aMoveInTheFileIsAskedAndARefusedOneIsPutBack() throws {
        let (sandbox, daemon, client) = try Self.start("# Groceries\n## Dairy\n- milk\n- butter\n## Bakery\n- bread\n")
        defer { withExtendedLifetime(daemon) {} }
        let delegate = try LineConnection(path: sandbox.socket)
        _ = try delegate.result("registerDelegate", ["name": "dairy", "questions": ["shouldMove"]])
        try shell(in: sandbox, "vim -Nu NONE -n -es -c '/^- milk/m $' -c 'wq' lists.md")
        let question = try delegate.readObject()
        let params = question["params"] as? [String: Any]
        #expect(question["method"] as? String == "shouldMove")
        #expect(params?["item"] as? String == "milk")
        #expect(params?["section"] as? String == "Bakery")
        try delegate.send(#"{"jsonrpc":"2.0","id":"\#(question["id"] as? String ?? "")","result":{"allow":false,"reason":"nothing leaves Dairy"}}"#)
        let text = try sandbox.read(when: { $0.contains("nothing leaves Dairy") })
        #expect(text.contains("## Dairy\n- [ ] milk\n- butter\n") || text.contains("## Dairy\n- milk\n- butter\n"), "\(text)")
        let list = try client.result("getList", ["list": "Groceries"])
        let sections = (list["sections"] as? [[String: Any]])?.map { "\($0["name"] ?? ""): \(($0["items"] as? [String]) ?? [])" }
        #expect(sections == ["Dairy: [\"milk\", \"butter\"]", "Bakery: [\"bread\"]"])
    }

    /// Cases 2 and 3: a `# Groceries` typed above the real one is the duplicate; a `## dairy`
    /// typed above the real `## Dairy` is that section, its items join it, nothing is replaced.
    @Test func headingsTypedAboveTheRealOnesTakeNothingFromThem() throws {
        let (sandbox, daemon, client) = try Self.start("# Groceries\n- eggs\n## Dairy\n- milk (2 l)\n")
        defer { withExtendedLifetime(daemon) {} }
        try shell(in: sandbox, "sed -i 's/^- eggs$/- eggs\\n## dairy\\n- yoghurt/' lists.md")
        try Self.waitUntil("yoghurt to be added") { try Self.list(client, "Groceries").items.contains("yoghurt") }
        let list = try client.result("getList", ["list": "Groceries"])
        let sections = (list["sections"] as? [[String: Any]])?.map { "\($0["name"] ?? ""): \(($0["items"] as? [String]) ?? [])" }
        #expect(sections == ["Dairy: [\"yoghurt\", \"milk\"]"], "\(list)")
        #expect((list["quantities"] as? [String: String])?["milk"] == "2 l")

        try shell(in: sandbox, "sed -i '1i # Groceries\\n- bread\\n' lists.md")
        _ = try sandbox.read(when: { $0.contains("not taken") })
        #expect(try Self.list(client, "Groceries").items == ["eggs", "yoghurt", "milk"])
        let text = try sandbox.read()
        #expect(text.contains("There is already a list called “Groceries”. You wrote: # Groceries -->"), "\(text)")
        #expect(text.contains("You wrote: - bread -->"), "\(text)")
        #expect(!daemon.logOutput.contains("removed “"), "\(daemon.logOutput)")
    }

    /// Case 6: an amount listd accepted survives an unrelated save.
    @Test func anAmountWithParenthesesSurvivesAnUnrelatedSave() throws {
        let (sandbox, daemon, client) = try Self.start("# T\n- tea\n")
        defer { withExtendedLifetime(daemon) {} }
        let added = try listctl(["add", "T", "eggs", "--amount", "12 (large)"], socket: sandbox.socket)
        #expect(added.status == 0, "\(added.stderr)")
        _ = try sandbox.read(when: { $0.contains("eggs (12 (large))") })
        try shell(in: sandbox, "sed -i 's/^- tea$/- [x] tea/' lists.md")
        try Self.waitUntil("the tick to be taken in") { try Self.list(client, "T").checked == ["tea"] }
        let list = try Self.list(client, "T")
        #expect(list.items == ["tea", "eggs"] && list.quantities == ["eggs": "12 (large)"], "\(list)")
        #expect(!daemon.logOutput.contains("replaced “eggs”"), "\(daemon.logOutput)")
        let refused = try listctl(["add", "T", "ham", "--amount", "2 (thick"], socket: sandbox.socket)
        #expect(refused.status != 0 && refused.stderr.contains("parentheses do not pair up"), "\(refused.stderr)")
    }

    static func isSymlink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Case 7: a symlinked list file edited with `sed -i` (which puts a file in the link's place):
    /// the edit is taken in and that file is kept from then on.
    @Test func aSymlinkReplacedBySedIsTakenInAndItsFileKept() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.path + "/real", withIntermediateDirectories: true)
        try "# Groceries\n- milk\n".write(toFile: sandbox.path + "/real/lists.md", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: sandbox.file, withDestinationPath: "real/lists.md")
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: sandbox.socket)
        _ = try sandbox.read(when: { $0.contains(" rev=") })
        #expect(Self.isSymlink(sandbox.file), "listd's own write keeps the link a link")
        try shell(in: sandbox, "sed -i 's/^- milk$/- milk\\n- eggs/' lists.md")
        #expect(!Self.isSymlink(sandbox.file))
        try Self.waitUntil("sed's edit to be taken in") { try Self.list(client, "Groceries").items == ["milk", "eggs"] }
        _ = try client.result("addItem", ["list": "Groceries", "item": "tea"])
        let text = try sandbox.read(when: { $0.contains("tea") })
        #expect(text.contains("- eggs") && text.contains("tea"), "the file that took the link's place is kept: \(text)")
    }

    /// Case 7: a link whose target does not exist yet is written through, not replaced.
    @Test func aLinkToAMissingFileIsWrittenThrough() throws {
        let sandbox = try Sandbox()
        try FileManager.default.createDirectory(atPath: sandbox.path + "/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sandbox.file, withDestinationPath: "real/new.md")
        let daemon = try Daemon.start(in: sandbox)
        defer { withExtendedLifetime(daemon) {} }
        let client = try LineConnection(path: sandbox.socket)
        _ = try client.result("createList", ["name": "Groceries", "items": ["milk"]])
        let text = try sandbox.read("real/new.md", when: { $0.contains("milk") })
        #expect(text.contains("- [ ] milk"), "\(text)")
        #expect(Self.isSymlink(sandbox.file), "the link stays a link")
    }
}
