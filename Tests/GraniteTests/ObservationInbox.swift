import Foundation
import XCTest

/// Collects the values and errors an observation delivers on any thread, and lets a test wait for them.
final class ObservationInbox<Value: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var values: [Value] = []
    private var errors: [any Error] = []

    func receive(_ value: Value) {
        condition.withLock {
            values.append(value)
            condition.broadcast()
        }
    }

    func fail(_ error: any Error) {
        condition.withLock {
            errors.append(error)
            condition.broadcast()
        }
    }

    /// The values, once there are at least `count` (or after `timeout` seconds, failing the test).
    @discardableResult
    func wait(
        for count: Int, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line
    ) -> [Value] {
        condition.withLock {
            let deadline = Date().addingTimeInterval(timeout)
            while values.count < count && condition.wait(until: deadline) {}
            if values.count < count { XCTFail("only \(values.count) of \(count) values", file: file, line: line) }
            return values
        }
    }

    /// The values, once the latest satisfies `isDone` (failing the test on an error or after 20 seconds).
    @discardableResult
    func wait(until isDone: (Value) -> Bool, file: StaticString = #filePath, line: UInt = #line) -> [Value] {
        condition.withLock {
            let deadline = Date().addingTimeInterval(20)
            while errors.isEmpty && !(values.last.map(isDone) ?? false) && condition.wait(until: deadline) {}
            if let error = errors.first { XCTFail("observation failed: \(error)", file: file, line: line) }
            if !(values.last.map(isDone) ?? false) {
                XCTFail("no expected value among \(values)", file: file, line: line)
            }
            return values
        }
    }

    /// The first error, waiting up to 10 seconds for one.
    func waitForError() -> (any Error)? {
        condition.withLock {
            let deadline = Date().addingTimeInterval(10)
            while errors.isEmpty && condition.wait(until: deadline) {}
            return errors.first
        }
    }

    /// The values received so far.
    var received: [Value] { condition.withLock { values } }
}
