// Rebuilding every tree of a database into another, compactly: the first half of VACUUM and all of VACUUM INTO.
//
// Entries are inserted in key order, which takes the trees' append path: every leaf but the last of each tree is
// full, interior pages are built as the leaves come, and the destination's freelist stays empty. The destination
// is a database of its own, so its page numbers owe nothing to the source's.

/// What a compaction reports while it runs.
public struct CompactionProgress: Sendable, Equatable {
    /// The tree being copied, by its catalog name.
    public var tree: String
    /// Trees finished before this one, and the number of trees.
    public var treesDone: Int
    public var treeCount: Int
    /// Entries copied so far, over all trees.
    public var entriesCopied: Int
}

/// Rewrites the payload of one table entry while it is copied (nil: copy the bytes as they are).
///
/// `roots` maps each source tree's root page to its root in the destination, known before any entry is copied, so
/// that a payload naming root pages (the SQL schema's rows) can name the new ones.
public typealias CompactionPayloadRewrite = (
    _ tree: TreeInfo, _ rowid: Int64, _ payload: UnsafeRawBufferPointer, _ roots: [PageNumber: PageNumber]
) throws -> [UInt8]?

extension StorageTransaction {
    /// Copies every tree this transaction sees, with its entries, into `destination`, which must hold no tree of
    /// the same names (a new database), and gives it this database's user version and schema cookie.
    ///
    /// Trees are created first, in catalog order, so their roots are known before entries are copied; then each
    /// tree's entries are inserted in key order. `progress` is called every `entriesPerStep` entries and when a
    /// tree begins; what it throws stops the copy (the caller rolls `destination` back).
    ///
    /// - Returns: the root map, source root to destination root.
    @discardableResult
    public func copyTrees(
        into destination: WriteTransaction, entriesPerStep: Int = 4096,
        rewrite: CompactionPayloadRewrite? = nil, progress: ((CompactionProgress) throws -> Void)? = nil
    ) throws -> [PageNumber: PageNumber] {
        try checkActive()
        let sources = try trees()
        var roots: [PageNumber: PageNumber] = [:]
        for info in sources {
            let root: PageNumber
            switch info.kind {
            case .table: root = try destination.createTable(named: info.name).root
            case .index: root = try destination.createIndex(named: info.name).root
            }
            roots[info.root] = root
        }
        var report = CompactionProgress(tree: "", treesDone: 0, treeCount: sources.count, entriesCopied: 0)
        let step = max(entriesPerStep, 1)
        for info in sources {
            report.tree = info.name
            try progress?(report)
            try copyEntries(of: info, into: destination, roots: roots, rewrite: rewrite) {
                report.entriesCopied += 1
                if report.entriesCopied % step == 0 { try progress?(report) }
            }
            report.treesDone += 1
        }
        try destination.setUserVersion(try userVersion)
        destination.engine.pager.header.schemaCookie = try schemaCookie
        return roots
    }

    /// Inserts the entries of the source tree `info`, in key order, into its namesake in `destination`.
    private func copyEntries(
        of info: TreeInfo, into destination: WriteTransaction, roots: [PageNumber: PageNumber],
        rewrite: CompactionPayloadRewrite?, copied: () throws -> Void
    ) throws {
        switch info.kind {
        case .table:
            let target = try destination.table(named: info.name)
            let cursor = try table(named: info.name).makeCursor()
            var more = try cursor.first()
            while more {
                let rowid = cursor.rowid
                try cursor.withPayload { payload in
                    if let rewritten = try rewrite?(info, rowid, payload, roots) {
                        try target.insert(rowid: rowid, payload: rewritten)
                    } else {
                        try target.insert(rowid: rowid, payload: payload)
                    }
                }
                try copied()
                more = try cursor.next()
            }
        case .index:
            let target = try destination.index(named: info.name)
            let cursor = try index(named: info.name).makeCursor()
            var more = try cursor.first()
            while more {
                try cursor.withKey { key in
                    try cursor.withPayload { value in try target.insert(key: key, value: value) }
                }
                try copied()
                more = try cursor.next()
            }
        }
    }
}
