// An item of a list as a CalDAV task (a VTODO) and back: SUMMARY is the item, STATUS COMPLETED
// (or CANCELLED, or PERCENT-COMPLETE 100, or a COMPLETED date) is its tick, DESCRIPTION its
// amount, CATEGORIES its section, X-APPLE-SORT-ORDER its place. What listd does not model (DUE,
// PRIORITY, VALARM, X-APPLE-…) is kept per item as the client wrote it and sent back with it.
import ListModel

/// What listd keeps of an item, as a task shows it.
public struct TaskItem: Sendable, Hashable, Codable {
    public var text: String
    public var checked: Bool
    /// The amount ("2 l"), nil for none.
    public var quantity: String?
    /// The section's name, "" for none.
    public var section: String
    /// The item's place in the list (0 first).
    public var position: Int

    public init(text: String, checked: Bool, quantity: String?, section: String, position: Int) {
        self.text = text
        self.checked = checked
        self.quantity = quantity
        self.section = section
        self.position = position
    }

    /// Every item of `list`, in order.
    public static func all(of list: ShoppingList) -> [TaskItem] {
        var result: [TaskItem] = []
        result.reserveCapacity(list.items.count)
        var section: Int? = nil
        var sectionEnd = list.unsectionedCount
        for (position, item) in list.items.enumerated() {
            while position >= sectionEnd, (section ?? -1) + 1 < list.sections.count {
                section = (section ?? -1) + 1
                sectionEnd += list.sections[section!].count
            }
            result.append(
                TaskItem(
                    text: item, checked: list.isChecked(item), quantity: list.quantities[item],
                    section: list.sectionName(section), position: position
                )
            )
        }
        return result
    }
}

/// A task as a client sent it (PUT): what listd models, read out of it, and the rest, kept.
public struct ClientTask: Sendable, Hashable {
    public var uid: String
    public var summary: String
    public var completed: Bool
    /// DESCRIPTION (nil: none, or empty).
    public var quantity: String?
    /// CATEGORIES' first value (nil: none).
    public var section: String?
    /// What listd does not model, to be sent back as written.
    public var kept: KeptTaskData

    /// The VTODO of `calendar` read. A body with no VTODO, several, or no UID or SUMMARY is
    /// refused with a sentence.
    public init(calendar: ICalendarComponent) throws(TaskReadError) {
        guard calendar.name == "VCALENDAR" else { throw .notACalendar }
        let todos = calendar.components.filter { $0.name == "VTODO" }
        guard todos.count == 1, calendar.components.allSatisfy({ $0.name == "VTODO" || $0.name == "VTIMEZONE" }) else {
            throw .notOneTask
        }
        let todo = todos[0]
        guard let uid = todo.property("UID")?.value, !uid.isEmpty, uid.utf8.count <= 255 else { throw .noUID }
        let summary = ListText.trimmed(ICalendar.text(todo.property("SUMMARY")?.value ?? ""))
        guard !summary.isEmpty else { throw .noSummary }
        self.uid = uid
        self.summary = summary
        let status = todo.property("STATUS")?.value.uppercased()
        completed =
            status == "COMPLETED" || status == "CANCELLED"
            || (status == nil && todo.property("COMPLETED") != nil)
            || (status == nil && Int(todo.property("PERCENT-COMPLETE")?.value ?? "") == 100)
        let description = todo.property("DESCRIPTION").map { ListText.trimmed(ICalendar.text($0.value)) }
        quantity = description?.isEmpty == false ? description : nil
        section = todo.property("CATEGORIES").flatMap { ICalendar.textList($0.value).first }
        kept = KeptTaskData(
            properties: todo.properties.filter { !TaskRendering.modelled.contains($0.name) },
            components: todo.components,
            calendarComponents: calendar.components.filter { $0.name == "VTIMEZONE" }
        )
    }
}

/// What a client wrote of a task that listd does not model.
public struct KeptTaskData: Sendable, Hashable, Codable {
    public var properties: [ICalendarProperty]
    /// VALARMs, and any other component inside the VTODO.
    public var components: [ICalendarComponent]
    /// VTIMEZONEs beside the VTODO (a DUE with a TZID needs its zone).
    public var calendarComponents: [ICalendarComponent]

    public init(properties: [ICalendarProperty] = [], components: [ICalendarComponent] = [], calendarComponents: [ICalendarComponent] = []) {
        self.properties = properties
        self.components = components
        self.calendarComponents = calendarComponents
    }

    public var isEmpty: Bool { properties.isEmpty && components.isEmpty && calendarComponents.isEmpty }
}

public enum TaskReadError: Error, Sendable, Equatable, CustomStringConvertible {
    case notACalendar
    case notOneTask
    case noUID
    case noSummary

    public var description: String {
        switch self {
        case .notACalendar: "The body is not a VCALENDAR."
        case .notOneTask: "A resource here is one VTODO (a task: an item of the list), with its VTIMEZONEs at most."
        case .noUID: "The VTODO has no UID (or one longer than 255 bytes)."
        case .noSummary: "The VTODO has no SUMMARY: a task here is an item, and its SUMMARY is the item's text."
        }
    }

    /// The CalDAV precondition a PUT fails (RFC 4791 5.3.2.1).
    public var precondition: String {
        switch self {
        case .notACalendar: "valid-calendar-data"
        case .notOneTask: "valid-calendar-object-resource"
        case .noUID, .noSummary: "valid-calendar-object-resource"
        }
    }
}

public enum TaskRendering {
    /// The VTODO properties listd writes itself (from the item), never kept from a client.
    static let modelled: Set<String> = [
        "UID", "DTSTAMP", "SUMMARY", "STATUS", "COMPLETED", "PERCENT-COMPLETE", "DESCRIPTION", "CATEGORIES",
        "X-APPLE-SORT-ORDER", "LAST-MODIFIED",
    ]

    /// The calendar object of one item: `changed` is when its task last changed, in iCalendar's
    /// UTC form (`20261130T120000Z`).
    public static func calendar(of item: TaskItem, uid: String, changed: String, kept: KeptTaskData) -> String {
        component(of: item, uid: uid, changed: changed, kept: kept).text
    }

    /// The same, as a component (what a `calendar-query` filter is matched against).
    public static func component(of item: TaskItem, uid: String, changed: String, kept: KeptTaskData) -> ICalendarComponent {
        var todo = ICalendarComponent(name: "VTODO")
        todo.properties.append(.init(name: "UID", value: uid))
        todo.properties.append(.init(name: "DTSTAMP", value: changed))
        todo.properties.append(.init(name: "LAST-MODIFIED", value: changed))
        todo.properties.append(.init(name: "SUMMARY", value: ICalendar.escaped(item.text)))
        if item.checked {
            todo.properties.append(.init(name: "STATUS", value: "COMPLETED"))
            todo.properties.append(.init(name: "COMPLETED", value: changed))
            todo.properties.append(.init(name: "PERCENT-COMPLETE", value: "100"))
        } else {
            todo.properties.append(.init(name: "STATUS", value: "NEEDS-ACTION"))
        }
        if let quantity = item.quantity { todo.properties.append(.init(name: "DESCRIPTION", value: ICalendar.escaped(quantity))) }
        if !item.section.isEmpty { todo.properties.append(.init(name: "CATEGORIES", value: ICalendar.escaped(item.section))) }
        todo.properties.append(.init(name: "X-APPLE-SORT-ORDER", value: String(item.position)))
        todo.properties += kept.properties
        todo.components = kept.components
        return ICalendarComponent(
            name: "VCALENDAR",
            properties: [.init(name: "VERSION", value: "2.0"), .init(name: "PRODID", value: "-//listd//listd-web//EN")],
            components: kept.calendarComponents + [todo]
        )
    }

    /// A time in iCalendar's UTC form (`2026-11-26T22:44:32.123Z` → `20261126T224432Z`).
    public static func utc(_ timestamp: Timestamp) -> String {
        let rfc3339 = timestamp.rfc3339
        let seconds = rfc3339.prefix(19).filter { $0 != "-" && $0 != ":" }
        return seconds + "Z"
    }
}
