// swift-tools-version: 6.1
import PackageDescription

// Benchmarks comparing Granite's storage layer and SQL layer with SQLite's C API.
// Kept in its own package so the root package never links SQLite.
let package = Package(
    name: "GraniteBenchmarks",
    dependencies: [
        .package(name: "Granite", path: "..")
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "granite-bench",
            dependencies: [
                "CSQLite",
                .product(name: "GraniteStorage", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
