// Copying a whole database, page by page, from one connection's snapshot into another connection's write
// transaction: the engine side of an online backup.

extension StorageEngine {
    /// Replaces the content of this database with the content `source` sees, page by page, inside one write
    /// transaction of this connection, which the copy begins and commits: on any error (or an error thrown by
    /// `progress`), it is rolled back and this database is left unchanged.
    ///
    /// `source` must be in a transaction (its snapshot is what is copied) and this connection in none.
    ///
    /// ```swift
    /// let read = try source.beginRead()
    /// try destination.copyPages(from: source, pagesPerStep: 100) { remaining, total in print(remaining, total) }
    /// try read.commit()
    /// ```
    ///
    /// - Parameters:
    ///   - source: The connection whose snapshot is copied; another database with the same page size.
    ///   - pagesPerStep: The number of pages copied between two calls of `progress` (0 or less: all at once).
    ///   - progress: Called after each step but the last with the number of pages left and the total; what it
    ///     throws aborts the copy.
    /// - Throws: ``StorageError/invalidArgument(_:)`` when the page sizes differ, `source` has no transaction
    ///   or this connection has one; ``StorageError/busy(_:)`` when the writer lock is taken; what `progress`
    ///   throws.
    public func copyPages(
        from source: StorageEngine, pagesPerStep: Int, progress: (_ remaining: Int, _ total: Int) throws -> Void
    ) throws {
        guard source.pager.pageSize == pager.pageSize else {
            throw StorageError.invalidArgument(
                "the page sizes differ (\(source.pager.pageSize) and \(pager.pageSize) bytes)")
        }
        guard source.isInTransaction else { throw StorageError.invalidArgument("the source has no transaction") }
        let write = try beginWrite()
        do {
            try copyPageImages(from: source, pagesPerStep: pagesPerStep, progress: progress)
            try write.commit()
        } catch {
            try? write.rollback()
            throw error
        }
        // Pages past the new end may linger in the cache from before the copy: start afresh.
        pager.dropCache()
    }

    /// Writes the source's header fields and page images into this connection's write transaction in progress,
    /// which then holds exactly the source's pages (the page count included, so the database may shrink): how
    /// VACUUM installs the compact image it built. The caller commits, then calls ``Pager/dropCache()``.
    ///
    /// - Throws: ``StorageError/invalidArgument(_:)`` outside a write transaction; what `progress` throws.
    package func copyPageImages(
        from source: StorageEngine, pagesPerStep: Int, progress: (_ remaining: Int, _ total: Int) throws -> Void
    ) throws {
        guard isWriting else { throw StorageError.invalidArgument("no write transaction to copy the pages into") }
        let sourceHeader = source.pager.header
        let total = Int(sourceHeader.pageCount)
        var copied = pager.header
        let previousCookie = copied.schemaCookie
        copied = sourceHeader
        copied.changeCounter = pager.header.changeCounter
        // A new cookie, so that every connection to this database reloads its schema.
        copied.schemaCookie = max(sourceHeader.schemaCookie, previousCookie) &+ 1
        pager.header = copied
        let step = pagesPerStep > 0 ? pagesPerStep : max(total, 1)
        // Page 1 counts as copied with the first step: its content is the header set above.
        var number = 1
        while number <= total {
            let end = min(number + step - 1, total)
            for page in number...end where page > 1 {
                let image = try source.pager.page(PageNumber(page))
                let target = try pager.freshPage(PageNumber(page))
                target.copyMemory(from: image, byteCount: pager.pageSize)
                try source.pager.safePoint()
                try pager.safePoint()
            }
            number = end + 1
            if number <= total { try progress(total - end, total) }
        }
        pager.reloadGeneration &+= 1
    }
}
