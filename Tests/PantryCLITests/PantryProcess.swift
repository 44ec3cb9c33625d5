import Foundation

/// The built `pantry` binary, run as a real child process.
enum PantryBinary {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `swift test` puts the test runner next to the products it built.
    static var url: URL {
        if let path = ProcessInfo.processInfo.environment["PANTRY_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("pantry")
    }

    /// Writing to a child that died (the point of some tests) must fail with EPIPE, not kill the runner.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    static func temporaryDirectory() throws -> URL {
        ignoreBrokenPipes
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `pantry ARGS` with `input` on stdin to completion; returns status and stdout lines.
    static func run(_ arguments: [String], input: Data = Data()) throws -> (status: Int32, lines: [String]) {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Write on another thread: a large input must not deadlock against a full stdout pipe.
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init)
        return (process.terminationStatus, lines)
    }
}

extension PantryBinary {
    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs `pantry ARGS` in `directory` with this runner's environment, but no `PANTRY_*`
    /// variable other than those in `environment`; returns status, stdout and stderr.
    static func run(_ arguments: [String], environment: [String: String], in directory: URL? = nil, input: Data = Data()) throws -> Run {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PANTRY_") }
            .merging(environment) { _, given in given }
        if let directory { process.currentDirectoryURL = directory }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        // Read stderr on another thread so that neither pipe fills while the other is read.
        let errors = ReadToEnd(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                   stderr: String(decoding: errors.wait(), as: UTF8.self))
    }
}

extension PantryBinary {
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
}

/// A pipe read to its end on a thread of its own.
final class ReadToEnd: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    func wait() -> Data {
        done.wait()
        return data
    }
}

extension String {
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(utf8))) as? [String: Any]
    }
}

let testPasswordHash = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNo"
