import Foundation

/// One HTTP request: GET for the upstream recipe APIs, the others for the load test's calls to
/// Pantry's own API.
public struct HTTPRequest: Sendable {
    public enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    public var method: Method
    public var url: String
    public var headers: [(name: String, value: String)]
    /// Sent as it is; set a Content-Type header to go with it.
    public var body: Data?
    /// Seconds allowed for the TCP/TLS connect.
    public var connectTimeout: Double
    /// Seconds allowed for the whole transfer, connect included.
    public var timeout: Double
    public var followRedirects: Bool
    /// A larger body aborts the transfer, so a bad upstream cannot exhaust memory.
    public var maxBodyBytes: Int

    public init(
        method: Method = .get,
        url: String,
        headers: [(name: String, value: String)] = [],
        body: Data? = nil,
        connectTimeout: Double = 5,
        timeout: Double = 15,
        followRedirects: Bool = false,
        maxBodyBytes: Int = 16 << 20
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.maxBodyBytes = maxBodyBytes
    }
}

/// Response headers in arrival order, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Sequence {
    public private(set) var entries: [(name: String, value: String)]

    public init(_ entries: [(name: String, value: String)] = []) {
        self.entries = entries
    }

    /// The first value of the header `name`, ignoring case.
    public subscript(name: String) -> String? {
        entries.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        entries.makeIterator()
    }

    mutating func append(name: String, value: String) {
        entries.append((name, value))
    }
}

public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: Data
    /// Seconds from start to end of the transfer, as measured by libcurl.
    public var totalTime: Double

    public init(status: Int, headers: HTTPHeaders, body: Data, totalTime: Double) {
        self.status = status
        self.headers = headers
        self.body = body
        self.totalTime = totalTime
    }
}

/// A transfer that libcurl could not complete.
public struct CurlError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The connect or total timeout expired.
        case timeout
        /// No connection was made (refused, unresolvable host, unreachable):
        /// the request provably never reached the server.
        case connectionFailed
        case other
    }

    public var kind: Kind
    /// The raw `CURLcode`.
    public var code: Int
    /// `curl_easy_strerror` text, plus libcurl's detail message when it gave one.
    public var message: String

    public init(kind: Kind, code: Int, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String { "curl error \(code): \(message)" }
}
