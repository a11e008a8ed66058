// swift-tools-version:6.1
import CompilerPluginSupport
import PackageDescription

let argumentParser = Target.Dependency.product(name: "ArgumentParser", package: "swift-argument-parser")

// The library's modules: every import states its access level (`public import` only where a public or
// inlinable declaration exposes the module, internal otherwise), and a file uses the members of the modules
// it imports itself, so each file's imports show what it uses. Only the umbrella re-exports modules.
let libraryModuleSettings: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "DBBBuilder",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "DBBSQL", targets: ["DBBSQL"]),
        .library(name: "DBBSchema", targets: ["DBBSchema"]),
        .library(name: "DBBQuery", targets: ["DBBQuery"]),
        .library(name: "DBBObjects", targets: ["DBBObjects"]),
        .library(name: "DBBExport", targets: ["DBBExport"]),
        .library(name: "DBBMacros", targets: ["DBBMacros"]),
        .library(name: "DBBBuilder", targets: ["DBBBuilder"]),
        .library(name: "DBBPostgres", targets: ["DBBPostgres"]),
        .library(name: "DBBServiceLifecycle", targets: ["DBBServiceLifecycle"]),
        .executable(name: "dbb-demo", targets: ["dbb-demo"]),
        .executable(name: "dbb-backup", targets: ["dbb-backup"]),
        .executable(name: "dbb-codegen", targets: ["dbb-codegen"]),
        .executable(name: "dbb-generate", targets: ["dbb-generate"]),
        .plugin(name: "DBBGenerate", targets: ["DBBGenerate"]),
    ],
    traits: [
        // On by default. A client that declares `traits: []` on this package gets the umbrella without the macro,
        // and so builds no swift-syntax: its classes come from `dbb-generate` (the macro-free path).
        .trait(
            name: "DBBTableMacro",
            description: "The @DBBTable macro in the umbrella DBBBuilder; its compiler plugin builds swift-syntax."),
        .default(enabledTraits: ["DBBTableMacro"]),
    ],
    dependencies: [
        // The tools' command-line interfaces only; the library targets depend on sqlite3 and zlib alone.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The `@DBBTable` macro's compiler plugin (DBBMacrosPlugin) and `dbb-generate`, which expands the macro ahead
        // of the build; no library target links it.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // Documentation only: `swift package generate-documentation` (Scripts/check-docs.sh).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The PostgreSQL plugin only (DBBPostgres). SwiftPM builds the targets of the products a client uses,
        // so a client of DBBBuilder, DBBSQL or the tools never compiles postgres-nio or SwiftNIO.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // postgres-nio's own dependencies that DBBPostgres imports itself: its event loops, TLS and logger.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.25.0"),
        // Logging (DBBSQL's statement log, and DBBPostgres's logger) and metrics (DBBSQL, DBBObjects): the server
        // ecosystem's own API packages, with no dependencies of their own; nothing is logged or recorded until the
        // application asks for it.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        // Spans of object operations and transactions (DBBObjects); with swift-service-context, its only dependency.
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        // DBBServiceLifecycle only (it also pulls swift-async-algorithms): a client of the other modules never
        // compiles it.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
    ],
    targets: [
        // System libraries, found through pkg-config.
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

        // The library: CSQLite ← DBBSQL ← DBBSchema ← DBBQuery ← DBBObjects; CZlib, DBBSQL ← DBBExport.
        .target(
            name: "DBBSQL",
            dependencies: [
                "CSQLite", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            path: "Modules/DBBSQL", swiftSettings: libraryModuleSettings),
        .target(
            name: "DBBSchema", dependencies: ["DBBSQL"], path: "Modules/DBBSchema", swiftSettings: libraryModuleSettings
        ),
        .target(
            name: "DBBQuery", dependencies: ["DBBSQL", "DBBSchema"], path: "Modules/DBBQuery",
            swiftSettings: libraryModuleSettings),
        .target(
            name: "DBBObjects",
            dependencies: [
                "DBBSQL", "DBBSchema", "DBBQuery", .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Modules/DBBObjects", swiftSettings: libraryModuleSettings),
        .target(
            name: "DBBExport", dependencies: ["DBBSQL", "CZlib"], path: "Modules/DBBExport",
            swiftSettings: libraryModuleSettings),
        // DBBObjects ← DBBMacros (the macro declarations) ← DBBMacrosPlugin (the compiler plugin, on swift-syntax),
        // whose expansions live in DBBMacrosImplementation, which dbb-generate runs too. SwiftCompilerPlugin needs
        // SwiftSyntaxMacros, SwiftSyntaxMacroExpansion, SwiftParser, SwiftOperators and SwiftSyntaxBuilder itself:
        // no product of swift-syntax can be left out of the plugin.
        .target(
            name: "DBBMacrosImplementation",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
            ],
            path: "Modules/DBBMacrosImplementation"),
        .macro(
            name: "DBBMacrosPlugin",
            dependencies: [
                "DBBMacrosImplementation", .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
            ],
            path: "Modules/DBBMacrosPlugin"
        ),
        .target(
            name: "DBBMacros", dependencies: ["DBBSchema", "DBBObjects", "DBBMacrosPlugin"], path: "Modules/DBBMacros",
            swiftSettings: libraryModuleSettings),
        .target(
            name: "DBBBuilder",
            dependencies: [
                "DBBSQL", "DBBSchema", "DBBQuery", "DBBObjects", "DBBExport",
                .target(name: "DBBMacros", condition: .when(traits: ["DBBTableMacro"])),
            ],
            path: "Modules/DBBBuilder", swiftSettings: libraryModuleSettings
        ),
        // The PostgreSQL plugin: DBBSQL, DBBSchema, DBBObjects, DBBExport ← DBBPostgres (postgres-nio). Not part
        // of the umbrella: the object layer runs on it through the engine seam DBBObjects declares, and the
        // restore of dumps into PostgreSQL reads them with DBBExport's streaming reader.
        .target(
            name: "DBBPostgres",
            dependencies: [
                "DBBSQL", "DBBSchema", "DBBObjects", "DBBExport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"), .product(name: "Logging", package: "swift-log"),
            ],
            path: "Modules/DBBPostgres", swiftSettings: libraryModuleSettings),
        // A manager as a swift-service-lifecycle `Service`: DBBObjects ← DBBServiceLifecycle. A module of its own, so
        // that only its users build swift-service-lifecycle and swift-async-algorithms.
        .target(
            name: "DBBServiceLifecycle",
            dependencies: ["DBBObjects", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            path: "Modules/DBBServiceLifecycle", swiftSettings: libraryModuleSettings),

        // The tools.
        .executableTarget(name: "dbb-demo", dependencies: ["DBBBuilder", argumentParser], path: "Tools/dbb-demo"),
        // dbb-backup restores into PostgreSQL too: the tool links DBBPostgres, the DBBExport library does not.
        .executableTarget(
            name: "dbb-backup", dependencies: ["DBBExport", "DBBPostgres", argumentParser], path: "Tools/dbb-backup"),
        .executableTarget(
            name: "dbb-codegen", dependencies: ["DBBSQL", "DBBSchema", argumentParser], path: "Tools/dbb-codegen"),
        // The macro-free path: dbb-generate expands a model file's `@DBBTable` classes with the macro's own code, and
        // `swift package dbb-generate` runs it over a package's `*.dbbmodel` files. Only that command builds
        // swift-syntax; the package's `swift build` compiles the generated files with DBBObjects alone.
        .executableTarget(
            name: "dbb-generate",
            dependencies: [
                "DBBMacrosImplementation", argumentParser, .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
                .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ],
            path: "Tools/dbb-generate"),
        .plugin(
            name: "DBBGenerate",
            capability: .command(
                intent: .custom(
                    verb: "dbb-generate",
                    description: "Expand the @DBBTable classes of *.dbbmodel files into Swift that needs no macro"),
                permissions: [
                    .writeToPackageDirectory(reason: "writes each model's .generated.swift beside its .dbbmodel file")
                ]),
            dependencies: ["dbb-generate"], path: "Plugins/DBBGenerate"),

        // Tests: each module's own, importing only that module and the ones below it, and the shared support
        // (DBBTestSupport, Foundation only: temporary folders, fixtures, tool processes, doc checks).
        .target(name: "DBBTestSupport", path: "Tests/DBBTestSupport"),
        // A child process the crash tests kill at random points, and start twice at once on a new file.
        .executableTarget(name: "dbb-crash-child", dependencies: ["DBBObjects"], path: "Tests/DBBCrashChild"),
        .testTarget(
            name: "DBBSQLTests",
            dependencies: [
                "DBBSQL", "DBBTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ],
            path: "Tests/DBBSQLTests"),
        .testTarget(name: "DBBSchemaTests", dependencies: ["DBBSQL", "DBBSchema"], path: "Tests/DBBSchemaTests"),
        .testTarget(
            name: "DBBQueryTests", dependencies: ["DBBSQL", "DBBSchema", "DBBQuery"], path: "Tests/DBBQueryTests"),
        .testTarget(
            name: "DBBObjectsTests",
            dependencies: [
                "DBBObjects", "DBBTestSupport", "dbb-crash-child",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ],
            path: "Tests/DBBObjectsTests"),
        .testTarget(
            name: "DBBServiceLifecycleTests",
            dependencies: [
                "DBBServiceLifecycle", "DBBObjects", "DBBTestSupport", .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Tests/DBBServiceLifecycleTests"),
        .testTarget(
            name: "DBBMacrosTests",
            dependencies: [
                "DBBObjects", "DBBMacros", "DBBMacrosImplementation", "DBBTestSupport",
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            ],
            path: "Tests/DBBMacrosTests"),
        .testTarget(
            name: "DBBExportTests", dependencies: ["DBBExport", "DBBSQL", "DBBTestSupport", "dbb-backup"],
            path: "Tests/DBBExportTests"),
        .testTarget(name: "DBBExportImportTests", dependencies: ["DBBExport"], path: "Tests/DBBExportImportTests"),
        .testTarget(
            name: "DBBBuilderTests", dependencies: ["DBBBuilder", "DBBTestSupport", "dbb-demo"],
            path: "Tests/DBBBuilderTests"),
        // The generated classes of each database compile in a target of their own (Chinook's and Sakila's
        // both have a `Customer`), checked against SQLite by one shared check.
        .target(
            name: "DBBCodegenTestSupport", dependencies: ["DBBBuilder", "DBBTestSupport"],
            path: "Tests/DBBCodegenTestSupport"),
        .testTarget(
            name: "DBBCodegenTests", dependencies: ["DBBBuilder", "DBBCodegenTestSupport", "dbb-codegen"],
            path: "Tests/DBBCodegenTests"),
        .testTarget(
            name: "DBBCodegenSakilaTests", dependencies: ["DBBBuilder", "DBBCodegenTestSupport", "dbb-codegen"],
            path: "Tests/DBBCodegenSakilaTests"),
        // The macro-free path: the generated file of a model compiles here with DBBObjects alone (no DBBMacros).
        .testTarget(
            name: "DBBGenerateTests",
            dependencies: ["DBBObjects", "DBBQuery", "DBBTestSupport", "dbb-generate"], path: "Tests/DBBGenerateTests",
            exclude: ["Library.dbbmodel"]),
        // Against a throwaway server the tests start (initdb, pg_ctl), or the one `DBB_POSTGRES_URL` names.
        .testTarget(
            name: "DBBPostgresTests",
            dependencies: [
                "DBBPostgres", "DBBBuilder", "DBBSQL", "DBBExport", "DBBTestSupport", "dbb-backup",
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Tests/DBBPostgresTests"),
    ],
    swiftLanguageModes: [.v6]
)
