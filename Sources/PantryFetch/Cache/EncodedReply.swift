import Foundation
import PantryJSON
import PantryWire

/// An answer the cache or the catalog gave, encoded once: a repeated request costs a copy of these
/// bytes and its age written after them, not a search and a `JSONEncoder` run (70 µs of the fetch
/// worker's CPU for a catalog search).
///
/// On the wire: `{"ok":true,"reusableForMs":N,"response":{"payload":...,"origin":...,"provider":...,
/// "ageSeconds":A}}`. `ageSeconds` is computed for each reply from when the data was stored, so
/// it is as true as a fresh answer's; `reusableForMs` tells a caller how long these exact bytes
/// stay the answer (until the age changes, or the cached data expires).
struct EncodedReply: Sendable {
    /// The response object up to its age: `{"payload":...,"origin":...,"provider":...,"ageSeconds":`.
    private let head: [UInt8]
    /// When the cached data was stored (seconds since 1970); nil for the catalog's, always 0 s old.
    private let storedAt: Double?
    /// The end of the cached data's lifetime; infinite for the catalog, which changes only when
    /// the worker restarts.
    private let freshUntil: Double

    /// How long a catalog answer may be reused elsewhere: it only changes when the worker restarts
    /// (a new import), so this bounds how long a copy could outlive such a restart.
    static let catalogReuse = 60.0

    init(_ response: FetchResponse, storedAt: Double?, freshUntil: Double) {
        var writer = JSONObjectWriter()
        // FetchPayload is made of strings, numbers and bytes: encoding cannot fail.
        writer.field("payload", json: try! JSONEncoder().encode(response.payload))
        writer.field("origin", response.origin.rawValue)
        writer.field("provider", response.provider)
        // The key alone: each reply writes the age after it and closes the object.
        writer.field("ageSeconds", json: [])
        head = writer.bytes
        self.storedAt = storedAt
        self.freshUntil = freshUntil
    }

    var cost: Int { head.count }

    /// The reply at `now` (seconds since 1970); nil once the cached data has expired.
    func reply(at now: Double) -> Data? {
        guard now < freshUntil else { return nil }
        // As FetchService counts a cached entry's age: whole seconds, never negative.
        let age = storedAt.map { max(0, Int(now - $0)) } ?? 0
        let reusable = storedAt.map { min($0 + Double(age + 1), freshUntil) - now } ?? Self.catalogReuse
        let ageDigits = String(age).utf8
        let reuseDigits = String(max(0, Int(reusable * 1000))).utf8
        var bytes = Data(capacity: head.count + 64)
        bytes.append(contentsOf: #"{"ok":true,"reusableForMs":"#.utf8)
        bytes.append(contentsOf: reuseDigits)
        bytes.append(contentsOf: #","response":"#.utf8)
        bytes.append(contentsOf: head)
        bytes.append(contentsOf: ageDigits)
        bytes.append(contentsOf: "}}".utf8)
        return bytes
    }
}
