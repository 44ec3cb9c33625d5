import HTTPTypes

/// The codes of the problems the API raises itself, beside the core's rejection codes
/// (`Rejection.Code`). Stable: clients switch on them (`schemas/openapi.yaml` names each), so a
/// code is never renamed or reused. Each has one status: a new code does not compile until it has one.
package enum ProblemCode: String, CaseIterable, Sendable {
    // HTTP itself: what Hummingbird and the connection refuse before a route runs.
    case badRequest = "bad_request"
    case malformedRequest = "malformed_request"
    case headersTooLarge = "headers_too_large"
    case tooManyConnections = "too_many_connections"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case unsupportedMediaType = "unsupported_media_type"
    case rangeNotSatisfiable = "range_not_satisfiable"
    case invalidPath = "invalid_path"
    case invalidQuery = "invalid_query"
    case internalError = "internal_error"
    // Accounts and sessions.
    case invalidPassword = "invalid_password"
    case invalidCredentials = "invalid_credentials"
    case invalidToken = "invalid_token"
    case wrongPassword = "wrong_password"
    case invalidOperatorProof = "invalid_operator_proof"
    case tooManyAttempts = "too_many_attempts"
    case rateLimited = "rate_limited"
    case busy = "busy"
    case starting = "starting"
    case notYetVisible = "not_yet_visible"
    /// No SMTP server is configured, or a message could not be queued: no reset link can be sent.
    case mailUnavailable = "mail_unavailable"
    // Commands.
    case invalidIdempotencyKey = "invalid_idempotency_key"
    case idempotencyKeyReused = "idempotency_key_reused"
    case minutesRequired = "minutes_required"
    case coreUnavailable = "core_unavailable"
    case storageError = "storage_error"
    case storageUnavailable = "storage_unavailable"
    // Reads.
    case notReady = "not_ready"
    case notCaughtUp = "not_caught_up"
    case positionNotWritten = "position_not_written"
    case workerUnavailable = "worker_unavailable"
    // Live streams.
    case invalidLastEventId = "invalid_last_event_id"
    case tooManyStreams = "too_many_streams"
    // Recipes.
    case fetchUnavailable = "fetch_unavailable"
    case quotaExhausted = "quota_exhausted"
    case upstreamRateLimited = "upstream_rate_limited"
    case upstreamBudgetExhausted = "upstream_budget_exhausted"
    case upstreamUnavailable = "upstream_unavailable"

    package var status: HTTPResponse.Status {
        switch self {
        case .badRequest, .malformedRequest, .invalidPath, .invalidIdempotencyKey, .invalidLastEventId:
            .badRequest
        case .invalidCredentials, .invalidToken:
            .unauthorized
        case .wrongPassword, .invalidOperatorProof:
            .forbidden
        case .notFound:
            .notFound
        case .methodNotAllowed:
            .methodNotAllowed
        case .unsupportedMediaType:
            .unsupportedMediaType
        case .rangeNotSatisfiable:
            .rangeNotSatisfiable
        case .invalidQuery, .invalidPassword, .idempotencyKeyReused, .minutesRequired, .positionNotWritten:
            .unprocessableContent
        case .tooManyAttempts, .rateLimited, .upstreamBudgetExhausted, .tooManyConnections:
            .tooManyRequests
        case .headersTooLarge:
            .requestHeaderFieldsTooLarge
        case .internalError:
            .internalServerError
        case .busy, .starting, .notYetVisible, .mailUnavailable, .coreUnavailable, .storageError, .storageUnavailable, .notReady, .notCaughtUp,
             .workerUnavailable, .tooManyStreams, .fetchUnavailable, .quotaExhausted, .upstreamRateLimited, .upstreamUnavailable:
            .serviceUnavailable
        }
    }
}
