// Where the pager reads stored page images and writes changed ones.

/// The stored pages under a pager.
///
/// The pager reads every page through its source and writes changed pages
/// back through it. ``FilePageSource`` reads and writes the database file
/// directly; the write-ahead log slots in as another source that consults its
/// frames before the file and appends frames instead of overwriting pages.
package protocol PageSource: AnyObject {
    /// The page size of the stored images.
    var pageSize: Int { get }

    /// Copies the stored image of page `number` into `buffer` (`pageSize`
    /// bytes). Returns `false` when no image of that page is stored.
    func readPage(_ number: PageNumber, into buffer: UnsafeMutableRawPointer) throws -> Bool

    /// Stores sealed page images. `commitPageCount` is the database size in
    /// pages when these writes end a transaction, `nil` when they spill pages
    /// of a transaction still in progress.
    func writePages(_ pages: [(number: PageNumber, image: UnsafeRawPointer)], commitPageCount: UInt32?) throws

    /// Forgets pages spilled by the transaction in progress (a rollback);
    /// returns false when the source cannot (they were written in place).
    func discardUncommitted() -> Bool
}

/// A page source that reads and writes the database file in place.
package final class FilePageSource: PageSource {
    /// The database file.
    package let file: any StorageFile
    package let pageSize: Int
    /// Whether a commit syncs the file.
    package var syncOnCommit: Bool

    /// A source over `file` with pages of `pageSize` bytes.
    package init(file: any StorageFile, pageSize: Int, syncOnCommit: Bool = true) {
        self.file = file
        self.pageSize = pageSize
        self.syncOnCommit = syncOnCommit
    }

    package func discardUncommitted() -> Bool { false }

    package func readPage(_ number: PageNumber, into buffer: UnsafeMutableRawPointer) throws -> Bool {
        let offset = Int64(number - 1) * Int64(pageSize)
        return try file.readFully(into: UnsafeMutableRawBufferPointer(start: buffer, count: pageSize), at: offset)
    }

    package func writePages(_ pages: [(number: PageNumber, image: UnsafeRawPointer)], commitPageCount: UInt32?) throws {
        for page in pages.sorted(by: { $0.number < $1.number }) {
            let offset = Int64(page.number - 1) * Int64(pageSize)
            try file.write(UnsafeRawBufferPointer(start: page.image, count: pageSize), at: offset)
        }
        if let count = commitPageCount {
            // The file holds exactly the committed pages: pages allocated and
            // freed again without ever being written still take their place.
            let size = Int64(count) * Int64(pageSize)
            if try file.size() != size { try file.truncate(to: size) }
            if syncOnCommit { try file.sync() }
        }
    }
}
