import Hummingbird

/// `?after=POSITION`: a read that must see the caller's own command. Whoever holds the read model
/// waits (bounded) until it has applied that position, woken by the event itself: the worker for
/// its projection, the API's feed (`APIFeed.readyToRead`) for the leaderboard. A position beyond
/// the log's head, which may never be written, is refused at once; the head is asked of the log,
/// never taken from the feed, which may lag the log after a core restart.
enum ReadYourWrites {
    static func position(in request: Request) throws -> Int64? {
        guard let text = request.uri.queryParameters.get("after") else { return nil }
        guard let after = Int64(text), after >= 0 else {
            throw Problem(.invalidQuery, detail: "'after' must be a log position (an integer ≥ 0)")
        }
        return after
    }
}
