import Dispatch
import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// A small bank: accounts whose balances always sum to the same total, and a
/// counter of committed transfers. Used by the durability tests.
struct Bank {
    static let accounts = 8
    static let initial: Int64 = 1_000

    static func create(_ engine: StorageEngine) throws {
        try engine.ensureWrite()
        let accounts = try engine.createTable(named: "accounts")
        for i in 1...Bank.accounts {
            try accounts.insert(rowid: Int64(i), payload: RowEncoder().encode([.integer(initial)]))
        }
        try engine.createTable(named: "meta").insert(rowid: 1, payload: RowEncoder().encode([.integer(0)]))
        _ = try engine.createTable(named: "padding")
        try engine.commit()
    }

    /// One transfer in its own transaction; returns the new transfer count.
    static func transfer(
        _ engine: StorageEngine, _ rng: inout SplitMix64, commit: Bool = true, bulk: Bool = false
    ) throws -> Int64 {
        try engine.ensureWrite()
        let accounts = try engine.table(named: "accounts")
        let meta = try engine.table(named: "meta")
        let from = Int64(1 + rng.next(below: UInt64(Bank.accounts)))
        let to = Int64(1 + rng.next(below: UInt64(Bank.accounts)))
        let amount = Int64(rng.next(below: 100))
        let a = try balance(accounts, from)
        try accounts.replace(rowid: from, payload: RowEncoder().encode([.integer(a - amount)]))
        let b = try balance(accounts, to)
        try accounts.replace(rowid: to, payload: RowEncoder().encode([.integer(b + amount)]))
        let n = try balance(meta, 1) + 1
        try meta.replace(rowid: 1, payload: RowEncoder().encode([.integer(n)]))
        let padding = try engine.table(named: "padding")
        if rng.next(below: 3) == 0 {
            try padding.replace(
                rowid: Int64(rng.next(below: 20)), payload: payloadBytes(Int(rng.next(below: 3_000)), seed: rng.next()))
        } else {
            _ = try padding.delete(rowid: Int64(rng.next(below: 20)))
        }
        if bulk {
            // Enough pages to outgrow a small cache, rewritten twice: spills and re-spills.
            for round in 0..<2 {
                for i in 100..<130 {
                    try padding.replace(rowid: Int64(i), payload: payloadBytes(300 + round, seed: rng.next()))
                }
            }
        }
        if commit { try engine.commit() }
        return n
    }

    static func balance(_ table: TableTree, _ rowid: Int64) throws -> Int64 {
        guard let payload = try table.get(rowid: rowid), case .integer(let v) = try RowDecoder.decode(payload).first
        else { throw StorageError.malformed("row \(rowid)") }
        return v
    }

    /// The transfer count and the balances.
    static func state(_ engine: StorageEngine) throws -> (count: Int64, balances: [Int64]) {
        try engine.ensureRead()
        let accounts = try engine.table(named: "accounts")
        let balances = try (1...Bank.accounts).map { try balance(accounts, Int64($0)) }
        return (try balance(engine.table(named: "meta"), 1), balances)
    }
}

final class WALTests: XCTestCase {

    // MARK: Power loss

    /// Random transfers at FULL durability, a crash at a random point (often
    /// in the middle of a commit or checkpoint), unsynced writes dropped or
    /// torn: the recovered database is some committed prefix that includes
    /// every acknowledged commit.
    func testPowerLossKeepsEveryAcknowledgedCommit() throws {
        let base = testSeed()
        let scenarios = 1_000 * stressFactor
        for scenario in 0..<scenarios {
            let seed = base &+ UInt64(scenario)
            try powerLossScenario(seed: seed)
            if testRun?.failureCount ?? 0 > 0 {
                XCTFail("power-loss scenario failed: rerun with GRANITE_SEED=\(seed)")
                return
            }
        }
    }

    func powerLossScenario(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let db = FaultInjectingFile(path: "db")
        let wal = FaultInjectingFile(path: "db-wal")
        var options = StorageOptions()
        options.pageSize = 512
        options.cacheSize = 16
        // Every fourth scenario runs at NORMAL: commits may be lost, consistency may not.
        options.durability = seed % 4 == 3 ? .normal : .full
        options.autoCheckpointFrames = 4 + Int(rng.next(below: 60))
        var states: [[Int64]] = []
        var acknowledged = -1
        do {
            let engine = try StorageEngine(file: db, walFile: wal, options: options)
            try Bank.create(engine)
            states.append(try Bank.state(engine).balances)
            acknowledged = 0
            let steps = Int(rng.next(below: 25))
            let faultAt = rng.next(below: 2) == 0 ? Int(rng.next(below: UInt64(steps + 1))) : -1
            for step in 0..<steps {
                if step == faultAt {
                    switch rng.next(below: 4) {
                    case 0: wal.failWrite(after: Int(rng.next(below: 3)))
                    case 1: wal.failSync(after: 0)
                    case 2: db.failWrite(after: Int(rng.next(below: 4)))
                    default: db.failSync(after: 0)
                    }
                }
                do {
                    let n = try Bank.transfer(engine, &rng, commit: false, bulk: rng.next(below: 8) == 0)
                    let balances = try Bank.state(engine).balances
                    try engine.commit()
                    XCTAssertEqual(Int(n), states.count, "seed \(seed)")
                    states.append(balances)
                    acknowledged = Int(n)
                } catch {
                    break  // The crash happens now.
                }
                if rng.next(below: 10) == 0 { _ = try? engine.checkpoint(.passive) }
            }
            // Power is cut: the engine is abandoned, and the disk keeps what it keeps.
            let modes: [FaultInjectingFile.CrashMode] = [
                .dropUnsynced, .keepUnsynced, .random(seed: rng.next(), sectorSize: 512),
                .random(seed: rng.next(), sectorSize: 512),
            ]
            let dbImage = db.crashImage(modes[Int(rng.next(below: 4))])
            let walImage = wal.crashImage(modes[Int(rng.next(below: 4))])
            db.failAllWrites = true
            wal.failAllWrites = true
            _ = engine
            let recovered = try StorageEngine(
                file: MemoryFile(bytes: dbImage), walFile: MemoryFile(bytes: walImage), options: options)
            try recovered.beginRead()
            guard try recovered.treeInfo(named: "meta") != nil else {
                // Only possible at NORMAL: even the bank's creation was not synced.
                XCTAssertEqual(options.durability, .normal, "seed \(seed): the bank's creation was lost")
                XCTAssertTrue(recovered.checkIntegrity().isOK, "seed \(seed)")
                return
            }
            let (count, balances) = try Bank.state(recovered)
            if options.durability == .full {
                XCTAssertGreaterThanOrEqual(Int(count), acknowledged, "seed \(seed): an acknowledged commit was lost")
            }
            XCTAssertLessThan(Int(count), states.count + 1, "seed \(seed)")
            if Int(count) < states.count {
                XCTAssertEqual(balances, states[Int(count)], "seed \(seed): state is not the committed prefix \(count)")
            }
            XCTAssertEqual(balances.reduce(0, +), Int64(Bank.accounts) * Bank.initial, "seed \(seed)")
            let report = recovered.checkIntegrity()
            XCTAssertTrue(report.isOK, "seed \(seed): \(report.problems.prefix(3))")
            try recovered.close()
        }
    }

    // MARK: Readers and writer

    /// Reader threads check the bank invariant and the stability of their
    /// snapshot while a writer commits and checkpoints run.
    func testReadersSeeStableSnapshotsWhileAWriterCommits() throws {
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        var options = StorageOptions()
        options.autoCheckpointFrames = 20
        options.durability = .normal
        let setup = try StorageEngine(path: path, options: options)
        try Bank.create(setup)
        let shared = options
        let transfers = 300 * stressFactor
        let group = DispatchGroup()
        let failures = FailureLog()
        let done = FailureLog()
        DispatchQueue.global().async(group: group) {
            do {
                let writer = try StorageEngine(path: path, options: shared)
                var rng = SplitMix64(seed: 1)
                for i in 0..<transfers {
                    _ = try Bank.transfer(writer, &rng)
                    if i % 50 == 0 { _ = try? writer.checkpoint(.passive) }
                }
                try writer.close()
            } catch {
                failures.add("writer: \(error)")
            }
            done.add("writer done")
        }
        for r in 0..<3 {
            DispatchQueue.global().async(group: group) {
                do {
                    let reader = try StorageEngine(path: path, options: shared)
                    var rounds = 0
                    while done.isEmpty || rounds < 5 {
                        rounds += 1
                        try reader.beginRead()
                        let first = try Bank.state(reader)
                        if first.balances.reduce(0, +) != Int64(Bank.accounts) * Bank.initial {
                            failures.add("reader \(r): invariant broken at transfer \(first.count)")
                        }
                        usleep(300)
                        if r == 0 { _ = try? reader.checkpoint(.passive) }
                        let second = try Bank.state(reader)
                        if second.count != first.count || second.balances != first.balances {
                            failures.add("reader \(r): snapshot changed from \(first.count) to \(second.count)")
                        }
                        try reader.endRead()
                    }
                    try reader.close()
                } catch {
                    failures.add("reader \(r): \(error)")
                }
            }
        }
        group.wait()
        XCTAssertEqual(failures.entries, [])
        XCTAssertEqual(try Bank.state(setup).count, Int64(transfers))
        assertSound(setup, "after concurrent readers and writer")
        try setup.close()
        XCTAssertFalse(POSIXFile.exists(path: path + "-wal"))
    }

    func testSecondConnectionSeesNothingUntilCommitAndKeepsItsSnapshot() throws {
        let a = try StorageEngine.inMemory()
        let b = try StorageEngine(sharing: a)
        try Bank.create(a)
        try b.beginRead()
        XCTAssertEqual(try Bank.state(b).count, 0)
        var rng = SplitMix64(seed: 2)
        try a.beginWrite()
        _ = try Bank.transfer(a, &rng, commit: false)
        XCTAssertEqual(try Bank.state(b).count, 0, "uncommitted work is invisible")
        try a.commit()
        XCTAssertEqual(try Bank.state(b).count, 0, "a snapshot does not move")
        try b.endRead()
        XCTAssertEqual(try Bank.state(b).count, 1, "a new snapshot sees the commit")
        try b.endRead()
        // One writer at a time.
        try a.beginWrite()
        var options = StorageOptions()
        options.busyTimeout = 0.1
        let c = try StorageEngine(sharing: a, options: options)
        XCTAssertThrowsError(try c.beginWrite()) { error in
            guard case StorageError.busy = error else { return XCTFail("got \(error)") }
        }
        try a.rollback()
        try c.beginWrite()
        try c.rollback()
    }

    // MARK: Rollback and savepoints

    func testRollbackOfALargeTransactionCostsNoIOOnTheDatabaseFile() throws {
        let db = FaultInjectingFile(path: "db")
        var options = StorageOptions()
        options.cacheSize = 16
        let engine = try StorageEngine(file: db, walFile: MemoryFile(), options: options)
        try Bank.create(engine)
        _ = try engine.checkpoint(.truncate)
        let writes = db.writeCount
        let syncs = db.syncCount
        try engine.beginWrite()
        let padding = try engine.table(named: "padding")
        for i in 0..<2_000 { try padding.replace(rowid: Int64(i), payload: payloadBytes(300, seed: UInt64(i))) }
        XCTAssertTrue(engine.pager.hasSpilled, "the transaction outgrew the cache")
        try engine.rollback()
        XCTAssertEqual(db.writeCount, writes)
        XCTAssertEqual(db.syncCount, syncs)
        try engine.beginRead()
        XCTAssertEqual(try engine.table(named: "padding").count(), 0)
        assertSound(engine, "after rollback")
    }

    func testNestedSavepoints() throws {
        var options = StorageOptions()
        options.cacheSize = 16
        options.pageSize = 512
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let t = try engine.createTable(named: "t")
        for i in 1...10 { try t.insert(rowid: Int64(i), payload: payloadBytes(40, seed: UInt64(i))) }
        try engine.savepoint("a")
        for i in 11...400 {
            try t.insert(rowid: Int64(i), payload: payloadBytes(i % 13 == 0 ? 900 : 40, seed: UInt64(i)))
        }
        try engine.savepoint("b")
        for i in 1...200 { XCTAssertTrue(try t.delete(rowid: Int64(i))) }
        _ = try engine.createTable(named: "later")
        try engine.rollback(toSavepoint: "B")
        XCTAssertEqual(try t.count(), 400)
        XCTAssertNil(try engine.treeInfo(named: "later"))
        assertSound(engine, "after rollback to b")
        try t.insert(rowid: 1_000, payload: [1])
        try engine.rollback(toSavepoint: "a")
        XCTAssertEqual(try t.count(), 10)
        assertSound(engine, "after rollback to a")
        try t.insert(rowid: 11, payload: [11])
        try engine.releaseSavepoint("a")
        XCTAssertThrowsError(try engine.rollback(toSavepoint: "a"))
        try engine.commitAndRead()
        XCTAssertEqual(try t.count(), 11)
        for i in 1...10 { XCTAssertEqual(try t.get(rowid: Int64(i)), payloadBytes(40, seed: UInt64(i))) }
    }

    func testSavepointsAgainstAModel() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        var options = StorageOptions()
        options.cacheSize = 16
        options.pageSize = 512
        let engine = try StorageEngine.inMemory(options: options)
        try engine.beginWrite()
        let t = try engine.createTable(named: "t")
        var model: [Int64: [UInt8]] = [:]
        var stack: [(String, [Int64: [UInt8]])] = []
        for step in 0..<3_000 {
            switch rng.next(below: 20) {
            case 0:
                stack.append(("s\(step)", model))
                try engine.savepoint("s\(step)")
            case 1 where !stack.isEmpty:
                let i = Int(rng.next(below: UInt64(stack.count)))
                try engine.rollback(toSavepoint: stack[i].0)
                model = stack[i].1
                stack.removeSubrange((i + 1)...)
            case 2 where !stack.isEmpty:
                let i = Int(rng.next(below: UInt64(stack.count)))
                try engine.releaseSavepoint(stack[i].0)
                stack.removeSubrange(i...)
            default:
                let key = Int64(rng.next(below: 500))
                if rng.next(below: 3) == 0 {
                    _ = try t.delete(rowid: key)
                    model[key] = nil
                } else {
                    let payload = payloadBytes(Int(rng.next(below: 700)), seed: rng.next())
                    try t.replace(rowid: key, payload: payload)
                    model[key] = payload
                }
            }
        }
        for (key, value) in model { XCTAssertEqual(try t.get(rowid: key), value, "seed \(seed)") }
        XCTAssertEqual(try t.count(), model.count, "seed \(seed)")
        assertSound(engine, "seed \(seed)")
        try engine.commit()
    }

    // MARK: Checkpoints

    func testCheckpointsRespectSnapshotsAndRestartTheLog() throws {
        var options = StorageOptions()
        options.autoCheckpointFrames = 1_000_000
        options.busyTimeout = 0.2
        let a = try StorageEngine.inMemory(options: options)
        let b = try StorageEngine(sharing: a, options: options)
        try Bank.create(a)
        var rng = SplitMix64(seed: 3)
        for _ in 0..<5 { _ = try Bank.transfer(a, &rng) }
        try b.beginRead()
        let seen = try Bank.state(b)
        let framesAtSnapshot = a.walStatus.frames
        for _ in 0..<5 { _ = try Bank.transfer(a, &rng) }
        let passive = try a.checkpoint(.passive)
        XCTAssertEqual(passive.backfilledFrames, framesAtSnapshot, "stops at the oldest snapshot")
        XCTAssertThrowsError(try a.checkpoint(.full)) { error in
            guard case StorageError.busy = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(try Bank.state(b).balances, seen.balances, "the snapshot is untouched by checkpoints")
        try b.endRead()
        let sequence = a.walStatus.header?.checkpointSequence
        let full = try a.checkpoint(.full)
        XCTAssertEqual(full.backfilledFrames, full.logFrames)
        // Everything is in the file and nobody reads the log: the next writer restarts it.
        _ = try Bank.transfer(a, &rng)
        XCTAssertEqual(a.walStatus.header?.checkpointSequence, sequence.map { $0 + 1 })
        XCTAssertLessThan(a.walStatus.frames, Int(full.logFrames))
        let truncate = try a.checkpoint(.truncate)
        XCTAssertTrue(truncate.truncated)
        XCTAssertEqual(a.walStatus.fileSize, 0)
        XCTAssertEqual(try Bank.state(b).count, 11)
        assertSound(b, "after checkpoints")
    }

    func testAutomaticCheckpoint() throws {
        var options = StorageOptions()
        options.autoCheckpointFrames = 30
        let engine = try StorageEngine.inMemory(options: options)
        try Bank.create(engine)
        var rng = SplitMix64(seed: 4)
        for _ in 0..<100 { _ = try Bank.transfer(engine, &rng) }
        let status = engine.walStatus
        XCTAssertGreaterThan(status.header?.checkpointSequence ?? 0, 1, "automatic checkpoints let the log restart")
        XCTAssertLessThan(status.frames, 100, "the log restarted instead of growing")
    }

    // MARK: I/O errors

    /// A fault at each write and sync position of a commit and of a
    /// checkpoint: the error is thrown, the transaction rolled back, and the
    /// data intact in memory and after a crash.
    func testIOErrorAtEveryPosition() throws {
        var options = StorageOptions()
        options.pageSize = 512
        options.cacheSize = 16
        options.autoCheckpointFrames = 1_000_000
        let db = FaultInjectingFile(path: "db")
        let wal = FaultInjectingFile(path: "db-wal")
        do {
            let engine = try StorageEngine(file: db, walFile: wal, options: options)
            try Bank.create(engine)
            try engine.close()
        }
        func transaction(_ engine: StorageEngine) throws {
            try engine.beginWrite()
            let padding = try engine.table(named: "padding")
            for i in 0..<40 {
                try padding.replace(rowid: Int64(i), payload: payloadBytes(i % 5 == 0 ? 2_000 : 100, seed: 9))
            }
            try engine.commit()
        }
        var position = 0
        var failures = 0
        while true {
            let d = FaultInjectingFile(path: "db", bytes: db.crashImage(.keepUnsynced))
            let w = FaultInjectingFile(path: "db-wal", bytes: wal.crashImage(.keepUnsynced))
            let engine = try StorageEngine(file: d, walFile: w, options: options)
            if position % 2 == 0 { w.failWrite(after: position / 2) } else { w.failSync(after: position / 2) }
            do {
                try transaction(engine)
                if position % 2 == 0 { break }  // no write left to fail
            } catch StorageError.io {
                failures += 1
                // A failed commit rolls back by itself; a failed spill (in the
                // middle of the transaction) leaves it to the caller.
                if engine.isInTransaction { try engine.rollback() }
                try engine.beginRead()
                XCTAssertEqual(try engine.table(named: "padding").count(), 0, "position \(position)")
                try engine.endRead()
                w.clearFaults()
                try transaction(engine)
                try engine.beginRead()
                XCTAssertEqual(try engine.table(named: "padding").count(), 40)
                try engine.endRead()
            }
            // A checkpoint that fails on the database file loses nothing either.
            d.failWrite(after: position % 7)
            XCTAssertThrowsError(try engine.checkpoint(.full))
            d.clearFaults()
            let recovered = try StorageEngine(
                file: MemoryFile(bytes: d.crashImage(.dropUnsynced)),
                walFile: MemoryFile(bytes: w.crashImage(.dropUnsynced)),
                options: options)
            try recovered.beginRead()
            let count = try recovered.table(named: "padding").count()
            XCTAssertTrue(count == 40 || (count == 0 && position % 2 == 0), "position \(position): \(count) rows")
            assertSound(recovered, "position \(position)")
            position += 1
            if position > 200 { return XCTFail("the transaction never ran out of write positions") }
        }
        XCTAssertGreaterThan(failures, 4)
    }

    // MARK: Damaged logs

    func testDamagedLogsRecoverToACommittedPrefix() throws {
        var options = StorageOptions()
        options.autoCheckpointFrames = 1_000_000
        options.pageSize = 512
        let db = MemoryFile(path: "db")
        let wal = MemoryFile(path: "db-wal")
        let engine = try StorageEngine(file: db, walFile: wal, options: options)
        try Bank.create(engine)
        _ = try engine.checkpoint(.full)
        var rng = SplitMix64(seed: 5)
        var frameCounts: [Int] = []
        for _ in 0..<3 {
            _ = try Bank.transfer(engine, &rng)
            frameCounts.append(engine.walStatus.frames)
        }
        let dbBytes = db.bytes
        let walBytes = wal.bytes
        let frameSize = WALHeader.frameHeaderSize + 512
        func recoveredCount(_ damaged: [UInt8]) throws -> Int64 {
            let recovered = try StorageEngine(
                file: MemoryFile(bytes: dbBytes), walFile: MemoryFile(bytes: damaged), options: options)
            defer { try? recovered.close() }
            XCTAssertTrue(recovered.checkIntegrity().isOK)
            return try Bank.state(recovered).count
        }
        XCTAssertEqual(try recoveredCount(walBytes), 3)
        var badHeader = walBytes
        badHeader[21] ^= 0x40
        XCTAssertEqual(try recoveredCount(badHeader), 0, "a log with a damaged header is ignored")
        var badSecond = walBytes
        badSecond[WALHeader.size + frameCounts[0] * frameSize + 30] ^= 0x01
        XCTAssertEqual(try recoveredCount(badSecond), 1, "frames from the damaged one on are discarded")
        var badTail = walBytes
        badTail[badTail.count - 10] ^= 0x01
        XCTAssertEqual(try recoveredCount(badTail), 2)
        let torn = Array(walBytes[0..<(walBytes.count - 100)])
        XCTAssertEqual(try recoveredCount(torn), 2, "a torn last frame loses only its transaction")
        var otherSalt = walBytes
        otherSalt[WALHeader.size + frameCounts[1] * frameSize + 16] ^= 0x01
        XCTAssertEqual(try recoveredCount(otherSalt), 2, "a frame with other salts ends the log")
        XCTAssertEqual(try recoveredCount([]), 0)
        XCTAssertEqual(try recoveredCount(Array(walBytes[0..<20])), 0)
    }
}

/// A thread-safe list of messages.
final class FailureLog: @unchecked Sendable {
    private let lock = Lock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var entries: [String] { lock.withLock { items } }
    var isEmpty: Bool { lock.withLock { items.isEmpty } }
}

/// Two connections take turns changing one table; each must always see the
/// other's commits (their caches are brought up to date at each snapshot).
final class ConnectionCacheTests: XCTestCase {
    func testAlternatingWritersAgainstAModel() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        var options = StorageOptions()
        options.pageSize = 512
        options.cacheSize = 64
        options.autoCheckpointFrames = 50
        let a = try StorageEngine.inMemory(options: options)
        let b = try StorageEngine(sharing: a, options: options)
        try a.beginWrite()
        _ = try a.createTable(named: "t")
        try a.commit()
        var model: [Int64: [UInt8]] = [:]
        for round in 0..<300 {
            let engine = rng.next(below: 2) == 0 ? a : b
            try engine.beginWrite()
            let t = try engine.table(named: "t")
            for _ in 0..<Int(1 + rng.next(below: 20)) {
                let key = Int64(rng.next(below: 400))
                if rng.next(below: 4) == 0 {
                    XCTAssertEqual(try t.delete(rowid: key), model.removeValue(forKey: key) != nil, "seed \(seed)")
                } else {
                    let payload = payloadBytes(Int(rng.next(below: 300)), seed: rng.next())
                    try t.replace(rowid: key, payload: payload)
                    model[key] = payload
                }
            }
            if rng.next(below: 10) == 0 {
                try engine.rollback()
                // Undo the model: re-read the committed state from the other connection.
                let other = engine === a ? b : a
                model = [:]
                try other.beginRead()
                let cursor = try other.table(named: "t").makeCursor()
                var ok = try cursor.first()
                while ok {
                    model[cursor.rowid] = try cursor.payload()
                    ok = try cursor.next()
                }
                try other.endRead()
            } else {
                try engine.commit()
            }
            let reader = engine === a ? b : a
            try reader.beginRead()
            let t2 = try reader.table(named: "t")
            XCTAssertEqual(try t2.count(), model.count, "seed \(seed), round \(round)")
            for key in model.keys.prefix(20) { XCTAssertEqual(try t2.get(rowid: key), model[key], "seed \(seed)") }
            try reader.endRead()
            if testRun?.failureCount ?? 0 > 0 { return }
        }
        assertSound(a, "seed \(seed)")
    }
}
