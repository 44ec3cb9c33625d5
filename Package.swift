// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "Pantry",
    platforms: [.macOS(.v14)],
    products: [],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        .target(name: "Curl", dependencies: ["CCurlShim", "CCurl"]),
        .target(
            name: "PantryFetch",
            dependencies: [
                "Curl",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources/catalog.json")]
        ),
        .testTarget(name: "CurlTests", dependencies: ["Curl"]),
        .testTarget(name: "PantryFetchTests", dependencies: ["PantryFetch", "Curl"]),
    ]
)
