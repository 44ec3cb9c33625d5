import Crypto
import Foundation
@testable import PantryTokens
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
        #expect(try TokenSigner.existingKey(dataDirectory: directory, configured: nil) == nil, "a tool never makes the key")
        let first = try TokenSigner.loadKey(dataDirectory: directory, configured: nil)
        let second = try TokenSigner.loadKey(dataDirectory: directory, configured: nil)
        #expect(first == second)
        let path = directory.appendingPathComponent(TokenSigner.keyFileName).path
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(throws: TokenSigner.KeyError.self) {
            try TokenSigner.loadKey(dataDirectory: directory, configured: "short")
        }
        #expect(try TokenSigner.existingKey(dataDirectory: directory, configured: nil) == first, "the load test reads the API's key")
    }

    @Test func anOperatorProofVerifiesOnlyWithTheKeyAndUntilItExpires() throws {
        let proof = signer.operatorProof(now: now)
        #expect(signer.verifyOperatorProof(proof, now: now)?.expiresAt == Int64(now.timeIntervalSince1970) + 60)
        #expect(signer.verifyOperatorProof(proof, now: now.addingTimeInterval(59)) != nil)
        #expect(signer.verifyOperatorProof(proof, now: now.addingTimeInterval(60)) == nil, "expired")
        let stranger = TokenSigner(key: SymmetricKey(data: Data("another key that is long enough...".utf8)))
        #expect(stranger.verifyOperatorProof(proof, now: now) == nil)
        let parts = proof.split(separator: ".")
        let later = String(Int64(now.timeIntervalSince1970) + 30)
        #expect(signer.verifyOperatorProof([later, String(parts[1]), String(parts[2])].joined(separator: "."), now: now) == nil,
                "the expiry is signed")
        let otherNonce = String(parts[1].first == "A" ? "B" : "A") + parts[1].dropFirst()
        #expect(signer.verifyOperatorProof([String(parts[0]), otherNonce, String(parts[2])].joined(separator: "."), now: now) == nil,
                "the nonce is signed")
    }

    /// The API takes each proof once, by its nonce: two signed in the same second must differ.
    @Test func twoOperatorProofsSignedAtOnceHaveTheirOwnNonces() throws {
        let first = try #require(signer.verifyOperatorProof(signer.operatorProof(now: now), now: now))
        let second = try #require(signer.verifyOperatorProof(signer.operatorProof(now: now), now: now))
        #expect(first.nonce != second.nonce && first.expiresAt == second.expiresAt)
    }

    @Test func aSessionTokenIsNeverAnOperatorProofNorTheReverse() throws {
        let (token, _) = signer.issue(userId: "u1", username: "anna", now: now)
        #expect(signer.verifyOperatorProof(token, now: now) == nil)
        #expect(throws: TokenSigner.Failure.self) { try signer.verify(signer.operatorProof(now: now), now: now) }
    }
}
