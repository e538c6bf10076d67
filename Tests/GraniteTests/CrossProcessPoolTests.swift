// GRDB's "Sharing a Database" usage with a real second process: a `DatabasePool` here while the `granite`
// binary reads and writes the same file, holds the writer lock, and a read-only pool follows the commits.

import Foundation
import Granite
import GraniteTestSupport
import XCTest

final class CrossProcessPoolTests: XCTestCase {
    private var directory: URL!
    private var path: String { directory.appendingPathComponent("shared.granite").path }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-xpool").url
    }

    /// The `granite` executable built beside the test bundle.
    private func binary() throws -> URL {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("granite"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("granite"),
            root.appendingPathComponent(".build/debug/granite"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: ["candidates": candidates.map(\.path)])
        }
        return found
    }

    /// Runs `granite sql` on the database with `input` as its standard input; returns the child, its input
    /// pipe (still open) and its output pipe.
    private func startShell() throws -> (Process, Pipe, Pipe) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["sql", path, "--csv"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        return (process, input, output)
    }

    /// Reads the child's output until a line equals `marker`.
    private func waitFor(_ marker: String, in output: Pipe) throws -> String {
        var text = ""
        while !text.split(separator: "\n").contains(Substring(marker)) {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw CocoaError(.fileReadUnknown, userInfo: ["output": text]) }
            text += String(decoding: data, as: UTF8.self)
        }
        return text
    }

    private func runSQL(_ sql: String) throws -> (status: Int32, output: String) {
        let (process, input, output) = try startShell()
        input.fileHandleForWriting.write(Data((sql + "\n").utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func testPoolsInTwoProcessesReadEachOthersCommitsAndTakeTurnsToWrite() throws {
        var patient = Configuration()
        patient.busyMode = .timeout(60)
        let pool = try DatabasePool(path: path, configuration: patient)
        try pool.write { db in try db.execute(sql: "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)") }

        // Another process writes while the pool is open; the pool's next read sees it.
        let other = try runSQL("INSERT INTO t VALUES (2);")
        XCTAssertEqual(other.status, 0, other.output)
        XCTAssertEqual(try pool.read { db in try Int.fetchOne(db, sql: "SELECT sum(a) FROM t") }, 3)

        // A read-only pool (another app of the group) follows both.
        var readOnly = Configuration()
        readOnly.readonly = true
        let reader = try DatabasePool(path: path, configuration: readOnly)
        XCTAssertEqual(try reader.read { db in try Int.fetchOne(db, sql: "SELECT sum(a) FROM t") }, 3)

        // While the other process holds the writer lock: .immediateError fails at once, reads go on.
        let (shell, input, output) = try startShell()
        input.fileHandleForWriting.write(Data("BEGIN; INSERT INTO t VALUES (4); SELECT 'held';\n".utf8))
        _ = try waitFor("held", in: output)
        var impatient = Configuration()
        impatient.busyMode = .immediateError
        let hasty = try DatabaseQueue(path: path, configuration: impatient)
        XCTAssertThrowsError(try hasty.write { db in try db.execute(sql: "INSERT INTO t VALUES (100)") }) { error in
            XCTAssertEqual((error as? DatabaseError)?.resultCode, .SQLITE_BUSY, "\(error)")
            XCTAssertTrue("\(error)".contains("database is locked"), "\(error)")
        }
        XCTAssertEqual(try reader.read { db in try Int.fetchOne(db, sql: "SELECT sum(a) FROM t") }, 3)
        try hasty.close()

        // The patient pool waits for the other process's commit, then writes after it.
        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try pool.write { db in try db.execute(sql: "INSERT INTO t VALUES (8)") }
        try input.fileHandleForWriting.close()
        _ = output.fileHandleForReading.readDataToEndOfFile()
        shell.waitUntilExit()
        XCTAssertEqual(shell.terminationStatus, 0)
        XCTAssertEqual(try pool.read { db in try Int.fetchOne(db, sql: "SELECT sum(a) FROM t") }, 15)
        XCTAssertEqual(try reader.read { db in try Int.fetchOne(db, sql: "SELECT sum(a) FROM t") }, 15)
        try reader.close()
        try pool.close()
    }
}
