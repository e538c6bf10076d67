// Process-level tests of the write-ahead log: `granite torture` is SIGKILLed at
// random moments and the database must keep every acknowledged commit, the
// balances' sum and a sound structure; file locks between processes; and the
// `granite wal`, `checkpoint` and `info` commands on real crash leftovers.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running `granite torture` child whose standard output is read line by line.
final class TortureProcess {
    let process = Process()
    private let pipe = Pipe()
    private var buffer: [UInt8] = []
    private var endOfOutput = false
    /// Complete lines read so far.
    private(set) var lines: [String] = []
    let stderrURL: URL

    init(binary: URL, arguments: [String], directory: URL) throws {
        stderrURL = directory.appendingPathComponent("torture-stderr-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: stderrURL.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        let errHandle = try FileHandle(forWritingTo: stderrURL)
        defer { try? errHandle.close() }
        process.executableURL = binary
        process.arguments = ["torture"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = pipe
        process.standardError = errHandle
        try process.run()
        try? pipe.fileHandleForWriting.close()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? pipe.fileHandleForReading.close()
        try? FileManager.default.removeItem(at: stderrURL)
    }

    /// The child's standard error so far.
    var stderr: String {
        (try? String(contentsOf: stderrURL, encoding: .utf8)) ?? ""
    }

    /// Reads what is available, waiting up to `timeout` seconds for something; false at end of output.
    @discardableResult
    private func readSome(timeout: Double) -> Bool {
        guard !endOfOutput else { return false }
        let fd = pipe.fileHandleForReading.fileDescriptor
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, timeout * 1000)))
        guard ready > 0 else { return true }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 {
            endOfOutput = true
            return false
        }
        buffer += chunk[0..<count]
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
            buffer.removeSubrange(...newline)
        }
        return true
    }

    /// Waits until the child prints `ready`; throws when it ends first or takes over `timeout` seconds.
    func waitUntilReady(timeout: Double = 30) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while !lines.contains("ready") {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { throw CLITestError("torture did not print ready within \(timeout) s") }
            guard readSome(timeout: left) else {
                process.waitUntilExit()
                throw CLITestError(
                    "torture ended before ready (status \(process.terminationStatus)): \(stderr)")
            }
        }
    }

    /// Waits until the child has acknowledged `count` commits (or ended, or `timeout` passed).
    func waitForAcks(_ count: Int, timeout: Double = 30) {
        let deadline = Date().addingTimeInterval(timeout)
        while acks.count < count && deadline.timeIntervalSinceNow > 0 {
            guard readSome(timeout: deadline.timeIntervalSinceNow) else { return }
        }
    }

    /// Sends SIGKILL, waits for the child to die and reads the rest of its output.
    /// Returns whether the child was killed by the signal (rather than having exited).
    func killChild() -> Bool {
        _ = kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        while readSome(timeout: 5) {}
        return process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
    }

    /// Reads the child's output to its end and waits for it to exit (SIGKILLing it after `timeout` seconds).
    /// Returns whether it exited with status 0.
    func finish(timeout: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while deadline.timeIntervalSinceNow > 0 {
            guard readSome(timeout: deadline.timeIntervalSinceNow) else { break }
        }
        if !endOfOutput { _ = kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationReason == .exit && process.terminationStatus == 0
    }

    /// The transfer numbers acknowledged so far.
    var acks: [Int64] {
        lines.compactMap { $0.hasPrefix("ack ") ? Int64($0.dropFirst(4)) : nil }
    }
}

/// A failure of the test harness itself.
struct CLITestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// What a database opened after a crash holds.
struct BankState {
    var transfers: Int64
    var accounts: Int
    var sum: Int64
    var problems: [String]
    var walFrames: Int
    var walCommits: Int
}

final class CrashTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-crash").url
    }

    /// Runs `granite` with `arguments` in the test directory.
    func granite(_ arguments: String...) throws -> RunResult {
        try granite(arguments)
    }

    func json(_ result: RunResult, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
        return try XCTUnwrap(
            object as? [String: Any], "not a JSON object: \(result.stdout.prefix(200))", file: file, line: line)
    }

    func startTorture(_ arguments: [String]) throws -> TortureProcess {
        try TortureProcess(binary: GraniteCLITests.binary(), arguments: arguments, directory: directory)
    }

    /// Opens the database, reads the bank's state and checks the whole file.
    func readBank(_ path: String, readOnly: Bool) throws -> BankState {
        var options = StorageOptions()
        options.readOnly = readOnly
        options.create = false
        let engine = try StorageEngine(path: path, options: options)
        defer { try? engine.close() }
        let status = engine.walStatus
        try engine.beginRead()
        guard let metaRow = try engine.table(named: "meta").get(rowid: 1),
            case .integer(let transfers)? = try RowDecoder.decode(metaRow).first
        else { throw CLITestError("meta row 1 is missing or not an integer") }
        let cursor = try engine.table(named: "accounts").makeCursor()
        var accounts = 0
        var sum: Int64 = 0
        var more = try cursor.first()
        while more {
            guard case .integer(let balance)? = try RowDecoder.decode(try cursor.payload()).first else {
                throw CLITestError("account \(cursor.rowid) is not an integer")
            }
            accounts += 1
            sum += balance
            more = try cursor.next()
        }
        try engine.endRead()
        let report = engine.checkIntegrity()
        try engine.endRead()
        return BankState(
            transfers: transfers, accounts: accounts, sum: sum, problems: report.problems, walFrames: status.frames,
            walCommits: status.commits)
    }

    // MARK: Kill test

    /// Kills `granite torture` at random moments, again and again on the same file, and
    /// checks after each kill that every acknowledged transfer survived, at most one more
    /// did, money was neither created nor lost, and the file is sound. Verification opens
    /// alternate between read-only (the log stays for the next child to recover) and
    /// read-write (closing checkpoints and removes the log). A process kill loses nothing
    /// the kernel accepted, so the ack bound holds at every durability level (which rotate).
    func testKilledWritersLoseNoAcknowledgedCommit() throws {
        let seed = testSeed()
        var random = SplitMix64(seed: seed)
        let rounds = 50 * stressFactor
        let accounts = 64
        let path = directory.appendingPathComponent("bank.granite").path
        let durabilities = ["full", "full", "normal", "off"]
        var kills = 0
        var known: Int64 = 0  // transfers the database is known to hold
        var totalAcks = 0
        var sawLog = 0
        let started = Date()
        for round in 0..<rounds {
            let context = "seed \(seed) (GRANITE_SEED=\(seed)), round \(round)"
            let durability = durabilities[round % durabilities.count]
            var arguments = [
                path, "--accounts", "\(accounts)", "--durability", durability, "--seed", "\(random.next())",
                "--auto-checkpoint", round % 3 == 0 ? "16" : "64",
            ]
            if round % 5 == 4 { arguments += ["--cache-size", "16"] }  // spills mid-transaction
            let child = try startTorture(arguments)
            do {
                try child.waitUntilReady()
            } catch {
                XCTFail("\(context): \(error)")
                return
            }
            usleep(UInt32(5_000 + random.next(below: 145_000)))
            let killed = child.killChild()
            if !killed {
                XCTFail(
                    "\(context): torture was not killed by SIGKILL (status \(child.process.terminationStatus)): "
                        + child.stderr)
                return
            }
            kills += 1
            let acks = child.acks
            totalAcks += acks.count
            if let bad = zip(acks, acks.dropFirst()).first(where: { $1 != $0 + 1 }) {
                XCTFail("\(context): acks not consecutive: \(bad.0) then \(bad.1)")
            }
            let acked = max(known, acks.last ?? 0)

            let readOnly = round % 2 == 0
            if readOnly && FileManager.default.fileExists(atPath: path + "-wal") {
                // The raw decoder must agree with the engine's recovery on a real crash leftover.
                let wal = try granite("wal", path, "--json")
                XCTAssertEqual(wal.status, 0, "\(context): granite wal: \(wal.stderr)")
                let summary = try json(wal)["summary"] as? [String: Any]
                let state = try readBank(path, readOnly: true)
                XCTAssertEqual(
                    summary?["committedFrames"] as? Int, state.walFrames, "\(context): granite wal vs engine")
                XCTAssertEqual(summary?["commits"] as? Int, state.walCommits, "\(context): granite wal vs engine")
                if state.walFrames > 0 { sawLog += 1 }
            }
            let state: BankState
            do {
                state = try readBank(path, readOnly: readOnly)
            } catch {
                XCTFail(
                    "\(context): opening after the kill failed (\(readOnly ? "read-only" : "read-write")): \(error)")
                return
            }
            XCTAssertGreaterThanOrEqual(
                state.transfers, acked, "\(context): acknowledged transfer \(acked) lost (durability \(durability))")
            XCTAssertLessThanOrEqual(state.transfers, acked + 1, "\(context): transfers beyond the last ack + 1")
            XCTAssertEqual(state.accounts, accounts, "\(context): account count")
            XCTAssertEqual(state.sum, Int64(accounts) * 1000, "\(context): balances do not sum to \(accounts * 1000)")
            XCTAssertEqual(state.problems, [], "\(context): integrity problems")
            if !readOnly {
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: path + "-wal"),
                    "\(context): the log survived the last read-write connection's close")
            }
            known = state.transfers
            if (testRun?.totalFailureCount ?? 0) > 0 {
                print("CrashTests: failing seed \(seed); rerun with GRANITE_SEED=\(seed)")
                return
            }
        }
        XCTAssertGreaterThanOrEqual(kills, 50)
        XCTAssertGreaterThan(totalAcks, 0, "no transfer was ever acknowledged")
        XCTAssertGreaterThan(sawLog, 0, "no kill ever left committed frames in the log")
        print(
            "CrashTests: \(kills) kills, \(totalAcks) acks, \(known) transfers, \(sawLog) logs checked, "
                + String(format: "%.1f s", Date().timeIntervalSince(started)) + ", seed \(seed)")
    }

    // MARK: Locks

    /// A read-write connection in this process leaves other processes free to read, inspect and checkpoint;
    /// the log stays until the last process closes.
    func testOtherProcessesWorkWhileAConnectionHasTheDatabaseOpen() throws {
        let path = directory.appendingPathComponent("shared.granite").path
        let engine = try StorageEngine(path: path)
        try engine.beginWrite()
        try engine.createTable(named: "t").insert(rowid: 1, payload: RowEncoder().encode([.integer(7)]))
        try engine.commit()

        for arguments in [["info", path], ["check", path], ["checkpoint", path]] {
            let result = try granite(arguments)
            XCTAssertTrue(result.exited, "\(arguments) crashed: \(result.stderr)")
            XCTAssertEqual(result.status, 0, "\(arguments) failed while another process has the file: \(result.stderr)")
        }
        let wal = try granite("wal", path)
        XCTAssertEqual(wal.status, 0, wal.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "-wal"), "the log went while a process uses it")

        try engine.close()
        let info = try granite("info", path)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("absent"), info.stdout)
        let infoJSON = try json(granite("info", path, "--json"))
        XCTAssertEqual((infoJSON["wal"] as? [String: Any])?["present"] as? Bool, false)
        XCTAssertEqual(try granite("check", path).status, 0)
    }

    // MARK: The log commands on a crash leftover

    /// `granite wal`, `info` and `checkpoint` on the log a killed writer left, then with
    /// the last committed frame damaged.
    func testLogCommandsOnAKilledWritersLog() throws {
        let path = directory.appendingPathComponent("log.granite").path
        let absent = try granite("wal", path)
        XCTAssertEqual(absent.status, 1, "wal on a missing database: \(absent.stdout)")
        XCTAssertTrue(absent.stderr.contains("no such file"), absent.stderr)

        // A log that only grows (no automatic checkpoint), left by a kill.
        let child = try startTorture([path, "--accounts", "40", "--auto-checkpoint", "1000000", "--seed", "7"])
        try child.waitUntilReady()
        child.waitForAcks(30)
        XCTAssertTrue(child.killChild(), child.stderr)
        XCTAssertGreaterThanOrEqual(child.acks.count, 30)

        let text = try granite("wal", path)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("header: valid"), text.stdout)
        XCTAssertTrue(text.stdout.contains("committed"), text.stdout)
        XCTAssertTrue(text.stdout.contains("recovery"), text.stdout)
        let report = try json(granite("wal", path, "--json"))
        XCTAssertEqual(report["present"] as? Bool, true)
        let frames = try XCTUnwrap(report["frames"] as? [[String: Any]])
        let summary = try XCTUnwrap(report["summary"] as? [String: Any])
        let committed = try XCTUnwrap(summary["committedFrames"] as? Int)
        let commits = try XCTUnwrap(summary["commits"] as? Int)
        XCTAssertGreaterThanOrEqual(commits, 30)
        XCTAssertGreaterThan(committed, commits)
        XCTAssertEqual(frames.count, summary["frames"] as? Int)
        XCTAssertEqual(frames.filter { $0["status"] as? String == "committed" }.count, committed)
        XCTAssertTrue(frames.prefix(committed).allSatisfy { $0["checksumValid"] as? Bool == true })
        guard committed > 0, committed <= frames.count else {
            return XCTFail("no committed frames in the log: \(text.stdout)")
        }
        XCTAssertNotNil(frames[committed - 1]["commitSize"], "the last kept frame must be a commit frame")
        XCTAssertTrue((summary["pages"] as? [Int])?.contains(1) ?? false, "page 1 changes in every commit")

        let info = try granite("info", path)
        XCTAssertEqual(info.status, 0, info.stderr)
        XCTAssertTrue(info.stdout.contains("present"), info.stdout)
        let infoWAL = try XCTUnwrap(try json(granite("info", path, "--json"))["wal"] as? [String: Any])
        XCTAssertEqual(infoWAL["frames"] as? Int, committed)
        XCTAssertEqual(infoWAL["commits"] as? Int, commits)
        XCTAssertEqual(
            infoWAL["checkpointSequence"] as? Int, (report["header"] as? [String: Any])?["checkpointSequence"] as? Int)

        // What the log holds before the damage: the child may have committed a transfer it was killed before
        // acknowledging, so its acknowledgements are not the reference.
        let transfersBefore = try readBank(path, readOnly: true).transfers

        // Damage the page image of the last committed frame: recovery now stops there and
        // drops that transaction; the command still succeeds.
        let last = committed - 1
        let offset = try XCTUnwrap(frames[last]["offset"] as? Int) + 24 + 100
        try flipByte(path + "-wal", at: offset)
        let damaged = try json(granite("wal", path, "--json"))
        let damagedFrames = try XCTUnwrap(damaged["frames"] as? [[String: Any]])
        let damagedSummary = try XCTUnwrap(damaged["summary"] as? [String: Any])
        XCTAssertEqual(damagedFrames[last]["checksumValid"] as? Bool, false)
        XCTAssertEqual(damagedFrames[last]["status"] as? String, "discarded")
        XCTAssertEqual(damagedSummary["firstInvalidFrame"] as? Int, last)
        XCTAssertEqual(damagedSummary["commits"] as? Int, commits - 1)
        let kept = try XCTUnwrap(damagedSummary["committedFrames"] as? Int)
        XCTAssertLessThan(kept, last)
        XCTAssertEqual(damagedSummary["recoveryStopsAtFrame"] as? Int, kept)
        let damagedText = try granite("wal", path)
        XCTAssertEqual(damagedText.status, 0, damagedText.stderr)
        XCTAssertTrue(
            damagedText.stdout.contains("frame \(last) is invalid")
                || damagedText.stdout.contains("frame \(last), invalid"), damagedText.stdout)
        XCTAssertTrue(damagedText.stdout.contains("BAD"), damagedText.stdout)
        let infoAfter = try XCTUnwrap(try json(granite("info", path, "--json"))["wal"] as? [String: Any])
        XCTAssertEqual(infoAfter["frames"] as? Int, kept)

        // A truncating checkpoint empties (or, on close, removes) the log; the data is sound.
        let checkpoint = try granite("checkpoint", path, "--mode", "truncate", "--json")
        XCTAssertEqual(checkpoint.status, 0, checkpoint.stderr)
        let result = try json(checkpoint)
        XCTAssertEqual(result["truncated"] as? Bool, true)
        XCTAssertEqual(result["logFrames"] as? Int, kept)
        XCTAssertEqual(result["backfilledFrames"] as? Int, kept)
        XCTAssertEqual((result["after"] as? [String: Any])?["fileSize"] as? Int, 0)
        let attributes = try? FileManager.default.attributesOfItem(atPath: path + "-wal")
        XCTAssertEqual((attributes?[.size] as? NSNumber)?.intValue ?? 0, 0)
        let gone = try granite("wal", path)
        XCTAssertEqual(gone.status, 0, gone.stderr)
        XCTAssertTrue(gone.stdout.contains("no write-ahead log"), gone.stdout)
        XCTAssertEqual(try granite("check", path).status, 0)
        let state = try readBank(path, readOnly: true)
        XCTAssertEqual(state.sum, 40 * 1000)
        XCTAssertEqual(state.problems, [])
        XCTAssertLessThan(state.transfers, transfersBefore, "the damaged commit must be gone")
        let text2 = try granite("checkpoint", path)
        XCTAssertEqual(text2.status, 0, text2.stderr)
        XCTAssertTrue(text2.stdout.contains("removed"), text2.stdout)
    }

    /// A damaged log header makes recovery ignore the whole log; `granite wal` says so.
    func testDamagedLogHeaderIsReported() throws {
        let path = directory.appendingPathComponent("header.granite").path
        // Three transfers that reach the file (the last close checkpoints), then a log of more.
        let first = try granite("torture", path, "--accounts", "10", "--transactions", "3")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "-wal"))
        let child = try startTorture([path, "--accounts", "10", "--auto-checkpoint", "1000000"])
        try child.waitUntilReady()
        child.waitForAcks(5)
        XCTAssertTrue(child.killChild(), child.stderr)
        XCTAssertGreaterThan(try readBank(path, readOnly: true).transfers, 3)

        try flipByte(path + "-wal", at: 20)  // salt 1
        let text = try granite("wal", path)
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("INVALID: bad header checksum"), text.stdout)
        XCTAssertTrue(text.stdout.contains("ignored as a whole"), text.stdout)
        let summary = try XCTUnwrap(try json(granite("wal", path, "--json"))["summary"] as? [String: Any])
        XCTAssertEqual(summary["committedFrames"] as? Int, 0)
        XCTAssertGreaterThan(summary["discardedFrames"] as? Int ?? 0, 0)
        // Without its log the database is at its last checkpoint.
        let state = try readBank(path, readOnly: true)
        XCTAssertEqual(state.transfers, 3)
        XCTAssertEqual(state.sum, 10 * 1000)
        XCTAssertEqual(state.problems, [])
    }

    /// `granite wal` keeps exactly the frames recovery keeps on a log with a torn final frame,
    /// then also with a damaged frame in the middle.
    func testWalCommandAgreesWithRecoveryOnATornAndDamagedLog() throws {
        let path = directory.appendingPathComponent("agree.granite").path
        let child = try startTorture([path, "--accounts", "20", "--auto-checkpoint", "1000000", "--seed", "11"])
        try child.waitUntilReady()
        child.waitForAcks(20)
        XCTAssertTrue(child.killChild(), child.stderr)

        let intact = try json(granite("wal", path, "--json"))
        let pageSize = try XCTUnwrap((intact["header"] as? [String: Any])?["pageSize"] as? Int)
        let frameCount = try XCTUnwrap((intact["summary"] as? [String: Any])?["frames"] as? Int)
        XCTAssertGreaterThan(frameCount, 4)
        let walPath = path + "-wal"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: walPath))
        try handle.truncate(atOffset: UInt64(32 + frameCount * (24 + pageSize) - pageSize / 2))
        try handle.close()
        let torn = try assertWalAgreesWithRecovery(path)
        XCTAssertEqual(torn["frames"] as? Int, frameCount - 1)
        XCTAssertGreaterThan(torn["tornBytes"] as? Int ?? 0, 0)

        let damagedFrame = (frameCount - 1) / 2
        try flipByte(walPath, at: 32 + damagedFrame * (24 + pageSize) + 3)  // in the cumulative checksum
        let damaged = try assertWalAgreesWithRecovery(path)
        XCTAssertEqual(damaged["firstInvalidFrame"] as? Int, damagedFrame)
        XCTAssertEqual(damaged["validFrames"] as? Int, damagedFrame)
        XCTAssertLessThanOrEqual(damaged["committedFrames"] as? Int ?? .max, damagedFrame)
    }

    /// Checks that `granite wal` counts the committed frames and commits a read-only open
    /// recovers, and that it marks exactly those frames committed; returns its summary.
    func assertWalAgreesWithRecovery(
        _ path: String, file: StaticString = #filePath, line: UInt = #line
    ) throws -> [String: Any] {
        let report = try json(granite("wal", path, "--json"), file: file, line: line)
        let summary = try XCTUnwrap(report["summary"] as? [String: Any], file: file, line: line)
        let frames = try XCTUnwrap(report["frames"] as? [[String: Any]], file: file, line: line)
        var options = StorageOptions()
        options.readOnly = true
        options.create = false
        let engine = try StorageEngine(path: path, options: options)
        let recovered = engine.walStatus
        try engine.close()
        XCTAssertEqual(summary["committedFrames"] as? Int, recovered.frames, "committed frames", file: file, line: line)
        XCTAssertEqual(summary["commits"] as? Int, recovered.commits, "commits", file: file, line: line)
        let committed = frames.map { $0["status"] as? String == "committed" }
        XCTAssertEqual(
            committed, (0..<frames.count).map { $0 < recovered.frames }, "frames marked committed", file: file,
            line: line)
        return summary
    }

    func flipByte(_ path: String, at offset: Int) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try XCTUnwrap(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data([~byte]))
    }

    func granite(_ arguments: [String]) throws -> RunResult {
        try GraniteCLITests.run(arguments, in: directory)
    }
}
