// Several real processes on one database file: `granite sql` shells that hold the file open (readers,
// writers, a writer or reader killed with SIGKILL) while other `granite` processes read, inspect, write and
// checkpoint; and a stress run of reader shells checking an invariant on every snapshot while a writer shell
// commits transfers.

import Foundation
import GraniteTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A `granite sql FILE --csv` shell fed through a pipe, whose output is read line by line.
final class SQLShell {
    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []
    private(set) var lines: [String] = []
    private var ended = false

    init(binary: URL, database: String, directory: URL, extra: [String] = []) throws {
        process.executableURL = binary
        process.arguments = ["sql", database, "--csv"] + extra
        process.currentDirectoryURL = directory
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        try? output.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Sends SQL (or dot commands) to the shell.
    func send(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Sends `text`, then a marker query, and waits (up to `timeout` seconds) until the marker comes back:
    /// everything before it has run. Returns the lines printed meanwhile.
    @discardableResult
    func run(_ text: String, timeout: Double = 60) throws -> [String] {
        let marker = "done-\(UUID().uuidString.prefix(8))"
        let start = lines.count
        send(text + "\nSELECT '\(marker)';\n")
        let deadline = Date().addingTimeInterval(timeout)
        while !lines[start...].contains(marker) {
            guard readSome(until: deadline) else {
                throw CLIProcessError("the shell ended or stalled before \(marker): \(lines[start...])")
            }
        }
        return Array(lines[start...]).filter { $0 != marker && $0 != "'\(marker)'" }
    }

    /// Closes the shell's input and waits for it to exit; returns its status.
    func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        while readSome(until: Date().addingTimeInterval(60)) {}
        process.waitUntilExit()
        return process.terminationStatus
    }

    func killNow() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Reads what is available; false at the end of the output or the deadline.
    private func readSome(until deadline: Date) -> Bool {
        guard !ended else { return false }
        let fd = output.fileHandleForReading.fileDescriptor
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let left = deadline.timeIntervalSinceNow
        guard left > 0 else { return false }
        guard poll(&descriptor, 1, Int32(min(left, 1) * 1000)) > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else {
            ended = true
            return false
        }
        buffer += chunk[0..<count]
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
        return true
    }
}

struct CLIProcessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

final class MultiProcessCLITests: XCTestCase {
    private var directory: URL!
    private var database: String { directory.appendingPathComponent("shared.granite").path }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-mproc-cli").url
    }

    private func granite(_ arguments: String...) throws -> RunResult {
        try GraniteCLITests.run(arguments, in: directory)
    }

    private func granite(_ arguments: [String]) throws -> RunResult {
        try GraniteCLITests.run(arguments, in: directory)
    }

    private func shell(_ extra: [String] = []) throws -> SQLShell {
        try SQLShell(binary: GraniteCLITests.binary(), database: database, directory: directory, extra: extra)
    }

    private func sql(_ statements: String, busy: Double? = nil) throws -> RunResult {
        var arguments = ["sql", database, statements, "--csv"]
        if let busy { arguments += ["--busy-timeout", String(busy)] }
        return try granite(arguments)
    }

    private func makeTable(rows: Int) throws {
        let values = (1...rows).map { "(\($0), 100)" }.joined(separator: ",")
        let made = try sql(
            "CREATE TABLE account(id INTEGER PRIMARY KEY, balance INTEGER); INSERT INTO account VALUES \(values);")
        XCTAssertEqual(made.status, 0, made.stderr)
    }

    func testOtherProcessesReadInspectAndWriteWhileAShellHoldsTheDatabase() throws {
        try makeTable(rows: 10)
        let holder = try shell()
        XCTAssertEqual(try holder.run("INSERT INTO account VALUES (11, 100);"), [])

        let count = try sql("SELECT count(*) FROM account")
        XCTAssertEqual(count.status, 0, count.stderr)
        XCTAssertEqual(count.stdout.split(separator: "\n").last, "11")
        for command in ["info", "check", "pages"] {
            let result = try granite(command, database)
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
        }
        let write = try sql("INSERT INTO account VALUES (12, 100)")
        XCTAssertEqual(write.status, 0, write.stderr)
        XCTAssertEqual(try holder.run("SELECT count(*) FROM account;").last, "12")
        let checkpoint = try granite("checkpoint", database)
        XCTAssertEqual(checkpoint.status, 0, checkpoint.stderr)
        XCTAssertEqual(holder.finish(), 0)

        // The last process out emptied and removed the log and the shared index.
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-wal"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: database + "-shm"))
        XCTAssertEqual(try sql("SELECT sum(balance) FROM account").stdout.split(separator: "\n").last, "1200")
    }

    func testASecondWriterFailsAtOnceOrWaitsAsItsBusyTimeoutSays() throws {
        try makeTable(rows: 2)
        let writer = try shell()
        try writer.run("BEGIN; UPDATE account SET balance = balance - 10 WHERE id = 1;")

        let immediate = try sql("UPDATE account SET balance = balance + 10 WHERE id = 2", busy: 0)
        XCTAssertEqual(immediate.status, 1, immediate.stdout)
        XCTAssertTrue(immediate.stderr.contains("database is locked"), immediate.stderr)
        // Reading needs no lock.
        XCTAssertEqual(try sql("SELECT sum(balance) FROM account", busy: 0).stdout.split(separator: "\n").last, "200")

        let patient = try shell(["--busy-timeout", "120"])
        patient.send("UPDATE account SET balance = balance + 10 WHERE id = 2;\nSELECT 'patient';\n")
        try writer.run("UPDATE account SET balance = balance + 10 WHERE id = 2; COMMIT;")
        XCTAssertTrue(try patient.run("SELECT sum(balance) FROM account;").contains("210"))
        XCTAssertEqual(patient.finish(), 0)
        XCTAssertEqual(writer.finish(), 0)
        XCTAssertEqual(try sql("SELECT sum(balance) FROM account").stdout.split(separator: "\n").last, "210")
    }

    func testPragmaBusyTimeoutSetsHowLongAWriteWaitsForAnotherProcess() throws {
        try makeTable(rows: 2)
        let writer = try shell()
        try writer.run("BEGIN; UPDATE account SET balance = balance - 10 WHERE id = 1;")

        // The flag says wait two minutes; the pragma, as in SQLite, overrides it for this connection.
        let immediate = try sql(
            "PRAGMA busy_timeout = 0; UPDATE account SET balance = balance + 10 WHERE id = 2", busy: 120)
        XCTAssertEqual(immediate.status, 1, immediate.stdout)
        XCTAssertTrue(immediate.stderr.contains("database is locked"), immediate.stderr)
        XCTAssertEqual(immediate.stdout.split(separator: "\n").last, "0")

        let patient = try shell(["--busy-timeout", "0"])
        XCTAssertEqual(try patient.run("PRAGMA busy_timeout = 120000;"), ["120000"])
        patient.send("UPDATE account SET balance = balance + 10 WHERE id = 2;\nSELECT 'patient';\n")
        try writer.run("COMMIT;")
        XCTAssertTrue(try patient.run("SELECT sum(balance) FROM account;").contains("200"))
        XCTAssertEqual(patient.finish(), 0)
        XCTAssertEqual(writer.finish(), 0)
        let balances = try sql("SELECT balance FROM account ORDER BY id").stdout.split(separator: "\n")
        XCTAssertEqual(balances.suffix(2), ["90", "110"])
    }

    func testAWriterKilledHoldingTheWriteLockLosesNothingCommitted() throws {
        try makeTable(rows: 4)
        let writer = try shell()
        try writer.run("INSERT INTO account VALUES (5, 100);")
        try writer.run(
            "BEGIN; INSERT INTO account VALUES (6, 100); UPDATE account SET balance = 0;"
                + " INSERT INTO account SELECT id + 100, balance FROM account;")
        writer.killNow()

        let next = try sql("INSERT INTO account VALUES (7, 100)", busy: 0)
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertEqual(
            try sql("SELECT count(*), sum(balance) FROM account").stdout.split(separator: "\n").last, "6,600")
        XCTAssertEqual(try granite("check", database).status, 0)
    }

    func testAReaderKilledMidReadHoldsNothingBack() throws {
        try makeTable(rows: 4)
        let reader = try shell()
        // A statement that reads for minutes: its snapshot (and reader mark) lives until the kill.
        reader.send(
            "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000)"
                + " SELECT count(*) FROM c, account;\n")
        // Commits after the reader's snapshot until a full checkpoint is refused: the reader is mid-read.
        var refused = false
        for i in 5...200 where !refused {
            XCTAssertEqual(try sql("INSERT INTO account VALUES (\(i), 100)").status, 0)
            refused = try granite("checkpoint", database, "--mode", "full").status != 0
        }
        XCTAssertTrue(refused, "the reader's snapshot never held a checkpoint back")
        reader.killNow()
        // With the reader gone, a full checkpoint copies everything.
        let checkpoint = try granite("checkpoint", database, "--mode", "full")
        XCTAssertEqual(checkpoint.status, 0, checkpoint.stderr + checkpoint.stdout)
        let count = try sql("SELECT count(*) FROM account").stdout.split(separator: "\n").last
        XCTAssertNotNil(count)
        XCTAssertEqual(try granite("check", database).status, 0)
    }

    /// Reader shells check on every snapshot that the balances sum to the same total while a writer shell
    /// moves money in small transactions (and checkpoints run automatically). `GRANITE_STRESS` makes the
    /// run longer.
    func testReadersInOtherProcessesSeeAConstantSumOnEverySnapshot() throws {
        let accounts = 20
        try makeTable(rows: accounts)
        let stress = ProcessInfo.processInfo.environment["GRANITE_STRESS"] != nil
        let rounds = stress ? 2000 : 150
        let seed = testSeed()
        var state = seed | 1
        func next(_ bound: UInt64) -> UInt64 {
            // xorshift64: enough to vary the transfers reproducibly.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state % bound
        }
        var script = ""
        for _ in 0..<rounds {
            let from = 1 + next(UInt64(accounts))
            let to = 1 + next(UInt64(accounts))
            let amount = next(50)
            script += "BEGIN; UPDATE account SET balance = balance - \(amount) WHERE id = \(from);"
            script += " UPDATE account SET balance = balance + \(amount) WHERE id = \(to); COMMIT;\n"
        }
        let writer = try shell()
        let readers = try (0..<3).map { _ in try shell() }
        writer.send(script + "SELECT 'writer finished';\n")
        var snapshots = 0
        for round in 0..<(stress ? 400 : 40) {
            for reader in readers {
                let lines = try reader.run("SELECT sum(balance), count(*) FROM account;")
                XCTAssertEqual(lines.last, "\(accounts * 100),\(accounts)", "round \(round), seed \(seed): \(lines)")
                snapshots += 1
            }
            // Checkpoints from yet another process, copying under the readers' snapshots.
            if round % 5 == 0 {
                let checkpoint = try granite("checkpoint", database)
                XCTAssertEqual(checkpoint.status, 0, checkpoint.stderr)
            }
        }
        XCTAssertEqual(writer.finish(), 0)
        for reader in readers { XCTAssertEqual(reader.finish(), 0) }
        XCTAssertEqual(try granite("check", database).status, 0)
        XCTAssertEqual(
            try sql("SELECT sum(balance) FROM account").stdout.split(separator: "\n").last, "\(accounts * 100)")
        XCTAssertGreaterThan(snapshots, 0)
    }
}
