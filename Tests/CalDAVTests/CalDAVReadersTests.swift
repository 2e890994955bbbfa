// Issue 64: the XML and iCalendar readers CalDAV bodies go through — namespaces resolved, no
// DTD or entity ever read, bounded; iCalendar unfolded, folded, escaped, and a VTODO read into
// what listd models and what it keeps.
import CalDAV
import Testing

@Suite struct XMLReaderTests {
    @Test func readsAPropfindWithItsNamespaces() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?>
            <!-- a comment -->
            <d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">
              <d:prop><d:displayname/><c:calendar-home-set/><x:color xmlns:x="http://apple.com/ns/ical/"/></d:prop>
            </d:propfind>
            """
        let root = try XMLReader.read(Array(body.utf8))
        #expect(root.is("DAV:", "propfind"))
        let names = root.child("DAV:", "prop")!.children.map { "\($0.namespace) \($0.name)" }
        #expect(names == ["DAV: displayname", "urn:ietf:params:xml:ns:caldav calendar-home-set", "http://apple.com/ns/ical/ color"])
    }

    @Test func defaultNamespaceTextAndReferences() throws {
        let root = try XMLReader.read(Array(#"<a xmlns="DAV:"><b>x &amp; y &#233;&#x263A; <![CDATA[<raw>]]></b></a>"#.utf8))
        #expect(root.child("DAV:", "b")?.text == "x & y é☺ <raw>")
    }

    @Test func doctypesAndEntitiesAreNeverRead() {
        let billionLaughs = """
            <?xml version="1.0"?>
            <!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>
            <lolz>&lol2;</lolz>
            """
        #expect(throws: XMLReadError.doctypeRefused) { try XMLReader.read(Array(billionLaughs.utf8)) }
        let xxe = #"<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]><d:propfind xmlns:d="DAV:">&x;</d:propfind>"#
        #expect(throws: XMLReadError.doctypeRefused) { try XMLReader.read(Array(xxe.utf8)) }
        // An entity that was never declared (none can be) is refused, not left as text.
        #expect(throws: XMLReadError.self) { try XMLReader.read(Array("<a>&x;</a>".utf8)) }
    }

    @Test func depthAndSizeAreBounded() {
        let deep = String(repeating: "<a>", count: 40) + String(repeating: "</a>", count: 40)
        #expect(throws: XMLReadError.tooLarge("elements nested deeper than 32")) { try XMLReader.read(Array(deep.utf8)) }
        let wide = "<a>" + String(repeating: "<b/>", count: 20_001) + "</a>"
        #expect(throws: XMLReadError.tooLarge("more than 20000 elements")) { try XMLReader.read(Array(wide.utf8)) }
    }

    @Test func malformedBodiesAreRefusedWithWhere() {
        for body in ["", "<a>", "<a></b>", "<a x=1/>", "<p:a/>", "<a/><b/>", "<a x='1\"/>", "<a>&amp</a>"] {
            #expect(throws: XMLReadError.self, "\(body)") { try XMLReader.read(Array(body.utf8)) }
        }
    }
}

@Suite struct ICalendarTests {
    static let reminders = """
        BEGIN:VCALENDAR\r
        VERSION:2.0\r
        PRODID:-//Apple Inc.//iOS 18.0//EN\r
        BEGIN:VTIMEZONE\r
        TZID:Europe/Paris\r
        END:VTIMEZONE\r
        BEGIN:VTODO\r
        UID:4C2E-AB\r
        DTSTAMP:20261130T100000Z\r
        SUMMARY:Crème fraîche\\, épaisse\r
        DESCRIPTION:2 pots\r
        CATEGORIES:Dairy,Fridge\r
        DUE;TZID=Europe/Paris:20261201T180000\r
        PRIORITY:1\r
        X-APPLE-SORT-ORDER:3\r
        STATUS:NEEDS-ACTION\r
        BEGIN:VALARM\r
        ACTION:DISPLAY\r
        TRIGGER:-PT15M\r
        END:VALARM\r
        END:VTODO\r
        END:VCALENDAR\r

        """

    @Test func aTaskReadsAsAnItemAndWhatListdDoesNotModelIsKept() throws {
        let task = try ClientTask(calendar: ICalendar.read(Self.reminders))
        #expect(task.uid == "4C2E-AB")
        #expect(task.summary == "Crème fraîche, épaisse")
        #expect(task.completed == false)
        #expect(task.quantity == "2 pots")
        #expect(task.section == "Dairy")
        #expect(task.kept.properties.map(\.name) == ["DUE", "PRIORITY"])
        #expect(task.kept.properties[0].parameters == "TZID=Europe/Paris")
        #expect(task.kept.components.map(\.name) == ["VALARM"])
        #expect(task.kept.calendarComponents.map(\.name) == ["VTIMEZONE"])
    }

    @Test func everyWayOfSayingDoneIsATick() throws {
        for line in ["STATUS:COMPLETED", "STATUS:CANCELLED", "COMPLETED:20261130T100000Z", "PERCENT-COMPLETE:100"] {
            let text = "BEGIN:VCALENDAR\nBEGIN:VTODO\nUID:a\nSUMMARY:milk\n\(line)\nEND:VTODO\nEND:VCALENDAR\n"
            #expect(try ClientTask(calendar: ICalendar.read(text)).completed, "\(line)")
        }
        let open = "BEGIN:VCALENDAR\nBEGIN:VTODO\nUID:a\nSUMMARY:milk\nSTATUS:IN-PROCESS\nPERCENT-COMPLETE:100\nEND:VTODO\nEND:VCALENDAR\n"
        #expect(try ClientTask(calendar: ICalendar.read(open)).completed == false)
    }

    @Test func foldingRoundTripsAndNeverSplitsACharacter() throws {
        let long = String(repeating: "é", count: 100) + " and ☺☺☺ " + String(repeating: "x", count: 80)
        let component = ICalendarComponent(name: "VTODO", properties: [.init(name: "SUMMARY", value: ICalendar.escaped(long))])
        let text = component.text
        for line in text.split(separator: "\r\n") { #expect(line.utf8.count <= 75) }
        let again = try ICalendar.read(text)
        #expect(ICalendar.text(again.property("SUMMARY")!.value) == long)
    }

    @Test func badObjectsAreRefusedWithTheLine() {
        #expect(throws: ICalendarError.self) { try ICalendar.read("BEGIN:VCALENDAR\nBEGIN:VTODO\nEND:VCALENDAR\n") }
        #expect(throws: ICalendarError.self) { try ICalendar.read("SUMMARY:x\n") }
        #expect(throws: ICalendarError.self) { try ICalendar.read("BEGIN:VCALENDAR\nno colon\nEND:VCALENDAR\n") }
        let nested = String(repeating: "BEGIN:X\n", count: 9) + String(repeating: "END:X\n", count: 9)
        #expect(throws: ICalendarError.tooLarge("components nested deeper than 8")) { try ICalendar.read(nested) }
        #expect(throws: TaskReadError.noSummary) {
            try ClientTask(calendar: ICalendar.read("BEGIN:VCALENDAR\nBEGIN:VTODO\nUID:a\nEND:VTODO\nEND:VCALENDAR\n"))
        }
        #expect(throws: TaskReadError.notOneTask) {
            try ClientTask(calendar: ICalendar.read("BEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:a\nSUMMARY:x\nEND:VEVENT\nEND:VCALENDAR\n"))
        }
    }

    @Test func quotedParametersMayHoldColons() throws {
        let calendar = try ICalendar.read("BEGIN:VTODO\nATTENDEE;CN=\"Doe: Jane\";ROLE=REQ:mailto:j@x\nEND:VTODO\n")
        let property = calendar.property("ATTENDEE")!
        #expect(property.parameters == "CN=\"Doe: Jane\";ROLE=REQ")
        #expect(property.value == "mailto:j@x")
    }
}
