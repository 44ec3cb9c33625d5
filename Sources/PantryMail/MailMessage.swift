import Foundation

/// A plain-text message as an SMTP server takes it: headers and body, CRLF line ends.
package enum MailMessage {
    package struct Refused: Error, CustomStringConvertible {
        package let description: String
        init(_ description: String) { self.description = description }
    }

    /// An address that can stand in a header and an SMTP command as it is: printable ASCII, one
    /// '@', nothing that would end the line or the address.
    package static func isPlainAddress(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        return (3...254).contains(bytes.count) && bytes.count(where: { $0 == UInt8(ascii: "@") }) == 1
            && bytes.allSatisfy { (0x21...0x7E).contains($0) && !"<>()[],;:\\\"".utf8.contains($0) }
    }

    package static func compose(from: String, fromName: String, to: String, subject: String, text: String, at date: Date) -> [UInt8] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss '+0000'"
        let domain = from.split(separator: "@").last.map(String.init) ?? "localhost"
        let headers = [
            "From: \(headerText(fromName)) <\(from)>",
            "To: <\(to)>",
            "Subject: \(headerText(subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(UUID().uuidString.lowercased())@\(domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
        ]
        let body = text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
        return Array((headers + [""] + body).joined(separator: "\r\n").utf8) + Array("\r\n".utf8)
    }

    /// A header's text on one line: ASCII as it is, anything else as an RFC 2047 encoded word.
    private static func headerText(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
        guard !line.unicodeScalars.allSatisfy({ $0.isASCII }) else { return line }
        return "=?utf-8?B?\(Data(line.utf8).base64EncodedString())?="
    }
}
