// The integrity check tests run on a storage engine before they let it go.

import GraniteStorage
import XCTest

/// Fails the test with the first problems of the integrity check when the engine's file is not sound.
public func assertSound(
    _ engine: StorageEngine, _ context: String, file: StaticString = #filePath, line: UInt = #line
) {
    let report = engine.checkIntegrity()
    if !report.isOK {
        XCTFail(
            "\(context): integrity check failed:\n" + report.problems.prefix(10).joined(separator: "\n"),
            file: file, line: line)
    }
}

/// Checks the engine's file (see ``assertSound(_:_:file:line:)``), then closes the engine.
public func closeChecked(
    _ engine: StorageEngine, _ context: String, file: StaticString = #filePath, line: UInt = #line
) throws {
    assertSound(engine, context, file: file, line: line)
    try engine.close()
}
