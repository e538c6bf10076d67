import GraniteTestSupport
import XCTest

@testable import GraniteStorage

/// Power cuts and process deaths with two processes on one simulated disk (``TwoProcessWorkload``): each
/// process has its own handles, byte-range locks and shared state, and both map the same `-shm`, which a power
/// cut leaves lost, zeroed, stale or garbled. Every commit that either process acknowledged must survive; a
/// process killed at any step of a commit, a checkpoint or a publication of the shared index must cost the
/// survivor nothing.
final class TwoProcessPowerLossTests: XCTestCase {

    /// A power cut after every changing call of either process, each leaving several disks (both crash models,
    /// unsynced writes dropped, kept or torn): each must open with every commit acknowledged by either process
    /// (every other run at NORMAL: a committed prefix), nothing half-committed, and a sound file.
    func testEveryCrashPointOfTwoProcessesKeepsEveryAcknowledgedCommit() throws {
        let base = testSeed()
        var points = 0
        var checked = 0
        for run in 0..<(2 * stressFactor) {
            let seed = base &+ UInt64(run)
            let workload = TwoProcessWorkload(seed: seed, durability: run % 2 == 1 ? .normal : .full)
            let result = PowerLossWorkload.checkEveryCrashPoint(
                seed: seed, randomStates: 1, run: { workload.run(on: $0) },
                check: { workload.checker.check($0, against: $1) })
            if let failure = result.failure { return XCTFail("GRANITE_SEED=\(seed), \(failure)") }
            checked += result.states
            points += result.points
            if testRun?.failureCount ?? 0 > 0 { return XCTFail("rerun with GRANITE_SEED=\(seed)") }
        }
        print("two-process power loss: \(points) crash points, \(checked) crash states checked")
        XCTAssertGreaterThan(points, 100, "the workloads make few calls")
    }

    // MARK: Process deaths

    /// A disk with the bank created by process A and a few transfers acknowledged, and process B open on it.
    private struct TwoOpen {
        let disk = SimulatedFileSystem()
        let workload: TwoProcessWorkload
        let a: SimulatedProcess
        let b: SimulatedProcess
        let writer: StorageEngine
        let survivor: StorageEngine
        var record = PowerLossWorkload.Record()

        init(seed: UInt64) throws {
            workload = TwoProcessWorkload(seed: seed)
            a = disk.process("A")
            b = disk.process("B")
            writer = try StorageEngine(path: TwoProcessWorkload.path, options: workload.options("A"), fileSystem: a)
            try Bank.create(writer)
            record.states = [try Bank.state(writer).balances]
            record.acknowledged = 0
            var rng = SplitMix64(seed: seed)
            for _ in 0..<3 {
                record.acknowledged = Int(try Bank.transfer(writer, &rng))
                record.states.append(try Bank.state(writer).balances)
            }
            try writer.commit()
            survivor = try StorageEngine(path: TwoProcessWorkload.path, options: workload.options("B"), fileSystem: b)
        }

        /// B reads the latest acknowledged state, or `inFlight` (the commit A died in, when it reached the log).
        func expectSurvivorSees(_ inFlight: [Int64]?, _ label: String) throws -> Int {
            try survivor.beginRead()
            defer { try? survivor.commit() }
            let (count, balances) = try Bank.state(survivor)
            if Int(count) == record.acknowledged {
                XCTAssertEqual(balances, record.states[record.acknowledged], label)
            } else {
                XCTAssertEqual(Int(count), record.acknowledged + 1, "\(label): B sees transfer \(count)")
                XCTAssertEqual(balances, inFlight, "\(label): B sees a commit A never attempted")
            }
            return Int(count)
        }

        /// B goes on alone: commits, checkpoints and truncates the log, and finds the file sound; then the disk
        /// after a power cut, and a third process, find every acknowledged commit.
        mutating func survivorGoesOn(after count: Int, inFlight: [Int64]?, _ label: String) throws {
            if count > record.acknowledged, let inFlight {
                record.states.append(inFlight)
                record.acknowledged = count
            }
            var rng = SplitMix64(seed: workload.seed ^ 0xB)
            for _ in 0..<3 {
                record.acknowledged = Int(try Bank.transfer(survivor, &rng))
                record.states.append(try Bank.state(survivor).balances)
                try survivor.commit()
            }
            try survivor.checkpoint(.truncate)
            try survivor.beginRead()
            assertSound(survivor, label)
            try survivor.commit()
            for model in SimulatedFileSystem.CrashModel.allCases {
                for outcome in [SimulatedFileSystem.CrashOutcome.dropUnsynced, .keepUnsynced] {
                    let problems = workload.checker.check(disk.crash(model, outcome), against: record)
                    XCTAssertEqual(problems, [], "\(label), then a power cut (\(model), \(outcome))")
                }
            }
            let third = try StorageEngine(
                path: TwoProcessWorkload.path, options: workload.options("C"), fileSystem: disk.process("C"))
            try third.beginRead()
            XCTAssertEqual(Int(try Bank.state(third).count), record.acknowledged, "\(label): C")
            try third.commit()
            try closeChecked(third, label)
            try survivor.close()
        }
    }

    /// Process A killed before each changing call of a commit and of the checkpoint that follows it (the log
    /// written, synced, the file written, synced, the log restarted): B takes the writer lock A held, sees A's
    /// commit whole or not at all, and goes on; nothing acknowledged is lost.
    func testAWriterKilledAtEveryStepOfACommitAndCheckpointCostsTheOtherNothing() throws {
        let seed = testSeed()
        var point = 0
        while true {
            var setup = try TwoOpen(seed: seed &+ UInt64(point))
            var rng = SplitMix64(seed: seed ^ UInt64(point))
            setup.a.die(afterOperations: point)
            var inFlight: [Int64]?
            do {
                for round in 0..<2 {
                    let count = try Bank.transfer(setup.writer, &rng, commit: false, bulk: (point + round) % 2 == 0)
                    inFlight = try Bank.state(setup.writer).balances
                    try setup.writer.commit()
                    setup.record.states.append(inFlight!)
                    setup.record.acknowledged = Int(count)
                    inFlight = nil
                    if round == 0 { try setup.writer.checkpoint(.truncate) }
                }
            } catch {
                XCTAssertFalse(setup.a.isAlive, "death at call \(point): A failed alive: \(error)")
            }
            if setup.a.isAlive {
                XCTAssertGreaterThan(point, 10, "a commit and a checkpoint make few calls")
                return
            }
            let label = "GRANITE_SEED=\(seed), A killed at its call \(point)"
            do {
                let count = try setup.expectSurvivorSees(inFlight, label)
                try setup.survivorGoesOn(after: count, inFlight: inFlight, label)
            } catch {
                return XCTFail("\(label): B failed: \(error)")
            }
            point += 1
        }
    }

    /// Process B killed in the middle of a read: the reader mark it held goes with it, so A's truncating
    /// checkpoint, refused while B lived, empties the log; B's snapshot read nothing wrong before it died.
    func testAReaderKilledMidReadNoLongerHoldsTheLog() throws {
        var setup = try TwoOpen(seed: 700)
        var rng = SplitMix64(seed: 700)
        try setup.survivor.beginRead()
        let seen = try Bank.state(setup.survivor)
        XCTAssertEqual(Int(seen.count), setup.record.acknowledged)
        setup.record.acknowledged = Int(try Bank.transfer(setup.writer, &rng))
        setup.record.states.append(try Bank.state(setup.writer).balances)
        try setup.writer.commit()
        XCTAssertEqual(try Bank.state(setup.survivor).count, seen.count, "B's snapshot moved")
        XCTAssertThrowsError(try setup.writer.checkpoint(.truncate), "B's snapshot still reads the log") { error in
            guard case .busy? = error as? StorageError else { return XCTFail("\(error)") }
        }
        setup.b.die()
        let result = try setup.writer.checkpoint(.truncate)
        XCTAssertTrue(result.truncated, "the dead reader's mark still held the log")
        XCTAssertEqual(result.backfilledFrames, result.logFrames)
        try setup.writer.beginRead()
        XCTAssertEqual(Int(try Bank.state(setup.writer).count), setup.record.acknowledged)
        assertSound(setup.writer, "after the reader died")
        try setup.writer.commit()
        for model in SimulatedFileSystem.CrashModel.allCases {
            let problems = setup.workload.checker.check(setup.disk.crash(model, .dropUnsynced), against: setup.record)
            XCTAssertEqual(problems, [], "a power cut after the reader died (\(model))")
        }
        try setup.writer.close()
    }

    /// Process A killed half-way through publishing a commit in the shared index (the sequence odd, some words
    /// new and the others old), its writer lock dropped: B repairs the index from the log and goes on.
    func testAPublisherKilledHalfWayThroughTheSharedIndexCostsTheOtherNothing() throws {
        let shm = TwoProcessWorkload.path + "-shm"
        // Words 3 ..< 9 are the published state and its checksum (SharedIndexRegion); word 2 the sequence.
        for stored in 0...6 {
            var setup = try TwoOpen(seed: 70 &+ UInt64(stored))
            var rng = SplitMix64(seed: UInt64(stored))
            _ = try Bank.transfer(setup.writer, &rng, commit: false)
            let inFlight = try Bank.state(setup.writer).balances
            let before = try XCTUnwrap(setup.disk.sharedMemory(shm))
            try setup.writer.commit()
            let after = try XCTUnwrap(setup.disk.sharedMemory(shm))
            var torn = before
            let word = { (index: Int) in (8 * index)..<(8 * index + 8) }
            let sequence = after.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 16, as: UInt64.self) }
            withUnsafeBytes(of: sequence - 1) { torn.replaceSubrange(word(2), with: $0) }
            for index in 3..<(3 + stored) { torn.replaceSubrange(word(index), with: after[word(index)]) }
            setup.disk.overwriteSharedMemory(shm, with: torn)
            setup.a.die()
            let label = "A killed after storing \(stored) words of its publication"
            do {
                let count = try setup.expectSurvivorSees(inFlight, label)
                try setup.survivorGoesOn(after: count, inFlight: inFlight, label)
            } catch {
                XCTFail("\(label): B failed: \(error)")
            }
        }
    }
}
