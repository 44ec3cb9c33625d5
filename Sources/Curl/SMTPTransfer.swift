import CCurl
import CCurlShim
import Foundation

/// One message for an SMTP server: the envelope (`from`, `recipients`) and the message itself,
/// headers and body with CRLF line ends, as it is to be delivered.
package struct SMTPMessage: Sendable {
    /// `smtp://host:port` (STARTTLS when the server offers it) or `smtps://host:port` (TLS from
    /// the start); a user and password in the URL are used to log in.
    package var url: String
    package var from: String
    package var recipients: [String]
    package var message: [UInt8]
    package var connectTimeout: Double = 5
    package var timeout: Double = 30
    /// A file of certificates to trust instead of the system's, as `HTTPRequest.trustedCertificates`.
    package var trustedCertificates: String?

    package init(url: String, from: String, recipients: [String], message: [UInt8]) {
        self.url = url; self.from = from; self.recipients = recipients; self.message = message
    }
}

extension CurlEasy {
    /// Hands `mail` to its SMTP server; returns once the server accepted it for delivery. libcurl
    /// speaks the protocol (and escapes a line that starts with a dot); only SMTP URLs are allowed.
    package func send(_ mail: SMTPMessage) throws(CurlError) {
        curl_easy_reset(handle)
        let upload = Upload(bytes: mail.message)
        let context = Unmanaged.passRetained(upload)
        defer { context.release() }
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(recipients) }
        for recipient in mail.recipients { recipients = curl_slist_append(recipients, "<\(recipient)>") }

        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            var setup = pantry_curl_setopt_string(handle, CURLOPT_URL, mail.url)
            func set(_ result: CURLcode) { if setup == CURLE_OK { setup = result } }
            set(pantry_curl_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "smtp,smtps"))
            set(pantry_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
            set(pantry_curl_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, Int((mail.connectTimeout * 1000).rounded(.up))))
            set(pantry_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int((mail.timeout * 1000).rounded(.up))))
            // STARTTLS whenever the server offers it; smtps:// is TLS from the first byte.
            set(pantry_curl_setopt_long(handle, CURLOPT_USE_SSL, Int(CURLUSESSL_TRY.rawValue)))
            set(pantry_curl_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
            set(pantry_curl_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
            if let trusted = mail.trustedCertificates {
                set(pantry_curl_setopt_string(handle, CURLOPT_CAINFO, trusted))
                set(pantry_curl_setopt_string(handle, CURLOPT_CAPATH, nil))
            }
            set(pantry_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(mail.from)>"))
            set(pantry_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients))
            set(pantry_curl_setopt_long(handle, CURLOPT_UPLOAD, 1))
            set(pantry_curl_setopt_read_function(handle, readCallback))
            set(pantry_curl_setopt_pointer(handle, CURLOPT_READDATA, context.toOpaque()))
            set(pantry_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress))
            guard setup == CURLE_OK else { return setup }
            let result = curl_easy_perform(handle)
            _ = pantry_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
            return result
        }
        guard code == CURLE_OK else { throw Self.failure(code, errorBuffer: errorBuffer) }
    }
}

/// The message being read by libcurl; passed to the read callback as userdata.
private final class Upload {
    let bytes: [UInt8]
    var offset = 0
    init(bytes: [UInt8]) { self.bytes = bytes }
}

private let readCallback: pantry_curl_data_callback = { buffer, size, count, userdata in
    let upload = Unmanaged<Upload>.fromOpaque(userdata!).takeUnretainedValue()
    let length = min(size * count, upload.bytes.count - upload.offset)
    guard let buffer, length > 0 else { return 0 }
    upload.bytes.withUnsafeBytes { bytes in
        UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + upload.offset, byteCount: length)
    }
    upload.offset += length
    return length
}
