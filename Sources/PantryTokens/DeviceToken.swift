import Crypto
import Foundation

/// OWASP's device cookie (Authentication Cheat Sheet, "Device Cookies"): a successful log-in gives
/// the client a value, signed with the token key, that names the account and a device. A log-in
/// that presents it again for the same account is a returning client, let through when the
/// log-in limit every unknown client shares is spent (a flood from 200 addresses left 8 of 20
/// honest log-ins, issue 45); for another account it is worth nothing.
package struct DeviceClaims: Sendable, Equatable {
    package var userId: String
    package var deviceId: String
    package var issuedAt: Int64
}

extension TokenSigner {
    /// What a browser keeps it in (`Secure; HttpOnly; SameSite=Strict`, sent only to the log-in
    /// route) and what an app sends it in.
    package static let deviceCookie = "pantry_device"
    package static let deviceHeader = "X-Pantry-Device"
    /// Renewed at every log-in, so a device in use keeps one; one not seen for this long is a stranger again.
    package static let deviceLifetime: Int64 = 180 * 24 * 3600

    /// A device token for `userId`: a new device unless `deviceId` names the one it had.
    package func deviceToken(userId: String, deviceId: String = RandomIdentifier.make(), now: Date = Date()) -> String {
        let signed = "d1." + Base64URL.encode(Data(userId.utf8)) + "." + deviceId + "." + String(Int64(now.timeIntervalSince1970))
        return signed + "." + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(("pantry-device." + signed).utf8), using: key)))
    }

    /// The claims of a device token signed with this key and not expired; nil for anything else.
    package func verifyDeviceToken(_ text: String, now: Date = Date()) -> DeviceClaims? {
        guard text.utf8.count <= 512 else { return nil }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0] == "d1", let user = Base64URL.decode(parts[1]), let userId = String(data: user, encoding: .utf8),
              !userId.isEmpty, parts[2].utf8.count == 22,
              parts[2].utf8.allSatisfy({ RandomIdentifier.alphabet.contains(Character(Unicode.Scalar($0))) }),
              parts[3].utf8.count <= 12, let issuedAt = Int64(parts[3]), let mac = Base64URL.decode(parts[4]),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(("pantry-device." + parts[0...3].joined(separator: ".")).utf8),
                                                     using: key)
        else { return nil }
        let seconds = Int64(now.timeIntervalSince1970)
        guard issuedAt <= seconds + Self.clockSkew, seconds < issuedAt + Self.deviceLifetime else { return nil }
        return DeviceClaims(userId: userId, deviceId: String(parts[2]), issuedAt: issuedAt)
    }
}
