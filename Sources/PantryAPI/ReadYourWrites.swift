import Hummingbird

/// `?after=POSITION`: a read that must see the caller's own command. The worker waits (bounded)
/// until it has applied that position; a position the log has not reached is refused at once
/// rather than waited for, since it may never be written.
struct ReadYourWrites: Sendable {
    /// How long a position just answered by the core may take to reach this process's feed.
    static let feedAllowance: Duration = .seconds(1)

    let accounts: AccountDirectory

    func position(in request: Request) async throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw Problem(.unprocessableContent, code: "invalid_query", detail: "'after' must be a log position (an integer ≥ 0)")
        }
        guard await accounts.waitUntilApplied(after, timeout: Self.feedAllowance) else {
            throw Problem(.unprocessableContent, code: "position_not_written",
                          detail: "position \(after) is beyond the log's head (\(accounts.progress.position))")
        }
        return after
    }
}
