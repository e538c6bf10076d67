// A database file the user can read but not write, in a directory where nothing can be created: `granite`
// reads it, refuses writes with SQLite's message, and says in words why it cannot create a new file.

import Foundation
import GraniteTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

final class ReadOnlyFileCLITests: XCTestCase {
    /// Runs `granite` as a user without the privilege to ignore file modes: the test's own user, or `nobody`
    /// (uid 65534) through `setpriv` when the tests run as root, who may write any file.
    private func graniteWithoutPrivilege(_ arguments: [String], in directory: URL) throws -> RunResult {
        guard geteuid() == 0 else { return try GraniteCLITests.run(arguments, in: directory) }
        let setpriv = "/usr/bin/setpriv"
        guard FileManager.default.isExecutableFile(atPath: setpriv) else {
            throw XCTSkip("running as root and \(setpriv) is missing: cannot drop the privilege to write any file")
        }
        let binary = try GraniteCLITests.binary()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: setpriv)
        process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path] + arguments
        process.currentDirectoryURL = directory
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // The outputs are a few lines: reading them after the exit cannot fill a pipe.
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, reason: process.terminationReason,
            stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    func testAReadOnlyFileInAReadOnlyDirectoryIsReadAndNotWritten() throws {
        let directory = try makeTemporaryDirectory(prefix: "granite-readonly").url
        let database = directory.appendingPathComponent("own.granite").path
        let created = try GraniteCLITests.run(
            ["sql", database, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3);"], in: directory)
        XCTAssertEqual(created.status, 0, created.stderr)
        let original = try Data(contentsOf: URL(fileURLWithPath: database))

        XCTAssertEqual(chmod(database, 0o444), 0)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        defer {
            chmod(directory.path, 0o755)
            chmod(database, 0o644)
        }

        let read = try graniteWithoutPrivilege(["sql", database, "SELECT sum(x) FROM t"], in: directory)
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertTrue(read.stdout.contains("6"), read.stdout)

        let write = try graniteWithoutPrivilege(["sql", database, "INSERT INTO t VALUES (4)"], in: directory)
        XCTAssertTrue(write.exited)
        XCTAssertEqual(write.status, 1)
        XCTAssertTrue(write.stderr.contains("attempt to write a readonly database"), write.stderr)

        let check = try graniteWithoutPrivilege(["check", database], in: directory)
        XCTAssertEqual(check.status, 0, check.stderr + check.stdout)

        let missing = directory.appendingPathComponent("new.granite").path
        let create = try graniteWithoutPrivilege(["sql", missing, "SELECT 1"], in: directory)
        XCTAssertEqual(create.status, 1)
        XCTAssertTrue(
            create.stderr.contains("unable to open database file '\(missing)': Permission denied"), create.stderr)
        XCTAssertFalse(create.stderr.contains("errno"), create.stderr)

        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), original, "the file was written")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names, ["own.granite"], "files were created beside the database")
    }
}
