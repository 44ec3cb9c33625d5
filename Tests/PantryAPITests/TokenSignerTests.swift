import Crypto
import Foundation
@testable import PantryAPI
import Testing

@Suite struct TokenSignerTests {
    let signer = TokenSigner(key: SymmetricKey(data: Data("a test key that is long enough....".utf8)), lifetimeSeconds: 3600)
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anIssuedTokenVerifiesToItsClaims() throws {
        let (token, claims) = signer.issue(userId: "u1", username: "anna", now: now)
        #expect(claims.expiresAt == claims.issuedAt + 3600)
        #expect(claims.tokenId.count == 22)
        #expect(try signer.verify(token, now: now) == claims)
        #expect(try signer.verify(token, now: now.addingTimeInterval(3599)) == claims)
    }

    @Test func anExpiredTokenIsRefused() {
        let (token, _) = signer.issue(userId: "u1", username: "anna", now: now)
        #expect(throws: TokenSigner.Failure.expired) { try signer.verify(token, now: now.addingTimeInterval(3600)) }
    }

    @Test func aTokenFromTheFutureIsRefused() {
        let (token, _) = signer.issue(userId: "u1", username: "anna", now: now.addingTimeInterval(600))
        #expect(throws: TokenSigner.Failure.expired) { try signer.verify(token, now: now) }
    }

    @Test func changedClaimsBreakTheSignature() throws {
        let (token, claims) = signer.issue(userId: "u1", username: "anna", now: now)
        var forged = claims
        forged.userId = "u2"
        let other = signer.sign(forged)
        let tampered = other.split(separator: ".")[0] + "." + token.split(separator: ".")[1]
        #expect(throws: TokenSigner.Failure.badSignature) { try signer.verify(String(tampered), now: now) }
    }

    @Test func anotherKeyIsRefused() {
        let stranger = TokenSigner(key: SymmetricKey(size: .bits256))
        let (token, _) = stranger.issue(userId: "u1", username: "anna", now: now)
        #expect(throws: TokenSigner.Failure.badSignature) { try signer.verify(token, now: now) }
    }

    @Test(arguments: ["", ".", "abc", "a.b.c", "eyJ9.!!!", String(repeating: "a", count: 5000)])
    func garbageIsRefused(_ token: String) {
        #expect(throws: TokenSigner.Failure.self) { try signer.verify(token, now: now) }
    }

    @Test func theKeyFileIsMadeOnceOwnerOnlyAndKept() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-key-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try TokenSigner.loadKey(dataDirectory: directory, environment: [:])
        let second = try TokenSigner.loadKey(dataDirectory: directory, environment: [:])
        #expect(first == second)
        let path = directory.appendingPathComponent(TokenSigner.keyFileName).path
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(throws: TokenSigner.KeyError.self) {
            try TokenSigner.loadKey(dataDirectory: directory, environment: ["PANTRY_TOKEN_KEY": "short"])
        }
    }
}
