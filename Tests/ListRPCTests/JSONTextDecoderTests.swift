import ListModel
import ListRPC
import Testing

/// Params are decoded from their text, never built into a tree first: the text decoder must take
/// and refuse what the tree decoder does, with the same errors (the client reads them), and a
/// line must be taken as JSON exactly when the tree reader takes it.
@Suite struct JSONTextDecoderTests {
    /// The params of the request on `line`.
    private func params(_ text: String) throws -> JSONText {
        let line = #"{"jsonrpc":"2.0","id":1,"method":"m","params":"# + text + "}"
        guard case .single(.success(.request(let request))) = RPCLine.parse(Array(line.utf8)) else {
            throw RPCError.invalidRequest("not a request: \(line)")
        }
        return try #require(request.params)
    }

    private func readAlike<P: Decodable & Equatable>(_ type: P.Type, _ text: String) throws -> Result<P, any Error> {
        let params = try params(text)
        let fromText = Result { () throws(any Error) in try RPCEncoding.decode(P.self, from: params) }
        let fromTree = Result { () throws(any Error) in try RPCEncoding.decode(P.self, from: params.value) }
        switch (fromText, fromTree) {
        case (.success(let text), .success(let tree)): #expect(text == tree, "\(text)")
        case (.failure(let text), .failure(let tree)): #expect("\(text)" == "\(tree)")
        default: Issue.record("\(P.self) from \(text): text \(fromText), tree \(fromTree)")
        }
        return fromText
    }

    @Test func paramsAreReadFromTheirTextAsFromTheirTree() throws {
        let taken = [
            #"{"list":"Groceries","item":"milk"}"#,
            #"{ "item" : "eggs (12)" , "list" : 3 }"#,
            #"{"list":"Groceries","item":"milk","item":"bread"}"#,  // the last one counts
            #"{"list":"Groceries","item":"caf\u00e9 \ud83d\ude00","quantity":"2 l"}"#,
            #"{"list":2.0,"item":"x","section":null,"unknown":{"deep":[1,[2,{}]]}}"#,
            #"{"list":"G","item":"x","editId":"e1","basedOn":4}"#,
        ]
        for text in taken { #expect(throws: Never.self) { try readAlike(AddItem.Params.self, text).get() } }
        let refused = [
            #"{}"#,
            #"{"list":"Groceries"}"#,
            #"{"list":null,"item":"milk"}"#,
            #"{"list":"G","item":7}"#,
            #"{"list":"G","item":{"a":1}}"#,
            #"{"list":"G","item":["milk"]}"#,
            #"{"list":1.5,"item":"x"}"#,
            #"{"list":[1],"item":"x"}"#,
            #"{"list":"G","item":"x","quantity":false}"#,
            #"[1,2]"#,
        ]
        for text in refused { #expect(throws: (any Error).self) { try readAlike(AddItem.Params.self, text).get() } }
        // The params most edits bring are read by hand (JSONTextDecoder+Direct): the same answers.
        for text in taken + refused + [#"{"list":"G","item":"x","ifRevision":null}"#, #"{"list":"G","item":"x","ifRevision":"3"}"#, #"{"list":"G","item":"x","section":null,"section":"S"}"#] {
            _ = try readAlike(RemoveItem.Params.self, text)
            _ = try readAlike(AddItem.Params.self, text)
        }
        #expect(try readAlike(AddItem.Params.self, #"{"list":"G","item":"x","section":"S","section":null,"quantity":"2","ifRevision":4}"#).get() == AddItemParams(list: .name("G"), item: "x", quantity: "2", ifRevision: 4))
        // Nested containers and arrays of values, by position.
        _ = try readAlike(Subscribe.Params.self, #"{"lists":["Groceries",2],"events":["didUpdateShoppingList"],"since":3}"#)
        _ = try readAlike(Subscribe.Params.self, #"{"lists":["Groceries",{"x":1}]}"#)
        _ = try readAlike(Subscribe.Params.self, #"{"lists":"Groceries"}"#)
        _ = try readAlike(RegisterDelegate.Params.self, #"{"name":"d","timeoutMs":30000,"questions":["shouldAdd"],"onTimeout":"deny"}"#)
        _ = try readAlike(RegisterDelegate.Params.self, #"{"name":"d","questions":["shouldFly"],"timeoutMs":1e3}"#)
        _ = try readAlike(GetHistory.Params.self, #"{"list":"G","since":-1}"#)
        // Null where a value is optional is none, for a type of listd's as for a string.
        #expect(try readAlike(GetHistory.Params.self, #"{"list":null,"since":null}"#).get() == GetHistory.Params())
        _ = try readAlike(Subscribe.Params.self, #"{"lists":null,"events":null}"#)
    }

    @Test func membersAreListedInOrderAndTheLastOfAKeyCounts() throws {
        let params = try params(#"{"editId":"a","basedOn":1,"editId":"b"}"#)
        #expect(params.members.map(\.key) == ["editId", "basedOn", "editId"], "each, in the order written")
        #expect(params.members.last(where: { $0.key == "editId" })?.value.scalar == .string("b"))
        #expect(try EditProvenance(params: params) == EditProvenance(editId: "b", basedOn: 1))
    }

    @Test func aLineIsTakenAsJSONExactlyWhenTheTreeReaderTakesIt() {
        let lines = [
            #"{"a":1}"#, #"{"a":1,}"#, #"{"a" 1}"#, #"[1,2"#, #"[01]"#, #"[-0]"#, #"[1e999]"#, #"[1.5e3]"#,
            #"[123456789012345678901234567890]"#, #"["\ud800"]"#, #"["\ud83d\ude00"]"#, #"["\x"]"#,
            "[\"\u{01}\"]", #"[tru]"#, #"[true,false,null]"#, #"{"a":[{"b":"\""}]}"#, #"{} {}"#, #" { } "#,
            #"["\u00"]"#, #"[-]"#, #"[1.]"#, #"[.5]"#, #"[1e+]"#, #"{"a":1}x"#,
        ]
        for line in lines {
            let refusedAsJSON: Bool
            if case .single(.failure(let invalid)) = RPCLine.parse(Array(line.utf8)), invalid.error.code == -32700 {
                refusedAsJSON = true
            } else {
                refusedAsJSON = false
            }
            let readsAsJSON = (try? RPCEncoding.value(fromJSON: Array(line.utf8))) != nil
            #expect(refusedAsJSON == !readsAsJSON, "\(line)")
        }
    }
}
