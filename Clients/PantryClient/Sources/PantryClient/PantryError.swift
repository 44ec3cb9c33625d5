import Foundation

/// Every way a `PantryClient` call fails, typed: the server's refusal with its stable code, the
/// network after the retries, or no session to act with.
public enum PantryError: Error, Sendable, CustomStringConvertible {
    /// The server answered with a problem document (RFC 9457); `code` is stable, switch on it.
    case problem(Problem)
    /// The server could not be reached, or kept answering 502/503/504, after every retry.
    case unreachable(String)
    /// No session: sign in (or the session ended: logged out, a new password, refresh refused).
    case signedOut
    /// An answer the contract does not describe (a proxy's page, a newer server).
    case unexpectedAnswer(status: Int)

    /// The problem's stable code, if the server refused.
    public var code: ProblemCode? {
        if case .problem(let problem) = self { return problem.code }
        return nil
    }

    public var description: String {
        switch self {
        case .problem(let problem): "\(problem.status) \(problem.code.rawValue): \(problem.detail)"
        case .unreachable(let reason): "Pantry could not be reached: \(reason)"
        case .signedOut: "not signed in"
        case .unexpectedAnswer(let status): "an answer the contract does not describe (HTTP \(status))"
        }
    }
}

/// A problem document as the server sends it.
public struct Problem: Sendable, Hashable, Decodable {
    public let code: ProblemCode
    public let status: Int
    public let title: String
    public let detail: String
    /// From `Retry-After`, when the answer carried one (429, some 503s).
    public internal(set) var retryAfterSeconds: Int?

    private enum CodingKeys: String, CodingKey { case code, status, title, detail }
}

/// A problem's stable code. A struct, not an enum, so that a code a newer server adds still
/// arrives (as its raw value) instead of failing to decode; the known ones are constants.
public struct ProblemCode: RawRepresentable, Hashable, Sendable, Decodable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }
    public init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
    public var description: String { rawValue }

    // Accounts and sessions.
    public static let invalidCredentials: ProblemCode = "invalid_credentials"
    public static let invalidToken: ProblemCode = "invalid_token"
    public static let invalidPassword: ProblemCode = "invalid_password"
    public static let wrongPassword: ProblemCode = "wrong_password"
    public static let tooManyAttempts: ProblemCode = "too_many_attempts"
    public static let rateLimited: ProblemCode = "rate_limited"
    public static let usernameTaken: ProblemCode = "username_taken"
    public static let emailTaken: ProblemCode = "email_taken"
    public static let invalidUsername: ProblemCode = "invalid_username"
    public static let invalidEmail: ProblemCode = "invalid_email"
    // A forgotten password.
    public static let resetTokenInvalid: ProblemCode = "reset_token_invalid"
    public static let resetTokenUsed: ProblemCode = "reset_token_used"
    public static let resetTokenExpired: ProblemCode = "reset_token_expired"
    public static let mailUnavailable: ProblemCode = "mail_unavailable"
    // The rules of the commands.
    public static let alreadySaved: ProblemCode = "already_saved"
    public static let notSaved: ProblemCode = "not_saved"
    public static let noSuchItem: ProblemCode = "no_such_item"
    public static let unchanged: ProblemCode = "unchanged"
    public static let alreadyUsed: ProblemCode = "already_used"
    public static let cartOutOfRange: ProblemCode = "cart_out_of_range"
    public static let notInCart: ProblemCode = "not_in_cart"
    public static let unknownRecipe: ProblemCode = "unknown_recipe"
    public static let notInRecipe: ProblemCode = "not_in_recipe"
    public static let notCooking: ProblemCode = "not_cooking"
    public static let paceExceeded: ProblemCode = "pace_exceeded"
    public static let limitReached: ProblemCode = "limit_reached"
    public static let minutesRequired: ProblemCode = "minutes_required"
    public static let invalidField: ProblemCode = "invalid_field"
    public static let invalidText: ProblemCode = "invalid_text"
    public static let idempotencyKeyReused: ProblemCode = "idempotency_key_reused"
    // Reads.
    public static let notFound: ProblemCode = "not_found"
    public static let invalidQuery: ProblemCode = "invalid_query"
    public static let positionNotWritten: ProblemCode = "position_not_written"
    public static let notCaughtUp: ProblemCode = "not_caught_up"
    // The deployment: worth a retry later.
    public static let coreUnavailable: ProblemCode = "core_unavailable"
    public static let storageUnavailable: ProblemCode = "storage_unavailable"
    public static let workerUnavailable: ProblemCode = "worker_unavailable"
    public static let fetchUnavailable: ProblemCode = "fetch_unavailable"
    public static let notReady: ProblemCode = "not_ready"
    public static let starting: ProblemCode = "starting"
    public static let busy: ProblemCode = "busy"
    public static let tooManyStreams: ProblemCode = "too_many_streams"
    public static let quotaExhausted: ProblemCode = "quota_exhausted"
    public static let upstreamUnavailable: ProblemCode = "upstream_unavailable"
    public static let upstreamBudgetExhausted: ProblemCode = "upstream_budget_exhausted"
}
