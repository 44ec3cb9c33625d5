import Crypto
import Foundation
import PantryTokens
import Testing

@Suite struct DeviceTokenTests {
    let signer = TokenSigner(key: SymmetricKey(data: Data("a test key that is long enough....".utf8)))

    @Test func aDeviceTokenVerifiesToItsAccountAndDeviceAndIsRenewedForTheSameDevice() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = signer.deviceToken(userId: "u-1 with.dots", now: now)
        let claims = try #require(signer.verifyDeviceToken(token, now: now))
        #expect(claims.userId == "u-1 with.dots" && claims.issuedAt == 1_800_000_000 && claims.deviceId.count == 22)
        let renewed = signer.deviceToken(userId: claims.userId, deviceId: claims.deviceId, now: now + 60)
        #expect(signer.verifyDeviceToken(renewed, now: now + 60)?.deviceId == claims.deviceId)
    }

    @Test func anotherKeysAnAlteredAnExpiredOrAnotherKindOfTokenIsRefused() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = signer.deviceToken(userId: "u1", now: now)
        let other = TokenSigner(key: SymmetricKey(data: Data("another key that is long enough...".utf8)))
        #expect(other.verifyDeviceToken(token, now: now) == nil)
        var parts = token.split(separator: ".").map(String.init)
        parts[1] = "dTI"  // "u2": the account changed, the signature kept
        #expect(signer.verifyDeviceToken(parts.joined(separator: "."), now: now) == nil)
        #expect(signer.verifyDeviceToken(token, now: now + Double(TokenSigner.deviceLifetime)) == nil, "expired")
        #expect(signer.verifyDeviceToken(token, now: now - 3600) == nil, "from the future")
        // A session token or an operator proof is not a device token, nor is anything long.
        #expect(signer.verifyDeviceToken(signer.issue(userId: "u1", username: "anna", now: now).token, now: now) == nil)
        #expect(signer.verifyDeviceToken(signer.operatorProof(now: now), now: now) == nil)
        #expect(signer.verifyDeviceToken(String(repeating: "d1.", count: 400), now: now) == nil)
    }
}
