import CCurl
import CCurlShim
import Foundation

private let globalInit: CURLcode = pantry_curl_global_init()

/// Owns one libcurl easy handle and performs blocking transfers with it.
///
/// A handle is not thread-safe: use one `CurlEasy` per thread. Reusing it for
/// successive requests keeps its connection cache, so repeated calls to the same
/// host reuse the TCP/TLS connection. `HTTPClient` keeps one per worker thread.
package final class CurlEasy {
    /// Internal: the SMTP transfer (`SMTPTransfer.swift`) uses it too.
    let handle: UnsafeMutableRawPointer

    package init() {
        precondition(globalInit == CURLE_OK, "curl_global_init failed")
        guard let handle = curl_easy_init() else {
            fatalError("curl_easy_init returned NULL (out of memory)")
        }
        self.handle = handle
    }

    deinit {
        curl_easy_cleanup(handle)
    }

    package func perform(_ request: HTTPRequest) throws(CurlError) -> HTTPResponse {
        // Reset clears options left by the previous request but keeps live connections.
        curl_easy_reset(handle)
        let transfer = Transfer(maxBodyBytes: request.maxBodyBytes)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var setup = pantry_curl_setopt_string(handle, CURLOPT_URL, request.url)
            func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
            set(pantry_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method.rawValue))
            // Signals are unsafe in a multi-threaded process; timeouts must not use SIGALRM.
            set(pantry_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            // An empty string offers every encoding libcurl can decode (gzip, deflate...).
            set(pantry_curl_setopt_string(handle, CURLOPT_ACCEPT_ENCODING, ""))
            set(pantry_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0))
            set(pantry_curl_setopt_long(handle, CURLOPT_MAXREDIRS, 5))
            set(pantry_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(request.connectTimeout)))
            set(pantry_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, milliseconds(request.timeout)))
            // Only HTTP(S): a URL taken from input must not reach file:// or other schemes.
            set(pantry_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
            set(pantry_curl_setopt_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
            // libcurl's defaults, stated: the peer's chain and its name are checked on every
            // connection; only the trust anchors may change.
            set(pantry_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(pantry_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
            if let trusted = request.trustedCertificates {
                // Only this file: without the system's directory (CAPATH), which libcurl would still
                // search. libcurl copies the string; the same file each time keeps the connection reusable.
                set(pantry_curl_setopt_string(handle, CURLOPT_CAINFO, trusted))
                set(pantry_curl_setopt_string(handle, CURLOPT_CAPATH, nil))
            }
            set(pantry_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
            if let body = request.body {
                // The size first: COPYPOSTFIELDS copies that many bytes, so the body may hold NULs.
                set(pantry_curl_setopt_long(handle, CURLOPT_POSTFIELDSIZE, body.count))
                // A trailing NUL (not counted) keeps the pointer valid for an empty body.
                var bytes = [UInt8](body) + [0]
                bytes.withUnsafeMutableBytes { set(pantry_curl_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)) }
            }
            set(pantry_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            set(pantry_curl_setopt_write_function(handle, writeCallback))
            set(pantry_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque()))
            set(pantry_curl_setopt_header_function(handle, headerCallback))
            set(pantry_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque()))
            guard setup == CURLE_OK else { return setup }
            let result = curl_easy_perform(handle)
            // The buffer dies with this closure; the handle must not keep pointing at it.
            _ = pantry_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
            return result
        }

        guard code == CURLE_OK else {
            throw Self.failure(code, errorBuffer: errorBuffer,
                               adding: transfer.bodyTooLarge ? " (body larger than \(request.maxBodyBytes) bytes)" : "")
        }

        var status = 0
        _ = pantry_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var totalTime = 0.0
        _ = pantry_curl_getinfo_double(handle, CURLINFO_TOTAL_TIME, &totalTime)
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body, totalTime: totalTime)
    }

    /// A failed transfer: libcurl's words for `code`, then what it wrote in the error buffer.
    static func failure(_ code: CURLcode, errorBuffer: [CChar], adding note: String = "") -> CurlError {
        var message = String(cString: curl_easy_strerror(code))
        let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if !detail.isEmpty { message += ": \(detail)" }
        return CurlError(kind: kind(of: code), code: Int(code.rawValue), message: message + note)
    }

    static func kind(of code: CURLcode) -> CurlError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timeout
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .connectionFailed
        default:
            return .other
        }
    }
}

private func milliseconds(_ seconds: Double) -> Int {
    Int((max(seconds, 0.001) * 1000).rounded(.up))
}

/// Collects one transfer's headers and body; passed to the C callbacks as userdata.
private final class Transfer {
    let maxBodyBytes: Int
    var body = Data()
    var headers = HTTPHeaders()
    var bodyTooLarge = false

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }
}

private let writeCallback: pantry_curl_data_callback = { data, size, count, userdata in
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
    let length = size * count
    guard transfer.body.count + length <= transfer.maxBodyBytes else {
        transfer.bodyTooLarge = true
        return 0  // a short count makes libcurl abort with CURLE_WRITE_ERROR
    }
    if let data, length > 0 {
        transfer.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length)
    }
    return length
}

private let headerCallback: pantry_curl_data_callback = { data, size, count, userdata in
    let transfer = Unmanaged<Transfer>.fromOpaque(userdata!).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    // Trimmed as bytes: Foundation's trimmingCharacters cost a load test a seventh of its CPU here.
    let line = trimmed(UnsafeRawBufferPointer(start: data, count: length)[...])
    if line.starts(with: "HTTP/".utf8) {
        // A new status line starts a new response (redirect, 100 Continue): keep only the last.
        transfer.headers = HTTPHeaders()
    } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
        let name = String(decoding: trimmed(line[..<colon]), as: UTF8.self)
        let value = String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self)
        transfer.headers.append(name: name, value: value)
    }
    return length
}

/// Without leading and trailing spaces, tabs, CRs and LFs.
private func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
    let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) }) else {
        return bytes[bytes.startIndex..<bytes.startIndex]
    }
    return bytes[first...last]
}
