// iCalendar (RFC 5545) as CalDAV clients PUT it and GET it back: content lines unfolded and
// split into name, parameters and value; components nested by BEGIN/END; and written again
// folded at 75 octets. Values are kept as written (escaped): only the properties listd reads
// (SUMMARY, DESCRIPTION, CATEGORIES) are unescaped, by `ICalendar.text`.

/// One content line: `NAME;PARAM=…:value`.
public struct ICalendarProperty: Sendable, Hashable, Codable {
    /// Upper-cased (`SUMMARY`, `X-APPLE-SORT-ORDER`).
    public var name: String
    /// The parameters as written, without the leading `;` ("" for none).
    public var parameters: String
    /// The value as written (still escaped).
    public var value: String

    public init(name: String, parameters: String = "", value: String) {
        self.name = name
        self.parameters = parameters
        self.value = value
    }

    /// The line, unfolded.
    public var line: String { parameters.isEmpty ? "\(name):\(value)" : "\(name);\(parameters):\(value)" }
}

/// A component (`VCALENDAR`, `VTODO`, `VALARM`, `VTIMEZONE`) with its properties and the
/// components inside it, in order.
public struct ICalendarComponent: Sendable, Hashable, Codable {
    public var name: String
    public var properties: [ICalendarProperty]
    public var components: [ICalendarComponent]

    public init(name: String, properties: [ICalendarProperty] = [], components: [ICalendarComponent] = []) {
        self.name = name
        self.properties = properties
        self.components = components
    }

    /// The first property called `name`.
    public func property(_ name: String) -> ICalendarProperty? { properties.first { $0.name == name } }

    /// The component written as lines (CRLF, folded at 75 octets).
    public var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        ICalendar.appendFolded("BEGIN:\(name)", to: &out)
        for property in properties { ICalendar.appendFolded(property.line, to: &out) }
        for component in components { component.write(to: &out) }
        ICalendar.appendFolded("END:\(name)", to: &out)
    }
}

/// Why an iCalendar body was not read.
public enum ICalendarError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String, line: Int)
    case tooLarge(String)

    public var description: String {
        switch self {
        case .malformed(let what, let line): "The iCalendar body is not valid at line \(line): \(what)."
        case .tooLarge(let what): "The iCalendar body is too large: \(what)."
        }
    }
}

public enum ICalendar {
    /// What one body may hold at most (the HTTP side caps its bytes).
    public static let maximumLines = 10_000
    public static let maximumDepth = 8

    /// Reads one object (a `VCALENDAR`, normally) from `text`.
    public static func read(_ text: String) throws(ICalendarError) -> ICalendarComponent {
        let lines = unfold(text)
        guard lines.count <= maximumLines else { throw .tooLarge("more than \(maximumLines) lines") }
        var stack: [ICalendarComponent] = []
        var finished: ICalendarComponent?
        for (index, line) in lines.enumerated() {
            let number = index + 1
            if line.isEmpty { continue }
            guard finished == nil else { throw .malformed("content after END:\(finished!.name)", line: number) }
            guard let property = parseLine(line) else { throw .malformed("not NAME:value", line: number) }
            switch property.name {
            case "BEGIN":
                guard stack.count < maximumDepth else { throw .tooLarge("components nested deeper than \(maximumDepth)") }
                guard !property.value.isEmpty else { throw .malformed("BEGIN without a name", line: number) }
                stack.append(ICalendarComponent(name: property.value.uppercased()))
            case "END":
                guard let last = stack.popLast(), last.name == property.value.uppercased() else {
                    throw .malformed("END:\(property.value) closes no open component", line: number)
                }
                if stack.isEmpty { finished = last } else { stack[stack.count - 1].components.append(last) }
            default:
                guard !stack.isEmpty else { throw .malformed("a property outside BEGIN/END", line: number) }
                stack[stack.count - 1].properties.append(property)
            }
        }
        guard let finished else {
            throw .malformed(stack.isEmpty ? "no BEGIN" : "BEGIN:\(stack.last!.name) is never ended", line: lines.count)
        }
        return finished
    }

    /// Lines with folding undone (a line starting with a space or tab continues the one before);
    /// CRLF or LF alike.
    static func unfold(_ text: String) -> [String] {
        // By bytes: in a Swift string CR LF is one character, which "\n" does not split.
        var lines: [String] = []
        for raw in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false) {
            let line = raw.last == 0x0D ? raw.dropLast() : raw[...]
            if let first = line.first, first == 0x20 || first == 0x09, !lines.isEmpty {
                lines[lines.count - 1] += String(decoding: line.dropFirst(), as: UTF8.self)
            } else {
                lines.append(String(decoding: line, as: UTF8.self))
            }
        }
        return lines
    }

    /// `NAME;PARAMS:value`; the colon that ends the name is the first outside a quoted
    /// parameter value.
    static func parseLine(_ line: String) -> ICalendarProperty? {
        var inQuotes = false
        var nameEnd: String.Index?
        var index = line.startIndex
        while index < line.endIndex {
            let character = line[index]
            if character == "\"" {
                inQuotes.toggle()
            } else if !inQuotes {
                if character == ";" && nameEnd == nil {
                    nameEnd = index
                } else if character == ":" {
                    let end = nameEnd ?? index
                    let name = line[..<end].uppercased()
                    guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else { return nil }
                    let parameters = nameEnd.map { String(line[line.index(after: $0)..<index]) } ?? ""
                    return ICalendarProperty(name: name, parameters: parameters, value: String(line[line.index(after: index)...]))
                }
            }
            index = line.index(after: index)
        }
        return nil
    }

    /// Appends `line` folded at 75 octets (never inside a character), ending with CRLF.
    static func appendFolded(_ line: String, to out: inout String) {
        var octets = 0
        var first = true
        for character in line {
            let length = character.utf8.count
            if octets + length > (first ? 75 : 74) {
                out += "\r\n "
                octets = 0
                first = false
            }
            out.append(character)
            octets += length
        }
        out += "\r\n"
    }

    /// A TEXT value unescaped (`\n`, `\,`, `\;`, `\\`).
    public static func text(_ value: String) -> String {
        var out = ""
        var escaped = false
        for character in value {
            if escaped {
                out.append(character == "n" || character == "N" ? "\n" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// Text escaped for a TEXT value.
    public static func escaped(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case ";": out += "\\;"
            case ",": out += "\\,"
            case "\n": out += "\\n"
            case "\r": continue
            default: out.append(character)
            }
        }
        return out
    }

    /// A list of TEXT values (CATEGORIES): split at commas that are not escaped, each unescaped.
    public static func textList(_ value: String) -> [String] {
        var parts: [String] = []
        var current = ""
        var escaped = false
        for character in value {
            if escaped {
                current.append("\\")
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                parts.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.map(text).filter { !$0.isEmpty }
    }
}
