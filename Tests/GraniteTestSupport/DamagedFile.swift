// Damage seeded into a closed database file, as a bad disk sector or a stray write would leave it: the tests of
// commands and APIs that must fail cleanly (or salvage what they can) on such a file use these.

import Foundation
import GraniteStorage

/// The page size and the leaf pages of the table whose root is `root` in the closed database file at `path`, found
/// by a page scan (``SalvageScan``), in page order.
public func tableLeafPages(ofFile path: String, root: PageNumber) throws -> (pageSize: Int, leaves: [PageNumber]) {
    let file = try POSIXFileSystem().open(path, mode: .readOnly).file
    defer { file.close() }
    let scan = try SalvageScan(file: file)
    return (scan.pageSize, scan.tableLeaves.filter { $0.top == root }.map(\.page).sorted())
}

/// Overwrites four bytes in the middle of page `page` of the closed database file at `path`: the page then fails
/// its checksum, and every read of it reports the file as corrupt.
public func damagePage(_ page: PageNumber, ofFile path: String, pageSize: Int) throws {
    guard let handle = FileHandle(forUpdatingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(Int(page - 1) * pageSize + pageSize / 2))
    try handle.write(contentsOf: Data([0xDE, 0xAD, 0xBE, 0xEF]))
}
