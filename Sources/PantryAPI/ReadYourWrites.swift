import Hummingbird

/// `?after=POSITION`: a read that must see the caller's own command. The worker that answers waits
/// (bounded) until it has applied that position, woken by the event itself; it refuses at once a
/// position beyond the log's head, which may never be written. The API's own view of the feed plays
/// no part: it follows only account events, so it would wait for a heartbeat, and it may lag the
/// log after a core restart while the worker does not.
enum ReadYourWrites {
    static func position(in request: Request) throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw Problem(.unprocessableContent, code: "invalid_query", detail: "'after' must be a log position (an integer ≥ 0)")
        }
        return after
    }
}
