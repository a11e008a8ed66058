// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DBBBuilder",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DBBSQL", targets: ["DBBSQL"]),
        .library(name: "DBBExport", targets: ["DBBExport"]),
        .library(name: "DBBBuilder", targets: ["DBBBuilder"]),
        .executable(name: "dbb-demo", targets: ["dbb-demo"]),
        .executable(name: "dbb-backup", targets: ["dbb-backup"]),
    ],
    dependencies: [
        // Only the command-line tools use it; the library targets depend on sqlite3 and zlib alone.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
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
        .target(name: "DBBExport", dependencies: ["DBBSQL", "CZlib"], path: "Modules/DBBExport"),
        .target(name: "DBBBuilder", dependencies: ["DBBSQL", "DBBExport"], path: "Modules/DBBBuilder"),
        .executableTarget(name: "dbb-demo", dependencies: ["DBBBuilder"], path: "Tools/dbb-demo"),
        .executableTarget(
            name: "dbb-backup",
            dependencies: ["DBBExport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Tools/dbb-backup"
        ),
        .testTarget(name: "DBBSQLTests", dependencies: ["DBBSQL"], path: "Tests/DBBSQLTests"),
        .testTarget(
            name: "DBBExportTests",
            dependencies: ["DBBExport", "DBBSQL", "dbb-backup"],
            path: "Tests/DBBExportTests"
        ),
    ],
    swiftLanguageModes: [.v6]
)
