// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Granite",
    products: [
        .library(name: "GraniteStorage", targets: ["GraniteStorage"]),
        .library(name: "GraniteSQL", targets: ["GraniteSQL"]),
        .library(name: "Granite", targets: ["Granite"]),
        .executable(name: "granite", targets: ["granite"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation --target Granite` builds the DocC catalog (a plugin only: nothing of
        // it is linked into any product).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CSQLiteOracle",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // Atomic loads and stores on memory shared between processes (the `-shm` index): our own C, no dependency.
        .target(name: "CGraniteAtomics"),
        .target(
            name: "GraniteStorage",
            dependencies: ["CZlib", "CGraniteAtomics"]
        ),
        .target(name: "GraniteSQL", dependencies: ["GraniteStorage"]),
        .target(name: "Granite", dependencies: ["GraniteSQL", "GraniteStorage"]),
        // The folder is not `Sources/granite`: on a case-insensitive file system that is `Sources/Granite`.
        .executableTarget(
            name: "granite",
            dependencies: [
                "GraniteStorage",
                "GraniteSQL",
                "Granite",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Sources/GraniteCLI"
        ),
        // What the test suites share: temporary directories and database paths, the seed policy,
        // the SQL recorder, the integrity check.
        .target(
            name: "GraniteTestSupport",
            dependencies: ["Granite", "GraniteStorage"],
            path: "Tests/GraniteTestSupport"
        ),
        .testTarget(
            name: "GraniteStorageTests",
            dependencies: ["GraniteStorage", "CZlib", "GraniteTestSupport"]
        ),
        .testTarget(name: "GraniteSQLTests", dependencies: ["GraniteSQL", "GraniteStorage", "GraniteTestSupport"]),
        .testTarget(
            name: "GraniteTests",
            // The `granite` binary plays the other process of the cross-process pool tests.
            dependencies: ["Granite", "GraniteSQL", "GraniteStorage", "GraniteTestSupport", "granite"]
        ),
        // GRDB-style client code compiled in Swift 5 language mode, as many apps still are.
        .testTarget(
            name: "GraniteSwift5Tests",
            dependencies: ["Granite"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(
            name: "GraniteSQLSemanticsTests",
            dependencies: ["GraniteSQL", "GraniteStorage", "CSQLiteOracle", "GraniteTestSupport"]
        ),
        .testTarget(
            name: "GraniteCLITests",
            dependencies: ["granite", "GraniteStorage", "GraniteTestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
