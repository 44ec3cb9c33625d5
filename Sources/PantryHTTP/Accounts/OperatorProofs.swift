import Foundation
import Logging
import Metrics
import PantryTokens
import Synchronization

/// The operator proofs (`X-Pantry-Operator`) this API process takes: bound to their use. A proof
/// was a reusable pass: one worked for 10 minutes, from any address, any number of times, and
/// skipped the per-address log-in limits (issue 45). Now each is taken once, by its nonce, from
/// loopback or a trusted proxy's address only (the operator's tool runs on a host the operator
/// holds), every outcome counted (`pantry_operator_proofs_total{outcome}`) and logged.
///
/// Once is per API process: a proof used twice against two processes passes both, within its
/// 60 s. The nonces are remembered until their proof expires, at most `capacity` at once; past
/// that new proofs are refused, never an old one forgotten early (which would let it in again).
final class OperatorProofs: Sendable {
    enum Outcome: String {
        case accepted, reused, invalid, full
        case address = "address_not_allowed"
    }

    /// ~80 bytes each: 8 MiB at most. The load test signs one per registration, log-in and deletion
    /// of its users, which is thousands a minute.
    static let capacity = 100_000

    private let signer: TokenSigner
    private let allowedAddresses: Set<String>
    private let logger: Logger
    private let used = Mutex<[String: Int64]>([:])
    private let lastLogged = Mutex<[String: ContinuousClock.Instant]>([:])

    /// - Parameter trustedProxies: the addresses besides loopback a proof is taken from.
    init(signer: TokenSigner, trustedProxies: Set<String>, logger: Logger) {
        self.signer = signer
        self.allowedAddresses = trustedProxies
        self.logger = logger
    }

    /// Whether the request is the operator's: false without the header; with it, true once the
    /// proof is taken, else a refusal (403, or 429 when too many were taken this last minute).
    func check(_ header: String?, client: String, now: Date = Date()) throws -> Bool {
        guard let header else { return false }
        let outcome = take(header, client: client, now: now)
        Counter(label: "pantry_operator_proofs_total", dimensions: [("outcome", outcome.rawValue)]).increment()
        log(outcome, client: client)
        switch outcome {
        case .accepted:
            return true
        case .address:
            throw Problem(.invalidOperatorProof, detail: "an operator proof is taken only from loopback or a trusted proxy's address")
        case .reused:
            throw Problem(.invalidOperatorProof, detail: "this operator proof was used already: sign one for each request")
        case .invalid:
            throw Problem(.invalidOperatorProof, detail: "the operator proof does not verify with this API's token key, or has expired")
        case .full:
            throw Problem(.rateLimited, detail: "\(Self.capacity) operator proofs taken within a minute; retry in a minute",
                          headers: [.retryAfter: String(TokenSigner.operatorProofLifetime)])
        }
    }

    private func take(_ header: String, client: String, now: Date) -> Outcome {
        guard Self.isLoopback(client) || allowedAddresses.contains(client) else { return .address }
        guard let proof = signer.verifyOperatorProof(header, now: now) else { return .invalid }
        let seconds = Int64(now.timeIntervalSince1970)
        return used.withLock { used in
            if used[proof.nonce] != nil { return .reused }
            if used.count >= Self.capacity { used = used.filter { $0.value > seconds } }
            guard used.count < Self.capacity else { return .full }
            used[proof.nonce] = proof.expiresAt
            return .accepted
        }
    }

    static func isLoopback(_ address: String) -> Bool {
        address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    /// Once a minute per outcome and address: the load test takes thousands, and a prober's
    /// refusals must not fill the log either.
    private func log(_ outcome: Outcome, client: String) {
        let now = ContinuousClock.now
        let due = lastLogged.withLock { logged in
            let key = "\(outcome.rawValue) \(client)"
            if let last = logged[key], now - last < .seconds(60) { return false }
            if logged.count >= 1024 { logged.removeAll() }
            logged[key] = now
            return true
        }
        guard due else { return }
        let metadata: Logger.Metadata = ["address": "\(client)", "outcome": "\(outcome.rawValue)"]
        if outcome == .accepted {
            logger.info("operator proof taken (logged once a minute per address; pantry_operator_proofs_total counts each)", metadata: metadata)
        } else {
            logger.warning("operator proof refused (logged once a minute per address and outcome)", metadata: metadata)
        }
    }
}
