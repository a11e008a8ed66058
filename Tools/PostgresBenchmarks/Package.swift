// swift-tools-version:6.1
// The PostgreSQL benchmarks live in a package of their own, beside Tools/Benchmarks, so that users of the library
// never build them, nor Fluent, the library they are compared with on PostgreSQL.
// Run: swift run -c release --package-path Tools/PostgresBenchmarks dbb-postgres-benchmarks [workload …] [--json PATH]
import PackageDescription

let package = Package(
    name: "DBBPostgresBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "DBBBuilder", path: "../.."),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/fluent-kit", exact: "1.57.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", exact: "2.14.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
    ],
    targets: [
        .executableTarget(
            name: "dbb-postgres-benchmarks",
            dependencies: [
                .product(name: "DBBBuilder", package: "DBBBuilder"),
                .product(name: "DBBPostgres", package: "DBBBuilder"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "FluentKit", package: "fluent-kit"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/dbb-postgres-benchmarks"
        )
    ],
    swiftLanguageModes: [.v6]
)
