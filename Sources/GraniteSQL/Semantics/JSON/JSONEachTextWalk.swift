// json_each's rows read straight from the document's text, for a walk from the root or a simple path.

import GraniteStorage

/// Walks the rows of one call of json_each whose start is the document's root or a path of plain keys and
/// indexes, over the document's text rather than a tree of it: the whole text is checked once, by the scan that
/// finds the start node; each next child is then found by skipping the text of the one before, counting the
/// nodes it spans in SQLite's layout (see ``JSONNodeTable``) so that `id` keeps SQLite's numbering; and a column
/// is computed from the child's bytes only when the query reads it.
///
/// One walk serves every call of its cursor: ``begin(text:)`` copies the document's text into storage
/// the walk keeps, so that a row's steps and columns read plain bytes, with no value to copy, retain or open,
/// and the storage, like the start node's scan stack, is reused from call to call. Only its cursor uses it, one
/// call at a time, so its state skips dynamic exclusivity checks.
final class JSONEachTextWalk {
    /// What the start node is: its children are the rows of a container, the node itself the one row of a
    /// scalar.
    private enum Shape {
        case scalar, array, object
    }

    /// A copy of the document's text (`textCount` bytes in storage of `textCapacity`), which every step reads.
    @exclusivity(unchecked) private var text: UnsafeMutablePointer<UInt8>?
    @exclusivity(unchecked) private var textCount = 0
    @exclusivity(unchecked) private var textCapacity = 0
    /// The containers open while the start node is found, kept for their storage.
    @exclusivity(unchecked) private var scanStack: [JSONParser.ScanContainer] = []
    /// The path argument as given (up to any NUL), nil without one, and the path from the root to the start node.
    @exclusivity(unchecked) private var root: [UInt8]?
    @exclusivity(unchecked) private var startPath = JSONSimplePath.root
    @exclusivity(unchecked) private var start = Shape.scalar
    /// The current row's label (the bytes between its quotes), for a child of an object.
    @exclusivity(unchecked) private var label: Range<Int> = 0..<0
    /// The current row's value: its bytes, its position in SQLite's layout, and the number of nodes it spans.
    @exclusivity(unchecked) private var value: Range<Int> = 0..<0
    @exclusivity(unchecked) private var id = 0
    @exclusivity(unchecked) private var span = 0
    /// The number of rows produced before the current one.
    @exclusivity(unchecked) private var rowNumber: UInt32 = 0
    /// Whether the walk has a current row.
    @exclusivity(unchecked) private(set) var hasRow = false
    /// Whether the walk reads a document (``begin(text:)`` ran since the last ``stop()``).
    @exclusivity(unchecked) private(set) var isActive = false

    /// Where a walk starts, read off json_each's path argument once for all the rows it is the same for.
    struct Start {
        /// The path's steps.
        let path: JSONSimplePath
        /// The path argument as given (up to any NUL), nil without one.
        let root: [UInt8]?

        /// From the document's root (no path argument).
        static let root = Start(path: .root, root: nil)

        private init(path: JSONSimplePath, root: [UInt8]?) {
            self.path = path
            self.root = root
        }

        /// The start `start` names, or nil when it is not the root or a simple path (``JSONTableWalk`` walks
        /// those).
        init?(_ start: JSONTableWalk.Start) {
            switch start {
            case .root:
                self = .root
            case .path(let bytes):
                guard let simple = JSONSimplePath(bytes) else { return nil }
                self.init(path: simple, root: bytes.firstIndex(of: 0).map { Array(bytes[..<$0]) } ?? bytes)
            case .nowhere:
                return nil
            }
        }
    }

    /// A walk of no rows until it begins.
    init() {}

    deinit {
        text?.deallocate()
    }

    /// Ends the current walk: no rows until the next ``begin(text:)``.
    func stop() {
        hasRow = false
        isActive = false
    }

    /// Makes `start` where the next walks start, until it is set again (a cursor sets it when its path argument
    /// changes, so that a walk copies no path).
    func setStart(_ start: Start) {
        startPath = start.path
        root = start.root
    }

    /// Starts json_each's walk over `document` (not NULL) from the start last set; no rows when its path names
    /// no node.
    func begin(document: Value) throws(JSONError) {
        _ = try JSONParser.withText(document) { bytes throws(JSONError) in try begin(text: bytes) }
    }

    /// Starts json_each's walk over a document whose text (a TEXT's bytes, or a number's or BLOB's text form, as
    /// ``JSONParser/withText(_:_:)`` gives them) is `bytes`, from the start last set; no rows when its path
    /// names no node.
    func begin(text bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        stop()
        rowNumber = 0
        keep(bytes)
        isActive = true
        let parser = self.parser
        guard let location = try parser.locate(startPath, stack: &scanStack) else { return }
        try begin(at: location, parser)
    }

    /// Copies `bytes` into the walk's text storage, growing it when they do not fit.
    private func keep(_ bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.count > textCapacity {
            text?.deallocate()
            textCapacity = max(bytes.count, 2 * textCapacity, 256)
            text = UnsafeMutablePointer<UInt8>.allocate(capacity: textCapacity)
        }
        if let base = bytes.baseAddress, let text { text.update(from: base, count: bytes.count) }
        textCount = bytes.count
    }

    /// The current row's value: its bytes in ``parser``'s text.
    var currentValue: Range<Int> { value }

    /// A parser over the walk's copy of the document's text.
    var parser: JSONParser {
        JSONParser(UnsafeBufferPointer(start: text, count: text == nil ? 0 : textCount))
    }

    /// Makes the start node's first child (or a scalar start node itself) the current row.
    private func begin(at location: JSONParser.Location, _ parser: JSONParser) throws(JSONError) {
        let opening = parser.byte(location.range.lowerBound)
        guard opening == UInt8(ascii: "[") || opening == UInt8(ascii: "{") else {
            start = .scalar
            value = location.range
            id = location.position
            span = 1
            hasRow = true
            return
        }
        start = opening == UInt8(ascii: "[") ? .array : .object
        let first = parser.skipSpace(location.range.lowerBound + 1)
        guard first < location.range.upperBound - 1 else { return }
        id = location.position
        span = 1
        try readChild(at: first, parser)
    }

    /// Reads the child of the start container at `i` (an object member's label, or an array element), whose
    /// value follows the current one's nodes in the layout.
    private func readChild(at i: Int, _ parser: JSONParser) throws(JSONError) {
        var valueStart = i
        id += span
        if start == .object {
            let (labelRange, next) = try parser.labelRange(at: i)
            label = labelRange
            valueStart = next
            id += 1
        }
        let (end, nodes) = try parser.valueExtent(at: valueStart)
        value = valueStart..<end
        span = nodes
        hasRow = true
    }

    /// Moves to the next row (if there is a current one).
    func advance() throws(JSONError) {
        guard hasRow else { return }
        hasRow = false
        guard start != .scalar else { return }
        let parser = self.parser
        let i = parser.skipSpace(value.upperBound)
        guard parser.byte(i) == UInt8(ascii: ",") else { return }
        try readChild(at: parser.skipSpace(i + 1), parser)
        rowNumber &+= 1
    }

    /// The current row's value of `column`, with whether it is JSON text (a container's `value`).
    func column(_ column: JSONTableColumn) throws(JSONError) -> JSONArgument {
        switch column {
        case .key: return try key()
        case .value: return try parser.sqlValue(at: value)
        case .type: return JSONArgument(.text(parser.typeName(at: value)))
        case .atom:
            let parser = self.parser
            switch parser.byte(value.lowerBound) {
            case UInt8(ascii: "["), UInt8(ascii: "{"): return JSONArgument(.null)
            default: return JSONArgument(try parser.sqlValue(at: value).value)
            }
        case .id: return JSONArgument(.integer(Int64(id)))
        case .parent: return JSONArgument(.null)
        case .fullkey: return JSONArgument(.text(String(decoding: fullKey(), as: UTF8.self)))
        case .path, .root: return JSONArgument(.text(String(decoding: root ?? [UInt8(ascii: "$")], as: UTF8.self)))
        case .json:
            // The kept text is the document's text form, as SQLite's `json` column gives it (up to a NUL).
            let text = parser.bytes
            return JSONArgument(.text(String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)))
        }
    }

    /// The `key` column: an object member's label, an array element's index, NULL for a scalar start node.
    private func key() throws(JSONError) -> JSONArgument {
        switch start {
        case .scalar: return JSONArgument(.null)
        case .array: return JSONArgument(.integer(Int64(rowNumber)))
        case .object:
            let quoted = (label.lowerBound - 1)..<(label.upperBound + 1)
            return JSONArgument(try parser.sqlValue(at: quoted).value)
        }
    }

    /// The `fullkey` column: the path, then the element's index or the member's label.
    private func fullKey() -> [UInt8] {
        var out = root ?? [UInt8(ascii: "$")]
        switch start {
        case .scalar: break
        case .array: out.append(contentsOf: "[\(rowNumber)]".utf8)
        case .object:
            let labelBytes = Array(UnsafeBufferPointer(rebasing: parser.bytes[label]))
            JSONTableWalk.appendMember(JSONKey(bytes: labelBytes, isPlain: false), to: &out)
        }
        return out
    }
}

extension JSONParser {
    /// The end of the value at `start` of text already checked, and the number of nodes it spans in SQLite's
    /// layout (its values and labels): one per token that starts a value or a label.
    func valueExtent(at start: Int) throws(JSONError) -> (end: Int, nodes: Int) {
        var depth = 0
        var nodes = 0
        var i = start
        repeat {
            switch byte(i) {
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                nodes += 1
                depth += 1
                i += 1
            case UInt8(ascii: "]"), UInt8(ascii: "}"):
                depth -= 1
                i += 1
            case UInt8(ascii: ","), UInt8(ascii: ":"), 0x20, 0x09, 0x0A, 0x0D:
                i += 1
            default:
                guard let end = scalarEnd(at: i) else { throw .malformed }
                nodes += 1
                i = end
            }
        } while depth > 0
        return (i, nodes)
    }

    /// The SQL value of the node at `range` (as ``JSONRendering/sqlValue(of:)`` gives it), a string without
    /// escapes and a 64-bit integer read straight from the text.
    func sqlValue(at range: Range<Int>) throws(JSONError) -> JSONArgument {
        if let text = plainString(at: range) { return JSONArgument(text) }
        if let integer = plainInteger(at: range) { return JSONArgument(.integer(integer)) }
        var node = try node(at: range)
        defer { JSONNode.dismantle(&node) }
        return try JSONRendering.sqlValue(of: node)
    }

    /// The name `json_type` gives the node at `range`.
    func typeName(at range: Range<Int>) -> String {
        switch byte(range.lowerBound) {
        case UInt8(ascii: "\""): return "text"
        case UInt8(ascii: "["): return "array"
        case UInt8(ascii: "{"): return "object"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "t"): return "true"
        case UInt8(ascii: "f"): return "false"
        default:
            let token = UnsafeBufferPointer(rebasing: bytes[range])
            let isReal = token.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            return isReal ? "real" : "integer"
        }
    }
}
