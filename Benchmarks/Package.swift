// swift-tools-version: 6.1
import PackageDescription

// Benchmarks comparing Granite's storage layer and SQL layer with SQLite's C API.
// Kept in its own package so the root package never links SQLite.
let package = Package(
    name: "GraniteBenchmarks",
    dependencies: [
        .package(name: "Granite", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The row workloads: one source file, compiled against Granite and against GRDB.
        .target(
            name: "RowWorkloadsGranite",
            dependencies: [.product(name: "Granite", package: "Granite")],
            swiftSettings: [.define("GRANITE")]
        ),
        .target(
            name: "RowWorkloadsGRDB",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        ),
        // The record workloads: one source file, compiled against Granite and against GRDB.
        .target(
            name: "RecordWorkloadsGranite",
            dependencies: [.product(name: "Granite", package: "Granite")],
            swiftSettings: [.define("GRANITE")]
        ),
        .target(
            name: "RecordWorkloadsGRDB",
            dependencies: [.product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "granite-bench",
            dependencies: [
                "CSQLite",
                "RowWorkloadsGranite",
                "RowWorkloadsGRDB",
                "RecordWorkloadsGranite",
                "RecordWorkloadsGRDB",
                .product(name: "GraniteStorage", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
