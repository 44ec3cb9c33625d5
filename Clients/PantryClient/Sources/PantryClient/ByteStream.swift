import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One streamed GET: its head, then its body as chunks as they arrive. URLSession's delegate is
/// used rather than OpenAPIURLSession because that transport buffers a whole answer on Linux
/// (it streams on Apple's platforms only), and a live stream never ends.
final class ByteStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    enum Head: Sendable {
        case response(HTTPURLResponse)
        case failed(any Error)
    }

    let chunks: AsyncThrowingStream<ArraySlice<UInt8>, any Error>
    private let chunkSink: AsyncThrowingStream<ArraySlice<UInt8>, any Error>.Continuation
    private var headSink: CheckedContinuation<Head, Never>?
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var cancelled = false

    override init() {
        (chunks, chunkSink) = AsyncThrowingStream.makeStream(bufferingPolicy: .unbounded)
        super.init()
    }

    /// Starts `request`; answers once the head has arrived (or the connection failed).
    func start(_ request: URLRequest) async -> Head {
        await withCheckedContinuation { continuation in
            lock.withLock { headSink = continuation }
            let configuration = URLSessionConfiguration.ephemeral
            // The server sends a heartbeat every 15 s; silence for longer is a dead connection.
            configuration.timeoutIntervalForRequest = 45
            let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
            let task = session.dataTask(with: request)
            let go = lock.withLock {
                self.task = task
                return !cancelled
            }
            if go {
                task.resume()
            } else {
                session.invalidateAndCancel()
                answerHead(.failed(CancellationError()))
            }
        }
    }

    func cancel() {
        lock.withLock {
            cancelled = true
            return task
        }?.cancel()
    }

    private func answerHead(_ head: Head) {
        lock.withLock {
            let sink = headSink
            headSink = nil
            return sink
        }?.resume(returning: head)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        if let response = response as? HTTPURLResponse { answerHead(.response(response)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        chunkSink.yield(ArraySlice(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        answerHead(.failed(error ?? URLError(.badServerResponse)))
        if let error { chunkSink.finish(throwing: error) } else { chunkSink.finish() }
        // The session holds its delegate (this) until invalidated.
        session.finishTasksAndInvalidate()
    }
}
