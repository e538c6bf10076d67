import GraniteTestSupport
import XCTest

@testable import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The directory side of storage: POSIXFileSystem's creation report and directory sync, and the
/// power-cut rules of SimulatedFileSystem.
final class FileSystemTests: XCTestCase {

    func testPOSIXOpenTellsWhetherItCreatedTheFile() throws {
        let (path, cleanup) = temporaryPath("created")
        defer { cleanup() }
        let fileSystem = POSIXFileSystem()
        XCTAssertThrowsError(try fileSystem.open(path, mode: .readWrite))
        XCTAssertThrowsError(try fileSystem.open(path, mode: .readOnly))
        let first = try fileSystem.open(path, mode: .readWriteCreate)
        XCTAssertTrue(first.created)
        try first.file.write([1, 2, 3], at: 0)
        let second = try fileSystem.open(path, mode: .readWriteCreate)
        XCTAssertFalse(second.created)
        XCTAssertEqual(try second.file.read(count: 3, at: 0), [1, 2, 3])
        let reader = try fileSystem.open(path, mode: .readOnly)
        XCTAssertThrowsError(try reader.file.write([9], at: 0))
        try fileSystem.syncDirectory(containing: path)
        for handle in [first.file, second.file, reader.file] { handle.close() }
        try fileSystem.remove(path)
        XCTAssertFalse(fileSystem.exists(path))
        try fileSystem.remove(path)  // a missing file is not an error
    }

    func testPOSIXOpenThroughALinkToAMissingFileCreatesIt() throws {
        let (path, cleanup) = temporaryPath("link")
        defer {
            unlink(path + "-target")
            cleanup()
        }
        XCTAssertEqual(symlink(path + "-target", path), 0)
        let opened = try POSIXFileSystem().open(path, mode: .readWriteCreate)
        XCTAssertTrue(opened.created)
        XCTAssertTrue(POSIXFile.exists(path: path + "-target"))
        opened.file.close()
    }

    func testPOSIXDirectorySyncOfAMissingDirectoryThrows() {
        XCTAssertThrowsError(try POSIXFileSystem().syncDirectory(containing: "/granite-no-such-dir/db")) { error in
            guard case .io("open directory", _, ENOENT)? = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(POSIXFileSystem.directory(of: "/a/b/c"), "/a/b")
        XCTAssertEqual(POSIXFileSystem.directory(of: "/c"), "/")
        XCTAssertEqual(POSIXFileSystem.directory(of: "c"), ".")
    }

    func testAFailedOpenLeavesNoNewFileBehind() throws {
        let garbage = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let disk = SimulatedFileSystem(files: ["/db": garbage])
        XCTAssertThrowsError(try StorageEngine(path: "/db", fileSystem: disk)) { error in
            guard case .notADatabase? = error as? StorageError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(disk.files, ["/db": garbage])
        let (path, cleanup) = temporaryPath()
        defer { cleanup() }
        let file = try POSIXFile(path: path)
        try file.write(garbage, at: 0)
        file.close()
        XCTAssertThrowsError(try StorageEngine(path: path))
        XCTAssertFalse(POSIXFile.exists(path: path + "-wal"), "the failed open left a log behind")
        var existingOnly = StorageOptions()
        existingOnly.create = false
        XCTAssertThrowsError(try StorageEngine(path: path + "-missing", options: existingOnly))
        XCTAssertFalse(POSIXFile.exists(path: path + "-missing"))
    }

    func testUnsyncedNamesUnderEachModel() throws {
        let disk = SimulatedFileSystem()
        let (file, created) = try disk.open("/d/a", mode: .readWriteCreate)
        XCTAssertTrue(created)
        try file.write([1, 2, 3], at: 0)
        try file.sync()
        // The file's sync commits its name only under ordered metadata.
        XCTAssertFalse(disk.crash(.posix, .dropUnsynced).exists("/d/a"))
        XCTAssertEqual(disk.crash(.ordered, .dropUnsynced).files, ["/d/a": [1, 2, 3]])
        XCTAssertEqual(disk.crash(.posix, .keepUnsynced).files, ["/d/a": [1, 2, 3]])
        try disk.syncDirectory(containing: "/d/a")
        XCTAssertEqual(disk.crash(.posix, .dropUnsynced).files, ["/d/a": [1, 2, 3]])
        // A removal is undone by a power cut until the directory is synced; the content stays the
        // file's durable content.
        try file.write([9], at: 0)
        try disk.remove("/d/a")
        XCTAssertFalse(disk.exists("/d/a"))
        try file.write([8], at: 1)  // a descriptor still reaches the removed file
        XCTAssertEqual(disk.crash(.posix, .dropUnsynced).files, ["/d/a": [1, 2, 3]])
        XCTAssertEqual(disk.crash(.ordered, .dropUnsynced).files, ["/d/a": [1, 2, 3]])
        XCTAssertEqual(disk.crash(.posix, .keepUnsynced).files, [:])
        try disk.syncDirectory(containing: "/d/a")
        XCTAssertEqual(disk.crash(.posix, .dropUnsynced).files, [:])
    }

    func testOrderedNamesSurviveAsAPrefixAndPOSIXNamesIndependently() throws {
        let disk = SimulatedFileSystem()
        for name in ["/a", "/b", "/c", "/d"] { _ = try disk.open(name, mode: .readWriteCreate) }
        var orderedOutcomes = Set<[String]>()
        var posixOutcomes = Set<[String]>()
        for seed in 0..<200 as Range<UInt64> {
            orderedOutcomes.insert(disk.crash(.ordered, .random(seed: seed)).files.keys.sorted())
            posixOutcomes.insert(disk.crash(.posix, .random(seed: seed)).files.keys.sorted())
        }
        XCTAssertEqual(orderedOutcomes, [[], ["/a"], ["/a", "/b"], ["/a", "/b", "/c"], ["/a", "/b", "/c", "/d"]])
        XCTAssertTrue(posixOutcomes.contains(["/b", "/d"]), "POSIX loses names independently")
        XCTAssertEqual(posixOutcomes.count, 16)
    }

    func testTornWritesKeepOldSectorsOrGarbageAfterTheTear() throws {
        let disk = SimulatedFileSystem(files: ["/f": [UInt8](repeating: 1, count: 2048)])
        let (file, _) = try disk.open("/f", mode: .readWrite)
        try file.write([UInt8](repeating: 2, count: 2048), at: 0)
        var sawOldTail = false
        var sawGarbageTail = false
        for seed in 0..<300 as Range<UInt64> {
            let image = disk.crash(.posix, .random(seed: seed, sectorSize: 512)).files["/f"]!
            XCTAssertEqual(image.count, 2048)
            let sectors = stride(from: 0, to: 2048, by: 512).map { Array(image[$0..<($0 + 512)]) }
            // Sectors up to the tear are new; each one is written whole or not at all.
            let newSectors = sectors.prefix { $0 == [UInt8](repeating: 2, count: 512) }.count
            let tail = sectors.dropFirst(newSectors)
            if newSectors > 0, newSectors < 4 {
                if tail.allSatisfy({ $0 == [UInt8](repeating: 1, count: 512) }) { sawOldTail = true }
                if tail.contains(where: { Set($0).count > 2 }) { sawGarbageTail = true }
            }
        }
        XCTAssertTrue(sawOldTail)
        XCTAssertTrue(sawGarbageTail)
    }

    func testAPowerCutFreezesTheDiskAndFailsLaterCalls() throws {
        let disk = SimulatedFileSystem()
        disk.cutPower(afterOperations: 2)
        let (file, _) = try disk.open("/f", mode: .readWriteCreate)  // call 1
        try file.write([1], at: 0)  // call 2
        XCTAssertFalse(disk.isPowerCut)
        XCTAssertThrowsError(try file.sync())
        XCTAssertTrue(disk.isPowerCut)
        XCTAssertThrowsError(try file.write([2], at: 0))
        XCTAssertThrowsError(try disk.syncDirectory(containing: "/f"))
        XCTAssertEqual(disk.operationCount, 2)
        XCTAssertEqual(disk.crash(.posix, .keepUnsynced).files, ["/f": [1]])
        XCTAssertEqual(disk.crash(.ordered, .dropUnsynced).files, [:])
    }
}
