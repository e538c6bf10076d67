// Several processes on one database: `granite torture` writers commit bank
// transfers while `granite torture --role reader` processes check the bank's
// invariants on every snapshot they take (BankAuditor); one writer is SIGKILLed
// mid-run and another takes over. The harness itself is checked with one
// process at a time, including that a reader catches a broken invariant.

import Foundation
import GraniteStorage
import GraniteTestSupport
import XCTest

final class MultiProcessStressTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-mp").url
    }

    func granite(_ arguments: String...) throws -> RunResult {
        try GraniteCLITests.run(arguments, in: directory)
    }

    func startTorture(_ arguments: [String]) throws -> TortureProcess {
        try TortureProcess(binary: GraniteCLITests.binary(), arguments: arguments, directory: directory)
    }

    /// The snapshot count and transfer counter a finished reader printed last (`reads K transfers M`).
    func readerSummary(_ lines: [String]) -> (reads: Int, transfers: Int64)? {
        guard let last = lines.last(where: { $0.hasPrefix("reads ") }) else { return nil }
        let words = last.split(separator: " ")
        guard words.count == 4, let reads = Int(words[1]), let transfers = Int64(words[3]) else { return nil }
        return (reads, transfers)
    }

    /// Runs one reader for `reads` snapshots and returns the transfer counter of its last one.
    func audit(_ path: String, accounts: Int, reads: Int, file: StaticString = #filePath, line: UInt = #line)
        throws -> Int64
    {
        let result = try granite(
            "torture", path, "--role", "reader", "--accounts", "\(accounts)", "--reads", "\(reads)")
        XCTAssertEqual(result.status, 0, "reader: \(result.stderr)", file: file, line: line)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let summary = try XCTUnwrap(readerSummary(lines), "reader printed \(result.stdout)", file: file, line: line)
        XCTAssertEqual(summary.reads, reads, file: file, line: line)
        return summary.transfers
    }

    /// Whether a second process can open a database another process holds open (and writes to), and if not,
    /// what the second process said.
    func probeSecondProcess() throws -> (supported: Bool, reason: String) {
        let path = directory.appendingPathComponent("probe.granite").path
        XCTAssertEqual(try granite("torture", path, "--accounts", "4", "--transactions", "1").status, 0)
        let holder = try startTorture([path, "--accounts", "4", "--seed", "1"])
        try holder.waitUntilReady()
        defer { _ = holder.killChild() }
        let second = try granite("torture", path, "--role", "reader", "--accounts", "4", "--reads", "1")
        let reason = second.stderr.split(separator: "\n").last.map(String.init) ?? "status \(second.status)"
        return (second.status == 0, reason)
    }

    // MARK: Several processes

    /// One writer and three readers in their own processes for a few seconds (longer under `GRANITE_STRESS`): the
    /// writer is SIGKILLed half-way and a second writer carries on; every reader must see a consistent bank on
    /// every snapshot, and at the end the file passes `granite check`, the bank's invariants hold and every
    /// transfer a writer acknowledged is there.
    func testReadersSeeConsistentSnapshotsWhileWritersCommitAndDie() throws {
        let probe = try probeSecondProcess()
        if !probe.supported {
            print("MultiProcessStressTests: skipped, a second process cannot open an open database: \(probe.reason)")
        }
        try XCTSkipUnless(
            probe.supported, "a second process cannot open a database another process holds: \(probe.reason)")

        let seed = testSeed()
        var random = SplitMix64(seed: seed)
        let context = "seed \(seed) (GRANITE_SEED=\(seed))"
        let accounts = 50
        let readerCount = 3
        let seconds = 2.0 * Double(stressFactor)
        let path = directory.appendingPathComponent("bank.granite").path
        let created = try granite("torture", path, "--accounts", "\(accounts)", "--transactions", "1")
        XCTAssertEqual(created.status, 0, created.stderr)

        func startWriter() throws -> TortureProcess {
            let writer = try startTorture([
                path, "--accounts", "\(accounts)", "--durability", "normal", "--auto-checkpoint", "32",
                "--seed", "\(random.next())",
            ])
            try writer.waitUntilReady()
            return writer
        }
        let firstWriter = try startWriter()
        var readers: [TortureProcess] = []
        for _ in 0..<readerCount {
            let reader = try startTorture([
                path, "--role", "reader", "--accounts", "\(accounts)", "--duration", "\(seconds)",
            ])
            try reader.waitUntilReady()
            readers.append(reader)
        }
        usleep(UInt32(seconds * 400_000))
        firstWriter.waitForAcks(5)  // a loaded machine may start processes slowly: kill after some commits
        XCTAssertTrue(firstWriter.killChild(), "\(context): first writer: \(firstWriter.stderr)")
        let secondWriter = try startWriter()
        for (index, reader) in readers.enumerated() {
            XCTAssertTrue(
                reader.finish(timeout: seconds + 60),
                "\(context): reader \(index) (status \(reader.process.terminationStatus)): \(reader.stderr)")
            let summary = readerSummary(reader.lines)
            XCTAssertGreaterThan(summary?.reads ?? 0, 0, "\(context): reader \(index) printed \(reader.lines)")
        }
        secondWriter.waitForAcks(5)
        XCTAssertTrue(secondWriter.killChild(), "\(context): second writer: \(secondWriter.stderr)")

        let firstAcks = firstWriter.acks
        let secondAcks = secondWriter.acks
        XCTAssertFalse(firstAcks.isEmpty, "\(context): the first writer acknowledged nothing")
        XCTAssertFalse(secondAcks.isEmpty, "\(context): the second writer acknowledged nothing")
        for acks in [firstAcks, secondAcks] {
            if let bad = zip(acks, acks.dropFirst()).first(where: { $1 != $0 + 1 }) {
                XCTFail("\(context): acks not consecutive: \(bad.0) then \(bad.1)")
            }
        }
        // The second writer starts from what the first left: its last ack, or one more it committed unacknowledged.
        if let last = firstAcks.last, let next = secondAcks.first {
            XCTAssertTrue(
                (last + 1...last + 2).contains(next), "\(context): second writer began at \(next) after \(last)")
        }
        let check = try granite("check", path)
        XCTAssertEqual(check.status, 0, "\(context): granite check: \(check.stdout) \(check.stderr)")
        let transfers = try audit(path, accounts: accounts, reads: 1)
        let acked = secondAcks.last ?? firstAcks.last ?? 1
        XCTAssertGreaterThanOrEqual(transfers, acked, "\(context): acknowledged transfer \(acked) lost")
        XCTAssertLessThanOrEqual(transfers, acked + 1, "\(context): transfers beyond the last ack + 1")
        let readerSnapshots = readers.compactMap { readerSummary($0.lines)?.reads }
        print(
            "MultiProcessStressTests: \(readerCount) readers, \(readerSnapshots) snapshots, acks \(firstAcks.count) + "
                + "\(secondAcks.count), \(transfers) transfers, \(seconds) s, \(context)")
    }

    // MARK: The harness, one process at a time

    /// Writer, readers and a killed writer one after the other: the reader passes on every state a writer leaves
    /// and reports the transfer counter, and a writer carries on from a killed one.
    func testHarnessWithOneProcessAtATime() throws {
        let seed = testSeed()
        let context = "seed \(seed) (GRANITE_SEED=\(seed))"
        let path = directory.appendingPathComponent("bank.granite").path
        let accounts = 20
        let first = try granite(
            "torture", path, "--accounts", "\(accounts)", "--transactions", "300", "--seed", "\(seed)")
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertTrue(first.stdout.hasSuffix("ack 300\n"), "\(context): \(first.stdout.suffix(40))")
        XCTAssertEqual(try audit(path, accounts: accounts, reads: 40), 300, context)

        let killed = try startTorture([path, "--accounts", "\(accounts)", "--seed", "\(seed &+ 1)"])
        try killed.waitUntilReady()
        killed.waitForAcks(50)
        XCTAssertTrue(killed.killChild(), "\(context): \(killed.stderr)")
        let acked = try XCTUnwrap(killed.acks.last, context)
        XCTAssertEqual(killed.acks.first, 301, context)
        let afterKill = try audit(path, accounts: accounts, reads: 20)
        XCTAssertTrue((acked...acked + 1).contains(afterKill), "\(context): \(afterKill) transfers after ack \(acked)")

        let next = try granite(
            "torture", path, "--accounts", "\(accounts)", "--transactions", "100", "--seed", "\(seed &+ 2)")
        XCTAssertEqual(next.status, 0, next.stderr)
        XCTAssertTrue(next.stdout.hasSuffix("ack \(afterKill + 100)\n"), "\(context): \(next.stdout.suffix(40))")
        XCTAssertEqual(try audit(path, accounts: accounts, reads: 17), afterKill + 100, context)
        XCTAssertEqual(try granite("check", path).status, 0, context)

        // A reader with --duration stops by itself and reports at least one snapshot.
        let timed = try granite("torture", path, "--role", "reader", "--accounts", "\(accounts)", "--duration", "0.2")
        XCTAssertEqual(timed.status, 0, timed.stderr)
        let summary = readerSummary(timed.stdout.split(separator: "\n").map(String.init))
        XCTAssertGreaterThan(summary?.reads ?? 0, 0, timed.stdout)
        XCTAssertEqual(summary?.transfers, afterKill + 100)
    }

    /// A reader fails with a message naming the broken invariant: money moved without a logged transfer, a
    /// transfer log that the balances do not match, a missing account.
    func testReaderCatchesBrokenInvariants() throws {
        let accounts = 10
        let encoder = RowEncoder()
        /// Adds `delta` to the balance of account `rowid`.
        func adjust(_ engine: StorageEngine, account rowid: Int64, by delta: Int64) throws {
            let accountsTable = try engine.table(named: "accounts")
            let payload = try XCTUnwrap(try accountsTable.get(rowid: rowid))
            guard case .integer(let balance)? = try RowDecoder.decode(payload).first else {
                throw CLITestError("account \(rowid) is not an integer")
            }
            try accountsTable.replace(rowid: rowid, payload: encoder.encode([.integer(balance + delta)]))
        }
        let breakages: [(name: String, expected: String, change: (StorageEngine) throws -> Void)] = [
            ("sum", "balances sum to", { engine in try adjust(engine, account: 3, by: 1) }),
            (
                // Money moves between two accounts (the sum holds) with no transfer logged for it.
                "unmatched transfer", "account 1 holds",
                { engine in
                    try adjust(engine, account: 1, by: -5)
                    try adjust(engine, account: 2, by: 5)
                }
            ),
            (
                "missing transfer", "transfer 2 is missing",
                { engine in try engine.table(named: "transfers").delete(rowid: 2) }
            ),
            (
                "missing account", "account 4 is missing",
                { engine in
                    let accountsTable = try engine.table(named: "accounts")
                    let payload = try XCTUnwrap(try accountsTable.get(rowid: 4))
                    try accountsTable.delete(rowid: 4)
                    try accountsTable.insert(rowid: 1000, payload: payload)
                }
            ),
        ]
        for breakage in breakages {
            let path = directory.appendingPathComponent(
                "broken-\(breakage.name.replacingOccurrences(of: " ", with: "-")).granite"
            ).path
            let built = try granite("torture", path, "--accounts", "\(accounts)", "--transactions", "20", "--seed", "3")
            XCTAssertEqual(built.status, 0, built.stderr)
            XCTAssertEqual(try audit(path, accounts: accounts, reads: 1), 20, breakage.name)
            var options = StorageOptions()
            options.create = false
            let engine = try StorageEngine(path: path, options: options)
            try engine.beginWrite()
            try breakage.change(engine)
            try engine.commit()
            try engine.close()
            let result = try granite("torture", path, "--role", "reader", "--accounts", "\(accounts)", "--reads", "1")
            XCTAssertEqual(result.status, 1, "\(breakage.name): the reader passed: \(result.stdout)")
            XCTAssertTrue(result.stderr.contains("invariant violated"), "\(breakage.name): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(breakage.expected), "\(breakage.name): \(result.stderr)")
        }
    }
}
