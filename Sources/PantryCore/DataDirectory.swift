import Foundation

/// Where a deployment keeps its files. Every process is pointed at the same directory.
public struct DataDirectory: Sendable {
    public let url: URL

    public init(_ path: String) throws {
        url = URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public var eventLog: String { url.appendingPathComponent("events.sqlite").path }
    /// The users' keys (`UserKeyStore`): written by the core, read by every process that decodes accounts.
    public var userKeys: String { url.appendingPathComponent("user-keys.sqlite").path }
    public var writerLock: String { url.appendingPathComponent("events.lock").path }
    /// The projection files, one per worker.
    public var projections: URL { url.appendingPathComponent("projections", isDirectory: true) }
    /// Held by the running worker of a projection, so a replay never swaps a file in under it.
    public func workerLock(_ projection: String) -> String {
        projections.appendingPathComponent("\(projection).lock").path
    }
}
