// The XML that CalDAV clients send (PROPFIND and REPORT bodies), read into a small tree with
// namespaces resolved — and nothing more: no DTD, no entity but XML's five and character
// references, bounded depth and element count. A body that declares a DOCTYPE is refused
// outright, so no external entity is ever fetched (XXE) and no entity expands (billion laughs).

/// An element of a request body, its name resolved to its namespace.
public struct XMLElement: Sendable, Hashable {
    /// The namespace URI (`DAV:`, `urn:ietf:params:xml:ns:caldav`), or "" for none.
    public var namespace: String
    /// The local name (`propfind`, `prop`, `getetag`).
    public var name: String
    /// Attributes by their local name (their namespaces are not needed here).
    public var attributes: [String: String]
    public var children: [XMLElement]
    /// The element's own text (character data and CDATA, its children's excluded).
    public var text: String

    public init(namespace: String, name: String, attributes: [String: String] = [:], children: [XMLElement] = [], text: String = "") {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.children = children
        self.text = text
    }

    /// Whether this is `name` in `namespace`.
    public func `is`(_ namespace: String, _ name: String) -> Bool { self.namespace == namespace && self.name == name }

    /// The first child that is `name` in `namespace`.
    public func child(_ namespace: String, _ name: String) -> XMLElement? {
        children.first { $0.is(namespace, name) }
    }

    /// Every child that is `name` in `namespace`.
    public func children(_ namespace: String, _ name: String) -> [XMLElement] {
        children.filter { $0.is(namespace, name) }
    }
}

/// Why a body was not read.
public enum XMLReadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not XML, or XML this reader does not take; `offset` is the byte where it went wrong.
    case malformed(String, offset: Int)
    /// A DOCTYPE (and with it any entity declaration): refused, never read.
    case doctypeRefused
    /// Deeper than `XMLReader.Limits.depth`, or more elements than `.elements`.
    case tooLarge(String)

    public var description: String {
        switch self {
        case .malformed(let what, let offset): "The XML body is not well-formed at byte \(offset): \(what)."
        case .doctypeRefused: "The XML body declares a DOCTYPE; listd-web reads no DTD or entity."
        case .tooLarge(let what): "The XML body is too large: \(what)."
        }
    }
}

/// Reads one XML document (UTF-8) into its root element.
public struct XMLReader {
    /// What a body may hold at most. The HTTP side caps its bytes.
    public struct Limits: Sendable {
        public var depth = 32
        public var elements = 20_000
        public var attributesPerElement = 64
        public init() {}
    }

    private let bytes: [UInt8]
    private var position = 0
    private let limits: Limits
    private var elementCount = 0

    /// Reads `bytes` as one document.
    public static func read(_ bytes: [UInt8], limits: Limits = Limits()) throws(XMLReadError) -> XMLElement {
        var reader = XMLReader(bytes: bytes, limits: limits)
        return try reader.document()
    }

    private init(bytes: [UInt8], limits: Limits) {
        // A byte-order mark before the declaration is allowed.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        self.limits = limits
    }

    private mutating func document() throws(XMLReadError) -> XMLElement {
        try misc()
        guard position < bytes.count, bytes[position] == UInt8(ascii: "<") else { throw malformed("no root element") }
        let root = try element(scopes: [["xml": "http://www.w3.org/XML/1998/namespace"]], depth: 1)
        try misc()
        guard position == bytes.count else { throw malformed("content after the root element") }
        return root
    }

    /// Whitespace, comments, processing instructions (the declaration among them) outside the
    /// root; a DOCTYPE is refused.
    private mutating func misc() throws(XMLReadError) {
        while true {
            skipSpace()
            if starts("<?") {
                try skip(past: "?>")
            } else if starts("<!--") {
                try skip(past: "-->")
            } else if starts("<!") {
                throw .doctypeRefused
            } else {
                return
            }
        }
    }

    private mutating func element(scopes: [[String: String]], depth: Int) throws(XMLReadError) -> XMLElement {
        guard depth <= limits.depth else { throw .tooLarge("elements nested deeper than \(limits.depth)") }
        elementCount += 1
        guard elementCount <= limits.elements else { throw .tooLarge("more than \(limits.elements) elements") }
        position += 1  // <
        let qualifiedName = try name()
        var rawAttributes: [(String, String)] = []
        var declared: [String: String] = [:]
        while true {
            let spaced = skipSpace()
            guard position < bytes.count else { throw malformed("the document ends inside a tag") }
            if bytes[position] == UInt8(ascii: "/") || bytes[position] == UInt8(ascii: ">") { break }
            guard spaced else { throw malformed("attributes must be separated by white space") }
            let attributeName = try name()
            skipSpace()
            guard take(UInt8(ascii: "=")) else { throw malformed("an attribute without “=”") }
            skipSpace()
            let value = try quoted()
            if attributeName == "xmlns" {
                declared[""] = value
            } else if attributeName.hasPrefix("xmlns:") {
                declared[String(attributeName.dropFirst(6))] = value
            } else {
                rawAttributes.append((attributeName, value))
            }
            guard rawAttributes.count + declared.count <= limits.attributesPerElement else {
                throw .tooLarge("more than \(limits.attributesPerElement) attributes on an element")
            }
        }
        let scopes = declared.isEmpty ? scopes : scopes + [declared]
        let (namespace, localName) = try resolve(qualifiedName, scopes: scopes)
        var result = XMLElement(namespace: namespace, name: localName)
        for (attributeName, value) in rawAttributes {
            let local = attributeName.split(separator: ":", maxSplits: 1).last.map(String.init) ?? attributeName
            result.attributes[local] = value
        }
        if take(UInt8(ascii: "/")) {
            guard take(UInt8(ascii: ">")) else { throw malformed("“/” not followed by “>”") }
            return result
        }
        position += 1  // >
        while true {
            guard position < bytes.count else { throw malformed("<\(qualifiedName)> is never closed") }
            if starts("</") {
                position += 2
                let closing = try name()
                guard closing == qualifiedName else { throw malformed("</\(closing)> closes <\(qualifiedName)>") }
                skipSpace()
                guard take(UInt8(ascii: ">")) else { throw malformed("a closing tag without “>”") }
                return result
            } else if starts("<!--") {
                try skip(past: "-->")
            } else if starts("<![CDATA[") {
                position += 9
                let start = position
                try skip(past: "]]>")
                result.text += String(decoding: bytes[start..<(position - 3)], as: UTF8.self)
            } else if starts("<?") {
                try skip(past: "?>")
            } else if starts("<!") {
                throw .doctypeRefused
            } else if bytes[position] == UInt8(ascii: "<") {
                result.children.append(try element(scopes: scopes, depth: depth + 1))
            } else {
                result.text += try characterData()
            }
        }
    }

    /// `prefix:name` to its namespace and local name.
    private func resolve(_ qualified: String, scopes: [[String: String]]) throws(XMLReadError) -> (String, String) {
        let parts = qualified.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let prefix = parts.count == 2 ? String(parts[0]) : ""
        let local = parts.count == 2 ? String(parts[1]) : qualified
        for scope in scopes.reversed() {
            if let namespace = scope[prefix] { return (namespace, local) }
        }
        guard prefix.isEmpty else { throw malformed("the prefix “\(prefix)” is not declared") }
        return ("", local)
    }

    private mutating func name() throws(XMLReadError) -> String {
        let start = position
        while position < bytes.count {
            let byte = bytes[position]
            let isNameByte =
                byte >= 0x80 || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isNameByte else { break }
            position += 1
        }
        guard position > start, position - start <= 256 else { throw malformed("a name is missing or longer than 256 bytes") }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    private mutating func quoted() throws(XMLReadError) -> String {
        guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") || bytes[position] == UInt8(ascii: "'") else {
            throw malformed("an attribute value must be quoted")
        }
        let quote = bytes[position]
        position += 1
        var value: [UInt8] = []
        while position < bytes.count, bytes[position] != quote {
            if bytes[position] == UInt8(ascii: "<") { throw malformed("“<” in an attribute value") }
            if bytes[position] == UInt8(ascii: "&") {
                value += try reference()
            } else {
                value.append(bytes[position])
                position += 1
            }
        }
        guard take(quote) else { throw malformed("an attribute value is never closed") }
        return String(decoding: value, as: UTF8.self)
    }

    private mutating func characterData() throws(XMLReadError) -> String {
        var text: [UInt8] = []
        while position < bytes.count, bytes[position] != UInt8(ascii: "<") {
            if bytes[position] == UInt8(ascii: "&") {
                text += try reference()
            } else {
                text.append(bytes[position])
                position += 1
            }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `&amp;` and the other four, `&#…;` and `&#x…;`: any other entity is refused (none can be
    /// declared).
    private mutating func reference() throws(XMLReadError) -> [UInt8] {
        let start = position
        position += 1
        while position < bytes.count, bytes[position] != UInt8(ascii: ";"), position - start < 12 { position += 1 }
        guard take(UInt8(ascii: ";")) else { throw malformed("an “&” that starts no reference") }
        let body = String(decoding: bytes[(start + 1)..<(position - 1)], as: UTF8.self)
        switch body {
        case "amp": return [UInt8(ascii: "&")]
        case "lt": return [UInt8(ascii: "<")]
        case "gt": return [UInt8(ascii: ">")]
        case "quot": return [UInt8(ascii: "\"")]
        case "apos": return [UInt8(ascii: "'")]
        default:
            var value: UInt32?
            if body.hasPrefix("#x") || body.hasPrefix("#X") {
                value = UInt32(body.dropFirst(2), radix: 16)
            } else if body.hasPrefix("#") {
                value = UInt32(body.dropFirst(1), radix: 10)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw malformed("the entity “&\(body);” (only &amp; &lt; &gt; &quot; &apos; and character references are read)")
            }
            return Array(String(Character(scalar)).utf8)
        }
    }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = position
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
        return position > start
    }

    private func starts(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard position + count <= bytes.count else { return false }
        return text.withUTF8Buffer { pattern in
            for index in 0..<count where bytes[position + index] != pattern[index] { return false }
            return true
        }
    }

    private mutating func skip(past end: StaticString) throws(XMLReadError) {
        while position < bytes.count {
            if starts(end) {
                position += end.utf8CodeUnitCount
                return
            }
            position += 1
        }
        throw malformed("“\(end)” never comes")
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    private func malformed(_ what: String) -> XMLReadError { .malformed(what, offset: position) }
}
