import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A signed-in session: the bearer token and whom it is for.
public struct PantrySession: Codable, Sendable, Hashable {
    public var token: String
    /// Unix time in seconds; the client refreshes the token before it.
    public var expiresAt: Int64
    public var userId: String
    public var username: String

    public init(token: String, expiresAt: Int64, userId: String, username: String) {
        self.token = token
        self.expiresAt = expiresAt
        self.userId = userId
        self.username = username
    }
}

/// Where the session is kept between launches. An app on Apple's platforms keeps it in the
/// Keychain by implementing this; a file (`FileSessionStore`) serves Linux and tests. Clients that
/// share a store (an app and its widget) follow each other's refreshes.
public protocol SessionStore: Sendable {
    func load() throws -> PantrySession?
    /// `nil` forgets the session (signed out).
    func save(_ session: PantrySession?) throws
    /// This device's token from its last log-in, kept across sign-outs (it names the device, not a
    /// session). Sent at the next log-in, it takes the known devices' lane: a flood of log-ins from
    /// elsewhere that has spent everyone's budget does not lock this app out.
    func loadDeviceToken() throws -> String?
    func saveDeviceToken(_ token: String) throws
}

/// The session as a JSON file readable by its owner only, replaced whole on each change.
public struct FileSessionStore: SessionStore {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws -> PantrySession? {
        guard let data = try? Data(contentsOf: url) else { return nil }
        return try JSONDecoder().decode(PantrySession.self, from: data)
    }

    public func save(_ session: PantrySession?) throws {
        guard let session else {
            try? FileManager.default.removeItem(at: url)
            return
        }
        try AtomicFile.write(try JSONEncoder().encode(session), to: url)
    }

    /// Beside the session's file, with `.device` added to its name.
    private var deviceTokenURL: URL { url.appendingPathExtension("device") }

    public func loadDeviceToken() throws -> String? {
        (try? Data(contentsOf: deviceTokenURL)).map { String(decoding: $0, as: UTF8.self) }
    }

    public func saveDeviceToken(_ token: String) throws {
        try AtomicFile.write(Data(token.utf8), to: deviceTokenURL)
    }
}

/// The session in memory only: signed out at the next launch.
public final class MemorySessionStore: SessionStore, @unchecked Sendable {
    private let lock = NSLock()
    private var session: PantrySession?
    private var deviceToken: String?

    public init(_ session: PantrySession? = nil) { self.session = session }

    public func load() throws -> PantrySession? { lock.withLock { session } }
    public func save(_ session: PantrySession?) throws { lock.withLock { self.session = session } }
    public func loadDeviceToken() throws -> String? { lock.withLock { deviceToken } }
    public func saveDeviceToken(_ token: String) throws { lock.withLock { deviceToken = token } }
}

/// A file replaced whole: written beside it, synced, then renamed over it, so a crash leaves the
/// old contents or the new, never half of one; readable by its owner only (a token, commands).
enum AtomicFile {
    static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown)
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
