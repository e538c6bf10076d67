// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Granite",
    products: [
        .library(name: "GraniteStorage", targets: ["GraniteStorage"]),
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
        .target(
            name: "GraniteStorage",
            dependencies: ["CZlib"]
        ),
        .executableTarget(
            name: "granite",
            dependencies: [
                "GraniteStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "GraniteStorageTests",
            dependencies: ["GraniteStorage"]
        ),
        .testTarget(
            name: "GraniteCLITests",
            dependencies: ["granite", "GraniteStorage"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
