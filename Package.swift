// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Pantry",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "pantry", targets: ["pantry"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The executable's configuration: flags, PANTRY_* variables and a JSON file, read once.
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0"),
    ],
    targets: [
        // A small, fast JSON object writer for the hot paths.
        .target(name: "PantryJSON"),
        // The thread of a service whose loop blocks (a ZeroMQ socket's, the checkpointer's), started
        // from the service's run() and stopped by its group: the one way from async code to such a thread.
        .target(name: "PantryThreads", dependencies: [.product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]),
        // The seeded generator (SplitMix64) of the load test, the catalog's shuffles and the tests.
        .target(name: "PantryRandom"),
        // Commands, events and the rules between them. Pure: no I/O, no clock, no database.
        .target(name: "PantryDomain", dependencies: ["PantryJSON"]),
        // What every reader of the log needs: `RecordedEvent`, its JSON document, and the
        // `EventLogReader` protocol the SQLite file, PostgreSQL and the log service all answer.
        .target(name: "PantryLog", dependencies: ["PantryJSON"]),
        // The wire contract between the processes: command outcomes, feed frames, log reads, queries
        // and their answers, fetch requests and results. Types only, no runtime.
        .target(name: "PantryWire", dependencies: ["PantryJSON", "PantryDomain", "PantryLog"]),
        // In-memory structures with a fixed bound: token buckets per key (the API's log-in limits,
        // the fetch worker's client budgets) and a generational LRU (answers kept for reuse).
        .target(name: "PantryBounded"),
        // Files replaced whole and durably (write, sync, rename, sync the directory): the snapshots.
        .target(name: "PantryFiles", dependencies: [
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
        ]),
        // The durable event log (SQLite through GRDB), behind the `EventStore` protocol.
        .target(
            name: "PantryEventStore",
            dependencies: [
                "PantryDomain",
                "PantryJSON",
                "PantryLog",
                "PantryThreads",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The log in PostgreSQL (`PANTRY_LOG=postgres://...`), the same `EventStore` as the SQLite file.
        .target(
            name: "PantryPostgresLog",
            dependencies: [
                "PantryDomain",
                "PantryEventStore",
                "PantryLog",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The users' keys, sealing the personal fields of their events (crypto-shredding).
        .target(
            name: "PantryKeys",
            dependencies: [
                "PantryDomain",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The single writer (decide, group commit, idempotency) and its servers beside it: the
        // command socket and feed (`CoreServer`) and the log service (`LogServer`).
        .target(
            name: "PantryCore",
            dependencies: [
                "PantryDomain",
                "PantryFiles",
                "PantryJSON",
                "PantryLog",
                "PantryWire",
                "PantryEventStore",
                "PantryKeys",
                "PantryBus",
                "PantryThreads",
                "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // ZeroMQ between the processes, client side: the command and request clients, the feed
        // follower, the log service's client. Neither the writer nor a store.
        .target(
            name: "PantryBus",
            dependencies: [
                "PantryDomain",
                "PantryJSON",
                "PantryLog",
                "PantryWire",
                "PantryThreads",
                "ZeroMQ",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The points leaderboard in memory (`LeaderboardStandings`), kept by the API from its feed:
        // pure, so that the API links neither GRDB nor the projections.
        .target(name: "PantryStandings", dependencies: ["PantryDomain"]),
        // Read models built from the log by the worker processes (one SQLite file each).
        .target(
            name: "PantryProjections",
            dependencies: [
                "PantryDomain",
                "PantryStandings",
                "PantryFiles",
                "PantryLog",
                "PantryEventStore",
                "PantryKeys",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "PantryProjectionsTests",
            dependencies: [
                "PantryProjections", "PantryStandings", "PantryDomain", "PantryLog", "PantryWire", "PantryEventStore", "PantryCore", "PantryKeys",
                "PantryRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // The worker processes: a projection kept current from the feed, answering queries.
        .target(
            name: "PantryWorkers",
            dependencies: [
                "PantryBus",
                "PantryDomain",
                "PantryFiles",
                "PantryLog",
                "PantryWire",
                "PantryProjections",
                "PantryThreads",
                "ZeroMQ",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(name: "PantryWorkersTests", dependencies: ["PantryWorkers", "PantryProjections", "PantryWire"]),
        // libcurl, wrapped once: a C shim for the variadic setopt, one thin Swift client over it.
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(name: "Curl", dependencies: ["CCurlShim", "CCurl", .product(name: "NIOPosix", package: "swift-nio")]),
        // Recipe data: providers, the persistent cache, quota and rate limits, the offline catalog.
        .target(
            name: "PantryFetch",
            dependencies: [
                "Curl",
                "PantryDomain",
                "PantryJSON",
                "PantryWire",
                "PantryBounded",
                "PantryRandom",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/catalog.json")]
        ),
        // The API's mail: an outbox in SQLite, written before the request that queues a message is
        // answered, and the loop that sends it to an SMTP server through libcurl (the API links neither).
        .target(
            name: "PantryMail",
            dependencies: [
                "Curl",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The fetch worker's ZeroMQ front.
        .target(
            name: "PantryFetchServer",
            dependencies: ["PantryFetch", "PantryWire", "PantryThreads", "ZeroMQ", .product(name: "Logging", package: "swift-log"), .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")]
        ),
        .testTarget(name: "CurlTests", dependencies: ["Curl", "PantryTestSupport"]),
        .testTarget(name: "PantryMailTests", dependencies: ["PantryMail", "Curl", "PantryTestSupport", .product(name: "Logging", package: "swift-log")]),
        .testTarget(name: "PantryFetchTests", dependencies: ["PantryFetch", "PantryWire", "PantryBounded", "PantryDomain", "Curl", "PantryTestSupport"]),
        // Bearer tokens and the operator's proof, signed with the API's token key.
        .target(name: "PantryTokens", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        .testTarget(name: "PantryFilesTests", dependencies: ["PantryFiles", .product(name: "NIOConcurrencyHelpers", package: "swift-nio")]),
        .testTarget(name: "PantryTokensTests", dependencies: ["PantryTokens", .product(name: "Crypto", package: "swift-crypto")]),
        // The web app and the contract it follows, served as files, and the service worker made from them.
        .target(name: "PantryWeb", dependencies: [.product(name: "Crypto", package: "swift-crypto")], resources: [.copy("Web")]),
        // The API's routes over small ports (`CommandPort`, `QueryPort`, `RecipePort`, `FeedPort`)
        // and what it keeps in memory (accounts, tokens, households, live streams, the leaderboard):
        // `buildRouter(ports)` and `buildApplication`. No ZeroMQ: a test drives it in one process.
        .target(
            name: "PantryHTTP",
            dependencies: [
                "PantryDomain",
                "PantryFiles",
                "PantryJSON",
                "PantryLog",
                "PantryWire",
                "PantryStandings",
                "PantryBounded",
                "PantryTokens",
                "PantryWeb",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The `pantry api` process's wiring: its configuration, the ZeroMQ adapters of the ports
        // (the core's command socket, the workers' queries, the fetch worker, the feed), the services.
        .target(
            name: "PantryAPI",
            dependencies: [
                "PantryHTTP",
                "PantryDomain",
                "PantryLog",
                "PantryWire",
                "PantryBus",
                "PantryBounded",
                "PantryTokens",
                "PantryThreads",
                "ZeroMQ",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(name: "PantryAPITests", dependencies: ["PantryAPI", "PantryHTTP", "PantryWeb", "PantryWire", "PantryBounded", "PantryDomain", "PantryTestSupport", "ZeroMQ",
                                                          .product(name: "Crypto", package: "swift-crypto")]),
        .executableTarget(
            name: "pantry",
            dependencies: [
                "PantryDomain",
                "PantryLog",
                "PantryWire",
                "PantryBounded",
                "PantryEventStore",
                "PantryPostgresLog",
                "PantryKeys",
                "PantryCore",
                "PantryBus",
                "PantryAPI",
                "PantryHTTP",
                "PantryMail",
                "PantryProjections",
                "PantryWorkers",
                "PantryFetch",
                "PantryFetchServer",
                "PantryLoad",
                "PantryTokens",
                "Curl",
                "ZeroMQ",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "pantry-bench",
            dependencies: [
                "PantryDomain",
                "PantryLog",
                "PantryWire",
                "PantryEventStore",
                "PantryKeys",
                "PantryCore",
                "PantryBus",
                "PantryProjections",
                "PantryLoad",
                "ZeroMQ",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // `pantry loadtest`: the seeded workload, the points ledger, the result and its plot.
        .target(
            name: "PantryLoad",
            dependencies: ["Curl", "PantryDomain", "PantryTokens", "PantryRandom", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        .testTarget(
            name: "PantryLoadTests",
            dependencies: ["PantryLoad", "PantryRandom", .product(name: "Histogram", package: "hdrhistogram-swift")]
        ),
        .testTarget(name: "PantryDomainTests", dependencies: ["PantryDomain", "PantryKeys", "PantryRandom", "PantryTestSupport"]),
        .testTarget(name: "PantryKeysTests", dependencies: ["PantryKeys", "PantryDomain", "PantryTestSupport"]),
        .testTarget(name: "PantryJSONTests", dependencies: ["PantryJSON", "PantryRandom"]),
        // What the test suites share: a clock they move, waits on state, the fake upstream, a scratch
        // directory removed at exit. Light, so that CurlTests does not build PostgresNIO.
        .target(name: "PantryTestSupport", dependencies: ["Curl"], path: "Tests/PantryTestSupport"),
        // A whole deployment in the test's process (core, workers, fetch worker, API), over real
        // sockets in a temporary directory: the API's routes tested without processes.
        .target(
            name: "PantryTestRuntime",
            dependencies: ["PantryAPI", "PantryHTTP", "PantryBus", "PantryCore", "PantryEventStore", "PantryFetch", "PantryFetchServer", "PantryKeys", "PantryMail",
                           "PantryLog", "PantryProjections", "PantryTestSupport", "PantryWire", "PantryWorkers", "ZeroMQ",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "ServiceLifecycle", package: "swift-service-lifecycle")],
            path: "Tests/PantryTestRuntime"
        ),
        .testTarget(
            name: "PantryRouteTests",
            dependencies: ["PantryTestRuntime", "PantryTestSupport", "PantryHTTP", "PantryLog", "PantryMail", "PantryBus", "PantryWire", "ZeroMQ",
                           .product(name: "HummingbirdTesting", package: "hummingbird"),
                           .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                           .product(name: "Crypto", package: "swift-crypto")]
        ),
        // The PostgreSQL server the suites run the PostgreSQL log against.
        .target(name: "PantryTestPostgres", dependencies: ["PantryPostgresLog"], path: "Tests/PantryTestPostgres"),
        .testTarget(
            name: "PantryEventStoreTests",
            dependencies: ["PantryDomain", "PantryEventStore", "PantryLog", "PantryPostgresLog", "PantryTestPostgres", "PantryTestSupport",
                           .product(name: "Logging", package: "swift-log"),
                           .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "PantryCoreTests",
            dependencies: ["PantryDomain", "PantryLog", "PantryWire", "PantryEventStore", "PantryCore", "PantryKeys", "PantryBus", "ZeroMQ",
                           "PantryTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        .testTarget(name: "PantryWireTests", dependencies: ["PantryWire", "PantryLog", "PantryDomain", "PantryJSON"]),
        .testTarget(
            name: "PantryBusTests",
            dependencies: ["PantryBus", "PantryWire", "PantryLog", "PantryEventStore", "ZeroMQ",
                           "PantryTestSupport", .product(name: "Logging", package: "swift-log")]
        ),
        // Drives the built `pantry` binary as a child process.
        .testTarget(name: "PantryCLITests", dependencies: ["pantry", "PantryDomain", "PantryLog", "PantryEventStore", "PantryKeys",
                                                   "PantryPostgresLog", "PantryTestPostgres", "PantryTestSupport"]),
        // libzmq, wrapped once: nothing else touches its C API.
        .systemLibrary(
            name: "CZeroMQ",
            pkgConfig: "libzmq",
            providers: [.apt(["libzmq3-dev"])]
        ),
        .target(
            name: "ZeroMQ",
            dependencies: ["CZeroMQ"]
        ),
        .testTarget(
            name: "ZeroMQTests",
            dependencies: ["ZeroMQ", "PantryTestSupport"]
        ),
    ]
)
