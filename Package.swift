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
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0")
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
        .target(
            name: "GraniteStorage",
            dependencies: ["CZlib"]
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
        .testTarget(
            name: "GraniteStorageTests",
            dependencies: ["GraniteStorage"]
        ),
        .testTarget(name: "GraniteSQLTests", dependencies: ["GraniteSQL"]),
        .testTarget(name: "GraniteTests", dependencies: ["Granite"]),
        // GRDB-style client code compiled in Swift 5 language mode, as many apps still are.
        .testTarget(
            name: "GraniteSwift5Tests",
            dependencies: ["Granite"],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .testTarget(name: "GraniteSQLSemanticsTests", dependencies: ["GraniteSQL", "CSQLiteOracle"]),
        .testTarget(
            name: "GraniteCLITests",
            dependencies: ["granite", "GraniteStorage"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
