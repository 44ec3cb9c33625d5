import Foundation

/// Commands made while the API cannot be reached, kept in a file and sent in order when it can.
///
/// Each command gets its Idempotency-Key when it is queued, kept with it in the file: a command
/// whose answer was lost (the connection dropped, the app was killed between sending and
/// recording the outcome) is sent again with the same key and applied once. Sending stops at the
/// first command that cannot be sent (the network, a 503, no session) and keeps it and those after
/// it, so the order holds; a command the server refuses (409 `not_cooking`, say) is reported and
/// dropped, as it would be refused again.
public actor OfflineQueue {
    /// One queued command and its key.
    public struct Entry: Codable, Sendable, Hashable, Identifiable {
        public let id: UUID
        public let command: PantryCommand
        public let queuedAt: Date
        var idempotencyKey: String { "offline-\(id.uuidString)" }
    }

    /// What became of one queued command.
    public struct Outcome: Sendable {
        public let entry: Entry
        public let result: Result<Accepted, PantryError>
    }

    private let file: URL
    private let client: PantryClient
    private var entries: [Entry]

    /// Opens (or starts) the queue kept in `file`.
    public init(file: URL, client: PantryClient) throws {
        self.file = file
        self.client = client
        if let data = try? Data(contentsOf: file) {
            entries = try JSONDecoder().decode([Entry].self, from: data)
        } else {
            entries = []
        }
    }

    /// The commands still to send, oldest first.
    public var pending: [Entry] { entries }

    /// Keeps `command` (durably, before this returns) to be sent after those queued before it.
    @discardableResult
    public func enqueue(_ command: PantryCommand) throws -> Entry {
        let entry = Entry(id: UUID(), command: command, queuedAt: Date())
        entries.append(entry)
        try save()
        return entry
    }

    /// Sends the queued commands in order, now; answers the outcome of each one sent. Those left
    /// (`pending`) could not be sent yet.
    public func flush() async -> [Outcome] {
        var outcomes: [Outcome] = []
        while let entry = entries.first {
            let result: Result<Accepted, PantryError>
            do {
                result = .success(try await client.send(entry.command, idempotencyKey: entry.idempotencyKey))
            } catch {
                guard !Self.isWorthWaitingFor(error) else { break }
                result = .failure(error)
            }
            entries.removeFirst()
            try? save()
            outcomes.append(Outcome(entry: entry, result: result))
        }
        return outcomes
    }

    /// Sends everything queued, waiting out an API that is down (backing off up to `maxWait`
    /// between tries) until the queue is empty or the task is cancelled; the outcomes in order.
    public func sendWhenReachable(maxWait: Duration = .seconds(30)) async -> [Outcome] {
        var outcomes: [Outcome] = []
        var wait = Duration.milliseconds(250)
        while true {
            outcomes += await flush()
            if entries.isEmpty || Task.isCancelled { return outcomes }
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, maxWait)
        }
    }

    /// Not the command's fault: it will be sent again later.
    private static func isWorthWaitingFor(_ error: PantryError) -> Bool {
        switch error {
        case .unreachable, .signedOut: true
        case .unexpectedAnswer(let status): status >= 500
        case .problem(let problem): problem.status >= 500 || problem.code == .rateLimited || problem.code == .invalidToken
        }
    }

    private func save() throws {
        try AtomicFile.write(try JSONEncoder().encode(entries), to: file)
    }
}
