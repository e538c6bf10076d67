// RFC 7396 merge patches, as SQLite 3.40's json_patch applies them.

/// Applies a merge patch (SQLite's `jsonMergePatch`).
///
/// RFC 7396, with SQLite's treatment of duplicate keys: a patch member is matched against the first target
/// member with the same key as written (escapes compared as written) among the members the target had before
/// this patch; a target member already removed or replaced by this patch is left alone; members the patch
/// adds are never matched by later patch members, so a key repeated in the patch is added twice; and when one
/// object is patched twice (a key repeated in the patch, both values objects), the members the first time
/// added are dropped once the second time adds one (SQLite relinks the object's appended members).
enum JSONPatch {
    /// The result of patching `target` with `patch`.
    static func apply(_ patch: JSONNode, to target: JSONNode) -> JSONNode {
        merged(target, with: patch).node
    }

    /// `target` patched, and whether it was replaced by (a cleaned copy of) the patch rather than edited.
    private static func merged(_ target: JSONNode, with patch: JSONNode) -> (node: JSONNode, replaced: Bool) {
        guard case .object(let patchMembers) = patch else { return (patch, true) }
        guard case .object(var members) = target else { return (withoutNulls(patch), true) }
        let originalCount = members.firstIndex(where: \.isAddedByPatch) ?? members.count
        var addedHere = false
        for patchMember in patchMembers {
            let isNull: Bool
            if case .null = patchMember.value { isNull = true } else { isNull = false }
            if let j = members[..<originalCount].firstIndex(where: { $0.key.bytes == patchMember.key.bytes }) {
                if members[j].isRemoved || members[j].isPatched { continue }
                if isNull {
                    members[j].isRemoved = true
                } else {
                    let (node, replaced) = merged(members[j].value, with: patchMember.value)
                    members[j].value = node
                    if replaced { members[j].isPatched = true }
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
        return (.object(members), false)
    }

    /// `node` without the `null` members of it and of the objects nested in it through objects (arrays are
    /// left as they are).
    private static func withoutNulls(_ node: JSONNode) -> JSONNode {
        guard case .object(let members) = node else { return node }
        var kept: [JSONMember] = []
        for var member in members {
            if case .null = member.value { continue }
            member.value = withoutNulls(member.value)
            kept.append(member)
        }
        return .object(kept)
    }
}
