import NIOCore
import Synchronization

/// What a stream writes next, in order.
enum LiveMessage: Sendable {
    case change(LiveChange)
    /// Nothing new up to `position`: keeps proxies from closing an idle stream, and moves the
    /// client's resume point past what it was not shown.
    case heartbeat(position: Int64)
    /// The client's resume point was too far back: it reloads its screens, then goes on from `position`.
    case reset(position: Int64)
    /// The stream ends: the client may reconnect with its `Last-Event-ID` (`slow`, `restart`,
    /// `replaced`), or must not (`revoked`, `expired`).
    case end(reason: String)
}

/// One open stream's mailbox, filled by the feed's thread (`LiveStreams`) and emptied by the
/// connection's handler (`LiveStreamHandler`), or by the stream's request task (`next()`). The
/// feed never waits for a stream: a stream that lets more than `maxPendingBytes` pile up is ended
/// and its connection closed, and the client resumes from the last change it read.
final class LiveSubscription: Sendable {
    let id: UInt64
    let userId: String
    let tokenId: String
    /// When the token ends (seconds since 1970), and the stream with it.
    let expiresAt: Int64
    /// Changes at or before it were delivered elsewhere (a resume from another API process that
    /// stood further on): never written again.
    let after: Int64
    private let maxPendingBytes: Int
    /// Closes the connection at once (its writes may be stuck behind a client that reads nothing).
    private let closeConnection: @Sendable () -> Void

    private struct Mailbox {
        var pending: [LiveMessage] = []
        var pendingBytes = 0
        var ended = false
        /// Heartbeats queued with nobody waiting for them: a stream whose writer is stuck behind a
        /// client that reads nothing, or that never began writing.
        var unreadHeartbeats = 0
        var waiter: (@Sendable ([LiveMessage]) -> Void)?
    }
    private let mailbox = Mutex(Mailbox())

    static let maxUnreadHeartbeats = 3

    init(id: UInt64, userId: String, tokenId: String, expiresAt: Int64, after: Int64, maxPendingBytes: Int,
         closeConnection: @escaping @Sendable () -> Void) {
        self.id = id
        self.userId = userId
        self.tokenId = tokenId
        self.expiresAt = expiresAt
        self.after = after
        self.maxPendingBytes = maxPendingBytes
        self.closeConnection = closeConnection
    }

    /// Queues `message`; false when the stream had ended or has just been ended for falling behind.
    @discardableResult
    func push(_ message: LiveMessage) -> Bool {
        if case .change(let change) = message, change.position <= after { return true }
        let size = if case .change(let change) = message { change.json.count } else { 16 }
        enum Outcome { case queued, ended, overflowed }
        let (outcome, waiter, ready): (Outcome, (@Sendable ([LiveMessage]) -> Void)?, [LiveMessage]) = mailbox.withLock { box in
            guard !box.ended else { return (.ended, nil, []) }
            if case .heartbeat = message, box.waiter == nil { box.unreadHeartbeats += 1 }
            guard box.pendingBytes + size <= maxPendingBytes, box.unreadHeartbeats <= Self.maxUnreadHeartbeats else {
                box.ended = true
                box.pending = []
                box.pendingBytes = 0
                return (.overflowed, box.waiter.take(), [])
            }
            if case .end = message { box.ended = true }
            box.pending.append(message)
            box.pendingBytes += size
            guard let waiter = box.waiter.take() else { return (.queued, nil, []) }
            defer { box.pending = []; box.pendingBytes = 0 }
            return (.queued, waiter, box.pending)
        }
        waiter?(ready)
        if outcome == .overflowed { closeConnection() }
        return outcome == .queued
    }

    /// Queues several at once (a resume's backlog), in order.
    func push(contentsOf messages: [LiveMessage]) {
        for message in messages where !push(message) { return }
    }

    /// The messages queued since the last call, waiting for one if there are none; empty once the
    /// stream has ended and everything queued was taken (or the task is cancelled).
    func next() async -> [LiveMessage] {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if let ready = take(orWhenReady: { continuation.resume(returning: $0) }) { continuation.resume(returning: ready) }
            }
        } onCancel: {
            end()
        }
    }

    /// The messages queued since the last call, or nil when there are none yet: `reader` is then
    /// handed the next ones, once, on the thread that queues them (empty: the stream has ended).
    func take(orWhenReady reader: @escaping @Sendable ([LiveMessage]) -> Void) -> [LiveMessage]? {
        mailbox.withLock { box in
            box.unreadHeartbeats = 0
            if !box.pending.isEmpty || box.ended {
                let taken = box.pending
                box.pending = []
                box.pendingBytes = 0
                return taken
            }
            box.waiter = reader
            return nil
        }
    }

    /// Ends the stream without a message (the client went away, or the task was cancelled).
    func end() {
        let waiter = mailbox.withLock { box in
            box.ended = true
            return box.waiter.take()
        }
        waiter?([])
    }

    var isEnded: Bool { mailbox.withLock { $0.ended } }
}
