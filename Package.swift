// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DBBBuilder",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DBBSQL", targets: ["DBBSQL"]),
        .library(name: "DBBSchema", targets: ["DBBSchema"]),
        .library(name: "DBBQuery", targets: ["DBBQuery"]),
        .library(name: "DBBObjects", targets: ["DBBObjects"]),
        .library(name: "DBBBuilder", targets: ["DBBBuilder"]),
        .executable(name: "dbb-demo", targets: ["dbb-demo"]),
        .executable(name: "dbb-codegen", targets: ["dbb-codegen"]),
    ],
    dependencies: [
        // The tools' command-line interfaces only; library targets stay dependency-free.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Documentation only: `swift package generate-documentation`.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLite",
            path: "Modules/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "Modules/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        .target(name: "DBBSQL", dependencies: ["CSQLite"], path: "Modules/DBBSQL"),
        .target(name: "DBBSchema", dependencies: ["DBBSQL"], path: "Modules/DBBSchema"),
        .target(name: "DBBQuery", dependencies: ["DBBSchema"], path: "Modules/DBBQuery"),
        .target(name: "DBBObjects", dependencies: ["DBBQuery"], path: "Modules/DBBObjects"),
        .target(name: "DBBBuilder", dependencies: ["DBBSQL", "DBBSchema", "DBBQuery", "DBBObjects"], path: "Modules/DBBBuilder"),
        .executableTarget(name: "dbb-demo", dependencies: ["DBBBuilder"], path: "Tools/dbb-demo"),
        .executableTarget(
            name: "dbb-codegen",
            dependencies: ["DBBSQL", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/dbb-codegen"
        ),
        .testTarget(name: "DBBSQLTests", dependencies: ["DBBSQL"], path: "Tests/DBBSQLTests"),
        .testTarget(name: "DBBSchemaTests", dependencies: ["DBBSchema"], path: "Tests/DBBSchemaTests"),
        .testTarget(name: "DBBQueryTests", dependencies: ["DBBQuery"], path: "Tests/DBBQueryTests"),
        .target(name: "DBBTestSupport", path: "Tests/DBBTestSupport"),
        .testTarget(name: "DBBObjectsTests", dependencies: ["DBBObjects", "DBBTestSupport"], path: "Tests/DBBObjectsTests"),
        .testTarget(name: "DBBBuilderTests", dependencies: ["DBBBuilder", "DBBTestSupport"], path: "Tests/DBBBuilderTests"),
        .testTarget(
            name: "DBBCodegenTests", dependencies: ["DBBBuilder", "dbb-codegen"], path: "Tests/DBBCodegenTests"),
    ],
    swiftLanguageModes: [.v6]
)
