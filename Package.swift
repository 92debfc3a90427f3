// swift-tools-version:6.0
import PackageDescription

/// Strict settings shared by every Swift target.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
]

let package = Package(
    name: "PassServer",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "pass-server", targets: ["pass-server"]),
        .executable(name: "fake-apns", targets: ["fake-apns"]),
        .executable(name: "fleet", targets: ["fleet-cli"]),
        .executable(name: "pass-server-bench", targets: ["pass-server-bench"]),
        .library(name: "PassBundle", targets: ["PassBundle"]),
    ],
    targets: [
        // MARK: C libraries (Debian -dev packages)
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CZip", pkgConfig: "libzip", providers: [.apt(["libzip-dev"])]),
        // zlib's crc32 for the per-pass entries of a bundle (libzip links zlib already).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CNGHTTP2", pkgConfig: "libnghttp2", providers: [.apt(["libnghttp2-dev"])]),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        .systemLibrary(name: "CZbar", pkgConfig: "zbar", providers: [.apt(["libzbar-dev"])]),
        // glibc's posix_spawn extensions (part of libc: nothing to install).
        .systemLibrary(name: "CSpawn"),

        // MARK: Feature libraries
        .target(name: "Logging", swiftSettings: swiftSettings),
        // Below every feature library: threads (worker loop, I/O thread, wake pipe), time (monotonic
        // clock, backoff, Duration conversions, ISO 8601 dates), child processes and the command-line
        // option reader.
        .target(name: "SystemSupport", dependencies: ["Logging", "CSpawn"], swiftSettings: swiftSettings),
        .target(name: "ByteEncoding", swiftSettings: swiftSettings),
        .target(name: "PassIdentifiers", swiftSettings: swiftSettings),
        .target(name: "Certificates", dependencies: ["COpenSSL"], swiftSettings: swiftSettings),
        .target(name: "HTTPServer", dependencies: ["ByteEncoding", "CMicroHTTPD", "Logging", "SystemSupport"], swiftSettings: swiftSettings),
        .target(name: "PassBundle", dependencies: ["ByteEncoding", "Certificates", "SystemSupport", "CZip", "CZlib"], swiftSettings: swiftSettings),
        .target(name: "APNs", dependencies: ["PassIdentifiers", "Certificates", "SystemSupport", "CNGHTTP2", "COpenSSL", "Logging"], swiftSettings: swiftSettings),
        .target(name: "Storage", dependencies: ["ByteEncoding", "PassIdentifiers", "SystemSupport", "CPostgres", "CSQLite", "Logging"], swiftSettings: swiftSettings),
        .target(name: "Mail", dependencies: ["ByteEncoding", "Certificates", "SystemSupport", "CCurl"], swiftSettings: swiftSettings),
        .target(name: "HTTPClient", dependencies: ["SystemSupport", "CCurl"], swiftSettings: swiftSettings),
        .target(name: "GoogleWallet", dependencies: ["ByteEncoding", "Certificates", "COpenSSL", "HTTPClient"], swiftSettings: swiftSettings),
        .target(name: "PassImages", dependencies: ["ByteEncoding", "Certificates", "CVips", "CZbar", "PassBundle"], swiftSettings: swiftSettings),

        // MARK: The application
        .target(
            name: "PassServer",
            dependencies: [
                "ByteEncoding", "PassIdentifiers", "Logging", "SystemSupport", "Certificates", "HTTPServer", "PassBundle", "PassImages", "APNs", "Storage", "Mail", "GoogleWallet",
                "HTTPClient", "CQRencode",
            ],
            // The pages' stylesheet and scripts, compiled into the server (served by WebAssets).
            resources: [.embedInCode("Web/Assets/site.css"), .embedInCode("Web/Assets/dashboard.js"), .embedInCode("Web/Assets/scanner.js"),
                .embedInCode("Web/Assets/design.js")],
            swiftSettings: swiftSettings
        ),
        // The command tree of `pass-server`, apart from the library the server and its tests link.
        .target(
            name: "PassServerCLI",
            dependencies: ["PassServer", "Logging", "SystemSupport", "Certificates", "PassBundle", "Storage"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "pass-server", dependencies: ["PassServerCLI"], swiftSettings: swiftSettings),

        // MARK: Benchmarks (linked only by `pass-server-bench`, never by the server)
        .target(
            name: "Benchmarks",
            dependencies: [
                "PassServerCLI", "PassServer", "PassIdentifiers", "APNs", "Storage", "PassBundle", "PassImages", "Certificates", "Logging",
                "SystemSupport", "CVips", "FakeAPNs", "PassServerTesting",
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "pass-server-bench", dependencies: ["Benchmarks"], swiftSettings: swiftSettings),

        // MARK: Tools (shipped: no test framework, no storage)
        // A local stand-in for Apple's push service: the `fake-apns` program, the fleet and the tests.
        .target(
            name: "FakeAPNs",
            dependencies: ["PassIdentifiers", "APNs", "Certificates", "SystemSupport", "Logging"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "fake-apns", dependencies: ["FakeAPNs", "SystemSupport", "Logging"], swiftSettings: swiftSettings),
        .target(
            name: "Fleet",
            dependencies: ["ByteEncoding", "FakeAPNs", "SystemSupport", "HTTPServer", "PassBundle", "Certificates", "CZip"],
            swiftSettings: swiftSettings
        ),
        // Named apart from the `Fleet` library so their modules differ on case-insensitive file systems.
        .executableTarget(name: "fleet-cli", dependencies: ["Fleet", "FakeAPNs", "SystemSupport"], swiftSettings: swiftSettings),

        // MARK: Test support (linked by test targets and the benchmarks only)
        .target(
            name: "PassServerTesting",
            dependencies: [
                "ByteEncoding", "PassIdentifiers", "Certificates", "COpenSSL", "CQRencode", "HTTPServer", "Logging", "Storage", "SystemSupport",
                "APNs", "FakeAPNs",
            ],
            swiftSettings: swiftSettings
        ),
        // The application's fixtures, for the test targets that run it (PassServerTests,
        // PassServerCLITests, FleetTests): a running `Application` on a fresh database, the built
        // server as a process, the rows and archives they read. Linked by test targets only.
        .target(
            name: "PassServerFixtures",
            dependencies: ["PassServer", "PassServerCLI", "PassServerTesting", "FakeAPNs", "Storage", "PassIdentifiers", "ByteEncoding", "Logging", "SystemSupport"],
            swiftSettings: swiftSettings
        ),

        // MARK: Tests
        .testTarget(name: "SystemSupportTests", dependencies: ["SystemSupport", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "PassIdentifiersTests", dependencies: ["PassIdentifiers"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "HTTPServer", "Logging", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "GoogleWalletTests", dependencies: ["GoogleWallet", "HTTPClient", "ByteEncoding", "Certificates", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "ByteEncodingTests", dependencies: ["ByteEncoding"], swiftSettings: swiftSettings),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer", "Logging", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "ByteEncoding", "Certificates", "PassIdentifiers", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "PassBundleTests",
            // CZip: the tests write hostile archives (links, `..` paths) that no honest tool makes.
            dependencies: ["PassBundle", "Certificates", "SystemSupport", "PassServerTesting", "CZip"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "CertificatesTests", dependencies: ["ByteEncoding", "Certificates", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "PassServerTestingTests", dependencies: ["PassIdentifiers", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "MailTests", dependencies: ["Mail", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "PassImagesTests", dependencies: ["PassImages", "PassBundle", "CVips", "ByteEncoding", "Certificates", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(name: "APNsTests", dependencies: ["APNs", "Certificates", "PassIdentifiers", "SystemSupport", "FakeAPNs", "PassServerTesting"], swiftSettings: swiftSettings),
        .testTarget(
            name: "FakeAPNsTests",
            dependencies: ["FakeAPNs", "APNs", "Certificates", "Logging", "PassIdentifiers", "SystemSupport", "PassServerTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "FleetTests",
            // The fleet against the real server: in process (PassServer) and as the built program.
            dependencies: ["Fleet", "FakeAPNs", "SystemSupport", "HTTPServer", "PassBundle", "Certificates", "PassServer", "Storage", "PassServerTesting",
                "PassServerFixtures",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PassServerCLITests",
            dependencies: ["PassServerCLI", "PassServer", "Storage", "SystemSupport", "PassServerTesting", "PassServerFixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "BenchmarksTests",
            dependencies: ["Benchmarks", "PassServerCLI", "APNs", "Storage", "SystemSupport", "FakeAPNs", "PassServerTesting"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "PassServerTests",
            dependencies: ["ByteEncoding", "PassServer", "PassIdentifiers", "PassServerCLI", "PassServerTesting", "PassServerFixtures", "HTTPServer", "Storage", "PassBundle", "APNs",
                "Certificates", "Fleet", "GoogleWallet", "SystemSupport", "FakeAPNs",
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
