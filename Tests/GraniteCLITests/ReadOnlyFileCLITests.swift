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
    /// How the test runs `granite` without the privilege to ignore file modes: as the test's own user, or, when
    /// the tests run as root (who may write any file), as `nobody` (uid 65534) through `setpriv`.
    private struct Unprivileged {
        /// The directory holding the database (made read-only by the test).
        var dataDirectory: URL
        /// The `granite` binary the unprivileged user runs.
        var binary: URL
        /// `setpriv`, when the user must be changed.
        var setpriv: URL?
        /// Removes what the test made outside its temporary directory.
        var cleanup: () -> Void
    }

    /// The directories and binary of an unprivileged run. As root, `nobody` must reach them: the test's
    /// temporary directory may sit under a private one (CI gives each run a 0700 `TMPDIR`), so the data and a
    /// copy of the binary go into a directory of their own under `/tmp`, open to everyone for reading.
    private func makeUnprivileged() throws -> Unprivileged {
        let binary = try GraniteCLITests.binary()
        guard geteuid() == 0 else {
            let directory = try makeTemporaryDirectory(prefix: "granite-readonly").url
            return Unprivileged(dataDirectory: directory, binary: binary, setpriv: nil, cleanup: {})
        }
        let setpriv = URL(fileURLWithPath: "/usr/bin/setpriv")
        guard FileManager.default.isExecutableFile(atPath: setpriv.path) else {
            throw XCTSkip("running as root and \(setpriv.path) is missing: cannot drop the privilege to write any file")
        }
        var template = Array("/tmp/granite-readonly-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw XCTSkip("cannot make a directory under /tmp (errno \(errno))") }
        let root = URL(fileURLWithPath: String(cString: made))
        let data = root.appendingPathComponent("data")
        let copy = root.appendingPathComponent("granite")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: false)
        try FileManager.default.copyItem(at: binary, to: copy)
        XCTAssertEqual(chmod(root.path, 0o755), 0)
        XCTAssertEqual(chmod(copy.path, 0o755), 0)
        return Unprivileged(
            dataDirectory: data, binary: copy, setpriv: setpriv,
            cleanup: {
                chmod(data.path, 0o755)
                try? FileManager.default.removeItem(at: root)
            })
    }

    /// Runs `arguments` as `context` says; the outputs are a few lines, read after the exit.
    private func run(_ arguments: [String], _ context: Unprivileged) throws -> RunResult {
        let process = Process()
        if let setpriv = context.setpriv {
            process.executableURL = setpriv
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", context.binary.path] + arguments
        } else {
            process.executableURL = context.binary
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: "/")
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, reason: process.terminationReason,
            stdout: String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
            stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    func testAReadOnlyFileInAReadOnlyDirectoryIsReadAndNotWritten() throws {
        let context = try makeUnprivileged()
        defer { context.cleanup() }
        let directory = context.dataDirectory
        let database = directory.appendingPathComponent("own.granite").path
        let created = try GraniteCLITests.run(
            ["sql", database, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3);"], in: directory)
        XCTAssertEqual(created.status, 0, created.stderr)
        let original = try Data(contentsOf: URL(fileURLWithPath: database))
        for leftover in try FileManager.default.contentsOfDirectory(atPath: directory.path)
        where leftover != "own.granite" {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(leftover))
        }

        XCTAssertEqual(chmod(database, 0o444), 0)
        XCTAssertEqual(chmod(directory.path, 0o555), 0)
        defer {
            chmod(directory.path, 0o755)
            chmod(database, 0o644)
        }

        let read = try run(["sql", database, "SELECT sum(x) FROM t"], context)
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertTrue(read.stdout.contains("6"), read.stdout)

        let write = try run(["sql", database, "INSERT INTO t VALUES (4)"], context)
        XCTAssertTrue(write.exited)
        XCTAssertEqual(write.status, 1)
        XCTAssertTrue(write.stderr.contains("attempt to write a readonly database"), write.stderr)

        let check = try run(["check", database], context)
        XCTAssertEqual(check.status, 0, check.stderr + check.stdout)

        let missing = directory.appendingPathComponent("new.granite").path
        let create = try run(["sql", missing, "SELECT 1"], context)
        XCTAssertEqual(create.status, 1)
        XCTAssertTrue(
            create.stderr.contains("unable to open database file '\(missing)': Permission denied"), create.stderr)
        XCTAssertFalse(create.stderr.contains("errno"), create.stderr)

        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: database)), original, "the file was written")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        XCTAssertEqual(names, ["own.granite"], "files were created beside the database")
    }
}
