import Foundation
import HTTPTypes
import Hummingbird
import PantryBounded
import PantryTokens

/// The returning clients of the log-in route (OWASP's device cookies, `DeviceClaims`): a device
/// token presented for its own account goes through a lane of its own, per device and for all
/// known devices together, so a flood of unknown clients that spends everyone's log-in budget
/// leaves it untouched. A device whose token fails its password `lockout.freeFailures` times is
/// locked out for `lockout.maxDelay`, its token worth nothing but a 429 until then: a stolen token
/// buys a few guesses, never the lane.
struct KnownDevices: Sendable {
    let signer: TokenSigner
    /// All known devices' log-ins together, as `AccountRoutes.overall` is everyone's.
    let overall: RateLimiter
    let lockout: SharedLoginThrottle

    init(signer: TokenSigner, limit: RateLimit) {
        self.signer = signer
        overall = RateLimiter(limit)
        var throttle = LoginThrottle()
        throttle.freeFailures = 5
        throttle.baseDelay = 15 * 60
        throttle.maxDelay = 15 * 60
        lockout = SharedLoginThrottle(throttle)
    }

    private static let header = HTTPField.Name(TokenSigner.deviceHeader)!

    /// The device token the request presents (the header an app sends, else the browser's
    /// cookie), when it is one this API signed and not expired.
    func presented(in request: Request) -> DeviceClaims? {
        let text = request.headers[Self.header] ?? Self.cookie(TokenSigner.deviceCookie, in: request.headers[values: .cookie])
        return text.flatMap { signer.verifyDeviceToken($0) }
    }

    private static func cookie(_ name: String, in headers: [String]) -> String? {
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }

    /// A token for the account's device (the one presented, when it was this account's), and the
    /// cookie that keeps it in a browser: sent back only to the log-in route, never to scripts.
    func renewed(for userId: String, presented: DeviceClaims?) -> (token: String, cookie: String) {
        let deviceId = presented.flatMap { $0.userId == userId ? $0.deviceId : nil }
        let token = deviceId.map { signer.deviceToken(userId: userId, deviceId: $0) } ?? signer.deviceToken(userId: userId)
        return (token, "\(TokenSigner.deviceCookie)=\(token); Path=/v1/sessions; Max-Age=\(TokenSigner.deviceLifetime); Secure; HttpOnly; SameSite=Strict")
    }

    static func key(_ device: DeviceClaims) -> String { "device|\(device.deviceId)" }
}
