import GraniteSQL
import GraniteStorage
import XCTest

/// The Swift string functions GRDB registers on its connections (`swiftLowercaseString`, …), built in here.
final class SwiftStringFunctionTests: XCTestCase {
    func testSwiftStringFunctions() throws {
        XCTAssertEqual(try SQLScalarFunctions.call("swiftLowercaseString", [.text("ÉLAN Vital")]), .text("élan vital"))
        XCTAssertEqual(try SQLScalarFunctions.call("swiftUppercaseString", [.text("straße")]), .text("STRASSE"))
        XCTAssertEqual(
            try SQLScalarFunctions.call("swiftCapitalizedString", [.text("hello wORLD\tagain")]),
            .text("Hello World\tAgain"))
        XCTAssertEqual(try SQLScalarFunctions.call("swiftLowercaseString", [.integer(1)]), .null)
        XCTAssertEqual(try SQLScalarFunctions.call("swiftUppercaseString", [.null]), .null)
        XCTAssertThrowsError(try SQLScalarFunctions.call("swiftCapitalizedString", []))
    }
}
