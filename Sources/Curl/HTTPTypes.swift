import Foundation

/// One HTTP request: GET for the upstream recipe APIs, the others for the load test's calls to
/// Pantry's own API.
package struct HTTPRequest: Sendable {
    package enum Method: String, Sendable {
        case get = "GET"
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
        case delete = "DELETE"
    }

    package var method: Method
    package var url: String
    package var headers: [(name: String, value: String)]
    /// Sent as it is; set a Content-Type header to go with it.
    package var body: Data?
    /// Seconds allowed for the TCP/TLS connect.
    package var connectTimeout: Double
    /// Seconds allowed for the whole transfer, connect included.
    package var timeout: Double
    package var followRedirects: Bool
    /// A larger body aborts the transfer, so a bad upstream cannot exhaust memory.
    package var maxBodyBytes: Int
    /// A PEM file of the certificates an HTTPS server's chain must end in, instead of the system's
    /// (a self-signed test deployment's own certificate). The server is verified either way, its
    /// name included: there is no way to turn that off.
    package var trustedCertificates: String?

    package init(
        method: Method = .get,
        url: String,
        headers: [(name: String, value: String)] = [],
        body: Data? = nil,
        connectTimeout: Double = 5,
        timeout: Double = 15,
        followRedirects: Bool = false,
        maxBodyBytes: Int = 16 << 20,
        trustedCertificates: String? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.timeout = timeout
        self.followRedirects = followRedirects
        self.maxBodyBytes = maxBodyBytes
        self.trustedCertificates = trustedCertificates
    }
}

/// Response headers in arrival order, looked up case-insensitively.
package struct HTTPHeaders: Sendable, Sequence {
    package private(set) var entries: [(name: String, value: String)]

    package init(_ entries: [(name: String, value: String)] = []) {
        self.entries = entries
    }

    /// The first value of the header `name`, ignoring case.
    package subscript(name: String) -> String? {
        entries.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    package func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        entries.makeIterator()
    }

    mutating func append(name: String, value: String) {
        entries.append((name, value))
    }
}

package struct HTTPResponse: Sendable {
    package var status: Int
    package var headers: HTTPHeaders
    package var body: Data
    /// Seconds from start to end of the transfer, as measured by libcurl.
    package var totalTime: Double

    package init(status: Int, headers: HTTPHeaders, body: Data, totalTime: Double) {
        self.status = status
        self.headers = headers
        self.body = body
        self.totalTime = totalTime
    }
}

/// A transfer that libcurl could not complete.
package struct CurlError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The connect or total timeout expired.
        case timeout
        /// No connection was made (refused, unresolvable host, unreachable):
        /// the request provably never reached the server.
        case connectionFailed
        case other
    }

    package var kind: Kind
    /// The raw `CURLcode`.
    package var code: Int
    /// `curl_easy_strerror` text, plus libcurl's detail message when it gave one.
    package var message: String

    package init(kind: Kind, code: Int, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    package var description: String { "curl error \(code): \(message)" }
}
