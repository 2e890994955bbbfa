import Foundation
import ListModel
import ListRPCTransport
import NIOCore
import Testing

@testable import ListRPC

private func read(_ text: String) -> JSONValue? {
    Array(text.utf8).withUnsafeBufferPointer { try? JSONReader.read($0) }
}

private func written(_ value: JSONValue) -> String {
    var bytes: [UInt8] = []
    JSONWriter.write(value, into: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

/// `value` written by hand, and by Foundation's JSONEncoder through Codable alone (which knows
/// nothing of the hand writers, inside it either), each read back: the two must say the same.
private func writtenBothWays(
    _ value: some Encodable & JSONDirectlyWritable
) throws -> (direct: NSObject, codable: NSObject, text: String) {
    #expect(DirectJSON.writer(for: value) != nil, "\(type(of: value)) is missing from DirectJSON's table")
    var direct: [UInt8] = []
    value.writeJSON(into: &direct)
    let codable = try JSONEncoder().encode(value)
    func read(_ data: Data) throws -> NSObject {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject ?? NSNull()
    }
    return (try read(Data(direct)), try read(codable), String(decoding: direct, as: UTF8.self))
}

/// A JSON value made from `seed`, up to `depth` levels deep, with strings that need escaping.
private func randomValue(_ generator: inout some RandomNumberGenerator, depth: Int = 4) -> JSONValue {
    let strings = [
        "", "milk", "“quoted”", "a\"b", "back\\slash", "tab\there", "new\nline", "\u{1}\u{1f}", "slash/", "🥛 oat",
        "\u{7f}é",
    ]
    switch Int.random(in: depth > 0 ? 0...6 : 0...4, using: &generator) {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &generator))
    case 2: return .integer(Int64.random(in: Int64.min...Int64.max, using: &generator))
    case 3: return .number(Double.random(in: -1e6...1e6, using: &generator) + 0.5)
    case 4: return .string(strings.randomElement(using: &generator)!)
    case 5:
        return .array(
            (0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(&generator, depth: depth - 1) }
        )
    default:
        var object: [String: JSONValue] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            object[strings.randomElement(using: &generator)!] = randomValue(&generator, depth: depth - 1)
        }
        return .object(object)
    }
}

/// A seeded generator, so a failure can be replayed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

@Suite struct JSONReaderWriterTests {
    @Test func aRepeatedKeyKeepsItsLastValueAsFoundationDoes() throws {
        let text = #"{"op":"add","item":"milk","op":"remove","at":1,"item":"eggs"}"#
        #expect(read(text) == .object(["op": .string("remove"), "item": .string("eggs"), "at": .integer(1)]))
        let foundation = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(foundation?["op"] as? String == "remove")
        #expect(read(#"{}"#) == .object([:]))
        #expect(read(#"{"a":1,}"#) == nil)
    }

    @Test func writtenValuesReadBackEqualAndFoundationAgrees() throws {
        var generator = SplitMix(state: 42)
        for _ in 0..<2_000 {
            let value = randomValue(&generator)
            let text = written(value)
            #expect(read(text) == value, "\(text)")
            // Foundation reads the same text as valid JSON too.
            #expect(throws: Never.self) {
                try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
            }
        }
    }

    @Test func readsWhatTheGrammarAllows() {
        #expect(
            read(#"  {"a" : [1, -2, 3.5, 1e2, -0, true, false, null, "x"] }  "#)
                == .object([
                    "a": .array([
                        .integer(1), .integer(-2), .number(3.5), .integer(100), .integer(0), .bool(true), .bool(false),
                        .null, .string("x"),
                    ])
                ])
        )
        #expect(read(#""\u00e9\ud83e\udd5b\n\/\\\"""#) == .string("é🥛\n/\\\""))
        #expect(read("123456789012345678901234567890") == .number(123456789012345678901234567890))
        #expect(read(#"{"a":1,"a":2}"#) == .object(["a": .integer(2)]))
    }

    @Test(arguments: [
        "", " ", "{", "}", "{a:1}", "01", "1.", ".5", "-", "1e", "+1", "1e999999",
        "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\x\"", "\"\\u12\"", "\"tab\tinside\"",
        "\"unterminated", "tru", "nul", "[1 2]", "{\"a\" 1}", "1 2", "NaN", "Infinity",
    ])
    func refusesWhatTheGrammarDoesNot(_ text: String) {
        #expect(read(text) == nil, "\(text.debugDescription)")
        // Foundation refuses each of them too.
        #expect(throws: (any Error).self) {
            try JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)
        }
    }

    /// Foundation's reader lets these through; JSON (RFC 8259) does not, and neither does listd.
    @Test func trailingCommasAreRefused() {
        #expect(read("[1,]") == nil)
        #expect(read(#"{"a":1,}"#) == nil)
    }

    @Test func typedValuesDecodeAsTheyWereWithFoundation() throws {
        var book = ListBook()
        let items = ["milk", "“oat” milk", "back\\slash", "say \"hi\"", "🥛", "a/b"]
        let created = try #require(
            try book.apply(
                .createList(name: "Groceries \"weekly\"", items: items),
                at: Timestamp(millisecondsSinceEpoch: 1_790_000_000_123),
                origin: .client(pid: 7, uid: 1000, name: "vim/ctl")
            )
        )
        let params = ListChangeParams(created)
        let bytes = try JSONWriter.encode(params)
        #expect(try JSONDecoder().decode(ListChangeParams.self, from: Data(bytes)) == params)

        let error = RPCError.invalidParams("“item” is missing.")
        #expect(try JSONDecoder().decode(RPCError.self, from: Data(try JSONWriter.encode(error))) == error)

        // Nested values that encode nothing are written as an empty object, as Foundation does.
        struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct Holder: Encodable {
            var empty = Empty()
            var after = 1
        }
        #expect(String(decoding: try JSONWriter.encode(Holder()), as: UTF8.self) == #"{"empty":{},"after":1}"#)
    }

    /// Lists are written by hand (they are in every reply and notification): byte for byte what
    /// their Codable conformance writes.
    @Test func aListWrittenDirectlyIsWhatCodableWrites() throws {
        let lists = [
            ShoppingList(
                id: 1,
                name: "Groceries",
                edited: Timestamp(millisecondsSinceEpoch: 0),
                revision: 1,
                items: []
            ),
            ShoppingList(
                id: 42,
                name: "“Weekly” \\ \"shop\"/",
                edited: Timestamp(millisecondsSinceEpoch: 1_790_000_000_123),
                revision: 99,
                items: ["milk", "🥛 oat", "a\u{1}b", "say \"hi\""]
            ),
        ]
        for list in lists {
            let written = try writtenBothWays(list)
            #expect(written.direct == written.codable)
            #expect(try JSONDecoder().decode(ShoppingList.self, from: Data(written.text.utf8)) == list)
        }
    }

    /// Everything a change notification carries, written directly and through Codable.
    @Test func changeNotificationsWrittenDirectlyAreWhatCodableWrites() throws {
        var book = ListBook()
        let at = Timestamp(millisecondsSinceEpoch: 1_790_000_000_000)
        var changes: [ListChange] = []
        changes.append(
            try #require(try book.apply(.createList(name: "G \"1\"", items: ["a", "b"]), at: at, origin: .file))
        )
        changes.append(
            try #require(
                try book.apply(.addItem("c/d", to: .id(1)), at: at, origin: .client(pid: 1, uid: 2, name: nil))
            )
        )
        changes.append(
            try #require(
                try book.apply(
                    .replaceItem("a", with: "“A”", on: .id(1)),
                    at: at,
                    origin: .client(pid: 3, uid: 0, name: "n\\m")
                )
            )
        )
        changes.append(try #require(try book.apply(.removeItem("b", from: .id(1)), at: at, origin: .file)))
        changes.append(try #require(try book.apply(.renameList(.id(1), to: "H"), at: at, origin: .file)))
        for change in changes {
            let params = ListChangeParams(change)
            let written = try writtenBothWays(params)
            #expect(written.direct == written.codable)
            #expect(try JSONDecoder().decode(ListChangeParams.self, from: Data(written.text.utf8)) == params)
            // The notification and a reply around it are JSON-RPC as Foundation reads it.
            let line = try RPCEncoding.requestBytes(id: nil, method: "didUpdateShoppingList", params: params)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            #expect(
                object["jsonrpc"] as? String == "2.0" && object["method"] as? String == "didUpdateShoppingList"
                    && object["id"] == nil
            )
            for id in [RPCRequestID.number(7), .string("x\"y"), .null] {
                let reply = try #require(
                    try JSONSerialization.jsonObject(with: try RPCEncoding.result(id: id, params.list))
                        as? [String: Any]
                )
                #expect(reply.keys.sorted() == ["id", "jsonrpc", "result"])
                #expect(
                    try JSONDecoder().decode(
                        ShoppingList.self,
                        from: JSONSerialization.data(withJSONObject: reply["result"]!)
                    ) == params.list
                )
            }
        }
    }

    /// What listd sends is written straight into NIO's buffer: the same bytes as into an array,
    /// ended by a newline, for a list (escapes, a time), a change notification whole and brief,
    /// replies and errors, batches of them, and numbers at their edges.
    @Test func messagesWrittenIntoNIOsBufferAreTheBytesWrittenIntoAnArray() throws {
        var book = ListBook()
        let at = Timestamp(millisecondsSinceEpoch: -62_167_219_200_001)  // the last millisecond of 2 BC (year -1)
        let change = try #require(
            try book.apply(.createList(name: "“A” \\ \"b\"", items: ["milk", "🥛"]), at: at, origin: .client(pid: -1, uid: 4_294_967_295, name: "n"))
        )
        let record = ChangeRecord(revision: change.revision, time: at, origin: change.origin, operation: .remove(id: 1, at: 0))
        func same(_ params: some Encodable, id: RPCRequestID?) throws {
            func text(_ buffer: ByteBuffer) -> String { String(buffer: buffer) }
            let array = try RPCEncoding.requestBytes(id: id, method: "m\"\t\u{1}", params: params)
            let request = try RPCOutgoing.request(id: id, method: "m\"\t\u{1}", params: params)
            #expect(text(request) == String(decoding: array, as: UTF8.self) + "\n")
            let result = try RPCOutgoing.result(id: id, params)
            let resultArray = [UInt8](try RPCEncoding.result(id: id, params))
            #expect(text(result) == String(decoding: resultArray, as: UTF8.self) + "\n")
            let denial = RPCError(
                code: -32001, message: "“milk” is \"already\" on G\u{1}",
                data: .object(["reason": .string("duplicate"), "z": .array([.integer(-7), .number(1.5), .null, .bool(true)])])
            )
            let error = RPCOutgoing.error(id: id, denial)
            let errorArray = try JSONWriter.encode(CodableErrorReply(id: id, error: denial))
            #expect(text(error) == String(decoding: errorArray, as: UTF8.self) + "\n")
            #expect(RPCEncoding.errorBytes(id: id, .invalidRequest("x")) == (try JSONWriter.encode(CodableErrorReply(id: id, error: .invalidRequest("x")))))
            #expect(text(RPCOutgoing.batch([request])) == "[" + String(decoding: array, as: UTF8.self) + "]\n")
            #expect(
                text(RPCOutgoing.batch([result, error, request]))
                    == "[" + [resultArray, errorArray, array].map { String(decoding: $0, as: UTF8.self) }.joined(separator: ",") + "]\n"
            )
        }
        for id in [RPCRequestID.number(Int64.min), .number(0), .number(Int64.max), .string("x\"y"), nil] {
            try same(change.list, id: id)
            try same(ListChangeParams(change), id: id)
            try same(BriefChangeParams(change, record: record), id: id)
            try same(ListSummary(change.list), id: id)
        }
        #expect(at.rfc3339 == "-0001-12-31T23:59:59.999Z")
        var decimals: [UInt8] = []
        for value in [0, 7, -7, Int.min, Int.max] {
            decimals.writeDecimal(value)
            decimals.writeByte(UInt8(ascii: " "))
        }
        #expect(String(decoding: decimals, as: UTF8.self) == "0 7 -7 \(Int.min) \(Int.max) ")
    }

    /// An edit's confirm and a clear's, whole and brief, with each effect: written by hand as
    /// Codable writes them, and read back by a client as what they say.
    @Test func editRepliesWrittenDirectlyAreWhatCodableWrite() throws {
        let list = ShoppingList(
            id: 42,
            name: "“Weekly” \\ \"shop\"/",
            edited: Timestamp(millisecondsSinceEpoch: 1_790_000_000_123),
            revision: 99,
            items: ["milk", "eggs"]
        )
        for brief in [false, true] {
            for effect in [EditReply.Effect.applied, .unchanged, .resent(appliedRevision: 7)] {
                let reply = EditReply(list: list, brief: brief, effect: effect)
                let written = try writtenBothWays(reply)
                #expect(written.direct == written.codable, "\(written.text)")
                let said = try JSONDecoder().decode(EditEffect.self, from: Data(written.text.utf8))
                #expect(said.unchanged == (effect == .unchanged))
                #expect(said.resent == (effect != .applied && effect != .unchanged))
                #expect(said.appliedRevision == (effect == .resent(appliedRevision: 7) ? 7 : nil))
                #expect((written.direct as? [String: Any])?["items"] == nil || !brief, "a summary when brief")
            }
            let kept = [KeptItem(item: "milk", denials: [DelegateDenial(delegate: "diet", reason: "no")], timedOut: [])]
            let cleared = ClearChecked.Result(list: list, cleared: ["tea"], kept: kept, brief: brief)
            let written = try writtenBothWays(cleared)
            #expect(written.direct == written.codable, "\(written.text)")
            if !brief { #expect(try JSONDecoder().decode(ClearChecked.Result.self, from: Data(written.text.utf8)) == cleared) }
        }
    }

    /// The brief forms (a brief connection's confirms and notifications), written directly and
    /// through Codable: every optional field present and absent.
    @Test func briefFormsWrittenDirectlyAreWhatCodableWrite() throws {
        let summary = ListSummary(id: 4, name: "G \"1\" / “x”", revision: 12, edited: Timestamp(millisecondsSinceEpoch: 1_790_000_000_123))
        let written = try writtenBothWays(summary)
        #expect(written.direct == written.codable)
        #expect(try JSONDecoder().decode(ListSummary.self, from: Data(written.text.utf8)) == summary)
        let every = BriefStep(op: "move", item: "a\u{1}", with: "w", from: "f", to: "t", index: 3, fromIndex: 0, section: "", quantity: "2 l")
        let params = [
            BriefChangeParams(revision: 12, list: summary, origin: .file(host: "kitchen"), changes: [], items: nil),
            BriefChangeParams(
                revision: 13,
                list: summary,
                origin: .client(pid: 9, uid: 1000, name: "phone"),
                changes: [every, BriefStep(op: "none"), BriefStep(op: "add", item: "milk", index: 0, section: "Dairy")],
                items: nil,
                undoes: 11
            ),
            BriefChangeParams(
                revision: 14,
                list: summary,
                origin: .client(pid: 9, uid: 1000, name: nil),
                changes: [],
                items: ["eggs", "milk", "“oat”"],
                checked: ["eggs"],
                sections: [BriefSection(name: "Dairy", items: ["milk", "“oat”"]), BriefSection(name: "E", items: [])],
                quantities: ["milk": "2 l", "eggs": "12", "“oat”": "1"],
                undoes: nil
            ),
        ]
        for change in params {
            let written = try writtenBothWays(change)
            #expect(written.direct == written.codable, "\(written.text)")
            #expect(try JSONDecoder().decode(BriefChangeParams.self, from: Data(written.text.utf8)) == change)
        }
    }

    /// Every edit's params are read by hand from their text: both readers are in DirectJSON's table
    /// (missing, the params would be read through Codable, the same answers the slow way).
    @Test func theParamsHandReadersAreInDirectJSONsTable() throws {
        let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"list":"G","item":"x"}}"#.utf8)
        guard case .single(.success(.request(let request))) = RPCLine.parse(line), let params = request.params else {
            Issue.record("the line is a request with params")
            return
        }
        #expect(DirectJSON.read(AddItemParams.self, fromText: params) == AddItemParams(list: .name("G"), item: "x"))
        #expect(DirectJSON.read(ListItemParams.self, fromText: params) == ListItemParams(list: .name("G"), item: "x"))
    }

    /// The requests a one-shot client sends, written directly and through Codable: the same bytes,
    /// with every optional field present and absent.
    @Test func requestsWrittenDirectlyAreWhatCodableWrites() throws {
        func same(_ params: some Encodable & JSONDirectlyWritable) throws {
            let written = try writtenBothWays(params)
            #expect(written.direct == written.codable)
            #expect(try JSONSerialization.jsonObject(with: Data(written.text.utf8)) is [String: Any], "an object")
        }
        let lists: [ListReference] = [.id(7), .name("Groceries"), .name("“a\"b”/\u{1}"), .name("42")]
        for list in lists {
            try same(GetList.Params(list: list))
            try same(AddItemParams(list: list, item: "milk"))
            try same(AddItemParams(list: list, item: "rice \"x\"", section: "", quantity: "2 kg", ifRevision: 12))
            try same(AddItemParams(list: list, item: "eggs", section: "Dairy"))
            try same(ListItemParams(list: list, item: "🥛 oat"))
            try same(ListItemParams(list: list, item: "milk", ifRevision: 3))
        }
        try same(Hello.Params(name: nil))
        try same(Hello.Params(name: "listctl", brief: true))
        try same(Hello.Params(name: "a\"b", brief: false))
        try same(Hello.Params(name: nil, brief: true))
        try same(Hello.Params(name: "Kitchen phone", rights: ["items"]))
        try same(Hello.Params(name: nil, rights: []))
        try same(Hello.Params(name: "x", brief: true, rights: ["items", "lists"]))
        // And a whole request, as the client sends it.
        let line = try RPCEncoding.requestBytes(id: .number(3), method: "addItem", params: AddItemParams(list: .id(1), item: "x"))
        #expect(String(decoding: line, as: UTF8.self) == #"{"jsonrpc":"2.0","id":3,"method":"addItem","params":{"list":1,"item":"x"}}"#)
    }

    @Test func controlCharactersAndQuotesAreEscapedAndSlashesAreNot() {
        #expect(written(.string("a\"b\\c/d\n\u{1}")) == #""a\"b\\c/d\n\u0001""#)
        #expect(written(.object(["b": .integer(1), "a": .null])) == #"{"a":null,"b":1}"#)
    }
}

/// Params are decoded straight from the value read; Foundation's decoder (what listd used before)
/// must agree on every outcome: the same value, or an error of the same kind at the same field.
@Suite struct JSONValueDecoderTests {
    private enum Outcome: Equatable {
        case value(String)
        case error(kind: String, path: [String])
    }

    private func outcome<T: Decodable>(_ type: T.Type, _ decode: () throws -> T) -> Outcome {
        do {
            return .value("\(try decode())")
        } catch let error as DecodingError {
            let (kind, context): (String, DecodingError.Context) =
                switch error {
                case .keyNotFound(let key, let context): ("keyNotFound(\(key.stringValue))", context)
                case .typeMismatch(_, let context): ("typeMismatch", context)
                case .valueNotFound(_, let context): ("valueNotFound", context)
                case .dataCorrupted(let context): ("dataCorrupted", context)
                @unknown default: ("unknown", DecodingError.Context(codingPath: [], debugDescription: ""))
                }
            return .error(kind: kind, path: context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue })
        } catch {
            return .error(kind: "\(error)", path: [])
        }
    }

    private func agree<T: Decodable>(_ type: T.Type, _ text: String) throws {
        let value = try #require(Array(text.utf8).withUnsafeBufferPointer { try? JSONReader.read($0) })
        let ours = outcome(type) { try JSONValueDecoder.decode(type, from: value) }
        let foundation = outcome(type) { try JSONDecoder().decode(type, from: Data(text.utf8)) }
        #expect(ours == foundation, "\(T.self) from \(text)")
    }

    @Test func agreesWithFoundationOnEveryOutcome() throws {
        for text in [
            #"{"list":1,"item":"milk"}"#, #"{"list":"Groceries","item":"milk","ifRevision":7}"#, #"{"item":"milk"}"#,
            #"{"list":1}"#, #"{"list":1,"item":5}"#, #"{"list":1,"item":null}"#, #"{"list":true,"item":"x"}"#,
            #"{"list":1,"item":"x","ifRevision":"7"}"#, #"{"list":1,"item":"x","ifRevision":null}"#,
            #"{"list":[1],"item":"x"}"#,
        ] {
            try agree(AddItem.Params.self, text)
        }
        for text in [
            #"{"name":"G"}"#, #"{"name":"G","items":["a","b"]}"#, #"{"name":"G","items":["a",1]}"#,
            #"{"name":"G","items":"a"}"#, #"{"name":"G","items":[null]}"#, #"{}"#, #"{"name":1}"#,
        ] {
            try agree(CreateList.Params.self, text)
        }
        for text in [
            #"{}"#, #"{"events":["didCreateShoppingList"],"lists":[1,"Groceries"],"since":3}"#, #"{"lists":[true]}"#,
            #"{"since":-1}"#, #"{"instance":"abc","since":0}"#,
        ] {
            try agree(Subscribe.Params.self, text)
        }
        for text in [
            #"{"name":"vet"}"#, #"{"name":"vet","questions":["shouldAdd"],"timeoutMs":100,"onTimeout":"deny"}"#,
            #"{"name":"vet","questions":["shouldFly"]}"#, #"{"name":"vet","onTimeout":"maybe"}"#,
            #"{"name":"vet","timeoutMs":"fast"}"#,
        ] {
            try agree(RegisterDelegate.Params.self, text)
        }
    }

    /// A list and a list's summary read by hand are what Codable reads, and whatever the hand
    /// reader does not take (nil) Codable decides: the outcome is Foundation's in every case.
    @Test func listsReadDirectlyAreWhatCodableReads() throws {
        let base = #""id":3,"name":"G \"1\"","edited":"2026-11-26T19:06:39.951Z","revision":9"#
        let lists = [
            "{\(base),\"items\":[]}",
            "{\(base),\"items\":[\"milk\",\"eggs\",\"🥛\"],\"checked\":[\"eggs\",\"gone\"],\"sections\":[{\"name\":\"Dairy\",\"items\":[\"eggs\",\"🥛\"]}],\"quantities\":{\"milk\":\"2 l\",\"gone\":\"1\"}}",
            "{\(base),\"items\":[\"a\"],\"checked\":null,\"sections\":null,\"quantities\":null}",
            "{\(base),\"items\":[\"a\",\"b\"],\"sections\":[{\"name\":\"S\",\"items\":[\"b\"]}]}",
            "{\(base),\"items\":[\"a\"],\"sections\":[{\"name\":\"\",\"items\":[]},{\"name\":\"T\",\"items\":[\"a\"]}]}",
            "{\(base),\"items\":[\"a\"],\"extra\":{\"x\":1}}",
            // Sections that are not the list's last items: Codable's error.
            "{\(base),\"items\":[\"a\",\"b\"],\"sections\":[{\"name\":\"S\",\"items\":[\"a\"]}]}",
            "{\(base),\"items\":[1]}",
            "{\(base),\"items\":[\"a\"],\"checked\":\"a\"}",
            "{\(base),\"items\":[\"a\"],\"quantities\":{\"a\":2}}",
            #"{"id":1.5,"name":"G","edited":"2026-11-26T19:06:39.951Z","revision":1,"items":[]}"#,
            #"{"id":1,"name":"G","edited":"yesterday","revision":1,"items":[]}"#,
            #"{"id":1,"name":"G","revision":1,"items":[]}"#,
            #"{"id":1,"name":"G","edited":"2026-11-26T19:06:39.951Z","revision":1}"#,
            #"[1]"#,
        ]
        for text in lists {
            // (A fraction for an integer differs on purpose: below.)
            if !text.hasPrefix(#"{"id":1.5"#) { try agree(ShoppingList.self, text) }
            let value = try #require(Array(text.utf8).withUnsafeBufferPointer { try? JSONReader.read($0) })
            if let direct = ShoppingList(directly: value) {
                #expect(direct == (try JSONDecoder().decode(ShoppingList.self, from: Data(text.utf8))), "\(text)")
            }
        }
        let taken = lists.filter { text in
            (Array(text.utf8).withUnsafeBufferPointer { try? JSONReader.read($0) }).flatMap(ShoppingList.init(directly:)) != nil
        }
        #expect(taken == Array(lists.prefix(6)), "the well-formed lists are read by hand")
        for text in [
            "{\(base)}", #"{"id":1,"name":"G","revision":1}"#, #"{"id":"1","name":"G","revision":1,"edited":"2026-11-26T19:06:39.951Z"}"#,
        ] {
            try agree(ListSummary.self, text)
        }
        let summary = try #require(Array("{\(base)}".utf8).withUnsafeBufferPointer { try? JSONReader.read($0) })
        #expect(ListSummary(directly: summary) == ListSummary(id: 3, name: "G \"1\"", revision: 9, edited: try #require(Timestamp(rfc3339: "2026-11-26T19:06:39.951Z"))))
    }

    /// Where they differ, on purpose: a fraction for an integer field names the field (Foundation
    /// reports a corrupted document with no path, which became a message naming nothing).
    @Test func aFractionForAnIntegerNamesTheField() {
        #expect(
            outcome(Subscribe.Params.self) {
                try JSONValueDecoder.decode(Subscribe.Params.self, from: .object(["since": .number(1.5)]))
            }
                == .error(kind: "typeMismatch", path: ["since"])
        )
    }
}

/// An error reply as Codable writes it (the `id` null when there is none): what listd's direct
/// writer must match.
private struct CodableErrorReply: Encodable {
    var jsonrpc = "2.0"
    var id: RPCRequestID?
    var error: RPCError

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        if let id { try container.encode(id, forKey: .id) } else { try container.encodeNil(forKey: .id) }
        try container.encode(error, forKey: .error)
    }

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, error }
}
