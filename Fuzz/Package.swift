// swift-tools-version: 6.1
import PackageDescription

// In-process, coverage-guided libFuzzer fuzzers for Granite: SQL text against a fresh in-memory database, and
// damaged database file images. Kept in its own package so the root package never needs libFuzzer.
// Build and run them with Fuzz/run.sh (which passes -sanitize=fuzzer,address).
let package = Package(
    name: "GraniteFuzz",
    dependencies: [
        .package(name: "Granite", path: "..")
    ],
    targets: [
        // The prototype of libFuzzer's LLVMFuzzerRunDriver (the library itself comes with -sanitize=fuzzer).
        .systemLibrary(name: "CLibFuzzer"),
        // The driver loop and the pieces both fuzzers share.
        .target(
            name: "FuzzSupport",
            dependencies: [
                "CLibFuzzer",
                .product(name: "GraniteStorage", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
            ]
        ),
        .executableTarget(
            name: "FuzzSQL",
            dependencies: [
                "FuzzSupport",
                .product(name: "GraniteStorage", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
            ]
        ),
        .executableTarget(
            name: "FuzzFile",
            dependencies: [
                "FuzzSupport",
                .product(name: "GraniteStorage", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
