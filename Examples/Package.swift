// swift-tools-version:6.1
import PackageDescription

// An example server on DBBBuilder: a package of its own, so that users of the library never build Hummingbird.
let package = Package(
    name: "DBBExamples",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "library-server", targets: ["library-server"])
    ],
    dependencies: [
        // The library, from this repository.
        .package(name: "DBBBuilder", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        // Already in the graph through Hummingbird: named for its `IOError`, which says a port is in use.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
    ],
    targets: [
        // The application: models, routes, configuration; the executable only reads the environment and runs it.
        .target(
            name: "LibraryServer",
            dependencies: [
                .product(name: "DBBBuilder", package: "DBBBuilder"),
                .product(name: "DBBPostgres", package: "DBBBuilder"),
                .product(name: "DBBServiceLifecycle", package: "DBBBuilder"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .executableTarget(name: "library-server", dependencies: ["LibraryServer"]),
        .testTarget(
            name: "LibraryServerTests",
            dependencies: [
                "LibraryServer",
                // Built for the tests that run the server as a process and stop it with a signal.
                "library-server",
                .product(name: "DBBBuilder", package: "DBBBuilder"),
                .product(name: "DBBPostgres", package: "DBBBuilder"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
