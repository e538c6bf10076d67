// swift-tools-version: 6.1
import PackageDescription

// An app outside the Granite package that imports all three library modules at once, as an embedder that
// uses both the GRDB-style API and the SQL layer would. It compiles only while GraniteSQL and GraniteStorage keep
// their implementation types (`Statement`, `SQLExpression`, `TableDefinition`, …) out of their public surface:
// otherwise Granite's names of the same spelling become ambiguous. Built (never run) by `.ci/run`.
let package = Package(
    name: "EmbedderCheck",
    dependencies: [
        .package(name: "Granite", path: "../..")
    ],
    targets: [
        .executableTarget(
            name: "EmbedderCheck",
            dependencies: [
                .product(name: "Granite", package: "Granite"),
                .product(name: "GraniteSQL", package: "Granite"),
                .product(name: "GraniteStorage", package: "Granite"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
