// The cross-process protocol at the storage level: each engine here plays its own process (its own shared
// state, descriptors and byte-range locks over real files, see `StorageOptions.simulatedProcess`), so that
// snapshots, the writer lock, checkpoints, log restarts, the repair of a half-published shared index and
// the last closer can be checked step by step. Tests with real child processes are in GraniteCLITests.

import GraniteTestSupport
import XCTest

@testable import GraniteStorage

final class MultiProcessTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.path("shared.granite") }

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory(prefix: "granite-mproc")
    }

    /// An engine as process `name` would open it.
    private func open(_ name: String, busy: Double = 0, autoCheckpoint: Int = 1000) throws -> StorageEngine {
        var options = StorageOptions()
        options.simulatedProcess = name
        options.crossProcessBusyTimeout = busy
        // How long a full checkpoint waits for readers: short, since one test expects it to give up.
        options.busyTimeout = 0.2
        options.autoCheckpointFrames = autoCheckpoint
        return try StorageEngine(path: path, options: options)
    }

    private func total(_ engine: StorageEngine) throws -> (sum: Int64, transfers: Int64) {
        let accounts = try engine.table(named: "accounts")
        var sum: Int64 = 0
        for i in 1...Bank.accounts { sum += try Bank.balance(accounts, Int64(i)) }
        return (sum, try Bank.balance(try engine.table(named: "meta"), 1))
    }

    private func read<T>(_ engine: StorageEngine, _ body: () throws -> T) throws -> T {
        try engine.beginRead()
        defer { try? engine.commit() }
        return try body()
    }

    func testEachProcessReadsAStableSnapshotWhileAnotherCommits() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B")
        var rng = SplitMix64(seed: 1)
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 0)

        try b.beginRead()
        for _ in 0..<5 { _ = try Bank.transfer(a, &rng) }
        let during = try total(b)
        XCTAssertEqual(during.transfers, 0, "B's snapshot moved while A committed")
        XCTAssertEqual(during.sum, Int64(Bank.accounts) * Bank.initial)
        try b.commit()

        let after = try read(b) { try total(b) }
        XCTAssertEqual(after.transfers, 5)
        XCTAssertEqual(after.sum, Int64(Bank.accounts) * Bank.initial)
        // B writes in turn, and A sees it.
        _ = try Bank.transfer(b, &rng)
        XCTAssertEqual(try read(a) { try total(a) }.transfers, 6)
        try b.close()
        try a.close()
    }

    func testAWriterInAnotherProcessMakesTheSecondWriterWaitOrFail() throws {
        let a = try open("A")
        try Bank.create(a)
        let immediate = try open("B", busy: 0)
        let patient = try open("C", busy: 0.05)
        var rng = SplitMix64(seed: 2)
        _ = try Bank.transfer(a, &rng, commit: false)
        for engine in [immediate, patient] {
            XCTAssertThrowsError(try engine.beginWrite()) { error in
                guard case .busy? = error as? StorageError else { return XCTFail("\(error)") }
            }
            // Readers never wait for the writer.
            XCTAssertEqual(try read(engine) { try total(engine) }.transfers, 0)
        }
        try a.commit()
        XCTAssertEqual(try Bank.transfer(immediate, &rng), 2)
        XCTAssertEqual(try Bank.transfer(patient, &rng), 3)
        for engine in [patient, immediate, a] { try engine.close() }
    }

    func testACheckpointNeverCopiesPastAnotherProcessesReader() throws {
        let a = try open("A", autoCheckpoint: 1_000_000)
        try Bank.create(a)
        let b = try open("B", autoCheckpoint: 1_000_000)
        var rng = SplitMix64(seed: 3)
        for _ in 0..<3 { _ = try Bank.transfer(a, &rng) }
        try b.beginRead()
        let held = try total(b)
        let mark = try XCTUnwrap(b.source.snapshot).limit
        for _ in 0..<4 { _ = try Bank.transfer(a, &rng) }

        let passive = try a.checkpoint(.passive)
        XCTAssertEqual(passive.backfilledFrames, mark, "the checkpoint copied frames B's snapshot does not see")
        XCTAssertGreaterThan(passive.logFrames, mark)
        XCTAssertThrowsError(try a.checkpoint(.full)) { error in
            guard case .busy? = error as? StorageError else { return XCTFail("\(error)") }
        }
        // B's snapshot is intact after the copies.
        XCTAssertEqual(try total(b).transfers, held.transfers)
        XCTAssertEqual(try total(b).sum, held.sum)
        try b.commit()

        let full = try a.checkpoint(.full)
        XCTAssertEqual(full.backfilledFrames, full.logFrames)
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 7)
        try b.close()
        try a.close()
    }

    func testTheLogRestartsOnlyWhenNoProcessReadsIt() throws {
        let a = try open("A", autoCheckpoint: 1_000_000)
        try Bank.create(a)
        let b = try open("B", autoCheckpoint: 1_000_000)
        var rng = SplitMix64(seed: 4)
        _ = try Bank.transfer(a, &rng)
        try a.checkpoint(.full)
        let sequence = try XCTUnwrap(a.walStatus.header).checkpointSequence

        try b.beginRead()
        _ = try Bank.transfer(a, &rng)
        XCTAssertEqual(a.walStatus.header?.checkpointSequence, sequence, "restarted under B's reader")
        XCTAssertEqual(try total(b).transfers, 1)
        try b.commit()

        try a.checkpoint(.full)
        _ = try Bank.transfer(a, &rng)
        XCTAssertEqual(a.walStatus.header?.checkpointSequence, sequence + 1)
        // B follows the new generation.
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 3)
        _ = try Bank.transfer(b, &rng)
        XCTAssertEqual(try read(a) { try total(a) }.transfers, 4)
        try b.close()
        try a.close()
    }

    /// A publisher killed half-way leaves the sequence number odd: the next process rebuilds the index from
    /// the log and loses nothing.
    func testAHalfPublishedSharedIndexIsRebuiltFromTheLog() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B")
        var rng = SplitMix64(seed: 5)
        for _ in 0..<3 { _ = try Bank.transfer(a, &rng) }
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 3)
        _ = try Bank.transfer(a, &rng)

        let shm = try POSIXFile(path: path + "-shm", create: false)
        defer { shm.close() }
        let word = try shm.read(count: 8, at: 16).withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
        XCTAssertEqual(word & 1, 0)
        try withUnsafeBytes(of: word | 1) { try shm.write($0, at: 16) }

        XCTAssertEqual(try read(b) { try total(b) }.transfers, 4)
        XCTAssertEqual(try Bank.transfer(b, &rng), 5)
        XCTAssertEqual(try read(a) { try total(a) }.transfers, 5)

        // Damaged bytes (a bad checksum) are rebuilt the same way.
        try shm.write([0xFF, 0xEE], at: 48)
        XCTAssertEqual(try Bank.transfer(a, &rng), 6)
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 6)
        try b.close()
        try a.close()
    }

    /// A writer whose process goes away while holding the writer lock: the kernel drops its locks, the
    /// next writer continues after the last commit and the frames it left unpublished are overwritten.
    func testAWriterThatVanishesMidTransactionLeavesNothingBehind() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B", busy: 0)
        var rng = SplitMix64(seed: 6)
        _ = try Bank.transfer(a, &rng)
        _ = try Bank.transfer(a, &rng, commit: false, bulk: true)
        // What a SIGKILL does to A's locks: its descriptors close.
        a.shared.coordinator?.close()
        XCTAssertEqual(try Bank.transfer(b, &rng), 2)
        XCTAssertEqual(try read(b) { try total(b) }.sum, Int64(Bank.accounts) * Bank.initial)
        try b.close()
        let c = try open("C")
        XCTAssertEqual(try read(c) { try total(c) }.transfers, 2)
        XCTAssertEqual(c.checkIntegrity().problems, [])
        try c.close()
    }

    func testOnlyTheLastProcessToCloseEmptiesAndRemovesTheLog() throws {
        let a = try open("A")
        try Bank.create(a)
        let b = try open("B")
        var rng = SplitMix64(seed: 7)
        _ = try Bank.transfer(b, &rng)
        try a.close()
        XCTAssertTrue(POSIXFile.exists(path: path + "-wal"))
        XCTAssertTrue(POSIXFile.exists(path: path + "-shm"))
        XCTAssertEqual(try read(b) { try total(b) }.transfers, 1)
        _ = try Bank.transfer(b, &rng)
        try b.close()
        XCTAssertFalse(POSIXFile.exists(path: path + "-wal"))
        XCTAssertFalse(POSIXFile.exists(path: path + "-shm"))

        let c = try open("C")
        XCTAssertEqual(try read(c) { try total(c) }.transfers, 2)
        try c.close()
    }

    /// The shared index holds what FORMAT.md § "Several processes" says, word by word.
    func testTheSharedIndexBytesAreTheDocumentedOnes() throws {
        let a = try open("A", autoCheckpoint: 1_000_000)
        try Bank.create(a)
        var rng = SplitMix64(seed: 9)
        _ = try Bank.transfer(a, &rng)
        let bytes = try POSIXFile(path: path + "-shm", create: false).read(count: SharedIndexRegion.size, at: 0)
        XCTAssertEqual(bytes.count, 4096)
        let words = bytes.withUnsafeBytes { raw in
            (0..<11).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) }
        }
        XCTAssertEqual(Array(bytes[0..<8]), Array("GraniteS".utf8))
        XCTAssertEqual(words[1], 1)
        XCTAssertEqual(words[2] & 1, 0, "sequence even at rest")
        let status = a.walStatus
        let header = try XCTUnwrap(status.header)
        XCTAssertEqual(words[4], UInt64(header.checkpointSequence) | 1 << 32)
        XCTAssertEqual(words[5], UInt64(header.salt1) | UInt64(header.salt2) << 32)
        XCTAssertEqual(words[6], UInt64(status.frames))
        let checksum = bytes.withUnsafeBytes { Checksum.xxh64($0.baseAddress! + 24, count: 40) }
        XCTAssertEqual(words[8], checksum)
        XCTAssertTrue(words[10] != words[3] || words[9] == 0, "nothing of this generation is copied yet")
        try a.checkpoint(.passive)
        let copied = try POSIXFile(path: path + "-shm", create: false).read(count: 16, at: 72)
        XCTAssertEqual(copied.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }, UInt64(status.frames))
        XCTAssertEqual(copied.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self) }, words[3])
        XCTAssertTrue(bytes[88...].allSatisfy { $0 == 0 })
        try a.close()
    }

    /// A read-only process takes part: it sees new commits, and its snapshot holds back checkpoints.
    func testAReadOnlyProcessFollowsTheWriter() throws {
        let a = try open("A", autoCheckpoint: 1_000_000)
        try Bank.create(a)
        var options = StorageOptions()
        options.simulatedProcess = "R"
        options.readOnly = true
        let r = try StorageEngine(path: path, options: options)
        var rng = SplitMix64(seed: 8)
        _ = try Bank.transfer(a, &rng)
        XCTAssertEqual(try read(r) { try total(r) }.transfers, 1)
        try r.beginRead()
        let mark = try XCTUnwrap(r.source.snapshot).limit
        _ = try Bank.transfer(a, &rng)
        XCTAssertEqual(try a.checkpoint(.passive).backfilledFrames, mark)
        XCTAssertEqual(try total(r).transfers, 1)
        try r.commit()
        XCTAssertEqual(try read(r) { try total(r) }.transfers, 2)
        try a.close()
        // A was not the last: the log stays for R.
        XCTAssertTrue(POSIXFile.exists(path: path + "-wal"))
        XCTAssertEqual(try read(r) { try total(r) }.transfers, 2)
        try r.close()
    }
}
