// json_extract, -> and ->> with a constant path of plain keys and indexes: the path read once when the
// statement is compiled, the node found in the row's text without building its tree, and the finding kept
// for the next call of the row on the same document and path.

import GraniteStorage

/// What a call compiled to ``SQLJSONFunction/locate(_:_:)`` returns for the node it finds.
enum JSONLocatedForm: Sendable, Equatable {
    /// `json_extract(x, path)`: the node's SQL value, an array or object as JSON text.
    case extract
    /// `x -> path`: the node's JSON text.
    case arrow
    /// `x ->> path`: the node's SQL value, without the JSON subtype.
    case doubleArrow
}

extension SQLJSONFunction {
    /// `json_extract(x, 'path')`, `x -> 'path'` or `x ->> 'path'` compiled with its path read once, when the
    /// path is constant TEXT of plain keys and indexes only; nil otherwise (the call then reads its path for
    /// every row).
    static func locateCall(_ function: SQLJSONFunction, _ arguments: [EvalNode]) -> EvalNode? {
        guard arguments.count == 2, case .constant(.text(let text)) = arguments[1] else { return nil }
        let form: JSONLocatedForm
        let path: [UInt8]
        switch function {
        case .extract:
            form = .extract
            path = Array(text.utf8)
        case .arrow, .doubleArrow:
            form = function == .arrow ? .arrow : .doubleArrow
            path = SQLJSONFunctions.arrowPath(Array(text.utf8))
        default:
            return nil
        }
        guard let simple = JSONSimplePath(path) else { return nil }
        return .json(.locate(simple, form), [arguments[0]])
    }
}

/// The node the last located call of a statement found: the calls of one row that read the same document
/// with the same path (the three `json_extract(profile, '$.age')` of a filtered aggregate, or a table cursor's
/// test of the row's stored bytes and then the call of the same expression on the decoded value) scan its text
/// once, as SQLite parses a row's document once for all its calls. Also the scan stack the calls reuse. A class,
/// made by the first located call of an evaluation context (or by a cursor that tests located calls on stored
/// bytes), so that contexts without one carry only a nil reference.
///
/// The document is kept as a copy of its bytes, not as the value it came from, so that a finding made on a row's
/// stored bytes serves the calls on its decoded value. Only that context's calls use it, one at a time, so its
/// state skips dynamic exclusivity checks.
package final class JSONLocationCache {
    /// The bytes of the document last scanned, compared with the next call's.
    @exclusivity(unchecked) private var document: [UInt8] = []
    @exclusivity(unchecked) private var path = JSONSimplePath.root
    @exclusivity(unchecked) private var location: JSONParser.Location?
    /// Whether `document` (or `storedSource`), `path` and `location` describe a finished scan.
    @exclusivity(unchecked) private var isFilled = false
    /// The stored document the last scan read, and its generation then; nil when the scan read `document`'s bytes.
    @exclusivity(unchecked) private var storedSource: ObjectIdentifier?
    @exclusivity(unchecked) private var storedGeneration: UInt64 = 0
    /// The containers open during a scan, kept between calls for their storage.
    @exclusivity(unchecked) private var scanStack: [JSONParser.ScanContainer] = []
    /// The value a call of `valueForm` returned for the node found (nil: none computed since the scan), so that
    /// the calls of a row after the first return it again without reading the node.
    @exclusivity(unchecked) private var valueForm: JSONLocatedForm?
    @exclusivity(unchecked) private var lastValue = JSONArgument(.null)
    /// The document columns whose bytes table cursors of this context keep (see ``StoredDocument``).
    @exclusivity(unchecked) var documents: [StoredDocument] = []

    init() {}

    /// The node `path` names in `text`, or nil when it names none.
    func locate(_ path: JSONSimplePath, in text: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONParser.Location? {
        if isFilled && storedSource == nil && holds(text) && path == self.path { return location }
        isFilled = false
        valueForm = nil
        let found = try JSONParser(text).locate(path, stack: &scanStack)
        document.removeAll(keepingCapacity: true)
        document.append(contentsOf: text)
        storedSource = nil
        self.path = path
        location = found
        isFilled = true
        return found
    }

    /// The node `path` names in the current row's text of `stored`, or nil when it names none: a scan of the same
    /// row is known by the document's generation, so its bytes are neither compared nor copied.
    func locate(_ path: JSONSimplePath, in stored: StoredDocument) throws(JSONError) -> JSONParser.Location? {
        let source = ObjectIdentifier(stored)
        if isFilled && storedSource == source && storedGeneration == stored.generation && path == self.path {
            return location
        }
        isFilled = false
        valueForm = nil
        let found = try JSONParser(stored.text).locate(path, stack: &scanStack)
        storedSource = source
        storedGeneration = stored.generation
        self.path = path
        location = found
        isFilled = true
        return found
    }

    /// What a located call of `form` returns for `location`, the node the last ``locate(_:in:)`` found in
    /// `text`: computed for the first call of the form after the scan, then kept.
    func value(
        at location: JSONParser.Location, in text: UnsafeBufferPointer<UInt8>, _ form: JSONLocatedForm
    ) throws(JSONError) -> JSONArgument {
        if valueForm == form { return lastValue }
        let value = try SQLJSONFunctions.value(at: location.range, in: JSONParser(text), form)
        valueForm = form
        lastValue = value
        return value
    }

    /// Whether `text` is the text of the document last scanned.
    private func holds(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard document.count == text.count else { return false }
        return document.withUnsafeBytes { CodecBytes.equalBytes($0, UnsafeRawBufferPointer(text)) }
    }
}

extension SQLJSONFunctions {
    /// A call compiled to ``SQLJSONFunction/locate(_:_:)`` on the row's `document`.
    static func locate(
        _ path: JSONSimplePath, _ form: JSONLocatedForm, in document: Value, cache: JSONLocationCache
    ) throws(JSONError) -> JSONArgument {
        let result: Result<JSONArgument, JSONError>
        switch document {
        case .null:
            return null
        case .text(var text):
            result = text.withUTF8 { bytes in
                Result { () throws(JSONError) -> JSONArgument in try locate(path, form, in: bytes, cache: cache) }
            }
        default:
            let found = try JSONParser.withText(document) { bytes throws(JSONError) -> JSONArgument in
                guard let location = try JSONParser(bytes).locate(path) else { return null }
                return try value(at: location.range, in: JSONParser(bytes), form)
            }
            return found ?? null
        }
        return try result.get()
    }

    /// A call compiled to ``SQLJSONFunction/locate(_:_:)`` on the current row's TEXT of a stored document.
    static func locate(
        _ path: JSONSimplePath, _ form: JSONLocatedForm, in stored: StoredDocument, cache: JSONLocationCache
    ) throws(JSONError) -> JSONArgument {
        guard let location = try cache.locate(path, in: stored) else { return null }
        return try cache.value(at: location, in: stored.text, form)
    }

    /// A call compiled to ``SQLJSONFunction/locate(_:_:)`` on a document of TEXT whose bytes are `text`.
    static func locate(
        _ path: JSONSimplePath, _ form: JSONLocatedForm, in text: UnsafeBufferPointer<UInt8>, cache: JSONLocationCache
    ) throws(JSONError) -> JSONArgument {
        guard let location = try cache.locate(path, in: text) else { return null }
        return try cache.value(at: location, in: text, form)
    }

    /// What a located call returns for the node at `range`.
    static func value(
        at range: Range<Int>, in parser: JSONParser, _ form: JSONLocatedForm
    ) throws(JSONError) -> JSONArgument {
        if form != .arrow {
            if let text = parser.plainString(at: range) { return JSONArgument(text) }
            if let integer = parser.plainInteger(at: range) { return JSONArgument(.integer(integer)) }
        }
        var node = try parser.node(at: range)
        defer { JSONNode.dismantle(&node) }
        switch form {
        case .extract: return try JSONRendering.sqlValue(of: node)
        case .arrow: return json(try JSONRendering.text(of: node))
        case .doubleArrow: return JSONArgument(try JSONRendering.sqlValue(of: node).value)
        }
    }
}

extension JSONParser {
    /// The value of the string at `range` when it has no escapes (read straight from the text), else nil.
    func plainString(at range: Range<Int>) -> Value? {
        plainStringBytes(at: range).map { .text(utf8: UnsafeRawBufferPointer($0)) }
    }

    /// The bytes between the quotes of the string at `range` when it has no escapes (its value's UTF-8), else nil.
    func plainStringBytes(at range: Range<Int>) -> UnsafeBufferPointer<UInt8>? {
        guard range.count >= 2, byte(range.lowerBound) == UInt8(ascii: "\""), range.upperBound <= bytes.count else {
            return nil
        }
        let inner = UnsafeBufferPointer(rebasing: bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
        return inner.contains(UInt8(ascii: "\\")) ? nil : inner
    }

    /// The value of the integer at `range` when it fits in 64 bits (read straight from the text), else nil.
    func plainInteger(at range: Range<Int>) -> Int64? {
        let token = UnsafeBufferPointer(rebasing: bytes[range])
        guard let first = token.first, first == UInt8(ascii: "-") || Self.isDigit(first),
            !token.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") })
        else { return nil }
        return JSONRendering.integerValue(token)
    }
}
