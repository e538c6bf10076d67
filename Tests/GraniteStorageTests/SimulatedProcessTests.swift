import XCTest

@testable import GraniteStorage

/// The multi-process side of ``SimulatedFileSystem``: byte-range locks owned by a handle, shared memory mapped by
/// every process and lost to a power cut, and the death of a process.
final class SimulatedProcessTests: XCTestCase {

    /// Byte-range locks belong to a handle: two handles conflict as two processes do, one handle converts its
    /// own lock, closing a handle or killing its process drops its locks, and a read-only handle cannot lock
    /// exclusive.
    func testByteRangeLocksBelongToTheirHandleAndDieWithTheirProcess() throws {
        let disk = SimulatedFileSystem(files: ["/db": [1, 2, 3]])
        let a = disk.process("A")
        let b = disk.process("B")
        let first = try a.openLockHandle("/db", readOnly: false)
        let second = try a.openLockHandle("/db", readOnly: false)
        let other = try b.openLockHandle("/db", readOnly: true)
        XCTAssertTrue(try first.tryLock(.shared, range: 100..<200))
        XCTAssertTrue(try other.tryLock(.shared, range: 150..<160))
        XCTAssertFalse(try second.tryLock(.exclusive, range: 199..<300), "overlaps first's shared lock")
        XCTAssertTrue(try second.tryLock(.exclusive, range: 200..<300))
        XCTAssertEqual(try other.conflictingLock(.shared, range: 0..<1000)?.range, 200..<300)
        XCTAssertFalse(try first.tryLock(.exclusive, range: 100..<200), "other's shared lock inside")
        XCTAssertTrue(try first.tryLock(.exclusive, range: 100..<150), "a conversion of first's own lock")
        XCTAssertThrowsError(try other.tryLock(.exclusive, range: 0..<1), "read-only handles lock shared only")
        try first.unlock(range: 120..<130)
        XCTAssertTrue(try other.tryLock(.shared, range: 120..<130), "the hole unlock left")
        XCTAssertFalse(try other.tryLock(.shared, range: 110..<111))
        second.close()
        XCTAssertNil(try other.conflictingLock(.shared, range: 200..<300), "close drops the handle's locks")
        XCTAssertThrowsError(try second.tryLock(.shared, range: 0..<1), "a closed handle")
        a.die()
        XCTAssertNil(try other.conflictingLock(.exclusive, range: 0..<1000), "death drops the process's locks")
        XCTAssertThrowsError(try first.conflictingLock(.shared, range: 0..<1), "a dead process's handle")
        XCTAssertThrowsError(try a.open("/db", mode: .readOnly), "a dead process opens nothing")
    }

    /// Shared memory is one region for every process mapping it; a reboot finds it gone, stale or garbled, never
    /// shared with the old processes.
    func testSharedMemoryIsSharedLiveAndNotDurable() throws {
        let disk = SimulatedFileSystem()
        XCTAssertThrowsError(try disk.process("R").mapSharedMemory("/m", size: 64, readOnly: true))
        let one = try disk.process("A").mapSharedMemory("/m", size: 64, readOnly: false)
        let two = try disk.process("B").mapSharedMemory("/m", size: 64, readOnly: true)
        one.baseAddress.storeBytes(of: 42, toByteOffset: 8, as: UInt64.self)
        XCTAssertEqual(two.baseAddress.load(fromByteOffset: 8, as: UInt64.self), 42)
        XCTAssertNil(disk.crash(.posix, .dropUnsynced).sharedMemory("/m"))
        XCTAssertEqual(disk.crash(.ordered, .keepUnsynced).sharedMemory("/m"), disk.sharedMemory("/m"))
        var outcomes = Set<String>()
        for seed in 0..<40 as Range<UInt64> {
            switch disk.crash(.posix, .random(seed: seed)).sharedMemory("/m") {
            case nil: outcomes.insert("gone")
            case let bytes? where bytes == disk.sharedMemory("/m"): outcomes.insert("stale")
            case let bytes? where bytes.allSatisfy({ $0 == 0 }): outcomes.insert("zeros")
            default: outcomes.insert("garbled")
            }
        }
        XCTAssertEqual(outcomes, ["gone", "stale", "zeros", "garbled"])
        try disk.remove("/m")
        XCTAssertNil(disk.sharedMemory("/m"), "removing the name forgets the memory")
        XCTAssertEqual(one.baseAddress.load(fromByteOffset: 8, as: UInt64.self), 42, "mappings keep theirs")
    }
}
