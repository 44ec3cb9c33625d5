// swift-tools-version: 6.1
// cook-bench (Examples/cook) with PantryClient's requests carried by swift-openapi-async-http-client
// instead of URLSession: what a Linux program gains by passing another transport
// (docs/benchmarks/client.md). A package apart, since an app adding PantryClient must resolve
// nothing more (ops/check-client-app); built by ops/bench-client only.
import PackageDescription

let package = Package(
    name: "cook-bench-ahc",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(path: "../../Clients/PantryClient"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client", from: "1.5.0"),
    ],
    targets: [
        .executableTarget(name: "cook-bench-ahc", dependencies: [
            .product(name: "PantryClient", package: "PantryClient"),
            .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
        ]),
    ]
)
