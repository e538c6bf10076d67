// SQLite 3.40's JSON path language: finding, creating and removing the node a path names.

/// Walks a JSON path (`$`, `.key`, `."quoted key"`, `[N]`, `[#]`, `[#-N]`) through a document, as SQLite
/// 3.40's `jsonLookup` does.
///
/// SQLite checks a path only as far as the document takes it: a step into a value of the wrong kind (a key of
/// an array, an index of an object) finds nothing without looking at the rest of the path, while a malformed
/// step that is reached is ``JSONError/badPath(near:)`` with the path from that step on. Indexes are read as
/// 32-bit unsigned numbers, wrapping as SQLite's do.
enum JSONPath {
    /// What a visit asks of the node it was given.
    enum Disposition {
        /// Leave the node in the document (the visit may have changed it).
        case keep
        /// Take the node out of its container (`json_remove`).
        case remove
    }

    /// What ``visit(_:in:creating:_:)`` found.
    enum Outcome: Equatable {
        /// The path names no node (and none was created).
        case notFound
        /// The node was visited.
        case visited
        /// The path named the root, and the visit removed it.
        case removedRoot
    }

    /// Finds the node `path` names in `root` and calls `visitor` on it, with whether the node was just created.
    ///
    /// With `creating`, a missing last object member or array element one past the end (`[N]` with N the
    /// count, or `[#]`) is created, with any objects and arrays the rest of the path needs (SQLite's
    /// `jsonLookupAppend`: a path continuing with `.key` makes an object, with `[0]` an array, anything else
    /// nothing), and visited as a new `null`.
    static func visit(
        _ path: [UInt8], in root: inout JSONNode, creating: Bool,
        _ visitor: (inout JSONNode, _ created: Bool) -> Disposition
    ) throws(JSONError) -> Outcome {
        let bytes = path.firstIndex(of: 0).map { Array(path[..<$0]) } ?? path
        guard bytes.first == UInt8(ascii: "$") else { throw .badPath(near: bytes) }
        let result = try withoutActuallyEscaping(visitor) { (visitor) throws(JSONError) in
            try Walker(path: bytes, creating: creating, visitor: visitor).walk(&root)
        }
        switch result {
        case .notFound: return .notFound
        case .found(.keep): return .visited
        case .found(.remove): return .removedRoot
        }
    }

    /// Finds the node `path` names, without changing anything: the same walk as ``visit(_:in:creating:_:)``
    /// without creation, done in a loop so that deep documents need no deep stack.
    static func lookup(_ path: [UInt8], in root: JSONNode) throws(JSONError) -> JSONNode? {
        let bytes = path.firstIndex(of: 0).map { Array(path[..<$0]) } ?? path
        guard bytes.first == UInt8(ascii: "$") else { throw .badPath(near: bytes) }
        let walker = Walker(path: bytes, creating: false, visitor: { _, _ in .keep })
        var node = root
        var i = 1
        while i < bytes.count {
            if case .replaced = node { return nil }
            guard let (child, next) = try walker.child(of: node, at: i) else { return nil }
            node = child
            i = next
        }
        return node
    }

    /// The steps of a path as SQLite reads them: shared by the walks over parsed documents (``Walker``) and over
    /// their node layout (``JSONNodeTable``).
    struct Steps {
        let path: [UInt8]

        private func byte(_ i: Int) -> UInt8 { i < path.count ? path[i] : 0 }

        private func rest(from i: Int) -> [UInt8] { i < path.count ? Array(path[i...]) : [] }

        /// What SQLite checks of an index step at `i` applied to something other than an array: an `[N]` or a
        /// step starting `[#` finds nothing, anything else is malformed.
        func checkIndexOfNonArray(at i: Int) throws(JSONError) {
            var j = i + 1
            while JSONParser.isDigit(byte(j)) { j += 1 }
            if j >= i + 2 && byte(j) == UInt8(ascii: "]") { return }
            if byte(i + 1) != UInt8(ascii: "#") { throw .badPath(near: rest(from: i)) }
        }

        /// The index an `[N]`, `[#]` or `[#-N]` step at `i` names in an array of `count` elements (nil when
        /// `[#-N]` goes before the start), and the offset after the step.
        func index(at i: Int, count: Int) throws(JSONError) -> (UInt32?, Int) {
            var index: UInt32 = 0
            var j = i + 1
            while JSONParser.isDigit(byte(j)) {
                index = index &* 10 &+ UInt32(byte(j) - 0x30)
                j += 1
            }
            if j < i + 2 || byte(j) != UInt8(ascii: "]") {
                guard byte(i + 1) == UInt8(ascii: "#") else { throw .badPath(near: rest(from: i)) }
                index = UInt32(truncatingIfNeeded: count)
                j = i + 2
                var beforeStart = false
                if byte(i + 2) == UInt8(ascii: "-") && JSONParser.isDigit(byte(i + 3)) {
                    var back: UInt32 = 0
                    j = i + 3
                    while JSONParser.isDigit(byte(j)) {
                        back = back &* 10 &+ UInt32(byte(j) - 0x30)
                        j += 1
                    }
                    if back > index { beforeStart = true } else { index -= back }
                }
                // SQLite gives up on `[#-N]` past the start before it checks the closing bracket.
                if beforeStart { return (nil, j + 1) }
                guard byte(j) == UInt8(ascii: "]") else { throw .badPath(near: rest(from: i)) }
            }
            return (index, j + 1)
        }

        /// The key of a `.key` or `."key"` step whose key starts at `i`, and the offset after it.
        func key(at i: Int) throws(JSONError) -> (key: [UInt8], next: Int) {
            if byte(i) == UInt8(ascii: "\"") {
                var end = i + 1
                while end < path.count && path[end] != UInt8(ascii: "\"") { end += 1 }
                guard end < path.count else { throw .badPath(near: rest(from: i)) }
                return (Array(path[(i + 1)..<end]), end + 1)
            }
            var end = i
            while end < path.count && path[end] != UInt8(ascii: ".") && path[end] != UInt8(ascii: "[") { end += 1 }
            guard end > i else { throw .badPath(near: rest(from: i)) }
            return (Array(path[i..<end]), end)
        }
    }

    /// One walk of one path.
    private struct Walker {
        let path: [UInt8]
        let creating: Bool
        let visitor: (inout JSONNode, Bool) -> Disposition

        enum StepResult {
            case notFound
            case found(Disposition)
        }

        private func byte(_ i: Int) -> UInt8 { i < path.count ? path[i] : 0 }

        private func rest(from i: Int) -> [UInt8] { i < path.count ? Array(path[i...]) : [] }

        /// A container the walk went into: its items, with the child it went on with taken out.
        private enum Frame {
            case member([JSONMember], index: Int)
            case element([JSONNode], appended: Int, index: Int)
        }

        /// Walks the path through `root`: takes each container on the way apart (so that the node reached is
        /// edited in place), applies the visitor or creates the missing end, then puts the containers back
        /// together. A loop rather than recursion, so that deep documents need no deep stack.
        func walk(_ root: inout JSONNode) throws(JSONError) -> StepResult {
            var frames: [Frame] = []
            var current = root
            root = .null
            let result: StepResult
            do {
                result = try descend(&current, &frames)
            } catch {
                root = Self.reassemble(current, frames, removingReached: false)
                throw error
            }
            let removing: Bool
            if case .found(.remove) = result { removing = true } else { removing = false }
            root = Self.reassemble(current, frames, removingReached: removing)
            return removing && !frames.isEmpty ? .found(.keep) : result
        }

        /// Follows the path from `current` down, pushing a frame per container entered; on return `current` is
        /// the node reached (visited or with the created end added), or where the walk stopped.
        private func descend(_ current: inout JSONNode, _ frames: inout [Frame]) throws(JSONError) -> StepResult {
            var i = 1
            while true {
                if i >= path.count { return .found(visitor(&current, false)) }
                if case .replaced = current { return .notFound }
                switch byte(i) {
                case UInt8(ascii: "."):
                    guard case .object(var members) = current else { return .notFound }
                    let (key, next) = try self.key(at: i + 1)
                    current = .null  // leaves `members` the only reference, so edits do not copy it
                    if let index = members.firstIndex(where: { $0.key.bytes == key }) {
                        let child = members[index].value
                        members[index].value = .null
                        frames.append(.member(members, index: index))
                        current = child
                        i = next
                        continue
                    }
                    defer { current = .object(members) }
                    guard creating, let created = try createChain(at: next, depth: frames.count + 1) else {
                        return .notFound
                    }
                    members.append(JSONMember(key: JSONKey(bytes: key, isPlain: true), value: created))
                    return .found(.keep)
                case UInt8(ascii: "["):
                    guard case .array(var elements, let appended) = current else {
                        try checkIndexOfNonArray(at: i)
                        return .notFound
                    }
                    let (found, next) = try index(at: i, count: elements.count)
                    guard let index = found else { return .notFound }
                    switch Self.position(of: index, count: elements.count, appended: appended) {
                    case .element(let position):
                        current = .null
                        let child = elements[position]
                        elements[position] = .null
                        frames.append(.element(elements, appended: appended, index: position))
                        current = child
                        i = next
                    case .end:
                        guard creating, let created = try createChain(at: next, depth: frames.count + 1) else {
                            return .notFound
                        }
                        current = .null
                        elements.append(created)
                        current = .array(elements, appended: appended + 1)
                        return .found(.keep)
                    case .beyond:
                        return .notFound
                    }
                default:
                    throw .badPath(near: rest(from: i))
                }
            }
        }

        /// Puts the containers of `frames` back together around `reached`, the node the walk ended at; with
        /// `removingReached`, that node is removed from its container instead (an object member is flagged, an
        /// array element dropped).
        private static func reassemble(_ reached: JSONNode, _ frames: [Frame], removingReached: Bool) -> JSONNode {
            var current = reached
            var removing = removingReached
            for frame in frames.reversed() {
                switch frame {
                case .member(var members, let index):
                    members[index].value = current
                    if removing { members[index].isRemoved = true }
                    current = .object(members)
                case .element(var elements, let appended, let index):
                    if removing {
                        elements.remove(at: index)
                    } else {
                        elements[index] = current
                    }
                    current = .array(elements, appended: appended)
                }
                removing = false
            }
            return current
        }

        /// The child of `node` the step at offset `i` names and the offset of the next step, or nil when there
        /// is none; the read-only counterpart of ``member(of:at:depth:)`` and ``element(of:at:depth:)``.
        func child(of node: JSONNode, at i: Int) throws(JSONError) -> (JSONNode, Int)? {
            switch byte(i) {
            case UInt8(ascii: "."):
                guard case .object(let members) = node else { return nil }
                let (key, next) = try self.key(at: i + 1)
                guard let member = members.first(where: { $0.key.bytes == key }) else { return nil }
                return (member.value, next)
            case UInt8(ascii: "["):
                guard case .array(let elements, let appended) = node else {
                    try checkIndexOfNonArray(at: i)
                    return nil
                }
                let (index, next) = try self.index(at: i, count: elements.count)
                guard let index else { return nil }
                guard case .element(let position) = Self.position(of: index, count: elements.count, appended: appended)
                else { return nil }
                return (elements[position], next)
            default:
                throw .badPath(near: rest(from: i))
            }
        }

        private func checkIndexOfNonArray(at i: Int) throws(JSONError) {
            try Steps(path: path).checkIndexOfNonArray(at: i)
        }

        private func index(at i: Int, count: Int) throws(JSONError) -> (UInt32?, Int) {
            try Steps(path: path).index(at: i, count: count)
        }

        private func key(at i: Int) throws(JSONError) -> (key: [UInt8], next: Int) {
            try Steps(path: path).key(at: i)
        }

        /// Where index `index` of an array of `count` elements falls.
        enum Position {
            case element(Int)
            /// Just past the last element: where an edit appends.
            case end
            case beyond
        }

        /// Where SQLite's lookup of `index` lands in an array whose last `appended` elements were each appended
        /// by the current edit. SQLite keeps each appended element in a chunk of its own linked after the
        /// array, and its lookup always follows the links to the last chunk, counting down the index on the way
        /// but never below zero: so once an edit has appended, every index up to the count minus one names the
        /// last appended element, the next one the end, and larger ones nothing.
        static func position(of index: UInt32, count: Int, appended: Int) -> Position {
            let target = Int(index)
            if appended == 0 {
                return target < count ? .element(target) : (target == count ? .end : .beyond)
            }
            let skippedBeforeLast = count - 1
            let remaining = max(0, target - skippedBeforeLast)
            switch remaining {
            case 0: return .element(count - 1)
            case 1: return .end
            default: return .beyond
            }
        }

        /// The nodes a missing path end needs (SQLite's `jsonLookupAppend`), to be placed `depth` levels below
        /// the root, with the visitor applied to the new leaf; nil when the rest of the path cannot be created.
        ///
        /// Built without recursion, from the leaf up, so that a long path cannot exhaust the stack; a chain
        /// that would nest containers deeper than ``JSONParser/maximumDepth`` is ``JSONError/tooDeep``.
        private func createChain(at start: Int, depth: Int) throws(JSONError) -> JSONNode? {
            /// One container of the chain: an object holding the next level under a key, or an array holding it.
            enum Level {
                case object([UInt8])
                case array
            }
            var levels: [Level] = []
            var i = start
            while i < path.count {
                if byte(i) == UInt8(ascii: ".") {
                    let (key, next) = try self.key(at: i + 1)
                    levels.append(.object(key))
                    i = next
                } else if byte(i) == UInt8(ascii: "["), byte(i + 1) == UInt8(ascii: "0"),
                    byte(i + 2) == UInt8(ascii: "]")
                {
                    levels.append(.array)
                    i += 3
                } else {
                    return nil  // SQLite creates nothing for any other step (and does not check it)
                }
                if depth + levels.count > JSONParser.maximumDepth { throw .tooDeep }
            }
            var node = JSONNode.null
            _ = visitor(&node, true)
            for level in levels.reversed() {
                switch level {
                case .object(let key):
                    node = .object([JSONMember(key: JSONKey(bytes: key, isPlain: true), value: node)])
                case .array: node = .array([node], appended: 1)
                }
            }
            return node
        }
    }
}
