// swift-tools-version: 6.1
// An app as an app developer writes one: it adds PantryClient and nothing else. ops/test builds it
// (ops/check-client-app) and fails if its resolution or its binary brings in any of the server's
// dependencies. `cook URL` walks the seed flows against a running deployment; PantryClientTests
// run them and the client's promises against real `pantry` processes (PANTRY_BIN). The client's
// tests live here, beside the app, so that ops/test compiles the client once for both.
import PackageDescription

let package = Package(
    name: "cook",
    platforms: [.macOS(.v14), .iOS(.v17)],
    dependencies: [.package(path: "../../Clients/PantryClient")],
    targets: [
        .executableTarget(name: "cook", dependencies: [.product(name: "PantryClient", package: "PantryClient")]),
        // What the client costs an app against the load test's libcurl client (ops/bench-client).
        .executableTarget(name: "cook-bench", dependencies: [.product(name: "PantryClient", package: "PantryClient")]),
        .testTarget(name: "PantryClientTests", dependencies: [.product(name: "PantryClient", package: "PantryClient")]),
    ]
)
