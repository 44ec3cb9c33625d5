import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// A real deployment for the client to talk to: `pantry core`, every projection worker, the fetch
/// worker (the embedded catalog) and `pantry api`, as child processes on a data directory of
/// their own, stopped at the end (SIGTERM, then SIGKILL).
final class Deployment: @unchecked Sendable {
    /// Pantry's checkout: this file is in Examples/cook/Tests/PantryClientTests.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The server's binary: PANTRY_BIN, else the debug build of the checkout.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["PANTRY_BIN"] { return URL(fileURLWithPath: path) }
        return repositoryRoot.appendingPathComponent(".build/debug/pantry")
    }

    let data: URL
    private let lock = NSLock()
    private var running: [String: Process] = [:]
    private(set) var apiPorts: [String: Int] = [:]

    private init() throws {
        data = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-client-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    }

    /// Everything, with the API named "api" ready.
    static func start() async throws -> Deployment {
        let deployment = try Deployment()
        try deployment.launch("core", ["core"])
        for worker in ["leaderboard", "carts", "favourites", "groceries", "experiences"] {
            try deployment.launch(worker, ["worker", worker])
        }
        try deployment.launch("fetch", ["fetch"])
        try await deployment.startAPI()
        return deployment
    }

    /// `pantry api` (another one beside the first, under another name); ready when this returns.
    func startAPI(named name: String = "api", port: Int? = nil, arguments: [String] = [],
                  environment: [String: String] = [:]) async throws {
        let port = try port ?? Self.freePort()
        try launch(name, ["api", "--port", String(port), "--password-cost", "10"] + arguments,
                   environment: ["PANTRY_LOGIN_RATE_PER_CLIENT": "10000", "PANTRY_LOGIN_RATE_OVERALL": "10000",
                                 // Several API processes share the data directory: none writes an access log there.
                                 "PANTRY_ACCESS_LOG": "off"].merging(environment) { _, given in given })
        lock.withLock { apiPorts[name] = port }
        try await waitUntilReady(port: port)
    }

    func url(of api: String = "api") -> URL {
        URL(string: "http://127.0.0.1:\(lock.withLock { apiPorts[api]! })")!
    }

    /// Stops one process: SIGKILL (`kill -9`, as a crash) or SIGTERM, and waits for it.
    func stop(_ name: String, kill: Bool = false) {
        guard let process = lock.withLock({ running.removeValue(forKey: name) }) else { return }
        if kill { Foundation.kill(process.processIdentifier, SIGKILL) } else { process.terminate() }
        process.waitUntilExit()
    }

    func stopAll() {
        let names = lock.withLock { Array(running.keys) }
        // The API first, the core last: as the Procfile's stop does.
        for name in names.sorted(by: { ($0 == "core" ? 1 : 0) < ($1 == "core" ? 1 : 0) }) { stop(name) }
        try? FileManager.default.removeItem(at: data)
    }

    private func launch(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = arguments + ["--data", data.path]
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PANTRY_") }
            .merging(environment) { _, given in given }
        let log = data.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        handle.seekToEndOfFile()
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        lock.withLock { running[name] = process }
    }

    private func waitUntilReady(port: Int) async throws {
        let url = URL(string: "http://127.0.0.1:\(port)/ready")!
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if let (_, response) = try? await URLSession.shared.data(from: url),
               (response as? HTTPURLResponse)?.statusCode == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw DeploymentError.notReady(port)
    }

    enum DeploymentError: Error { case notReady(Int) }

    /// A loopback TCP port nothing listens on now, the kernel's pick.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The deployment the tests of a suite share: started before the first, stopped after the last.
    @TaskLocal static var shared: Deployment?
}

/// Starts one `Deployment` for a whole suite (`@Suite(.deployment)`), every test reaching it as
/// `Deployment.shared`: eight processes start once rather than per test.
struct DeploymentTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let deployment = try await Deployment.start()
        defer { deployment.stopAll() }
        try await Deployment.$shared.withValue(deployment) { try await function() }
    }
}

extension Trait where Self == DeploymentTrait {
    static var deployment: Self { Self() }
}

/// A child process whose stdout is read line by line (the proxy prints its port, then what it did).
final class Helper: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private var buffer = Data()

    init(_ executable: String, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
    }

    /// The next line it prints (blocking: a child of the test, it answers within seconds).
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// SIGKILL: a child of the test runner inherits its blocked SIGTERM (libdispatch blocks
    /// signals on its threads), which a Python helper never unblocks.
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// The Python the tests' helpers run under (ops/test gives the project's .venv).
    static var python: String {
        ProcessInfo.processInfo.environment["PANTRY_PYTHON"]
            ?? Deployment.repositoryRoot.appendingPathComponent(".venv/bin/python").path
    }
}
