import XCTest

@testable import GraniteStorage

/// The bank of ``PowerLossWorkload`` run by two processes at once on one ``SimulatedFileSystem``: two engines,
/// each opened through its own ``SimulatedProcess`` (its own handles, byte-range locks and shared state), that
/// take turns through the writer lock, read on snapshots while the other commits, checkpoint in every mode and
/// close and reopen. Every commit either process acknowledged is recorded in one ``PowerLossWorkload/Record``:
/// the writer lock orders the commits of both, so one transfer counter numbers them all.
///
/// Process A fails at once when the other holds the writer lock, B waits a moment first: both busy modes.
struct TwoProcessWorkload {
    static let path = PowerLossWorkload.path

    let seed: UInt64
    let steps: Int
    /// The single-process workload with the same durability: its check judges the disks this one leaves.
    let checker: PowerLossWorkload

    init(seed: UInt64, steps: Int = 10, durability: Durability = .full) {
        self.seed = seed
        self.steps = steps
        checker = PowerLossWorkload(seed: seed, durability: durability)
    }

    /// The options of process `name` (A: fails at once on another process's lock, B: waits up to 20 ms).
    func options(_ name: String) -> StorageOptions {
        var options = checker.options
        options.simulatedProcess = name
        options.crossProcessBusyTimeout = name == "A" ? 0 : 0.02
        // How long a full checkpoint waits for a reader: short, the reader is in this thread.
        options.busyTimeout = 0.01
        return options
    }

    /// One simulated process and its connection (nil while closed).
    private final class Process {
        let name: String
        let view: SimulatedProcess
        let options: StorageOptions
        var engine: StorageEngine?

        init(_ name: String, disk: SimulatedFileSystem, options: StorageOptions) {
            self.name = name
            view = disk.process(name)
            self.options = options
        }

        func open() throws -> StorageEngine {
            if let engine { return engine }
            let opened = try StorageEngine(path: TwoProcessWorkload.path, options: options, fileSystem: view)
            engine = opened
            return opened
        }

        func close() throws {
            let closing = engine
            engine = nil
            try closing?.close()
        }
    }

    /// Runs the workload on `disk` until it ends or the power is cut.
    func run(on disk: SimulatedFileSystem) -> PowerLossWorkload.Record {
        var record = PowerLossWorkload.Record()
        var rng = SplitMix64(seed: seed)
        let processes = [
            Process("A", disk: disk, options: options("A")), Process("B", disk: disk, options: options("B")),
        ]
        do {
            let first = try processes[0].open()
            try Bank.create(first)
            record.states = [try Bank.state(first).balances]
            record.acknowledged = 0
            try first.commit()
            _ = try processes[1].open()
            for _ in 0..<steps {
                let actor = Int(rng.next(below: 2))
                try step(processes[actor], other: processes[1 - actor], &rng, &record)
            }
            for process in processes { try process.close() }
            record.completed = !disk.isPowerCut
        } catch {
            XCTAssertTrue(disk.isPowerCut, "seed \(seed): an error without a power cut: \(error)")
        }
        return record
    }

    /// One step of `actor`, with `other` looking on or contending.
    private func step(
        _ actor: Process, other: Process, _ rng: inout SplitMix64, _ record: inout PowerLossWorkload.Record
    ) throws {
        let engine = try actor.open()
        switch rng.next(below: 10) {
        case 0...3:
            try commitTransfer(engine, &rng, &record)
        case 4:
            // The other process wants to write while this one does: it gets busy, reads on, and writes later.
            _ = try Bank.transfer(engine, &rng, commit: false)
            let contender = try other.open()
            do {
                _ = try Bank.transfer(contender, &rng)
                XCTFail("seed \(seed): \(other.name) wrote while \(actor.name) held the writer lock")
            } catch StorageError.busy {
                try expectState(contender, record, "\(other.name) while \(actor.name) writes")
            }
            try engine.rollback()
            try commitTransfer(contender, &rng, &record)
        case 5:
            // A snapshot in the other process stays put while this one commits (and maybe checkpoints).
            let reader = try other.open()
            try expectState(reader, record, "\(other.name)'s snapshot", keepOpen: true)
            let seen = try Bank.state(reader)
            try commitTransfer(engine, &rng, &record)
            if rng.next(below: 2) == 0 { try checkpoint(engine, &rng, readerAlive: true) }
            XCTAssertEqual(try Bank.state(reader).count, seen.count, "seed \(seed): a snapshot moved")
            try reader.commit()
        case 6, 7:
            try checkpoint(engine, &rng, readerAlive: false)
        case 8:
            // Closing and reopening; when the other is closed too, the last closer removes the log.
            try actor.close()
            if rng.next(below: 2) == 0 { try other.close() }
            _ = try actor.open()
        default:
            try commitTransfer(engine, &rng, &record, bulk: true)
        }
    }

    private func commitTransfer(
        _ engine: StorageEngine, _ rng: inout SplitMix64, _ record: inout PowerLossWorkload.Record, bulk: Bool = false
    ) throws {
        let count = try Bank.transfer(engine, &rng, commit: false, bulk: bulk)
        XCTAssertEqual(Int(count), record.acknowledged + 1, "seed \(seed): a transfer began on a stale state")
        record.inFlight = try Bank.state(engine).balances
        try engine.commit()
        record.states.append(record.inFlight!)
        record.inFlight = nil
        record.acknowledged = Int(count)
    }

    /// A checkpoint in any mode; with a snapshot open in the other process a full or truncating one may give
    /// up (busy), never copy what the snapshot reads.
    private func checkpoint(_ engine: StorageEngine, _ rng: inout SplitMix64, readerAlive: Bool) throws {
        let mode = [CheckpointMode.passive, .full, .truncate][Int(rng.next(below: 3))]
        do {
            try engine.checkpoint(mode)
        } catch StorageError.busy where readerAlive {
        }
    }

    /// Checks that a new read in `engine` sees the latest acknowledged commit.
    private func expectState(
        _ engine: StorageEngine, _ record: PowerLossWorkload.Record, _ label: String, keepOpen: Bool = false
    ) throws {
        try engine.beginRead()
        let (count, balances) = try Bank.state(engine)
        XCTAssertEqual(Int(count), record.acknowledged, "seed \(seed): \(label) reads a stale state")
        if Int(count) < record.states.count {
            XCTAssertEqual(balances, record.states[Int(count)], "seed \(seed): \(label) reads other balances")
        }
        if !keepOpen { try engine.commit() }
    }
}
