import XCTest

@testable import GraniteSQL

final class GroupTableTests: XCTestCase {
    func testNumbersKeysInFirstSeenOrderThroughGrowth() {
        var table = GroupTable()
        var expected: [[UInt8]: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        var keys: [[UInt8]] = [[]]
        for length in 1...40 {
            for _ in 0..<20 { keys.append((0..<length).map { _ in UInt8.random(in: 0...3, using: &generator) }) }
        }
        for key in keys + keys.reversed() {
            let (group, inserted) = table.group(of: key)
            if let known = expected[key] {
                XCTAssertFalse(inserted)
                XCTAssertEqual(group, known)
            } else {
                XCTAssertTrue(inserted)
                XCTAssertEqual(group, expected.count)
                expected[key] = group
            }
        }
        XCTAssertEqual(table.count, expected.count)
        for (key, group) in expected { XCTAssertEqual(table.keys[group], key) }
    }
}
