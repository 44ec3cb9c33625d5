import Foundation
import ServiceLifecycle
import Synchronization

/// A thread of its own for a service whose loop blocks: one that owns ZeroMQ sockets (which must
/// stay on one thread) or one that waits on the disk (the checkpointer). The thread starts in
/// `run`, called from the service's `run()` (never in an initialiser), and `run` returns what the
/// loop returns once it has; the service group's graceful shutdown, or the task's cancellation,
/// asks the loop to return through `stop()`. The one way from async code to such a thread.
///
/// Other threads hand the loop work with `post`: messages queued in memory, and a byte down a pipe
/// only when the loop may be asleep, so a burst of messages costs one wake-up (a socket send each
/// under a shared lock, as the API's requests once went, was 4% of its CPU per command). The loop
/// waits on `wakeDescriptor` beside its sockets (`ZMQPoller.register(fileDescriptor:)`), or alone
/// with `waitForWake`, then calls `takeMessages()` and looks at `isStopping`.
package final class ServiceThread<Message: Sendable>: Sendable {
    package struct Unavailable: Error, CustomStringConvertible {
        package var description: String
    }

    private struct Inbox {
        var messages: [Message] = []
        /// The pipe was written to since the loop last took the messages: it will look again.
        var woken = false
        /// The loop has ended: nothing posted now would be taken.
        var closed = false
    }

    package let name: String
    private let wakeReader: Int32
    private let wakeWriter: Int32
    private let inbox = Mutex(Inbox())
    private let stopping = Atomic<Bool>(false)

    /// Makes the pipe; the thread starts in `run`.
    package init(name: String) throws {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Unavailable(description: "no pipe for the \(name) thread: errno \(errno)") }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        self.name = name
        wakeReader = ends[0]
        wakeWriter = ends[1]
    }

    /// Only once nobody can post any more: a post after the close would write to whatever file
    /// reused the number.
    deinit {
        close(wakeReader)
        close(wakeWriter)
    }

    /// Runs `loop` on a new thread and returns (or throws) what it does. Call it once. Graceful
    /// shutdown or cancellation of the calling task calls `stop()`; messages posted after the loop
    /// has returned are refused, and those it left untaken are dropped (a loop whose messages hold
    /// callers takes the rest with `closeInbox()`).
    package func run<Result: Sendable>(_ loop: @escaping @Sendable (ServiceThread) throws -> Result) async throws -> Result {
        try await withTaskCancellationOrGracefulShutdownHandler {
            try await withCheckedThrowingContinuation { continuation in
                let thread = Thread { [self] in
                    let outcome = Swift.Result { try loop(self) }
                    _ = closeInbox()
                    continuation.resume(with: outcome)
                }
                thread.name = name
                thread.start()
            }
        } onCancelOrGracefulShutdown: { [self] in
            stop()
        }
    }

    /// Asks the loop to return: `isStopping` is true from now on, and the loop is woken.
    package func stop() {
        stopping.store(true, ordering: .releasing)
        signal()
    }

    /// Read by the loop after each wake-up (or before it starts).
    package var isStopping: Bool { stopping.load(ordering: .acquiring) }

    /// Queues `message` for the loop and wakes it if it may be asleep; false, and nothing queued,
    /// once the loop has ended.
    @discardableResult
    package func post(_ message: Message) -> Bool {
        let (open, mustWake) = inbox.withLock { inbox -> (Bool, Bool) in
            guard !inbox.closed else { return (false, false) }
            inbox.messages.append(message)
            defer { inbox.woken = true }
            return (true, !inbox.woken)
        }
        if mustWake { signal() }
        return open
    }

    /// Wakes the loop with no message: something it reads elsewhere (an atomic) has changed.
    package func wake() {
        if inbox.withLock({ inbox in defer { inbox.woken = true }; return !inbox.woken }) { signal() }
    }

    /// What the loop waits on, readable once it has been woken.
    package var wakeDescriptor: Int32 { wakeReader }

    /// On the loop's thread: empties the pipe, then takes the messages posted so far. The pipe
    /// first, so that a message posted after the take writes to it again.
    package func takeMessages() -> [Message] {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wakeReader, &bytes, bytes.count) == bytes.count {}
        return inbox.withLock { inbox in
            inbox.woken = false
            defer { inbox.messages.removeAll(keepingCapacity: true) }
            return inbox.messages
        }
    }

    /// On the loop's thread, for a loop with no socket to wait on: sleeps until woken or until
    /// `timeout` (nil: no limit) has passed; true when woken.
    @discardableResult
    package func waitForWake(timeout: Duration?) -> Bool {
        var descriptor = pollfd(fd: wakeReader, events: Int16(POLLIN), revents: 0)
        let milliseconds = timeout.map { Int32(clamping: Int64(($0 / .milliseconds(1)).rounded(.up))) } ?? -1
        return poll(&descriptor, 1, milliseconds) > 0
    }

    /// Refuses later posts and returns the messages not taken, for the loop to answer as it ends.
    package func closeInbox() -> [Message] {
        inbox.withLock { inbox in
            inbox.closed = true
            defer { inbox.messages = [] }
            return inbox.messages
        }
    }

    private func signal() {
        var byte: UInt8 = 1
        _ = write(wakeWriter, &byte, 1)
    }
}
