// swift-tools-version: 6.1
// PantryClient, the apps' client of the Pantry API: a package of its own, not a product of the
// server's Package.swift. SwiftPM fetches and resolves every dependency a package declares, even
// for an app that names one product of it (seen here: an app adding the server's package by
// path for this product alone fetched GRDB, Hummingbird, NIO, postgres-nio and the rest), and it
// would pin them in the app's Package.resolved. Here an app resolves swift-openapi-runtime,
// swift-openapi-urlsession and swift-http-types, and nothing of the server: no libzmq, no libcurl
// system library, no GRDB, no NIO. Examples/cook is such an app, built by ops/test, whose tests run
// the client against real `pantry` processes.
import PackageDescription

let package = Package(
    name: "PantryClient",
    platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
    products: [
        .library(name: "PantryClient", targets: ["PantryClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // The layer generated from schemas/openapi.yaml (Generated/, made by ops/gen-client with
        // swift-openapi-generator and checked fresh by it in ops/test; committed, so that an app
        // builds neither the generator nor OpenAPIKit) and a thin layer by hand: session,
        // retries, idempotency, read-your-writes, the live stream, the offline queue, errors.
        .target(
            name: "PantryClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            exclude: ["openapi-generator-config.yaml"]
        ),
    ]
)
