// listd-web's rules without a socket: one-time codes and their limit, what a page may send,
// and the token's hash.
import Foundation
import ListRPC
import ListWebProtocol
import Testing

@testable import ListWeb

@Suite struct PairingCodeTests {
    let start = ContinuousClock.now

    @Test func aCodeWorksOnceWithinItsMinutes() {
        var codes = PairingCodes()
        codes.issue("abc", deviceName: "Kitchen phone", now: start)
        #expect(codes.redeem("abc", client: "a", now: start + .seconds(299)).redemption == .pair(deviceName: "Kitchen phone"))
        #expect(codes.redeem("abc", client: "a", now: start + .seconds(299)).redemption == .unknown)
        codes.issue("late", deviceName: "Hall tablet", now: start)
        #expect(codes.redeem("late", client: "a", now: start + .seconds(300)).redemption == .expired)
    }

    @Test func tenWrongCodesAMinuteStopThatClientForTheRestOfItOnly() {
        var codes = PairingCodes()
        codes.issue("good", deviceName: "Kitchen phone", now: start)
        codes.issue("other", deviceName: "Hall tablet", now: start)
        for attempt in 1...PairingCodes.failuresAllowed {
            let outcome = codes.redeem("guess\(attempt)", client: "10.0.0.66", now: start + .seconds(1))
            #expect(outcome == .init(redemption: .unknown, lockedOut: attempt == PairingCodes.failuresAllowed))
        }
        #expect(codes.redeem("guess", client: "10.0.0.66", now: start + .seconds(2)) == .init(redemption: .tooManyAttempts))
        // Another client pairs meanwhile.
        #expect(codes.redeem("other", client: "10.0.0.7", now: start + .seconds(2)).redemption == .pair(deviceName: "Hall tablet"))
        // A right code pairs even from the locked-out address (issue 61: an address behind a
        // proxy can be forged; a lockout must keep no phone with its link out).
        #expect(codes.redeem("good", client: "10.0.0.66", now: start + .seconds(3)).redemption == .pair(deviceName: "Kitchen phone"))
        // A minute after the wrong ones, wrong codes are checked again.
        #expect(codes.redeem("guess", client: "10.0.0.66", now: start + .seconds(62)).redemption == .unknown)
    }

    @Test func failuresFromManyClientsAreForgottenBeyondABound() {
        var codes = PairingCodes()
        for client in 0..<(PairingCodes.clientsRemembered + 100) {
            _ = codes.redeem("wrong", client: "c\(client)", now: start + .milliseconds(client))
        }
        #expect(codes.rememberedClients <= PairingCodes.clientsRemembered)
        #expect(codes.rememberedClients >= PairingCodes.clientsRemembered / 2)
    }
}

/// Issue 47: a device's name is its own — its changes are told by it and its page's Undo undoes
/// the changes made under it — so a second device is never paired under a taken name.
@Suite struct DeviceNameTests {
    @Test func aTakenNameIsRefusedWhenTheLinkIsMadeAndWhenItIsOpened() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("listd-web-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let registry = try DeviceRegistry(path: directory.appendingPathComponent("devices.json").path)
        let first = try registry.issueCode(deviceName: "Kitchen phone")
        let second = try registry.issueCode(deviceName: "Kitchen phone")  // the first link lost, say
        guard case .paired = registry.pair(code: first, client: "a") else {
            Issue.record("the first link pairs")
            return
        }
        guard case .refused(.deviceNameTaken("Kitchen phone"), _) = registry.pair(code: second, client: "b") else {
            Issue.record("a second device under the name is refused when its link is opened")
            return
        }
        #expect(throws: WebError.deviceNameTaken("Kitchen phone")) { try registry.issueCode(deviceName: "kitchen PHONE") }
        #expect(WebError.deviceNameTaken("Kitchen phone").description.contains("listctl web revoke"))
        #expect(registry.devices().count == 1)
    }
}

@Suite struct PageMessageTests {
    @Test func anEditIsSentOnAsOneLine() {
        let text = """
            {"jsonrpc": "2.0", "id": 7,
             "method": "checkItem", "params": {"list": 1, "item": "milk\\nmore", "editId": "e1", "basedOn": 4}}
            """
        guard case .forward(let line, let id) = PageMessages.vet(text), id == .number(7) else {
            Issue.record("refused: \(PageMessages.vet(text))")
            return
        }
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let value = try? RPCEncoding.value(fromJSON: line.dropLast())
        #expect(value?["method"]?.stringValue == "checkItem")
        #expect(value?["params"]?["editId"]?.stringValue == "e1")
        #expect(value?["params"]?["basedOn"]?.integerValue == 4)
    }

    /// Issue 47, case 2: "eggs (12)" typed on the page is eggs, 12 of them, as listctl and the
    /// file read it; "milk (organic)" is milk with a note (issue 63); "2 l milk" is milk, 2 l; an
    /// amount given apart keeps the text as typed.
    @Test(arguments: [
        (#"{"list": 1, "item": "eggs (12)"}"#, "eggs", "12"),
        (#"{"list": 1, "item": "oat milk (2 l)", "section": "Dairy"}"#, "oat milk", "2 l"),
        (#"{"list": 1, "item": "milk (organic)"}"#, "milk", "organic"),
        (#"{"list": 1, "item": "2 l milk"}"#, "milk", "2 l"),
        (#"{"list": 1, "item": "bread x2"}"#, "bread", "x2"),
        (#"{"list": 1, "item": "batteries \\(4)"}"#, "batteries (4)", nil),
        (#"{"list": 1, "item": "eggs (12)", "quantity": "6"}"#, "eggs (12)", "6"),
    ] as [(String, String, String?)])
    func anItemTypedWithItsAmountIsReadAsEverywhere(params: String, item: String, amount: String?) {
        let text = #"{"jsonrpc": "2.0", "id": 1, "method": "addItem", "params": "# + params + "}"
        guard case .forward(let line, _) = PageMessages.vet(text) else {
            Issue.record("refused: \(PageMessages.vet(text))")
            return
        }
        let value = try? RPCEncoding.value(fromJSON: line.dropLast())
        #expect(value?["params"]?["item"]?.stringValue == item)
        #expect(value?["params"]?["quantity"]?.stringValue == amount)
    }

    @Test(arguments: ["hello", "registerDelegate", "unregisterDelegate", "createList", "renameList", "deleteList", "bogus"])
    func whatAPageDoesNotNeedIsRefused(method: String) {
        let verdict = PageMessages.vet(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{}}"#)
        guard case .refuse(let reply) = verdict else {
            Issue.record("\(method) was let through")
            return
        }
        let value = try? RPCEncoding.value(fromJSON: reply)
        #expect(value?["error"]?["code"]?.integerValue == -32601)
        #expect(value?["id"]?.integerValue == 1)
    }

    @Test func batchesNotificationsAndNonsenseAreRefused() {
        for text in [#"[{"jsonrpc":"2.0","id":1,"method":"getLists"}]"#, #"{"jsonrpc":"2.0","method":"getLists"}"#, "not json", ""] {
            guard case .refuse = PageMessages.vet(text) else {
                Issue.record("let through: \(text)")
                continue
            }
        }
    }
}

@Suite struct DeviceTokenTests {
    @Test func tokensAreLongRandomAndOnlyTheirHashIsKept() {
        let one = DeviceTokens.random()
        let two = DeviceTokens.random()
        #expect(one != two)
        #expect(one.count == 43)  // 32 bytes, base64url without padding
        #expect(one.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(DeviceTokens.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func base64URLMatchesTheRFC() {
        #expect(DeviceTokens.base64URL(Array("f".utf8)) == "Zg")
        #expect(DeviceTokens.base64URL(Array("fo".utf8)) == "Zm8")
        #expect(DeviceTokens.base64URL(Array("foo".utf8)) == "Zm9v")
        #expect(DeviceTokens.base64URL([0xfb, 0xff]) == "-_8")
    }
}

@Suite struct ServedNamesTests {
    @Test func onlyListdWebsOwnNamesAndAddressesAreAnswered() {
        let proxied = ServedNames(listenHost: "127.0.0.1", publicAddress: "https://Lists.Example.org/", machineName: "kitchen")
        for authority in ["lists.example.org", "LISTS.example.org:443", "127.0.0.1:8733", "localhost:8733", "localhost.", "[::1]:8733", "192.168.1.20"] {
            #expect(proxied.admits(authority: authority), "\(authority)")
        }
        for authority in ["rebind.evil.example", "rebind.evil.example:8733", "kitchen", "lists.example.org.evil", "", "a b", "x:y", "[::1"] {
            #expect(!proxied.admits(authority: authority), "\(authority)")
        }
        // Listening everywhere: this machine's name (and its mDNS name) besides.
        let everywhere = ServedNames(listenHost: "0.0.0.0", publicAddress: nil, machineName: "Kitchen")
        #expect(everywhere.admits(authority: "kitchen:8733") && everywhere.admits(authority: "kitchen.local"))
        #expect(!everywhere.admits(authority: "0.0.0.0.evil") && !everywhere.admits(authority: "kitchen.evil.example"))
        let named = ServedNames(listenHost: "pantry.lan", publicAddress: nil, machineName: "Kitchen")
        #expect(named.admits(authority: "pantry.lan:8733") && !named.admits(authority: "kitchen"))
    }

    @Test func loopbackIsThisMachineOnly() {
        for host in ["127.0.0.1", "127.0.0.53", "::1", "localhost"] { #expect(ServedNames.isLoopback(host), "\(host)") }
        for host in ["0.0.0.0", "::", "192.168.1.2", "128.0.0.1"] { #expect(!ServedNames.isLoopback(host), "\(host)") }
    }
}

@Suite struct ConnectionSlotsTests {
    let start = ContinuousClock.now

    @Test func whenFullTheOldestUnpairedConnectionMakesRoomAndAPairedDevicesAreKept() {
        var limits = WebLimits()
        limits.connections = 4
        limits.protectedPerDevice = 2
        var slots = ConnectionSlots(limits: limits)
        for id: UInt64 in 1...4 { #expect(slots.open(id, now: start).isEmpty) }
        slots.proven(1, device: "phone")
        // Full: the oldest unproven (2) goes, not the phone's (1).
        #expect(slots.open(5, now: start) == [2])
        #expect(slots.open(6, now: start) == [3])
        slots.proven(4, device: "phone")
        slots.proven(5, device: "phone")  // beyond the phone's share: still evictable
        #expect(slots.isUnproven(5))
        #expect(slots.open(7, now: start) == [5])
        slots.proven(6, device: "tablet")
        slots.proven(7, device: "tablet")
        // Every one a paired device's: the newcomer itself is closed.
        #expect(slots.open(8, now: start) == [8])
        slots.close(1)
        #expect(slots.open(9, now: start).isEmpty && slots.count == 4)
    }

    @Test func aFloodOfConnectionsKeepsItsBookkeepingBounded() {
        var limits = WebLimits()
        limits.connections = 10
        var slots = ConnectionSlots(limits: limits)
        for id: UInt64 in 1...100_000 {
            let closed = slots.open(id, now: start)
            #expect(closed == (id > 10 ? [id - 10] : []))
        }
        #expect(slots.count == 10)
    }
}

@Suite struct RequestRateTests {
    @Test func aBurstThenTheSteadyRateThenBusyWithTheWait() {
        let start = ContinuousClock.now
        var limits = WebLimits()
        limits.requestBurst = 5
        limits.requestsPerSecond = 10
        var rate = RequestRate(limits: limits)
        for _ in 0..<5 { #expect(rate.take(device: "phone", now: start) == nil) }
        #expect(rate.take(device: "phone", now: start) == .milliseconds(100))
        // Another device has its own bucket.
        #expect(rate.take(device: "tablet", now: start) == nil)
        #expect(rate.take(device: "phone", now: start + .milliseconds(100)) == nil)
        #expect(rate.take(device: "phone", now: start + .milliseconds(150)) == .milliseconds(50))
        // A second of quiet refills the burst, never more.
        for _ in 0..<5 { #expect(rate.take(device: "phone", now: start + .seconds(10)) == nil) }
        #expect(rate.take(device: "phone", now: start + .seconds(10)) != nil)
    }
}

/// Issue 61, case 3: a reply too long to relay is refused for its request, read from its start.
@Suite struct ReplyIDTests {
    @Test func aReplysIDIsReadFromItsFirstBytes() {
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","id":42,"result":{"lists":[{"#.utf8)) == .number(42))
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","id":-3,"error":{"#.utf8)) == .number(-3))
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","id":"a\"b,c","result":1"#.utf8)) == .string("a\"b,c"))
    }

    @Test func aNotificationOrACutIDHasNone() {
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","method":"didUpdateShoppingList","params":{"#.utf8)) == nil)
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","id":12"#.utf8)) == nil, "the id may go on")
        #expect(PageMessages.replyID(startingLine: Array(#"{"jsonrpc":"2.0","id":"abc"#.utf8)) == nil)
        #expect(PageMessages.replyID(startingLine: Array(#"[{"jsonrpc":"2.0","id":1,"result":1}"#.utf8)) == nil, "a batch")
    }
}
