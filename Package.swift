// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "DBBBuilder",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "DBBSQL", targets: ["DBBSQL"]),
        .library(name: "DBBBuilder", targets: ["DBBBuilder"]),
        .executable(name: "dbb-demo", targets: ["dbb-demo"]),
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
        .target(name: "DBBBuilder", dependencies: ["DBBSQL"], path: "Modules/DBBBuilder"),
        .executableTarget(name: "dbb-demo", dependencies: ["DBBBuilder"], path: "Tools/dbb-demo"),
        .testTarget(name: "DBBSQLTests", dependencies: ["DBBSQL"], path: "Tests/DBBSQLTests"),
    ],
    swiftLanguageModes: [.v6]
)
