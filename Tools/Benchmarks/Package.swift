// swift-tools-version:6.0
// Benchmarks live in their own package so that users of the library never build them.
// Run: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …]
import PackageDescription

let package = Package(
    name: "DBBBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "DBBBuilder", path: "../..")],
    targets: [
        .executableTarget(
            name: "dbb-benchmarks",
            dependencies: [.product(name: "DBBBuilder", package: "DBBBuilder")],
            path: "Sources/dbb-benchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)
