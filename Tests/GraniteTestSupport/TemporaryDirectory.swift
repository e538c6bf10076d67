// Temporary directories and database paths that tests leave nothing behind in.

import Foundation
import XCTest

/// A fresh, private directory in the system's temporary directory (`TMPDIR`, else /tmp), removed
/// with everything in it by ``remove()`` or when the object goes away.
///
/// Removing the whole directory, not the files a test meant to create, is what keeps a run from
/// leaving debris: a database's `-wal` file, a file a failed open created, a test's scratch files.
public final class TemporaryDirectory: @unchecked Sendable {
    /// The directory.
    public let url: URL
    private let lock = NSLock()
    private var removed = false

    /// Creates a directory named `prefix` followed by a random suffix.
    public init(prefix: String = "granite-test") throws {
        var template = Array(
            FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
        guard let made else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: made, isDirectory: true)
    }

    deinit { remove() }

    /// The directory's path.
    public var path: String { url.path }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the directory and everything in it; later calls do nothing.
    public func remove() {
        let first = lock.withLock {
            defer { removed = true }
            return !removed
        }
        if first { try? FileManager.default.removeItem(at: url) }
    }
}

/// A unique path named `name` in a fresh temporary directory; `cleanup` removes the directory
/// with every file in it (the database's log included).
public func temporaryPath(_ name: String = "test.granite") -> (path: String, cleanup: () -> Void) {
    guard let directory = try? TemporaryDirectory() else {
        preconditionFailure("cannot create a temporary directory in \(FileManager.default.temporaryDirectory.path)")
    }
    return (directory.path(name), directory.remove)
}

extension XCTestCase {
    /// A fresh temporary directory that is removed, with everything in it, when the test ends
    /// (also when it fails or throws). Callable from `setUp`.
    public func makeTemporaryDirectory(prefix: String = "granite-test") throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory(prefix: prefix)
        addTeardownBlock { directory.remove() }
        return directory
    }

    /// The path of a database file named `name` in a fresh temporary directory that is removed
    /// when the test ends, with the database's log and anything else created beside it.
    public func makeTemporaryDatabasePath(_ name: String = "test.granite") throws -> String {
        try makeTemporaryDirectory().path(name)
    }
}
