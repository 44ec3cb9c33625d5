import Synchronization

/// Where the live route leaves the stream it opened for the channel handler that asked for the
/// request's answer (`LiveStreamHandler`), which writes it from then on with no task of its own.
final class LiveStreamHandoff: Sendable {
    struct Opened: Sendable {
        let live: LiveStreams
        let stream: LiveSubscription

        /// The stream is forgotten (closing twice does nothing).
        func close() { live.close(stream) }
    }

    /// Closes the connection from the handler's place in the pipeline, whatever is being written on it.
    let closeConnection: @Sendable () -> Void
    private let opened = Mutex<Opened?>(nil)

    init(closeConnection: @escaping @Sendable () -> Void) {
        self.closeConnection = closeConnection
    }

    func hand(_ stream: LiveSubscription, of live: LiveStreams) {
        opened.withLock { $0 = Opened(live: live, stream: stream) }
    }

    /// The stream the route opened, if it did; once.
    func take() -> Opened? {
        opened.withLock { $0.take() }
    }
}
