// The rows of the table-valued functions json_each and json_tree, as SQLite 3.40's JSON1 produces them.

import GraniteStorage

/// A parsed document laid out as SQLite 3.40's parser lays it out: one node per value in document order, an
/// object member taking two nodes (its label, then its value), each container followed by its descendants.
///
/// json_each and json_tree number their rows' `id` and `parent` by these node positions, and walk the document
/// by them, so Granite keeps the same layout to give the same numbers.
struct JSONNodeTable {
    /// One node of the layout.
    struct Entry {
        /// What the node holds.
        enum Content {
            /// An object member's label.
            case label(JSONKey)
            /// A value (a container holds its whole subtree).
            case value(JSONNode)
        }

        var content: Content
        /// The number of nodes after this one that belong to it (SQLite's `n` for a container; 0 otherwise).
        var descendants = 0
        /// The position of the container it belongs to (the root's is 0, as SQLite's `aUp[0]`).
        var parent: Int
        /// For an array, the index of the element json_tree is visiting in it (SQLite's `u.iKey`).
        var elementKey: UInt32 = 0

        var isLabel: Bool {
            if case .label = content { return true }
            return false
        }

        /// The value node's JSON node (a label's is never asked for).
        var node: JSONNode {
            if case .value(let node) = content { return node }
            return .null
        }

        var isArray: Bool {
            if case .value(.array) = content { return true }
            return false
        }

        var isObject: Bool {
            if case .value(.object) = content { return true }
            return false
        }
    }

    private(set) var entries: [Entry] = []
    /// The position of the first entry in the whole document's layout (the table may lay out a subtree only).
    private(set) var base = 0

    /// A table of no node.
    static let empty = JSONNodeTable()

    private init() {}

    /// Parses `text` and lays the document out.
    init(parsing text: UnsafeBufferPointer<UInt8>) throws(JSONError) {
        var document = try JSONParser.parse(text)
        self.init(document)
        JSONNode.dismantle(&document)
    }

    /// Lays `root` out, as the subtree at position `base` of its document, walking it with a stack rather than
    /// by recursion.
    init(_ root: JSONNode, base: Int = 0) {
        self.base = base
        enum Work {
            case value(JSONNode, parent: Int)
            case label(JSONKey, parent: Int)
            /// The end of the container at a position: its descendants are all laid out.
            case close(Int)
        }
        var work: [Work] = [.value(root, parent: 0)]
        // Enough for most documents' subtrees without growing.
        work.reserveCapacity(16)
        entries.reserveCapacity(16)
        while let next = work.popLast() {
            switch next {
            case .close(let position):
                entries[position].descendants = entries.count - position - 1
            case .label(let key, let parent):
                entries.append(Entry(content: .label(key), parent: parent))
            case .value(let node, let parent):
                let position = entries.count
                entries.append(Entry(content: .value(node), parent: parent))
                switch node {
                case .array(let elements, _):
                    work.append(.close(position))
                    for element in elements.reversed() { work.append(.value(element, parent: position)) }
                case .object(let members):
                    work.append(.close(position))
                    for member in members.reversed() {
                        work.append(.value(member.value, parent: position))
                        work.append(.label(member.key, parent: position))
                    }
                default:
                    break
                }
            }
        }
    }

    /// The number of nodes the node at `position` spans, itself included (SQLite's `jsonNodeSize`).
    func span(_ position: Int) -> Int { entries[position].descendants + 1 }

    /// The position of the node `path` names, or nil when it names none; the same walk as
    /// ``JSONPath/lookup(_:in:)``, over positions.
    func locate(_ path: [UInt8]) throws(JSONError) -> Int? {
        guard path.first == UInt8(ascii: "$") else { throw .badPath(near: path) }
        let steps = JSONPath.Steps(path: path)
        var position = 0
        var i = 1
        while i < path.count {
            let entry = entries[position]
            if path[i] == UInt8(ascii: ".") {
                guard entry.isObject else { return nil }
                let (key, next) = try steps.key(at: i + 1)
                var member = position + 1
                let end = position + entry.descendants
                var found: Int?
                while member <= end {
                    if case .label(let label) = entries[member].content, label.bytes == key {
                        found = member + 1
                        break
                    }
                    member += 1 + span(member + 1)
                }
                guard let found else { return nil }
                position = found
                i = next
            } else if path[i] == UInt8(ascii: "[") {
                guard entry.isArray, case .value(.array(let elements, _)) = entry.content else {
                    try steps.checkIndexOfNonArray(at: i)
                    return nil
                }
                let (index, next) = try steps.index(at: i, count: elements.count)
                guard let index, Int(index) < elements.count else { return nil }
                var element = position + 1
                for _ in 0..<Int(index) { element += span(element) }
                position = element
                i = next
            } else {
                throw .badPath(near: Array(path[i...]))
            }
        }
        return position
    }
}

/// The columns of json_each and json_tree, in their order (the last two hidden).
enum JSONTableColumn: Int, CaseIterable {
    case key, value, type, atom, id, parent, fullkey, path, json, root
}

/// Walks the rows of one call of json_each (`recursive` false: the children of the node the path names) or
/// json_tree (`recursive`: that node and all its descendants), as SQLite 3.40's `json_each` cursor does.
struct JSONTableWalk {
    private var table = JSONNodeTable.empty
    private let recursive: Bool
    /// The document, for the `json` column.
    private let document: Value
    /// The path argument as given (up to any NUL), nil without one.
    private let root: [UInt8]?
    /// The current node (for an object member, its label).
    private var position = 0
    /// The node the walk started at, and the position after the last node it visits.
    private var begin = 0
    private var end = 0
    /// The number of rows produced before the current one.
    private var rowNumber: UInt32 = 0
    /// Whether the node that contains the current one (json_tree) or the start node (json_each) is an array
    /// or an object (SQLite's `eType`).
    private var containerIsArray = false
    private var containerIsObject = false

    /// Where a walk starts.
    enum Start {
        /// At the document's root (no path argument).
        case root
        /// At the node a path names.
        case path([UInt8])
        /// Nowhere: no rows (a NULL path).
        case nowhere
    }

    /// Starts a walk over the JSON text of `document` (not NULL) from `start`; no rows when the path names no
    /// node. The document is checked (and may be malformed) whatever the start.
    init(document: Value, start: Start, recursive: Bool) throws(JSONError) {
        self.document = document
        self.recursive = recursive
        if case .path(let bytes) = start {
            root = bytes.firstIndex(of: 0).map { Array(bytes[..<$0]) } ?? bytes
        } else {
            root = nil
        }
        let path = root
        let laidOut = try JSONParser.withText(document) { text throws(JSONError) -> (JSONNodeTable, Int?) in
            switch start {
            case .nowhere:
                _ = try JSONParser(text).locate(.root)
                return (.empty, nil)
            case .root:
                return (try JSONNodeTable(parsing: text), 0)
            case .path:
                let path = path ?? []
                if !recursive, let simple = JSONSimplePath(path) {
                    // json_each reads only the subtree: lay out that alone, numbered from its place in the
                    // document.
                    let parser = JSONParser(text)
                    guard let location = try parser.locate(simple) else { return (.empty, nil) }
                    var node = try parser.node(at: location.range)
                    defer { JSONNode.dismantle(&node) }
                    return (JSONNodeTable(node, base: location.position), 0)
                }
                let table = try JSONNodeTable(parsing: text)
                return (table, try table.locate(path))
            }
        }
        guard let (table, startPosition) = laidOut, let startPosition else { return }
        self.table = table
        let start = startPosition
        begin = start
        position = start
        let entry = table.entries[start]
        guard entry.isArray || entry.isObject else {
            setContainer(start)
            end = start + 1
            return
        }
        end = start + table.span(start)
        if recursive {
            setContainer(entry.parent)
            if start > 0 && table.entries[start - 1].isLabel { position -= 1 }
        } else {
            setContainer(start)
            position += 1
        }
    }

    private mutating func setContainer(_ position: Int) {
        containerIsArray = table.entries[position].isArray
        containerIsObject = table.entries[position].isObject
    }

    /// Whether the walk has a current row.
    var hasRow: Bool { position < end }

    /// Moves to the next row (if there is a current one).
    mutating func advance() {
        guard hasRow else { return }
        if recursive {
            if table.entries[position].isLabel { position += 1 }
            position += 1
            rowNumber &+= 1
            guard position < end else { return }
            let up = table.entries[position].parent
            setContainer(up)
            if containerIsArray {
                if up == position - 1 {
                    table.setElementKey(up, 0)
                } else {
                    table.setElementKey(up, table.entries[up].elementKey &+ 1)
                }
            }
        } else if containerIsArray {
            position += table.span(position)
            rowNumber &+= 1
        } else if containerIsObject {
            position += 1 + table.span(position + 1)
            rowNumber &+= 1
        } else {
            position = end
        }
    }

    /// The current row's value of `column`, with whether it is JSON text (a container's `value`, which SQLite
    /// returns with the JSON subtype).
    func column(_ column: JSONTableColumn) throws(JSONError) -> JSONArgument {
        let entry = table.entries[position]
        let valuePosition = entry.isLabel ? position + 1 : position
        switch column {
        case .key:
            return JSONArgument(try key(entry))
        case .value:
            return try JSONRendering.sqlValue(of: table.entries[valuePosition].node)
        case .type:
            return JSONArgument(.text(table.entries[valuePosition].node.typeName))
        case .atom:
            let node = table.entries[valuePosition].node
            switch node {
            case .array, .object: return JSONArgument(.null)
            default: return JSONArgument(try JSONRendering.sqlValue(of: node).value)
            }
        case .id:
            return JSONArgument(.integer(Int64(table.base + valuePosition)))
        case .parent:
            guard recursive && position > begin else { return JSONArgument(.null) }
            return JSONArgument(.integer(Int64(entry.parent)))
        case .fullkey:
            return JSONArgument(.text(String(decoding: fullKey(), as: UTF8.self)))
        case .path:
            if recursive { return JSONArgument(.text(String(decoding: path(to: entry.parent), as: UTF8.self))) }
            return JSONArgument(.text(String(decoding: root ?? [UInt8(ascii: "$")], as: UTF8.self)))
        case .json:
            let text = document.sqlTextBytes ?? []
            return JSONArgument(.text(String(decoding: text.prefix { $0 != 0 }, as: UTF8.self)))
        case .root:
            return JSONArgument(.text(String(decoding: root ?? [UInt8(ascii: "$")], as: UTF8.self)))
        }
    }

    /// The `key` column: an object member's label, an array element's index, NULL for the start node (and, in
    /// json_tree, for a start node inside an array).
    private func key(_ entry: JSONNodeTable.Entry) throws(JSONError) -> Value {
        if table.base + position == 0 { return .null }
        if containerIsObject {
            guard case .label(let label) = entry.content else { return .null }
            return try JSONRendering.sqlValue(of: Self.stringNode(label)).value
        }
        if containerIsArray {
            if recursive {
                if rowNumber == 0 { return .null }
                return .integer(Int64(table.entries[entry.parent].elementKey))
            }
            return .integer(Int64(rowNumber))
        }
        return .null
    }

    /// The `fullkey` column.
    private func fullKey() -> [UInt8] {
        if recursive { return path(to: position) }
        var out = root ?? [UInt8(ascii: "$")]
        if containerIsArray {
            out.append(contentsOf: "[\(rowNumber)]".utf8)
        } else if containerIsObject, case .label(let label) = table.entries[position].content {
            Self.appendMember(label, to: &out)
        }
        return out
    }

    /// The path from the document's root to the node at `target` (SQLite's `jsonEachComputePath`), each array
    /// step naming the element json_tree is visiting in that array.
    private func path(to target: Int) -> [UInt8] {
        var chain: [Int] = []
        var position = target
        while position != 0 {
            chain.append(position)
            position = table.entries[position].parent
        }
        var out: [UInt8] = [UInt8(ascii: "$")]
        for position in chain.reversed() {
            let up = table.entries[position].parent
            if table.entries[up].isArray {
                out.append(contentsOf: "[\(table.entries[up].elementKey)]".utf8)
            } else {
                let labelPosition = table.entries[position].isLabel ? position : position - 1
                if case .label(let label) = table.entries[labelPosition].content {
                    Self.appendMember(label, to: &out)
                }
            }
        }
        return out
    }

    /// Appends `.label`, or `."label"` when the label is not a letter followed by letters and digits.
    static func appendMember(_ label: JSONKey, to out: inout [UInt8]) {
        let bytes = label.bytes
        let isIdentifier =
            bytes.first.map(isLetter) == true && bytes.dropFirst().allSatisfy { isLetter($0) || JSONParser.isDigit($0) }
        out.append(UInt8(ascii: "."))
        if isIdentifier {
            out.append(contentsOf: bytes)
        } else {
            out.append(UInt8(ascii: "\""))
            out.append(contentsOf: bytes)
            out.append(UInt8(ascii: "\""))
        }
    }

    private static func isLetter(_ c: UInt8) -> Bool { (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) }

    /// A label as the string node it was parsed from.
    private static func stringNode(_ label: JSONKey) -> JSONNode {
        .string(label.bytes, escaped: label.bytes.contains(UInt8(ascii: "\\")))
    }
}

extension JSONNodeTable {
    /// Sets the element index json_tree is visiting in the array at `position`.
    fileprivate mutating func setElementKey(_ position: Int, _ key: UInt32) {
        entries[position].elementKey = key
    }
}
