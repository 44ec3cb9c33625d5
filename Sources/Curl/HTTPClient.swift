import CCurlShim
import Foundation
import NIOPosix

/// An async HTTP client over `CurlEasy`.
///
/// Transfers block, so they run on a `NIOThreadPool` of their own of `maxTransfers` threads (more
/// wait in its queue without holding a thread), never on Swift's cooperative pool or the pool the
/// cache's reads use: a slow upstream can hold only these. Each thread lazily creates its own
/// `CurlEasy` and keeps it in its thread dictionary, so a handle is never shared between threads
/// and a thread's later requests reuse its open connections.
package final class HTTPClient: Sendable {
    private static let handleKey = "org.pantry.curl.easy"
    private let transfers: NIOThreadPool

    package init(maxTransfers: Int = 10) {
        transfers = NIOThreadPool(numberOfThreads: maxTransfers)
    }

    deinit {
        transfers.shutdownGracefully { _ in }
    }

    package func send(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        // Started on the first transfer rather than in `init`: a client never used holds no thread.
        transfers.start()
        // `submit`, not `runIfActive`: as before, a caller's cancellation does not drop its transfer.
        let result: Result<HTTPResponse, CurlError> = await withCheckedContinuation { continuation in
            transfers.submit { state in
                guard case .active = state else {
                    return continuation.resume(returning: .failure(CurlError(kind: .other, code: -1, message: "the HTTP client is shut down")))
                }
                let easy = Self.threadHandle()
                continuation.resume(returning: Result { () throws(CurlError) in try easy.perform(request) })
            }
        }
        return try result.get()
    }

    /// For a process whose memory is mostly transfer bodies: each body of 128 KiB or more is mapped
    /// for its call and unmapped after. Answers of up to 4 MiB otherwise came from the heap arenas,
    /// which keep their pages: the fetch worker grew from 126 to 160 MiB over 2,000 hostile answers
    /// (60 to 62 MiB with this).
    package static func mapLargeBodies() {
        pantry_map_buffers_larger_than(128 << 10)
    }

    private static func threadHandle() -> CurlEasy {
        let dictionary = Thread.current.threadDictionary
        if let easy = dictionary[handleKey] as? CurlEasy { return easy }
        let easy = CurlEasy()
        dictionary[handleKey] = easy
        return easy
    }
}
