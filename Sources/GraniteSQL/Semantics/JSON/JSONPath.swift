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
            try Walker(path: bytes, creating: creating, visitor: visitor).step(&root, at: 1, depth: 0)
        }
        switch result {
        case .notFound: return .notFound
        case .found(.keep): return .visited
        case .found(.remove): return .removedRoot
        }
    }

    /// Finds the node `path` names, without changing anything.
    static func lookup(_ path: [UInt8], in root: JSONNode) throws(JSONError) -> JSONNode? {
        var copy = root
        var found: JSONNode?
        _ = try visit(path, in: &copy, creating: false) { node, _ in
            found = node
            return .keep
        }
        return found
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

        /// Walks the path from offset `i` starting at `node`, which is `depth` levels below the root.
        func step(_ node: inout JSONNode, at i: Int, depth: Int) throws(JSONError) -> StepResult {
            if i >= path.count { return .found(visitor(&node, false)) }
            if case .replaced = node { return .notFound }
            switch byte(i) {
            case UInt8(ascii: "."): return try member(of: &node, at: i + 1, depth: depth)
            case UInt8(ascii: "["): return try element(of: &node, at: i, depth: depth)
            default: throw .badPath(near: rest(from: i))
            }
        }

        /// The key of a `.key` or `."key"` step whose key starts at `i`, and the offset after it.
        private func key(at i: Int) throws(JSONError) -> (key: [UInt8], next: Int) {
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

        /// A `.key` step; `i` is just past the dot.
        private func member(of node: inout JSONNode, at i: Int, depth: Int) throws(JSONError) -> StepResult {
            guard case .object(var members) = node else { return .notFound }
            let (key, next) = try self.key(at: i)
            if let index = members.firstIndex(where: { $0.key.bytes == key }) {
                node = .null  // drop the node's reference to its members so they are edited in place
                defer { node = .object(members) }
                let result = try step(&members[index].value, at: next, depth: depth + 1)
                if case .found(.remove) = result {
                    members[index].isRemoved = true
                    return .found(.keep)
                }
                return result
            }
            guard creating, let created = try createChain(at: next, depth: depth + 1) else { return .notFound }
            members.append(JSONMember(key: JSONKey(bytes: key, isPlain: true), value: created))
            node = .object(members)
            return .found(.keep)
        }

        /// An `[N]`, `[#]` or `[#-N]` step; `i` is at the bracket.
        private func element(of node: inout JSONNode, at i: Int, depth: Int) throws(JSONError) -> StepResult {
            var index: UInt32 = 0
            var j = i + 1
            while JSONParser.isDigit(byte(j)) {
                index = index &* 10 &+ UInt32(byte(j) - 0x30)
                j += 1
            }
            if j < i + 2 || byte(j) != UInt8(ascii: "]") {
                guard byte(i + 1) == UInt8(ascii: "#") else { throw .badPath(near: rest(from: i)) }
                guard case .array(let elements, _) = node else { return .notFound }
                index = UInt32(truncatingIfNeeded: elements.count)
                j = i + 2
                if byte(i + 2) == UInt8(ascii: "-") && JSONParser.isDigit(byte(i + 3)) {
                    var back: UInt32 = 0
                    j = i + 3
                    while JSONParser.isDigit(byte(j)) {
                        back = back &* 10 &+ UInt32(byte(j) - 0x30)
                        j += 1
                    }
                    if back > index { return .notFound }
                    index -= back
                }
                guard byte(j) == UInt8(ascii: "]") else { throw .badPath(near: rest(from: i)) }
            }
            guard case .array(var elements, let appended) = node else { return .notFound }
            let next = j + 1
            switch Self.position(of: index, count: elements.count, appended: appended) {
            case .element(let position):
                node = .null  // drop the node's reference to its elements so they are edited in place
                defer { node = .array(elements, appended: appended) }
                let result = try step(&elements[position], at: next, depth: depth + 1)
                if case .found(.remove) = result {
                    elements.remove(at: position)
                    return .found(.keep)
                }
                return result
            case .end:
                guard creating, let created = try createChain(at: next, depth: depth + 1) else { return .notFound }
                elements.append(created)
                node = .array(elements, appended: appended + 1)
                return .found(.keep)
            case .beyond:
                return .notFound
            }
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
                case .object(let key): node = .object([JSONMember(key: JSONKey(bytes: key, isPlain: true), value: node)])
                case .array: node = .array([node], appended: 1)
                }
            }
            return node
        }
    }
}
