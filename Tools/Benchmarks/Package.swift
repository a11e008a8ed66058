// swift-tools-version:6.0
// Benchmarks live in their own package so that users of the library never build them (nor GRDB, the
// other library they are compared with).
// Run: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …] [--json PATH]
import PackageDescription

let package = Package(
    name: "DBBBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "DBBBuilder", path: "../.."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "dbb-benchmarks",
            dependencies: [
                .product(name: "DBBBuilder", package: "DBBBuilder"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Sources/dbb-benchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)
