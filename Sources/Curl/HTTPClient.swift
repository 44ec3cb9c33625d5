import Dispatch
import Foundation

/// An async HTTP client over `CurlEasy`.
///
/// Transfers block, so they run on a dedicated concurrent dispatch queue rather than
/// on Swift's cooperative pool. Each worker thread lazily creates its own `CurlEasy`
/// and keeps it in its thread dictionary, so a handle is never shared between threads
/// and a thread's later requests reuse its open connections.
public final class HTTPClient: Sendable {
    private static let handleKey = "org.pantry.curl.easy"
    private let queue = DispatchQueue(label: "org.pantry.curl", attributes: .concurrent)

    public init() {}

    public func send(_ request: HTTPRequest) async throws(CurlError) -> HTTPResponse {
        let result: Result<HTTPResponse, CurlError> = await withCheckedContinuation { continuation in
            queue.async {
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
