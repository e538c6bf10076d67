import XCTest

@testable import GraniteStorage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Scale factor for long randomized runs: `GRANITE_STRESS=10 swift test`.
let stressFactor: Int = {
    guard let raw = getenv("GRANITE_STRESS"), let value = Int(String(cString: raw)), value > 0 else { return 1 }
    return value
}()

/// A seed for randomized tests: `GRANITE_SEED` when set; a fixed seed under
/// CI (`CI` set), so that a CI run is reproducible; otherwise a fresh one, so
/// that local runs keep exploring.
func testSeed() -> UInt64 {
    if let raw = getenv("GRANITE_SEED"), let value = UInt64(String(cString: raw)) { return value }
    if getenv("CI") != nil { return 0x4752_414E_4954_4521 }
    var generator = SystemRandomNumberGenerator()
    return generator.next()
}

/// A unique path in a fresh temporary directory; removed by `cleanup`.
func temporaryPath(_ name: String = "test.granite") -> (path: String, cleanup: () -> Void) {
    var template = Array("/tmp/granite-test-XXXXXX".utf8CString)
    let dir = template.withUnsafeMutableBufferPointer { buffer -> String in
        guard let result = mkdtemp(buffer.baseAddress!) else { return "/tmp" }
        return String(cString: result)
    }
    let path = dir + "/" + name
    return (
        path,
        {
            for suffix in ["", "-wal"] { unlink(path + suffix) }
            rmdir(dir)
        }
    )
}

/// Deterministic bytes for a payload of `count` bytes derived from `seed`.
func payloadBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var rng = SplitMix64(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        let word = rng.next()
        for shift in stride(from: 0, to: 64, by: 8) where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word >> UInt64(shift))
            i += 1
        }
    }
    return bytes
}

/// Fails the test with the report's problems when the file is not sound.
func assertSound(_ engine: StorageEngine, _ context: String, file: StaticString = #filePath, line: UInt = #line) {
    let report = engine.checkIntegrity()
    if !report.isOK {
        XCTFail(
            "\(context): integrity check failed:\n" + report.problems.prefix(10).joined(separator: "\n"),
            file: file, line: line)
    }
}

extension StorageEngine {
    /// Tests: makes sure a read (or write) transaction is in progress, beginning a read when none is.
    func ensureRead() throws {
        if !isInTransaction { try beginRead() }
    }

    /// Tests: makes sure a write transaction is in progress, ending a read transaction first.
    func ensureWrite() throws {
        if isInTransaction && !isWriting { try commit() }
        if !isInTransaction { try beginWrite() }
    }

    /// Tests: commits the transaction in progress and begins a write transaction for the changes that follow.
    func commitAndWrite() throws {
        try commit()
        try beginWrite()
    }
}

extension StorageEngine {
    /// Tests: commits the transaction in progress and begins a read transaction for the reads that follow.
    func commitAndRead() throws {
        try commit()
        try beginRead()
    }
}
