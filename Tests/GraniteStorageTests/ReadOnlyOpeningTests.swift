import GraniteTestSupport
import XCTest

@testable import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A database the process can read but not write opens read-only instead of failing: a file whose mode denies
/// writing, a directory where the log cannot be created, a read-only medium. Nothing on disk changes, a log
/// that holds commits is read without being copied into the file, and a failure to open names its cause in
/// words.
final class ReadOnlyOpeningTests: XCTestCase {
    private let path = "/data/app.granite"

    /// A disk holding a closed database (no log) with `rows` rows in table `t`.
    private func diskWithClosedDatabase(rows: Int) throws -> SimulatedFileSystem {
        let disk = SimulatedFileSystem()
        let engine = try StorageEngine(path: path, fileSystem: disk)
        try fill(engine, rows: rows)
        try engine.close()
        XCTAssertFalse(disk.exists(path + "-wal"), "closing should have removed the log")
        return disk
    }

    /// A copy of a disk taken while its database was open: 10 rows in the file, 7 more only in the log.
    private func diskWithCommitsInTheLog() throws -> SimulatedFileSystem {
        let disk = SimulatedFileSystem()
        let writer = try StorageEngine(path: path, fileSystem: disk)
        try fill(writer, rows: 10)
        _ = try writer.checkpoint(.truncate)
        try fill(writer, rows: 7, from: 11)
        let copy = disk.crash(.posix, .keepUnsynced)
        try writer.close()
        XCTAssertTrue(copy.exists(path + "-wal"))
        return copy
    }

    private func fill(_ engine: StorageEngine, rows: Int, from first: Int = 1) throws {
        let write = try engine.beginWrite()
        let table = try write.treeInfo(named: "t") == nil ? try write.createTable(named: "t") : try write.table(named: "t")
        for rowid in first..<(first + rows) { try table.insert(rowid: Int64(rowid), payload: [UInt8(rowid & 0xff)]) }
        try write.commit()
    }

    private func rowCount(_ engine: StorageEngine) throws -> Int {
        let read = try engine.beginRead()
        defer { try? read.commit() }
        return try read.table(named: "t").count()
    }

    private func assertReadOnly(_ engine: StorageEngine, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(engine.isReadOnly, file: file, line: line)
        XCTAssertThrowsError(try engine.beginWrite(), file: file, line: line) { error in
            XCTAssertEqual(error as? StorageError, .readOnly, file: file, line: line)
        }
    }

    func testAFileThatDeniesWritingOpensReadOnly() throws {
        let disk = try diskWithClosedDatabase(rows: 20)
        disk.denyWriting(path)
        let before = disk.files
        let engine = try StorageEngine(path: path, fileSystem: disk)
        assertReadOnly(engine)
        XCTAssertEqual(try rowCount(engine), 20)
        try engine.close()
        XCTAssertEqual(disk.files, before, "a read-only open changed the disk")
    }

    func testADirectoryWhereTheLogCannotBeCreatedOpensReadOnly() throws {
        let disk = try diskWithClosedDatabase(rows: 5)
        disk.denyDirectoryChanges()
        let before = disk.files
        let engine = try StorageEngine(path: path, fileSystem: disk)
        assertReadOnly(engine)
        XCTAssertEqual(try rowCount(engine), 5)
        try engine.close()
        XCTAssertEqual(disk.files, before)
    }

    /// A read-only medium holding a log with commits (a snapshot taken while the app was running): the commits
    /// are read from the log, and neither file is written.
    func testALogOnAReadOnlyMediumIsReadButNotCopiedIntoTheFile() throws {
        let snapshot = try diskWithCommitsInTheLog()
        snapshot.mountReadOnly()
        let before = snapshot.files
        let engine = try StorageEngine(path: path, fileSystem: snapshot)
        assertReadOnly(engine)
        XCTAssertEqual(try rowCount(engine), 17, "the commits held by the log were not read")
        XCTAssertThrowsError(try engine.checkpoint(.truncate))
        try engine.close()
        XCTAssertEqual(snapshot.files, before, "a read-only medium was written")
    }

    /// A file system that refuses byte-range locks: no process can write there (Granite never writes without the
    /// writer lock), so a read-only open reads without locks and without the shared index, as SQLite's
    /// `immutable` does, the log's commits included; a read-write open fails naming the lock, changing nothing.
    func testAReadOnlyOpenReadsWithoutLocksWhereTheFileSystemRefusesThem() throws {
        let copy = try diskWithCommitsInTheLog()
        copy.refuseLocks()
        let before = copy.files
        XCTAssertThrowsError(try StorageEngine(path: path, fileSystem: copy)) { error in
            guard case .io("lock", _, ENOLCK)? = error as? StorageError else { return XCTFail("\(error)") }
        }
        var options = StorageOptions()
        options.readOnly = true
        let reader = try StorageEngine(path: path, options: options, fileSystem: copy)
        let other = try StorageEngine(path: path, options: options, fileSystem: copy.process("P"))
        for engine in [reader, other] {
            assertReadOnly(engine)
            XCTAssertEqual(try rowCount(engine), 17, "the commits held by the log were not read")
            try closeChecked(engine, "read without locks")
        }
        XCTAssertEqual(copy.files, before, "a read-only open without locks changed the disk")
    }

    func testEveryConnectionToADatabaseOpenedReadOnlyForLackOfPermissionIsReadOnly() throws {
        let disk = try diskWithClosedDatabase(rows: 3)
        disk.mountReadOnly()
        let first = try StorageEngine(path: path, fileSystem: disk)
        let second = try StorageEngine(path: path, fileSystem: disk)
        assertReadOnly(first)
        assertReadOnly(second)
        XCTAssertEqual(try rowCount(second), 3)
        try second.close()
        try first.close()
    }

    /// A database asked for read-only stays exclusive of writers in the process, as before: only a state that
    /// is read-only for lack of permission lets a connection that would write attach.
    func testAnExplicitReadOnlyOpenStillRefusesAWriterInTheProcess() throws {
        let disk = try diskWithClosedDatabase(rows: 1)
        var readOnly = StorageOptions()
        readOnly.readOnly = true
        let reader = try StorageEngine(path: path, options: readOnly, fileSystem: disk)
        XCTAssertThrowsError(try StorageEngine(path: path, fileSystem: disk)) { error in
            guard case .locked? = error as? StorageError else { return XCTFail("\(error)") }
        }
        try reader.close()
    }

    /// A missing database in a directory that refuses new files cannot be opened at all: the error is the
    /// permission, not the missing file, and it names the path and the cause in words.
    func testAMissingDatabaseInAReadOnlyDirectoryFailsWithThePermissionError() throws {
        let disk = SimulatedFileSystem()
        disk.denyDirectoryChanges()
        XCTAssertThrowsError(try StorageEngine(path: path, fileSystem: disk)) { error in
            guard case .io("open", path, EACCES)? = error as? StorageError else { return XCTFail("\(error)") }
            XCTAssertEqual("\(error)", "unable to open database file '\(path)': Permission denied")
        }
        XCTAssertEqual(disk.files, [:])
    }

    func testSystemErrorsAreDescribedInWords() {
        let cases: [(StorageError, String)] = [
            (.io("open", path: "/x/db", errno: ENOENT), "unable to open database file '/x/db': No such file or directory"),
            (.io("open", path: "/x", errno: EISDIR), "unable to open database file '/x': Is a directory"),
            (.io("write", path: "/x/db", errno: ENOSPC), "disk I/O error: write failed on '/x/db': No space left on device"),
        ]
        for (error, expected) in cases {
            XCTAssertEqual(error.description, expected)
            XCTAssertFalse(error.description.contains("errno"))
        }
        XCTAssertTrue(StorageError.io("open", path: "/x", errno: EROFS).deniesWriting)
        XCTAssertFalse(StorageError.io("open", path: "/x", errno: ENOENT).deniesWriting)
        XCTAssertFalse(StorageError.io("write", path: "/x", errno: EACCES).deniesWriting)
    }

    /// A real file of mode 0444 opens read-only for a process without the privilege to ignore modes. Run as
    /// root (which may write any file), the open is read-write, as it is for SQLite; the simulated tests above
    /// cover the fallback itself.
    func testARealFileOfMode0444() throws {
        let (file, cleanup) = temporaryPath("mode0444")
        defer { cleanup() }
        let engine = try StorageEngine(path: file)
        try fill(engine, rows: 4)
        try engine.close()
        XCTAssertEqual(chmod(file, 0o444), 0)
        defer { chmod(file, 0o644) }
        let reopened = try StorageEngine(path: file)
        XCTAssertEqual(try rowCount(reopened), 4)
        if geteuid() == 0 {
            XCTAssertFalse(reopened.isReadOnly, "root may write a file of mode 0444")
        } else {
            assertReadOnly(reopened)
        }
        try reopened.close()
    }
}
