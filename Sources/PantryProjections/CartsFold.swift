import GRDB
import PantryDomain
import PantryLog

/// A rebuild's carts, folded in memory across every batch and written once by `finish`, in about key
/// order, with one INSERT per line left at the end. Folding each event into the file cost a random
/// B-tree write per event: with 1,000,000 users and 4.7M cart events that was 16 s of the 12M-event
/// replay (0.39 of the log's read speed).
///
/// The rules are `CartsProjection.apply`'s, and keys compare as SQLite compares them (byte for
/// byte): Swift's `==` on strings would merge two recipe ids that differ only in their Unicode
/// normalisation, which the table keeps apart.
final class CartsFold: ProjectionFold {
    private struct Line {
        var recipeId: RecipeID
        var title: String
        var image: String?
        var count: Int
        var addedAt: Int64
    }

    private struct Timer {
        var recipeId: RecipeID
        var title: String
        var image: String?
        var startedAt: Int64
        var minutes: Int
        var pointsUntil: Int64 { startedAt + Int64(minutes) * 60_000 + Decider.cookingGrace }
    }

    /// Each user's lines in the order they entered the cart. A user whose last line went keeps an
    /// empty list (nothing to write), so that every event is one lookup, changed in place.
    private var carts: [BytewiseKey: [Line]] = [:]
    /// Each person's timers, as `CartsProjection.apply` keeps them.
    private var cooking: [BytewiseKey: [Timer]] = [:]

    func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws {
        // By index: a `for (event, recorded) in batch` copies every event's seven strings.
        for index in batch.indices {
            switch batch[index].event {
            case .userDeleted(let e):
                carts[BytewiseKey(e.userId)] = nil
                cooking[BytewiseKey(e.userId)] = nil
            case .householdLeft(let e) where e.dissolved:
                carts[BytewiseKey(ListOwner.household(e.householdId))] = nil
            case .cookingStarted(let e):
                startTimer(e, at: batch[index].recorded.metadata.recordedAt)
            case .cartAdjusted(let e):
                Self.adjust(e, at: batch[index].recorded.position,
                            in: &carts[BytewiseKey(ListOwner.of(e.userId, household: e.household)), default: []])
            default:
                continue
            }
        }
    }

    private func startTimer(_ e: CookingStarted, at recordedAt: Int64) {
        var title = e.title, image = e.image
        if title == nil, let line = carts[BytewiseKey(ListOwner.of(e.userId, household: e.cartHousehold))]?
            .first(where: { BytewiseKey.same($0.recipeId.rawValue, e.recipeId.rawValue) }) {
            title = line.title; image = line.image
        }
        let timer = Timer(recipeId: e.recipeId, title: title ?? e.recipeId.rawValue, image: image, startedAt: recordedAt, minutes: e.minutes)
        var timers = cooking[BytewiseKey(e.userId), default: []].filter {
            recordedAt < $0.pointsUntil && !BytewiseKey.same($0.recipeId.rawValue, e.recipeId.rawValue)
        }
        timers.append(timer)
        cooking[BytewiseKey(e.userId)] = timers
    }

    private static func adjust(_ e: CartAdjusted, at position: Int64, in lines: inout [Line]) {
        let index = lines.firstIndex { BytewiseKey.same($0.recipeId.rawValue, e.recipeId.rawValue) }
        if e.count <= 0 {
            if let index { lines.remove(at: index) }
        } else if let index {
            lines[index].title = e.title
            lines[index].image = e.image
            lines[index].count = e.count
        } else {
            lines.append(Line(recipeId: e.recipeId, title: e.title, image: e.image, count: e.count, addedAt: position))
        }
    }

    func finish(_ db: Database) throws {
        // The rebuild's table is empty until now (its file is new), so plain inserts, in about the
        // table's key order, so that each one lands on the B-tree's last pages. About: `String`'s
        // `<` (a memcmp for ASCII) orders non-ASCII ids by their scalars, not their bytes; the
        // rows are the same in any order, and sorting by the bytes themselves took twice as long.
        let insert = try db.makeStatement(sql: """
            INSERT INTO cart_lines (user_id, recipe_id, title, image, count, added_at_position) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for (user, lines) in carts.sorted(by: { $0.key.string < $1.key.string }) {
            for line in lines.count < 2 ? lines : lines.sorted(by: { $0.recipeId.rawValue < $1.recipeId.rawValue }) {
                insert.setUncheckedArguments([user.string, line.recipeId, line.title, line.image, line.count, line.addedAt])
                try insert.execute()
            }
        }
        carts = [:]
        let start = try db.makeStatement(sql: """
            INSERT INTO cooking (user_id, recipe_id, title, image, started_at, minutes) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for (user, timers) in cooking.sorted(by: { $0.key.string < $1.key.string }) {
            for timer in timers.sorted(by: { $0.recipeId.rawValue < $1.recipeId.rawValue }) {
                start.setUncheckedArguments([user.string, timer.recipeId, timer.title, timer.image, timer.startedAt, timer.minutes])
                try start.execute()
            }
        }
        cooking = [:]
    }
}

/// A string as SQLite's BINARY collation sees it: equal when its UTF-8 bytes are.
struct BytewiseKey: Hashable {
    let string: String

    init(_ string: String) { self.string = string }

    static func == (lhs: Self, rhs: Self) -> Bool { same(lhs.string, rhs.string) }

    func hash(into hasher: inout Hasher) {
        var string = string
        string.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    /// Compared over the contiguous bytes: `String.UTF8View`'s generic comparison was a tenth of the fold.
    static func same(_ a: String, _ b: String) -> Bool {
        var a = a, b = b
        return a.withUTF8 { a in b.withUTF8 { b in a.elementsEqual(b) } }
    }
}
