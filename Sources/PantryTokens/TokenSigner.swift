import Crypto
import Foundation

/// What a bearer token says: who, since when, until when, and an id that logout can revoke.
package struct SessionClaims: Codable, Sendable, Equatable {
    package var userId: String
    package var username: String
    package var issuedAt: Int64
    package var expiresAt: Int64
    package var tokenId: String
    /// The account's credentials generation when the token was issued: a password change moves
    /// it on, which ends every session begun before (tokens without it are generation 0).
    package var credentialsGeneration: Int

    enum CodingKeys: String, CodingKey {
        case userId = "uid", username = "usr", issuedAt = "iat", expiresAt = "exp", tokenId = "jti", credentialsGeneration = "gen"
    }

    package init(userId: String, username: String, issuedAt: Int64, expiresAt: Int64, tokenId: String,
                credentialsGeneration: Int = 0) {
        self.userId = userId; self.username = username; self.issuedAt = issuedAt; self.expiresAt = expiresAt
        self.tokenId = tokenId; self.credentialsGeneration = credentialsGeneration
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(userId: try c.decode(String.self, forKey: .userId), username: try c.decode(String.self, forKey: .username),
                  issuedAt: try c.decode(Int64.self, forKey: .issuedAt), expiresAt: try c.decode(Int64.self, forKey: .expiresAt),
                  tokenId: try c.decode(String.self, forKey: .tokenId),
                  credentialsGeneration: try c.decodeIfPresent(Int.self, forKey: .credentialsGeneration) ?? 0)
    }
}

/// Bearer tokens `<base64url(claims JSON)>.<base64url(HMAC-SHA256(key, first part))>`: stateless to
/// check, so any number of API processes sharing the key accept each other's tokens.
package struct TokenSigner: Sendable {
    package enum Failure: Error, Equatable { case malformed, badSignature, expired }

    // Raw bytes: `SymmetricKey` is not Sendable in this swift-crypto.
    private let keyBytes: Data
    var key: SymmetricKey { SymmetricKey(data: keyBytes) }
    package var lifetime: Int64
    /// Tolerated clock difference between API processes for `issuedAt`.
    static let clockSkew: Int64 = 60
    static let maxTokenLength = 2048

    package init(key: SymmetricKey, lifetimeSeconds: Int64 = 24 * 3600) {
        self.keyBytes = key.withUnsafeBytes { Data($0) }
        self.lifetime = lifetimeSeconds
    }

    package func issue(userId: String, username: String, credentialsGeneration: Int = 0,
                      now: Date = Date()) -> (token: String, claims: SessionClaims) {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let claims = SessionClaims(userId: userId, username: username, issuedAt: issuedAt,
                                   expiresAt: issuedAt + lifetime, tokenId: RandomIdentifier.make(),
                                   credentialsGeneration: credentialsGeneration)
        return (sign(claims), claims)
    }

    package func sign(_ claims: SessionClaims) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Strings and integers: encoding cannot fail.
        let payload = Base64URL.encode(try! encoder.encode(claims))
        let mac = HMAC<SHA256>.authenticationCode(for: Data(payload.utf8), using: key)
        return payload + "." + Base64URL.encode(Data(mac))
    }

    package func verify(_ token: String, now: Date = Date()) throws(Failure) -> SessionClaims {
        guard token.utf8.count <= Self.maxTokenLength else { throw .malformed }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let mac = Base64URL.decode(parts[1]) else { throw .malformed }
        guard HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(parts[0].utf8), using: key) else {
            throw .badSignature
        }
        guard let payload = Base64URL.decode(parts[0]),
              let claims = try? JSONDecoder().decode(SessionClaims.self, from: payload) else { throw .malformed }
        let seconds = Int64(now.timeIntervalSince1970)
        guard seconds < claims.expiresAt, claims.issuedAt <= seconds + Self.clockSkew else { throw .expired }
        return claims
    }
}

extension TokenSigner {
    package static let keyFileName = "api-token.key"

    /// `configured` (`PANTRY_TOKEN_KEY`, at least 32 bytes) when set, so several API processes
    /// share it; otherwise a random key made once and kept, owner-only, in the data directory, so
    /// that a restart keeps tokens valid.
    package static func loadKey(dataDirectory: URL, configured: String?) throws -> SymmetricKey {
        if let configured { return try key(configured) }
        let path = dataDirectory.appendingPathComponent(keyFileName).path
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }
        // O_EXCL: of two processes starting at once, one creates the file and both read it.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd >= 0 {
            defer { close(fd) }
            let written = fresh.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == fresh.count, fsync(fd) == 0 else { throw KeyError("could not write \(path)") }
            return SymmetricKey(data: fresh)
        }
        guard errno == EEXIST else { throw KeyError("could not create \(path): errno \(errno)") }
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        guard stored.count == 32 else { throw KeyError("\(path) must hold 32 bytes; delete it to make a new key") }
        return SymmetricKey(data: stored)
    }

    /// The key as `loadKey` finds it, without ever making one: for a tool beside the API (the load
    /// test), nil when the data directory holds none.
    package static func existingKey(dataDirectory: URL, configured: String?) throws -> SymmetricKey? {
        if let configured { return try key(configured) }
        let path = dataDirectory.appendingPathComponent(keyFileName).path
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let stored = try Data(contentsOf: URL(fileURLWithPath: path))
        guard stored.count == 32 else { throw KeyError("\(path) must hold 32 bytes") }
        return SymmetricKey(data: stored)
    }

    private static func key(_ configured: String) throws -> SymmetricKey {
        guard configured.utf8.count >= 32 else { throw KeyError("PANTRY_TOKEN_KEY must be at least 32 bytes") }
        return SymmetricKey(data: Data(configured.utf8))
    }

    package struct KeyError: Error, CustomStringConvertible {
        package var description: String
        init(_ description: String) { self.description = description }
    }
}

/// Proof that a request comes from the operator's own tool (the load test): it holds the token key.
/// That key already mints a session for anyone, so the proof opens nothing the key did not; it lets
/// the tool register and remove its throwaway users past the per-address log-in limits.
/// `<expiry>.<nonce>.<base64url(HMAC-SHA256(key, "pantry-operator." + expiry + "." + nonce))>`: the
/// prefix keeps a session token from ever verifying as a proof, and the reverse. The nonce makes
/// each proof one of its own, so that the API can take each only once (`OperatorProofs`): one proof
/// worked for 10 minutes, any number of times (issue 45).
extension TokenSigner {
    package static let operatorHeader = "X-Pantry-Operator"
    /// Long enough for a request to arrive; short, because the API remembers each proof it took until then.
    package static let operatorProofLifetime: Int64 = 60

    /// A verified proof: its nonce, by which it is used once, and until when it would be taken.
    package struct OperatorProof: Sendable, Equatable {
        package var nonce: String
        package var expiresAt: Int64
    }

    package func operatorProof(now: Date = Date()) -> String {
        let signed = String(Int64(now.timeIntervalSince1970) + Self.operatorProofLifetime) + "." + RandomIdentifier.make()
        return signed + "." + Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(("pantry-operator." + signed).utf8), using: key)))
    }

    /// The proof when `text` is one signed with this key and not expired; nil otherwise.
    package func verifyOperatorProof(_ text: String, now: Date = Date()) -> OperatorProof? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].utf8.count <= 12, let expiry = Int64(parts[0]),
              parts[1].utf8.count == 22, parts[1].utf8.allSatisfy({ RandomIdentifier.alphabet.contains(Character(Unicode.Scalar($0))) }),
              let mac = Base64URL.decode(parts[2]),
              HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data(("pantry-operator." + parts[0] + "." + parts[1]).utf8), using: key)
        else { return nil }
        let seconds = Int64(now.timeIntervalSince1970)
        guard seconds < expiry, expiry <= seconds + Self.operatorProofLifetime + Self.clockSkew else { return nil }
        return OperatorProof(nonce: String(parts[1]), expiresAt: expiry)
    }
}

enum Base64URL {
    static func encode(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> Data? {
        guard text.utf8.allSatisfy({ $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "=") }) else {
            return nil
        }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        // Only the canonical spelling: the unused low bits of the last character must be zero,
        // or four different signatures would verify as one.
        guard let data = Data(base64Encoded: base64), encode(data) == text else { return nil }
        return data
    }
}
