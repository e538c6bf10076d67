// The pager: page cache, allocation, and commit/rollback of changed pages.
// FORMAT.md § "Pages" and § "The header page" describe what it reads and writes.

/// Hands out page images by number, tracks changes, allocates and frees pages.
///
/// Every page is read through the ``PageSource`` and verified against its
/// checksum trailer before use. Changed pages stay in the cache until
/// ``commit()`` seals them (writes their checksums) and hands them to the
/// source; ``rollback()`` drops them. Pointers returned by ``page(_:)`` and
/// ``writablePage(_:)`` stay valid until the next ``safePoint()``.
package final class Pager {
    /// The size of every page in bytes.
    package let pageSize: Int
    /// The header as changed by the transaction in progress.
    @exclusivity(unchecked) package internal(set) var header: FileHeader
    /// The header as of the last commit.
    package private(set) var committedHeader: FileHeader
    /// Where stored pages come from and changed pages go.
    package let source: any PageSource
    /// Whether the pager refuses changes.
    package let isReadOnly: Bool
    /// Whether dirty pages of the current transaction were written before commit.
    package private(set) var hasSpilled = false

    let cache: PageCache
    /// Whether a snapshot is in place for reads: set by the engine while a transaction is in progress; a
    /// standalone pager is always inside a write transaction.
    @exclusivity(unchecked) var hasSnapshot = true
    /// Whether a write transaction is in progress.
    @exclusivity(unchecked) var inWriteTransaction = true
    /// Open savepoints, oldest first.
    @exclusivity(unchecked) var savepoints: [Savepoint] = []
    /// Cell size limits for this page size.
    let geometry: TreeGeometry
    /// Bumped whenever pages change other than through a caller's own writes: a rollback, a rollback to a
    /// savepoint, a new snapshot or a dropped cache. Tree cursors and row hints (``TreeContext/generation``)
    /// lapse when it moves.
    @exclusivity(unchecked) var reloadGeneration: UInt64 = 0

    /// Opens the pages of `source`, reading and verifying the header page.
    /// `interruption` is the connection's stop flag when the pager replaces another of the same connection.
    package init(
        source: any PageSource, cacheSize: Int, readOnly: Bool = false, interruption: InterruptFlag = InterruptFlag()
    ) throws {
        self.interruption = interruption
        self.pageSize = source.pageSize
        self.source = source
        self.isReadOnly = readOnly
        self.cache = PageCache(pageSize: source.pageSize, capacity: cacheSize)
        self.geometry = TreeGeometry(pageSize: source.pageSize)
        let page = cache.insert(1)
        do {
            guard try source.readPage(1, into: page) else {
                throw StorageError.notADatabase("the file is empty")
            }
            let parsed = try FileHeader(reading: page)
            guard Int(parsed.pageSize) == pageSize else {
                throw StorageError.corrupt(page: 1, "page size \(parsed.pageSize) does not match \(pageSize)")
            }
            guard PageLayout.verify(page, number: 1, pageSize: pageSize) else {
                throw StorageError.corrupt(page: 1, "page checksum mismatch")
            }
            header = parsed
            committedHeader = parsed
        } catch {
            cache.remove(1)
            throw error
        }
    }

    /// Creates a new database in an empty `source`: writes nothing until the
    /// first commit, and starts with only the header page.
    package init(creatingIn source: any PageSource, cacheSize: Int) {
        self.interruption = InterruptFlag()
        self.pageSize = source.pageSize
        self.source = source
        self.isReadOnly = false
        self.cache = PageCache(pageSize: source.pageSize, capacity: cacheSize)
        self.geometry = TreeGeometry(pageSize: source.pageSize)
        header = FileHeader(pageSize: source.pageSize)
        committedHeader = header
        let page = cache.insert(1)
        page.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
        cache.markDirty(1)
    }

    /// The number of pages in the database (header page included).
    package var pageCount: UInt32 { header.pageCount }

    /// The stop requests of this connection, checked by tree cursors (see ``InterruptFlag``).
    package let interruption: InterruptFlag

    /// The number of pages the cache keeps between operations.
    package var cacheCapacity: Int {
        get { cache.capacity }
        set { cache.capacity = max(newValue, 16) }
    }

    /// Whether the transaction in progress changed anything.
    package var hasChanges: Bool { cache.dirtyCount > 0 || header != committedHeader }

    /// Bumped whenever a cached page pointer may have become invalid.
    var cacheEpoch: UInt64 { cache.epoch }

    /// The image of page `number` for reading.
    @inline(__always)
    package func page(_ number: PageNumber) throws -> UnsafeMutableRawPointer {
        if let buffer = cache.lookup(number) { return buffer }
        return try load(number)
    }

    /// The image of page `number` for changing; the page becomes dirty.
    @inline(__always)
    package func writablePage(_ number: PageNumber) throws -> UnsafeMutableRawPointer {
        guard inWriteTransaction, !isReadOnly else { throw notWritable() }
        let buffer = try page(number)
        if !savepoints.isEmpty { try capture(number) }
        cache.markDirty(number)
        return buffer
    }

    func notWritable() -> StorageError {
        if isReadOnly { return .readOnly }
        return hasSnapshot ? .invalidArgument("change outside a write transaction") : .noActiveTransaction
    }

    /// Checks that a snapshot is in place before a read operation starts: throws
    /// ``StorageError/noActiveTransaction`` when no transaction is in progress (the pager never begins one).
    @inline(__always)
    package func prepareForRead() throws {
        if !hasSnapshot { throw StorageError.noActiveTransaction }
    }

    /// Checks that a write transaction is in progress before a change starts: throws ``StorageError/readOnly`` on a
    /// read-only pager, ``StorageError/noActiveTransaction`` with no transaction, and
    /// ``StorageError/invalidArgument(_:)`` in a read transaction.
    @inline(__always)
    package func prepareForWrite() throws {
        guard !isReadOnly else { throw StorageError.readOnly }
        guard inWriteTransaction else { throw notWritable() }
    }

    /// Whether `number` names an existing page other than the header page.
    @inline(__always)
    package func isValidPageNumber(_ number: PageNumber) -> Bool {
        number >= 2 && number <= header.pageCount
    }

    private func load(_ number: PageNumber) throws -> UnsafeMutableRawPointer {
        guard number >= 1, number <= header.pageCount else {
            throw StorageError.corrupt(
                page: 0, "page number \(number) is out of range (page count \(header.pageCount))")
        }
        let buffer = cache.insert(number)
        do {
            guard try source.readPage(number, into: buffer) else {
                throw StorageError.corrupt(page: number, "page lies beyond the end of the file")
            }
            guard PageLayout.verify(buffer, number: number, pageSize: pageSize) else {
                throw StorageError.corrupt(page: number, "page checksum mismatch")
            }
        } catch {
            cache.remove(number)
            throw error
        }
        return buffer
    }

    /// A zero-filled, dirty page at `number` that need not be read first.
    func freshPage(_ number: PageNumber) throws -> UnsafeMutableRawPointer {
        if !savepoints.isEmpty { try captureForReuse(number) }
        cache.remove(number)
        let buffer = cache.insert(number)
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
        cache.markDirty(number)
        return buffer
    }

    /// Trims the cache to its capacity. Page pointers obtained before this
    /// call may be invalid after it; tree operations call it when done.
    package func safePoint() throws {
        guard cache.count > cache.capacity else { return }
        try cache.evict { pages in try self.spill(pages) }
    }

    private func spill(_ pages: [(number: PageNumber, image: UnsafeMutableRawPointer)]) throws {
        for page in pages { PageLayout.seal(page.image, number: page.number, pageSize: pageSize) }
        try source.writePages(pages.map { ($0.number, UnsafeRawPointer($0.image)) }, commitPageCount: nil)
        hasSpilled = true
    }

    /// Makes the transaction's changes permanent: seals every dirty page,
    /// writes the header page, and hands them all to the source as a commit.
    package func commit() throws {
        guard hasChanges else { return }
        guard !isReadOnly else { throw StorageError.readOnly }
        // Page 1 is rewritten only when a header field changed, so that a
        // commit touching one leaf writes one page.
        let headerChanged = header != committedHeader
        if headerChanged {
            header.changeCounter &+= 1
            let first = try writablePage(1)
            first.initializeMemory(as: UInt8.self, repeating: 0, count: pageSize)
            header.write(to: first)
        }
        let pages = cache.dirtyPages()
        for page in pages { PageLayout.seal(page.image, number: page.number, pageSize: pageSize) }
        do {
            try source.writePages(
                pages.map { ($0.number, UnsafeRawPointer($0.image)) }, commitPageCount: header.pageCount)
        } catch {
            if headerChanged { header.changeCounter &-= 1 }
            throw error
        }
        cache.markAllClean()
        committedHeader = header
        hasSpilled = false
        savepoints.removeAll()
        try safePoint()
    }

    /// Drops the transaction's changes. Fails when pages were already
    /// spilled to a source that cannot take them back.
    package func rollback() throws {
        savepoints.removeAll()
        guard !hasSpilled || source.discardUncommitted() else {
            throw StorageError.invalidArgument(
                "cannot roll back: the transaction outgrew the page cache and was partly written")
        }
        if hasSpilled {
            // Spilled pages stay cached as clean copies of uncommitted data.
            cache.removeAll()
        } else {
            cache.discardDirty()
        }
        hasSpilled = false
        header = committedHeader
        reloadGeneration &+= 1
    }

    /// Brings the cache up to a new snapshot: drops the pages listed (or
    /// every page when `changed` is nil) and reads the header page again.
    /// Only called between transactions.
    func refresh(changed: [PageNumber]?) throws {
        if let changed {
            for page in changed { cache.remove(page) }
        } else {
            cache.removeAll()
        }
        reloadGeneration &+= 1
        let first = try page(1)
        let parsed = try FileHeader(reading: first)
        header = parsed
        committedHeader = parsed
    }

    /// Drops every cached page and frees the memory that held them (pages are read again when needed). Only
    /// between transactions.
    package func releaseMemory() {
        cache.releaseMemory()
        header = committedHeader
        reloadGeneration &+= 1
    }

    /// Drops every cached page (clean ones are read again when needed).
    package func dropCache() {
        cache.removeAll()
        header = committedHeader
        reloadGeneration &+= 1
    }
}
