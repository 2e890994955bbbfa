// Issue 64: which task is which, kept from listd's changes — a renamed item keeps its UID, a
// removed one leaves a tombstone a sync reports, a sync token before the history is refused —
// and the answers read from the book alone: discovery, PROPFIND, the three REPORTs, and a PUT or
// DELETE turned into listd's edits.
import CalDAV
import ListModel
import Testing

@Suite struct TaskBookTests {
    static func list(_ items: [String], checked: [String] = [], quantities: [String: String] = [:], revision: Revision) -> ShoppingList {
        ShoppingList(
            id: 7, name: "Groceries", edited: Timestamp(millisecondsSinceEpoch: 1_764_500_000_000), revision: revision, items: items,
            checkedItems: checked, quantities: quantities
        )
    }

    static func book() -> TaskBook {
        var book = TaskBook(tombstoneLimit: 2)
        book.follow(instance: "inst", at: 0)
        book.apply(list(["milk", "eggs"], revision: 1), deleted: false, steps: [], revision: 1)
        return book
    }

    @Test func aRenamedItemKeepsItsUIDAndARemovedOneLeavesATombstone() throws {
        var book = Self.book()
        let milk = try #require(book.lists[7]?.entries["milk"])
        book.apply(Self.list(["oat milk", "eggs"], revision: 2), deleted: false, steps: [.replace(item: "milk", with: "oat milk")], revision: 2)
        let renamed = try #require(book.lists[7]?.entries["oat milk"])
        #expect(renamed.uid == milk.uid && renamed.href == milk.href)
        #expect(renamed.stamp == SyncStamp(revision: 2))
        book.apply(Self.list(["eggs"], revision: 3), deleted: false, steps: [.remove(item: "oat milk")], revision: 3)
        let changes = try #require(book.lists[7]?.changes(since: SyncStamp(revision: 1)))
        // eggs moved up a place (its X-APPLE-SORT-ORDER): changed too.
        #expect(changes.changed.map(\.item.text) == ["eggs"])
        #expect(changes.gone == [milk.href])
        // Without the replace step (a gap, rebuilt from the list as it is), a rename is a new task.
        var gap = Self.book()
        gap.apply(Self.list(["oat milk", "eggs"], revision: 2), deleted: false, steps: [], revision: 2)
        #expect(gap.lists[7]?.entries["oat milk"]?.uid != milk.uid)
    }

    @Test func aTickOrAnAmountChangesOnlyThatTask() throws {
        var book = Self.book()
        book.apply(Self.list(["milk", "eggs"], checked: ["eggs"], revision: 2), deleted: false, steps: [.check(item: "eggs")], revision: 2)
        let changes = try #require(book.lists[7]?.changes(since: SyncStamp(revision: 1)))
        #expect(changes.changed.map(\.item.text) == ["eggs"])
        #expect(changes.changed[0].calendarData.contains("STATUS:COMPLETED"))
    }

    @Test func tokensBeforeTheHorizonOrOfAnotherInstanceAreRefused() throws {
        var book = Self.book()
        let first = try #require(book.syncToken(7))
        for (revision, items) in [(2, ["eggs"]), (3, [String]()), (4, ["bread"]), (5, [String]())] {
            book.apply(Self.list(items, revision: revision), deleted: false, steps: [], revision: revision)
        }
        // Three tombstones with a limit of two: the first went, and the horizon with it.
        let tasks = try #require(book.lists[7])
        #expect(tasks.tombstones.count == 2)
        let stamp = try #require(book.stamp(ofToken: first))
        #expect(tasks.changes(since: stamp) == nil)
        #expect(book.stamp(ofToken: "urn:listd:sync:other:1") == nil)
        #expect(book.stamp(ofToken: "garbage") == nil)
        // Another listd instance: UIDs stay, every older token is refused.
        let uid = book.lists[7]?.entries.values.first?.uid
        book.apply(Self.list(["tea"], revision: 6), deleted: false, steps: [], revision: 6)
        let tea = book.lists[7]?.entries["tea"]?.uid
        book.follow(instance: "new", at: 2)
        #expect(book.lists[7]?.entries["tea"]?.uid == tea)
        #expect(book.stamp(ofToken: book.syncToken(7)!) == SyncStamp(revision: 2))
        _ = uid
    }

    @Test func aTaskAnAppPutIsKnownByItsUIDAndHrefOnceAdopted() throws {
        var book = Self.book()
        book.apply(Self.list(["milk", "eggs", "tea"], revision: 2), deleted: false, steps: [.add(item: "tea")], revision: 2)
        let made = try #require(book.lists[7]?.entries["tea"])
        #expect(made.uid == "inst-7-2-2")
        book.adopt(list: 7, href: made.href, uid: "client-uid", newHref: "client.ics")
        book.keep(KeptTaskData(properties: [.init(name: "DUE", value: "20261201")]), list: 7, href: "client.ics")
        let tea = try #require(book.lists[7]?.entries["tea"])
        #expect(tea.uid == "client-uid" && book.lists[7]?.entry(href: "client.ics")?.item.text == "tea")
        #expect(tea.calendarData.contains("DUE:20261201"))
        // Others syncing from before see the task under its new href, and the old one gone.
        let changes = try #require(book.lists[7]?.changes(since: SyncStamp(revision: 2)))
        #expect(changes.changed.map(\.href) == ["client.ics"] && changes.gone == [made.href])
    }

    /// A book saved, then the same changes applied to it again (listd-web restarted before its
    /// next save follows listd from the saved revision): every task listd made gets the same UID
    /// and href; one a client gave its own task first is not taken for another.
    @Test func aChangeAppliedAgainMakesTheSameUIDs() throws {
        let saved = Self.book()
        func followed(_ book: TaskBook) -> TaskBook {
            var book = book
            book.apply(Self.list(["milk", "eggs", "tea"], revision: 2), deleted: false, steps: [.add(item: "tea")], revision: 2)
            book.apply(Self.list(["milk", "tea"], revision: 3), deleted: false, steps: [.remove(item: "eggs")], revision: 3)
            book.apply(Self.list(["milk", "tea", "eggs"], revision: 4), deleted: false, steps: [.add(item: "eggs")], revision: 4)
            return book
        }
        let live = followed(saved), again = followed(saved)
        #expect(live == again)
        let tasks = try #require(live.lists[7])
        // eggs came back: a new task, not the removed one's UID.
        #expect(tasks.entries["eggs"]?.uid != saved.lists[7]?.entries["eggs"]?.uid)
        #expect(Set(tasks.entries.values.map(\.uid)).count == 3)

        // A client's task took the UID and href the next task listd makes would have.
        var clash = Self.book()
        clash.apply(Self.list(["milk", "eggs", "tea"], revision: 2), deleted: false, steps: [.add(item: "tea")], revision: 2)
        clash.adopt(list: 7, href: "inst-7-2-2.ics", uid: "inst-7-3-3", newHref: "inst-7-3-3.ics")
        clash.apply(Self.list(["milk", "eggs", "tea", "jam"], revision: 3), deleted: false, steps: [.add(item: "jam")], revision: 3)
        let made = try #require(clash.lists[7]?.entries["jam"])
        #expect(made.uid == "inst-7-3-3-again" && made.href == "inst-7-3-3-again.ics")
        #expect(clash.lists[7]?.entry(href: "inst-7-3-3.ics")?.item.text == "tea")
    }

    @Test func keptDataAloneIsAStepAfterTheRevision() throws {
        var book = Self.book()
        let href = try #require(book.lists[7]?.entries["milk"]?.href)
        book.keep(KeptTaskData(properties: [.init(name: "PRIORITY", value: "1")]), list: 7, href: href)
        let milk = try #require(book.lists[7]?.entries["milk"])
        #expect(milk.stamp == SyncStamp(revision: 1, step: 1))
        #expect(milk.etag == "\"1.1\"")
        #expect(book.lists[7]?.changes(since: SyncStamp(revision: 1))?.changed.map(\.href) == [href])
        // The next change of listd's is after it.
        book.apply(Self.list(["milk"], revision: 2), deleted: false, steps: [], revision: 2)
        #expect(try #require(book.lists[7]).stamp > milk.stamp)
    }
}

@Suite struct DAVHandlerTests {
    /// One book for every test here: its UIDs are random.
    static let shared = makeHandler()
    static func handler() -> DAVHandler { shared }

    static func makeHandler() -> DAVHandler {
        var book = TaskBookTests.book()
        book.apply(
            TaskBookTests.list(["milk", "eggs"], checked: ["eggs"], quantities: ["milk": "2 l"], revision: 2), deleted: false,
            steps: [], revision: 2
        )
        return DAVHandler(book: book, deviceName: "Anna's iPhone")
    }

    static func respond(_ request: DAVRequest) -> DAVResponse {
        guard case .respond(let response) = handler().answer(request) else { return DAVResponse(status: 0) }
        return response
    }

    @Test func discoveryLeadsFromTheRootToEachList() {
        let root = Self.respond(
            DAVRequest(method: "PROPFIND", path: "/caldav/", depth: "0", body: Array(#"<propfind xmlns="DAV:"><prop><current-user-principal/></prop></propfind>"#.utf8))
        )
        #expect(root.status == 207)
        #expect(root.body.contains("<D:current-user-principal><D:href>/caldav/principal/</D:href>"))
        let principal = Self.respond(
            DAVRequest(
                method: "PROPFIND", path: "/caldav/principal/", depth: "0",
                body: Array(#"<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><prop><C:calendar-home-set/><displayname/></prop></propfind>"#.utf8)
            )
        )
        #expect(principal.body.contains("<C:calendar-home-set><D:href>/caldav/lists/</D:href>"))
        #expect(principal.body.contains("<D:displayname>Anna's iPhone</D:displayname>"))
        let home = Self.respond(
            DAVRequest(
                method: "PROPFIND", path: "/caldav/lists/", depth: "1",
                body: Array(#"<propfind xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><prop><resourcetype/><displayname/><C:supported-calendar-component-set/><C:nope/></prop></propfind>"#.utf8)
            )
        )
        #expect(home.body.contains("<D:href>/caldav/lists/7/</D:href>"))
        #expect(home.body.contains("<D:collection/><C:calendar/>"))
        #expect(home.body.contains("<D:displayname>Groceries</D:displayname>"))
        #expect(home.body.contains(#"<C:comp name="VTODO"/>"#))
        #expect(home.body.contains("<C:nope/></D:prop><D:status>HTTP/1.1 404 Not Found"))
    }

    @Test func syncCollectionFromNothingThenFromAToken() throws {
        let all = Self.respond(
            DAVRequest(
                method: "REPORT", path: "/caldav/lists/7/",
                body: Array(#"<sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop><getetag/></prop></sync-collection>"#.utf8)
            )
        )
        #expect(all.status == 207)
        #expect(all.body.split(separator: "<D:response>", omittingEmptySubsequences: false).count == 3)
        #expect(all.body.contains("<D:sync-token>urn:listd:sync:inst:2</D:sync-token>"))
        let none = Self.respond(
            DAVRequest(
                method: "REPORT", path: "/caldav/lists/7/",
                body: Array(#"<sync-collection xmlns="DAV:"><sync-token>urn:listd:sync:inst:2</sync-token><prop><getetag/></prop></sync-collection>"#.utf8)
            )
        )
        #expect(!none.body.contains("<D:response>"))
        let stale = Self.respond(
            DAVRequest(
                method: "REPORT", path: "/caldav/lists/7/",
                body: Array(#"<sync-collection xmlns="DAV:"><sync-token>urn:listd:sync:other:2</sync-token><prop><getetag/></prop></sync-collection>"#.utf8)
            )
        )
        #expect(stale.status == 403)
        #expect(stale.body.contains("<D:valid-sync-token/>"))
    }

    @Test func calendarQueryFiltersAndMultigetFinds() {
        let open = Self.respond(
            DAVRequest(
                method: "REPORT", path: "/caldav/lists/7/",
                body: Array(
                    """
                    <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/><C:calendar-data/></D:prop>
                    <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VTODO">
                    <C:prop-filter name="STATUS"><C:text-match negate-condition="yes">COMPLETED</C:text-match></C:prop-filter>
                    </C:comp-filter></C:comp-filter></C:filter></C:calendar-query>
                    """.utf8
                )
            )
        )
        #expect(open.body.contains("SUMMARY:milk"))
        #expect(open.body.contains("DESCRIPTION:2 l"))
        #expect(!open.body.contains("SUMMARY:eggs"))
        let handler = Self.handler()
        let milk = handler.book.lists[7]!.entries["milk"]!.href
        let multiget = Self.respond(
            DAVRequest(
                method: "REPORT", path: "/caldav/lists/7/",
                body: Array(
                    """
                    <C:calendar-multiget xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><D:prop><D:getetag/></D:prop>
                    <D:href>https://host:8443/caldav/lists/7/\(milk)</D:href><D:href>/caldav/lists/7/none.ics</D:href></C:calendar-multiget>
                    """.utf8
                )
            )
        )
        #expect(multiget.body.contains("<D:getetag>&quot;2&quot;</D:getetag>"))
        #expect(multiget.body.contains("<D:href>/caldav/lists/7/none.ics</D:href><D:status>HTTP/1.1 404 Not Found"))
    }

    static func put(_ path: String, _ lines: String, ifMatch: String? = nil, ifNoneMatch: String? = nil) -> DAVAnswer {
        let body = "BEGIN:VCALENDAR\r\nBEGIN:VTODO\r\n\(lines)END:VTODO\r\nEND:VCALENDAR\r\n"
        return handler().answer(DAVRequest(method: "PUT", path: path, body: Array(body.utf8), ifMatch: ifMatch, ifNoneMatch: ifNoneMatch))
    }

    @Test func aPutIsPlannedAsListdsEdits() throws {
        let milk = Self.handler().book.lists[7]!.entries["milk"]!
        guard case .write(let new) = Self.put("/caldav/lists/7/x.ics", "UID:x\r\nSUMMARY:tea\r\nDESCRIPTION:1 box\r\nSTATUS:COMPLETED\r\n", ifNoneMatch: "*")
        else { Issue.record("not a write"); return }
        #expect(TaskWritePlan.edits(for: new) == [.add(item: "tea", section: nil, quantity: "1 box"), .check("tea")])

        guard case .write(let edit) = Self.put(
            "/caldav/lists/7/\(milk.href)", "UID:\(milk.uid)\r\nSUMMARY:oat milk\r\nSTATUS:COMPLETED\r\nCATEGORIES:Dairy\r\n", ifMatch: milk.etag
        ) else { Issue.record("not a write"); return }
        #expect(edit.basedOn == 2)
        #expect(
            TaskWritePlan.edits(for: edit) == [
                .replace(item: "milk", with: "oat milk"), .check("oat milk"), .setQuantity(item: "oat milk", quantity: nil),
                .move(item: "oat milk", section: "Dairy"),
            ]
        )
        // A new task that is an item there already is merged into it: no second milk. It is
        // still an add, which listd confirms (or makes again, were milk removed meanwhile).
        guard case .write(let duplicate) = Self.put("/caldav/lists/7/dup.ics", "UID:dup\r\nSUMMARY:Milk\r\n") else {
            Issue.record("not a write"); return
        }
        #expect(duplicate.merging?.uid == milk.uid)
        #expect(TaskWritePlan.edits(for: duplicate) == [.add(item: "Milk", section: nil, quantity: nil)])
        guard case .write(let amount) = Self.put("/caldav/lists/7/dup.ics", "UID:dup\r\nSUMMARY:milk\r\nDESCRIPTION:3 kg\r\n") else {
            Issue.record("not a write"); return
        }
        #expect(
            TaskWritePlan.edits(for: amount) == [.add(item: "milk", section: nil, quantity: "3 kg"), .setQuantity(item: "milk", quantity: "3 kg")]
        )
    }

    @Test func preconditionsAreCheckedBeforeListdIsAsked() {
        let milk = Self.handler().book.lists[7]!.entries["milk"]!
        guard case .respond(let stale) = Self.put("/caldav/lists/7/\(milk.href)", "UID:\(milk.uid)\r\nSUMMARY:x\r\n", ifMatch: "\"1\"") else {
            Issue.record("a stale If-Match was sent on"); return
        }
        #expect(stale.status == 412)
        guard case .respond(let exists) = Self.put("/caldav/lists/7/\(milk.href)", "UID:\(milk.uid)\r\nSUMMARY:x\r\n", ifNoneMatch: "*") else {
            Issue.record("If-None-Match was ignored"); return
        }
        #expect(exists.status == 412)
        guard case .respond(let event) = Self.put("/caldav/lists/7/e.ics", "") else { Issue.record("an empty task was sent on"); return }
        #expect(event.status == 403)
        guard case .respond(let uid) = Self.put("/caldav/lists/7/other.ics", "UID:\(milk.uid)\r\nSUMMARY:x\r\n") else {
            Issue.record("a second href for a UID was sent on"); return
        }
        #expect(uid.body.contains("no-uid-conflict"))
        guard case .respond(let gone) = Self.put("/caldav/lists/99/x.ics", "UID:x\r\nSUMMARY:x\r\n") else { Issue.record("no list"); return }
        #expect(gone.status == 409)
    }
}
