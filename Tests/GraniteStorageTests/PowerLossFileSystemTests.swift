import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Power cuts as real file systems suffer them: unsynced writes kept, dropped or torn (with garbage in
/// the torn sectors), and new or removed names lost unless the directory was synced (strict POSIX) or
/// a later sync committed them (ordered metadata). Crash points: every changing file-system call of a
/// workload that creates the database, commits, checkpoints, closes (removing the log) and reopens
/// (creating a new log).
final class PowerLossFileSystemTests: XCTestCase {

    /// A power cut after every changing call of the workload, each leaving several disks; every one
    /// must open with every acknowledged commit (at FULL; a committed prefix at NORMAL) and a sound file.
    func testEveryCrashPointKeepsEveryAcknowledgedCommit() throws {
        let base = testSeed()
        var points = 0
        var checked = 0
        for run in 0..<(3 * stressFactor) {
            let seed = base &+ UInt64(run)
            // Every third run at NORMAL: the disk must hold a committed prefix, not every acknowledged commit.
            let durability: Durability = run % 3 == 2 ? .normal : .full
            let workload = PowerLossWorkload(seed: seed, durability: durability)
            let figures = try checkEveryCrashPoint(workload, randomStates: 2)
            points += figures.points
            checked += figures.states
            if testRun?.failureCount ?? 0 > 0 {
                return XCTFail("rerun with GRANITE_SEED=\(seed)")
            }
        }
        print("power-loss simulation: \(points) crash points, \(checked) crash states checked (2 models)")
        XCTAssertGreaterThan(checked, 1_000, "crash states checked")
    }

    /// Runs `workload` once per crash point and checks the disks each cut leaves; returns how many.
    private func checkEveryCrashPoint(
        _ workload: PowerLossWorkload, randomStates: Int
    ) throws -> (points: Int, states: Int) {
        let result = PowerLossWorkload.checkEveryCrashPoint(
            seed: workload.seed, randomStates: randomStates, run: { workload.run(on: $0) },
            check: { workload.check($0, against: $1) })
        if let failure = result.failure { XCTFail("seed \(workload.seed), \(failure)") }
        XCTAssertGreaterThan(result.points, 50, "seed \(workload.seed): the workload makes few calls")
        return (result.points, result.states)
    }

    /// Crash, recover, go on, crash again: a recovered database must keep working and keep what it
    /// acknowledged across repeated power cuts, including the new logs each recovery creates.
    func testRecoveredDatabasesKeepWorkingAcrossRepeatedCrashes() throws {
        let seed = testSeed()
        var rng = SplitMix64(seed: seed)
        for round in 0..<(20 * stressFactor) {
            var disk = SimulatedFileSystem()
            var record = PowerLossWorkload.Record()
            for crash in 0..<6 {
                let workload = PowerLossWorkload(seed: rng.next(), processes: 2, transfersPerProcess: 4)
                disk.cutPower(afterOperations: Int(rng.next(below: 80)))
                record = workload.run(on: disk, continuing: record)
                let model = SimulatedFileSystem.CrashModel.allCases[Int(rng.next(below: 2))]
                disk = disk.crash(model, .random(seed: rng.next()))
                let problems = workload.check(disk, against: record)
                guard problems.isEmpty else {
                    return XCTFail("GRANITE_SEED=\(seed), round \(round), crash \(crash), \(model): \(problems)")
                }
            }
        }
    }

    // MARK: The causes found from outside, one test each

    /// A log created after the previous process removed its own must have a durable name before its
    /// commits are acknowledged: with POSIX rules and no directory sync, a power cut takes the new log
    /// and the acknowledged commit with it.
    func testANewLogsNameIsDurableBeforeItsFirstCommitIsAcknowledged() throws {
        let disk = SimulatedFileSystem()
        let workload = PowerLossWorkload(seed: 1, processes: 2, transfersPerProcess: 2)
        let record = workload.run(on: disk)
        XCTAssertTrue(record.completed)
        // The second process's close removed the log; a third process commits in a new one.
        let engine = try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: disk)
        var rng = SplitMix64(seed: 2)
        let count = try Bank.transfer(engine, &rng)
        for model in SimulatedFileSystem.CrashModel.allCases {
            let crashed = disk.crash(model, .dropUnsynced)
            XCTAssertTrue(crashed.exists(PowerLossWorkload.path + "-wal"), "\(model): the new log's name was lost")
            let reopened = try StorageEngine(
                path: PowerLossWorkload.path, options: workload.options, fileSystem: crashed)
            XCTAssertEqual(try Bank.state(reopened).count, count, "\(model): the acknowledged commit was lost")
            try reopened.close()
        }
        try engine.close()
    }

    /// A new database's file must survive a power cut once its creation returned.
    func testANewDatabaseFileSurvivesAPowerCutOnceCreated() throws {
        let disk = SimulatedFileSystem()
        let engine = try StorageEngine(path: PowerLossWorkload.path, fileSystem: disk)
        try Bank.create(engine)
        let crashed = disk.crash(.posix, .dropUnsynced)
        let reopened = try StorageEngine(path: PowerLossWorkload.path, fileSystem: crashed)
        try reopened.beginRead()
        XCTAssertNotNil(try reopened.treeInfo(named: "meta"), "the acknowledged bank was lost")
        try reopened.close()
        try engine.close()
    }

    /// A creation cut short at any call, with any torn write, must leave a file that opens (as a new,
    /// empty database when the creation did not finish): it never needs repair by hand.
    func testACreationCutShortAnywhereOpensAsAnEmptyDatabase() throws {
        var rng = SplitMix64(seed: testSeed())
        var point = 0
        while true {
            let disk = SimulatedFileSystem()
            disk.cutPower(afterOperations: point)
            let created = (try? StorageEngine(path: PowerLossWorkload.path, fileSystem: disk)) != nil
            if !disk.isPowerCut {
                XCTAssertTrue(created)
                break
            }
            for (label, crashed) in PowerLossWorkload.crashStates(of: disk, randomStates: 8, &rng) {
                XCTAssertNoThrow(
                    try {
                        let engine = try StorageEngine(path: PowerLossWorkload.path, fileSystem: crashed)
                        try engine.beginRead()
                        XCTAssertEqual(try engine.trees().count, 0)
                        try closeChecked(engine, "cut after call \(point), \(label)")
                    }(), "cut after call \(point), \(label)")
            }
            point += 1
        }
        XCTAssertGreaterThanOrEqual(point, 4, "a creation makes at least four changing calls")
    }

    /// A transaction may grow the database by pages it frees again before committing: the commit's
    /// size counts them, no frame holds them. Recovery must accept them, and an open that fails must
    /// write nothing (before, the failed open checkpointed and removed the log).
    func testPagesAllocatedAndNeverWrittenAreAcceptedByRecovery() throws {
        let db = MemoryFile(path: "db")
        let wal = MemoryFile(path: "db-wal")
        var options = StorageOptions()
        options.pageSize = 512
        let engine = try StorageEngine(file: db, walFile: wal, options: options)
        try engine.beginWrite()
        _ = try engine.createTable(named: "kept")
        try engine.commit()
        try engine.checkpoint(.full)
        try engine.beginWrite()
        _ = try engine.createTable(named: "a")  // its root becomes the freelist trunk when dropped
        let b = try engine.createTable(named: "b")  // the last page: freed unwritten, listed by the trunk
        try b.insert(rowid: 1, payload: [1, 2, 3])
        try engine.dropTree(named: "a")
        try engine.dropTree(named: "b")
        try engine.commit()
        let pageCount = engine.pager.pageCount
        // The power is cut now: the file holds the checkpointed pages, the log the last commit.
        let dbImage = db.bytes
        let walImage = wal.bytes
        XCTAssertLessThan(dbImage.count / 512, Int(pageCount), "the commit grew the database")
        let reopened = try StorageEngine(
            file: MemoryFile(bytes: dbImage), walFile: MemoryFile(bytes: walImage), options: options)
        XCTAssertEqual(reopened.pager.pageCount, pageCount)
        try reopened.beginRead()
        XCTAssertNotNil(try reopened.treeInfo(named: "kept"))
        assertSound(reopened, "after recovery")
        try reopened.ensureWrite()
        let c = try reopened.createTable(named: "c")  // reuses the free pages
        try c.insert(rowid: 1, payload: payloadBytes(2_000, seed: 3))
        try reopened.commit()
        assertSound(reopened, "after reusing the free pages")
        try reopened.close()
        try engine.close()
    }

    /// An open that fails must leave both files exactly as they were.
    func testAFailedOpenWritesNothing() throws {
        let disk = SimulatedFileSystem()
        let workload = PowerLossWorkload(seed: 3, processes: 1, transfersPerProcess: 3)
        let engine = try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: disk)
        try Bank.create(engine)
        try engine.checkpoint(.full)
        // A commit that leaves the header alone, so that the log does not hold page 1.
        try engine.ensureWrite()
        try engine.table(named: "accounts").replace(rowid: 1, payload: RowEncoder().encode([.integer(Bank.initial)]))
        try engine.commit()
        // Damage page 1 in the file, past the 64 header bytes: the page's checksum no longer matches.
        var files = disk.files
        files[PowerLossWorkload.path]![100] ^= 0xFF
        try engine.close()
        let damaged = SimulatedFileSystem(files: files)
        XCTAssertThrowsError(
            try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: damaged))
        XCTAssertEqual(damaged.files, files, "the failed open changed the files")
        XCTAssertEqual(damaged.operationCount, 0, "the failed open made changing calls")
    }

    /// A checkpoint writes page 1 into the file first; a power cut that leaves its first sector as
    /// garbage must not make the database unopenable while the log still holds page 1.
    func testATornHeaderPageIsReadFromTheLog() throws {
        let disk = SimulatedFileSystem()
        let workload = PowerLossWorkload(seed: 5, processes: 1, transfersPerProcess: 0)
        let engine = try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: disk)
        try Bank.create(engine)
        var rng = SplitMix64(seed: 6)
        let count = try Bank.transfer(engine, &rng)
        var files = disk.files
        try engine.close()
        XCTAssertGreaterThan(files[PowerLossWorkload.path + "-wal"]?.count ?? 0, 0, "the log holds the commits")
        var header = files[PowerLossWorkload.path] ?? []
        if header.count < 512 { header += [UInt8](repeating: 0, count: 512 - header.count) }
        for i in 0..<512 { header[i] = UInt8(truncatingIfNeeded: i &* 151 &+ 7) }
        files[PowerLossWorkload.path] = header
        let torn = SimulatedFileSystem(files: files)
        let reopened = try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: torn)
        XCTAssertEqual(try Bank.state(reopened).count, count)
        assertSound(reopened, "after reading page 1 from the log")
        try reopened.close()
        // Closing checkpointed the log's page 1 over the garbage.
        let again = try StorageEngine(path: PowerLossWorkload.path, options: workload.options, fileSystem: torn)
        XCTAssertEqual(try Bank.state(again).count, count)
        try again.close()
    }
}
