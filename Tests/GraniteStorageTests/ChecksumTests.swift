import XCTest

@testable import GraniteStorage

/// XXH64 against reference values (computed with the reference xxHash implementation).
final class ChecksumTests: XCTestCase {
    func testReferenceVectors() {
        XCTAssertEqual(Checksum.xxh64([]), 0xEF46_DB37_51D8_E999)
        XCTAssertEqual(Checksum.xxh64(Array("abc".utf8)), 0x44BC_2CF5_AD77_0999)
        let page = (0..<4092).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        XCTAssertEqual(Checksum.xxh64(page, seed: 5), 0xBABA_16DB_2FD0_A0B2)
        let short = (0..<37).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }
        XCTAssertEqual(Checksum.xxh64(short, seed: 123_456_789), 0xD980_84D9_B0A2_EA94)
    }

    func testPageChecksumDependsOnPageNumberAndDetectsFlips() {
        var page = [UInt8](repeating: 0, count: 4096)
        page.withUnsafeMutableBytes { buffer in
            let base = buffer.baseAddress!
            for i in 0..<4092 { base.storeBytes(of: UInt8(truncatingIfNeeded: i), toByteOffset: i, as: UInt8.self) }
            PageLayout.seal(base, number: 9, pageSize: 4096)
            XCTAssertTrue(PageLayout.verify(base, number: 9, pageSize: 4096))
            XCTAssertFalse(PageLayout.verify(base, number: 10, pageSize: 4096), "a page written at the wrong place")
            for offset in stride(from: 0, to: 4096, by: 97) {
                base.storeBytes(
                    of: base.load(fromByteOffset: offset, as: UInt8.self) ^ 0x10, toByteOffset: offset, as: UInt8.self)
                XCTAssertFalse(PageLayout.verify(base, number: 9, pageSize: 4096), "flip at \(offset)")
                base.storeBytes(
                    of: base.load(fromByteOffset: offset, as: UInt8.self) ^ 0x10, toByteOffset: offset, as: UInt8.self)
            }
        }
    }
}
