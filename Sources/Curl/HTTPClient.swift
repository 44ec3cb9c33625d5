import Dispatch
import Foundation

/// An async HTTP client over `CurlEasy`.
///
/// Transfers block, so they run on a pool of their own, at most `maxTransfers` at once (more
/// wait in its queue without holding a thread), never on Swift's cooperative pool or the pool
/// the cache's reads use: a slow upstream can hold only these. Each thread lazily creates its
/// own `CurlEasy` and keeps it in its thread dictionary, so a handle is never shared between
/// threads and a thread's later requests reuse its open connections.
package final class HTTPClient: @unchecked Sendable {
    private static let handleKey = "org.pantry.curl.easy"
    // OperationQueue is thread-safe; it is configured once, here.
    private let transfers = OperationQueue()

    package init(maxTransfers: Int = 10) {
        transfers.name = "org.pantry.curl"
        transfers.maxConcurrentOperationCount = maxTransfers
    }

    package func send(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        let result: Result<HTTPResponse, CurlError> = await withCheckedContinuation { continuation in
            transfers.addOperation {
                let easy = Self.threadHandle()
                continuation.resume(returning: Result { () throws(CurlError) in try easy.perform(request) })
            }
        }
        return try result.get()
    }

    private static func threadHandle() -> CurlEasy {
        let dictionary = Thread.current.threadDictionary
        if let easy = dictionary[handleKey] as? CurlEasy { return easy }
        let easy = CurlEasy()
        dictionary[handleKey] = easy
        return easy
    }
}
