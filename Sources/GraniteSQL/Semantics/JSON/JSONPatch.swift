// RFC 7396 merge patches, as SQLite 3.40's json_patch applies them.

/// Applies a merge patch (SQLite's `jsonMergePatch`).
///
/// RFC 7396, with SQLite's treatment of duplicate keys: a patch member is matched against the first target
/// member with the same key as written (escapes compared as written) among the members the target had before
/// this patch; a target member already removed or replaced by this patch is left alone; members the patch
/// adds are never matched by later patch members, so a key repeated in the patch is added twice; and when one
/// object is patched twice (a key repeated in the patch, both values objects), the members the first time
/// added are dropped once the second time adds one (SQLite relinks the object's appended members).
///
/// Nested objects are merged with an explicit stack rather than by recursion, so that documents at the depth
/// limit need no deep thread stack.
enum JSONPatch {
    /// The result of patching `target` with `patch`.
    static func apply(_ patch: JSONNode, to target: JSONNode) -> JSONNode {
        var frames: [Merge] = []
        switch start(target, patch) {
        case .done(let node, _): return node
        case .merge(let merge): frames.append(merge)
        }
        var finished: (node: JSONNode, replaced: Bool)?
        while var merge = frames.popLast() {
            if let (node, replaced) = finished, let index = merge.pendingIndex {
                merge.members[index].value = node
                if replaced { merge.members[index].isPatched = true }
                merge.pendingIndex = nil
            }
            finished = nil
            if let child = merge.advance() {
                frames.append(merge)
                frames.append(child)
                continue
            }
            finished = (.object(merge.members), false)
        }
        return finished?.node ?? target
    }

    /// How patching one target node with one patch node begins.
    private enum Start {
        /// The result is known at once, and whether it replaces the target rather than edits it.
        case done(JSONNode, replaced: Bool)
        /// Both are objects: their members must be merged.
        case merge(Merge)
    }

    private static func start(_ target: JSONNode, _ patch: JSONNode) -> Start {
        guard case .object(let patchMembers) = patch else { return .done(patch, replaced: true) }
        guard case .object(let members) = target else { return .done(withoutNulls(patch), replaced: true) }
        return .merge(Merge(members: members, patchMembers: patchMembers))
    }

    /// The merge of a patch object into a target object, member by member.
    private struct Merge {
        /// The target's members, as patched so far.
        var members: [JSONMember]
        let patchMembers: [JSONMember]
        /// The next patch member to apply.
        var next = 0
        /// How many members the target had before this patch touched it (later ones were added by a patch).
        let originalCount: Int
        /// Whether this merge has added a member yet.
        var addedHere = false
        /// The target member a nested merge is patching, whose result goes back there.
        var pendingIndex: Int?

        init(members: [JSONMember], patchMembers: [JSONMember]) {
            self.members = members
            self.patchMembers = patchMembers
            originalCount = members.firstIndex(where: \.isAddedByPatch) ?? members.count
        }

        /// Applies patch members until one needs a nested merge (returned, with ``pendingIndex`` set) or none
        /// are left (nil).
        mutating func advance() -> Merge? {
            while next < patchMembers.count {
                let patchMember = patchMembers[next]
                next += 1
                let isNull: Bool
                if case .null = patchMember.value { isNull = true } else { isNull = false }
                if let j = members[..<originalCount].firstIndex(where: { $0.key.bytes == patchMember.key.bytes }) {
                    if members[j].isRemoved || members[j].isPatched { continue }
                    if isNull {
                        members[j].isRemoved = true
                        continue
                    }
                    switch start(members[j].value, patchMember.value) {
                    case .done(let node, let replaced):
                        members[j].value = node
                        if replaced { members[j].isPatched = true }
                    case .merge(let child):
                        members[j].value = .null  // the nested merge holds the member's value now
                        pendingIndex = j
                        return child
                    }
                } else if !isNull {
                    if !addedHere {
                        members.removeSubrange(originalCount...)
                        addedHere = true
                    }
                    members.append(
                        JSONMember(
                            key: patchMember.key, value: withoutNulls(patchMember.value), isPatched: true,
                            isAddedByPatch: true))
                }
            }
            return nil
        }
    }

    /// `node` without the `null` members of it and of the objects nested in it through objects (arrays are
    /// left as they are). Post-order with an explicit stack.
    private static func withoutNulls(_ node: JSONNode) -> JSONNode {
        guard case .object(let members) = node else { return node }
        /// An object being cleaned: the members kept so far and those still to look at.
        struct Cleaning {
            var kept: [JSONMember] = []
            let members: [JSONMember]
            var next = 0
        }
        var stack = [Cleaning(members: members)]
        var finished: JSONNode?
        while var top = stack.popLast() {
            if let cleaned = finished {
                var member = top.members[top.next - 1]
                member.value = cleaned
                top.kept.append(member)
                finished = nil
            }
            var nested: Cleaning?
            while top.next < top.members.count && nested == nil {
                let member = top.members[top.next]
                top.next += 1
                switch member.value {
                case .null: continue
                case .object(let inner): nested = Cleaning(members: inner)
                default: top.kept.append(member)
                }
            }
            if let nested {
                stack.append(top)
                stack.append(nested)
                continue
            }
            finished = .object(top.kept)
        }
        return finished ?? node
    }
}
