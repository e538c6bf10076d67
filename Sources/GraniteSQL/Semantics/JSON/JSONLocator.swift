// Finding the node a simple path names in JSON text without building the document's tree.

import GraniteStorage

/// A path of `.key`, `."key"` and `[N]` steps only, every step well-formed: walking it can find a node or
/// nothing, but never fail, whatever the document (the other steps, `[#]` and `[#-N]`, need the document's
/// tree; a malformed step is an error only once the walk reaches it).
struct JSONSimplePath: Sendable, Equatable {
    /// A step: a key as its bytes' place in ``keys`` (so that reading a step copies no reference), or an index.
    enum Step: Sendable, Equatable {
        case key(start: Int, count: Int)
        case index(UInt32)
    }

    let steps: [Step]
    /// The bytes of every key step, one after the other.
    let keys: [UInt8]

    /// `$`: the whole document.
    static let root = JSONSimplePath(steps: [], keys: [])

    private init(steps: [Step], keys: [UInt8]) {
        self.steps = steps
        self.keys = keys
    }

    /// The steps of `path` (up to its first NUL), or nil when the path is not simple.
    init?(_ path: [UInt8]) {
        let end = path.firstIndex(of: 0) ?? path.count
        guard end > 0, path[0] == UInt8(ascii: "$") else { return nil }
        var steps: [Step] = []
        var keys: [UInt8] = []
        /// Adds the key step `key`.
        func addKey(_ key: ArraySlice<UInt8>) {
            steps.append(.key(start: keys.count, count: key.count))
            keys.append(contentsOf: key)
        }
        var i = 1
        while i < end {
            if path[i] == UInt8(ascii: ".") {
                i += 1
                if i < end && path[i] == UInt8(ascii: "\"") {
                    var close = i + 1
                    while close < end && path[close] != UInt8(ascii: "\"") { close += 1 }
                    guard close < end else { return nil }
                    addKey(path[(i + 1)..<close])
                    i = close + 1
                } else {
                    var stop = i
                    while stop < end && path[stop] != UInt8(ascii: ".") && path[stop] != UInt8(ascii: "[") {
                        stop += 1
                    }
                    guard stop > i else { return nil }
                    addKey(path[i..<stop])
                    i = stop
                }
            } else if path[i] == UInt8(ascii: "[") {
                var index: UInt32 = 0
                var j = i + 1
                while j < end && JSONParser.isDigit(path[j]) {
                    index = index &* 10 &+ UInt32(path[j] - 0x30)
                    j += 1
                }
                guard j > i + 1, j < end, path[j] == UInt8(ascii: "]") else { return nil }
                steps.append(.index(index))
                i = j + 1
            } else {
                return nil
            }
        }
        self.steps = steps
        self.keys = keys
    }
}

extension JSONParser {
    /// One container open during ``locate(_:stack:)``.
    struct ScanContainer {
        var isObject: Bool
        /// The items finished so far.
        var count = 0
        /// The number of path steps that lead to this container when it is on the path, else −1.
        var pathDepth: Int
        /// Whether a member of this object already matched the path's next key (the first one wins).
        var keyMatched = false
        /// Where the container starts, when it is the node the path names; else −1.
        var targetStart: Int

        /// Whether the element after the `count` finished ones is on the path: it is when the array is, and
        /// the next step is its index.
        func elementCandidate(_ steps: [JSONSimplePath.Step]) -> Int? {
            guard pathDepth >= 0, case .index(let index) = steps[pathDepth], Int(index) == count else { return nil }
            return pathDepth + 1
        }
    }

    /// Where ``locate(_:)`` found a node.
    struct Location {
        /// The node's bytes.
        var range: Range<Int>
        /// The node's position in SQLite's layout of the document (see ``JSONNodeTable``): the number of values
        /// and object labels before it.
        var position: Int
    }

    /// The node `path` names in the text, or nil when it names none; the whole text is checked as
    /// ``parse(_:)`` checks it, in one pass that builds no node.
    func locate(_ path: JSONSimplePath) throws(JSONError) -> Location? {
        var stack: [ScanContainer] = []
        stack.reserveCapacity(8)
        return try locate(path, stack: &stack)
    }

    /// ``locate(_:)`` with the open containers kept in `stack`, whose storage a caller may reuse between
    /// scans (its contents on entry do not matter).
    ///
    /// The innermost open container is held in a local, and only the ones around it in the stack, so that
    /// reading a member or an element touches no array.
    func locate(_ path: JSONSimplePath, stack open: inout [ScanContainer]) throws(JSONError) -> Location? {
        let result = path.keys.withUnsafeBufferPointer { keys in
            Result { () throws(JSONError) -> Location? in try locate(path.steps, keys, stack: &open) }
        }
        return try result.get()
    }

    /// ``locate(_:stack:)`` for the path of `steps` whose key bytes are `keys`.
    private func locate(
        _ steps: [JSONSimplePath.Step], _ keys: UnsafeBufferPointer<UInt8>, stack open: inout [ScanContainer]
    ) throws(JSONError) -> Location? {
        open.removeAll(keepingCapacity: true)
        var found: Range<Int>?
        var position = 0
        /// The number of values and labels read so far.
        var nodes = 0
        /// For the value about to be read: how many steps lead to it, when it is on the path.
        var candidate: Int? = 0
        /// The innermost open container, when `depth` is above 0 (the `depth - 1` around it are in `open`).
        var current = ScanContainer(isObject: false, pathDepth: -1, targetStart: -1)
        var depth = 0
        var i = skipSpace(0)
        while true {
            // Phase 1: a value at `i`, or the opening of a non-empty container (then its first value next).
            let c = byte(i)
            let isTarget = candidate == steps.count && found == nil
            if isTarget { position = nodes }
            nodes += 1
            if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") {
                guard depth < Self.maximumDepth else { throw .malformed }
                let first = skipSpace(i + 1)
                let closing = c == UInt8(ascii: "[") ? UInt8(ascii: "]") : UInt8(ascii: "}")
                if byte(first) == closing {
                    if isTarget { found = i..<(first + 1) }
                    i = first + 1
                } else {
                    if depth > 0 { open.append(current) }
                    depth += 1
                    current = ScanContainer(
                        isObject: c == UInt8(ascii: "{"),
                        pathDepth: candidate.flatMap { $0 < steps.count ? $0 : nil } ?? -1,
                        targetStart: isTarget ? i : -1)
                    i = first
                    if current.isObject {
                        let (label, next) = try labelRange(at: first)
                        nodes += 1
                        candidate = memberCandidate(&current, label: label, steps, keys)
                        i = next
                    } else {
                        candidate = current.elementCandidate(steps)
                    }
                    continue
                }
            } else {
                guard let end = scalarEnd(at: i) else { throw .malformed }
                if isTarget { found = i..<end }
                i = end
            }
            // Phase 2: count the value that ended at `i` in the innermost container; while the container then
            // ends, close it (noting its range when it is the node looked for) and count it in the next one
            // out. Stop after a `,` (with `i` at the next value, past its label in an object), or at the end.
            while true {
                guard depth > 0 else {
                    guard byte(skipSpace(i)) == 0 else { throw .malformed }
                    return found.map { Location(range: $0, position: position) }
                }
                current.count += 1
                i = skipSpace(i)
                let c = byte(i)
                if c == UInt8(ascii: ",") {
                    let next = skipSpace(i + 1)
                    if current.isObject {
                        let (label, value) = try labelRange(at: next)
                        nodes += 1
                        candidate = memberCandidate(&current, label: label, steps, keys)
                        i = value
                    } else {
                        candidate = current.elementCandidate(steps)
                        i = next
                    }
                    break
                }
                guard c == (current.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw .malformed }
                i += 1
                if current.targetStart >= 0 { found = current.targetStart..<i }
                depth -= 1
                if depth > 0 {
                    guard let outer = open.popLast() else { throw .malformed }
                    current = outer
                }
            }
        }
    }

    /// Whether the value of the member labelled by the bytes at `label` is on the path: the first member of an
    /// object on the path whose label is the next key (`keys` holds the path's key bytes).
    @inline(__always)
    private func memberCandidate(
        _ container: inout ScanContainer, label: Range<Int>, _ steps: [JSONSimplePath.Step],
        _ keys: UnsafeBufferPointer<UInt8>
    ) -> Int? {
        let depth = container.pathDepth
        // The first bytes are compared inline: most labels of the same length as the key differ there, and the
        // call that compares the rest costs more than the comparison itself.
        guard depth >= 0, !container.keyMatched, case .key(let start, let count) = steps[depth], label.count == count,
            count == 0 || bytes[label.lowerBound] == keys[start],
            CodecBytes.equalBytes(
                UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[label]),
                UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(keys)[start..<(start + count)]))
        else { return nil }
        container.keyMatched = true
        return depth + 1
    }
}

extension JSONParser {
    /// A scalar or container node at `range` of the text (one ``locate(_:in:)`` found).
    func node(at range: Range<Int>) throws(JSONError) -> JSONNode {
        if case .value(let node, _) = scalar(at: range.lowerBound) { return node }
        return try Self.parse(UnsafeBufferPointer(rebasing: bytes[range]))
    }
}
