// A `calendar-query` REPORT's filter (RFC 4791 9.7) matched against a task's calendar object:
// comp-filter, prop-filter, text-match (substring, case-folded or not, negated), is-not-defined.
// A time-range is taken as matching: a task's times are the client's own (DUE), and answering
// with a task too many is harmless where leaving one out loses it.

public indirect enum CalendarFilter: Sendable, Hashable {
    case component(name: String, isNotDefined: Bool, properties: [PropertyFilter], components: [CalendarFilter])

    public struct PropertyFilter: Sendable, Hashable {
        public var name: String
        public var isNotDefined: Bool
        public var textMatch: TextMatch?
    }

    public struct TextMatch: Sendable, Hashable {
        public var text: String
        public var caseless: Bool
        public var negated: Bool
    }

    /// The filter of a `C:filter` element (its one comp-filter); nil when it has none.
    public init?(filter: XMLElement) {
        guard let top = filter.child(DAVNamespace.caldav, "comp-filter") else { return nil }
        self = Self.component(top)
    }

    static func component(_ element: XMLElement) -> CalendarFilter {
        .component(
            name: (element.attributes["name"] ?? "").uppercased(),
            isNotDefined: element.child(DAVNamespace.caldav, "is-not-defined") != nil,
            properties: element.children(DAVNamespace.caldav, "prop-filter").map { property in
                PropertyFilter(
                    name: (property.attributes["name"] ?? "").uppercased(),
                    isNotDefined: property.child(DAVNamespace.caldav, "is-not-defined") != nil,
                    textMatch: property.child(DAVNamespace.caldav, "text-match").map { match in
                        TextMatch(
                            text: match.text,
                            caseless: (match.attributes["collation"] ?? "i;ascii-casemap") != "i;octet",
                            negated: match.attributes["negate-condition"] == "yes"
                        )
                    }
                )
            },
            components: element.children(DAVNamespace.caldav, "comp-filter").map(component)
        )
    }

    /// Whether the calendar object `calendar` (a VCALENDAR) matches.
    public func matches(_ calendar: ICalendarComponent) -> Bool {
        guard case .component(let name, let isNotDefined, _, _) = self else { return false }
        if isNotDefined { return calendar.name != name }
        return calendar.name == name && matchesInside(calendar)
    }

    /// Whether `component` (already of this filter's name) meets its property and nested filters.
    private func matchesInside(_ component: ICalendarComponent) -> Bool {
        guard case .component(_, _, let properties, let components) = self else { return false }
        for filter in properties {
            let found = component.properties.filter { $0.name == filter.name }
            if filter.isNotDefined {
                if !found.isEmpty { return false }
                continue
            }
            guard !found.isEmpty else { return false }
            if let match = filter.textMatch, !found.contains(where: { match.matches(ICalendar.text($0.value)) }) { return false }
        }
        for filter in components {
            guard case .component(let name, let isNotDefined, _, _) = filter else { continue }
            let inner = component.components.filter { $0.name == name }
            if isNotDefined {
                if !inner.isEmpty { return false }
                continue
            }
            guard inner.contains(where: { filter.matchesInside($0) }) else { return false }
        }
        return true
    }
}

extension CalendarFilter.TextMatch {
    func matches(_ value: String) -> Bool {
        let found = caseless ? value.lowercased().contains(text.lowercased()) : value.contains(text)
        return found != negated
    }
}
