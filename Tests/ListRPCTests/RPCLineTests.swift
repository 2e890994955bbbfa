import Foundation
import ListModel
import ListRPC
import Testing

private func single(_ text: String) -> Result<RPCMessage, RPCLine.InvalidMessage>? {
    if case .single(let message) = RPCLine.parse(Array(text.utf8)) { return message }
    return nil
}

private func errorCode(_ text: String) -> Int? {
    if case .failure(let invalid)? = single(text) { return invalid.error.code }
    return nil
}

@Suite struct RPCLineTests {
    @Test func readsARequestWithNamedParams() throws {
        let message = try #require(
            single(#"{"jsonrpc":"2.0","id":7,"method":"addItem","params":{"list":1,"item":"milk"}}"#)
        )
        guard case .success(.request(let request)) = message else {
            Issue.record("expected a request, got \(message)")
            return
        }
        #expect(request.id == .number(7))
        #expect(request.method == "addItem")
        let params = try RPCEncoding.decode(AddItem.Params.self, from: request.params)
        #expect(params == AddItem.Params(list: .id(1), item: "milk"))
    }

    @Test func notificationsHaveNoIDAndNullIDIsARequest() throws {
        guard case .success(.request(let note))? = single(#"{"jsonrpc":"2.0","method":"getLists"}"#) else {
            Issue.record("not a request")
            return
        }
        #expect(note.isNotification)
        guard case .success(.request(let nullID))? = single(#"{"jsonrpc":"2.0","id":null,"method":"getLists"}"#) else {
            Issue.record("not a request")
            return
        }
        #expect(nullID.id == .null)
    }

    @Test func standardErrors() {
        #expect(errorCode("{not json") == -32700)
        #expect(errorCode("\u{FF}\u{FE}") == -32700)
        #expect(errorCode("[]") == -32600)
        #expect(errorCode("42") == -32600)
        #expect(errorCode(#"{"id":1,"method":"getLists"}"#) == -32600)
        #expect(errorCode(#"{"jsonrpc":"1.0","id":1,"method":"getLists"}"#) == -32600)
        #expect(errorCode(#"{"jsonrpc":"2.0","id":1,"method":5}"#) == -32600)
        #expect(errorCode(#"{"jsonrpc":"2.0","id":{},"method":"x"}"#) == -32600)
        #expect(errorCode(#"{"jsonrpc":"2.0","id":1,"method":"x","params":"p"}"#) == -32600)
    }

    @Test func invalidUTF8BytesAreAParseError() {
        guard case .single(.failure(let invalid)) = RPCLine.parse([0x7B, 0xC3, 0x28, 0x7D]) else {
            Issue.record("expected an error")
            return
        }
        #expect(invalid.error.code == -32700)
    }

    @Test func batchesAreValidatedPerElement() {
        guard
            case .batch(let elements) = RPCLine.parse(
                Array(#"[{"jsonrpc":"2.0","id":1,"method":"a"}, 1, {"jsonrpc":"2.0","method":"b"}]"#.utf8)
            )
        else {
            Issue.record("expected a batch")
            return
        }
        #expect(elements.count == 3)
        if case .failure(let invalid) = elements[1] {
            #expect(invalid.error.code == -32600)
        } else {
            Issue.record("element 2 should be invalid")
        }
    }

    @Test func blankLinesAreIgnored() {
        if case .empty = RPCLine.parse(Array("  \t\r".utf8)) {} else { Issue.record("blank line not ignored") }
    }

    @Test func repliesEchoTheIDExactly() throws {
        let reply = String(decoding: try RPCEncoding.result(id: .string("a-1"), EmptyResult()), as: UTF8.self)
        #expect(reply == #"{"jsonrpc":"2.0","id":"a-1","result":{}}"#)
        let nullReply = String(decoding: RPCEncoding.error(id: nil, .parseError("x")), as: UTF8.self)
        #expect(nullReply == #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: x"}}"#)
    }

    @Test func denialsCarryACodeAReasonAndASentence() {
        let error = RPCError(ListError.itemExists(item: "milk", list: "Groceries"))
        #expect(error.code == 1001)
        #expect(error.reason == "itemExists")
        #expect(error.message == "“milk” is already on Groceries.")
        #expect(error.isDenial)
        #expect(!RPCError.methodNotFound("x").isDenial)
        let codes = [
            "itemExists", "itemNotFound", "listExists", "listNotFound", "invalidName", "invalidItem", "conflict",
        ]
        .map(DenialCode.code(for:))
        #expect(Set(codes).count == codes.count)
    }

    /// The client's enum of denial words and the daemon's table of codes name the same words: a
    /// reason added to one and not the other would reach clients as `.other`.
    @Test func everyDenialWordIsACaseAndACode() {
        #expect(Set(DenialReason.allCases.map(\.rawValue)) == Set(DenialCode.byReason.keys))
        for reason in DenialReason.allCases {
            #expect(DenialReason(rawValue: reason.rawValue) == reason)
            #expect(reason.code == DenialCode.byReason[reason.rawValue])
        }
        #expect(DenialReason(rawValue: "tooSpicy") == .other("tooSpicy") && DenialReason.other("tooSpicy").code == 1000)
    }

    @Test func listReferenceIsAnIDOrAName() throws {
        #expect(try RPCEncoding.decode(GetList.Params.self, from: .object(["list": .integer(3)])).list == .id(3))
        #expect(
            try RPCEncoding.decode(GetList.Params.self, from: .object(["list": .string("3 Things")])).list
                == .name("3 Things")
        )
        #expect(throws: (any Error).self) {
            try RPCEncoding.decode(GetList.Params.self, from: .object(["list": .bool(true)]))
        }
    }
}
