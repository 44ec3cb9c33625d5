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
        var timer: (startedAt: Int64, minutes: Int)?
    }

    /// Each user's lines in the order they entered the cart. A user whose last line went keeps an
    /// empty list (nothing to write), so that every event is one lookup, changed in place.
    private var carts: [BytewiseKey: [Line]] = [:]

    func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws {
        // By index: a `for (event, recorded) in batch` copies every event's seven strings.
        for index in batch.indices {
            switch batch[index].event {
            case .userDeleted(let e):
                carts[BytewiseKey(e.userId)] = nil
            case .householdLeft(let e) where e.dissolved:
                carts[BytewiseKey(ListOwner.household(e.householdId))] = nil
            case .cookingStarted(let e):
                Self.startTimer(e, at: batch[index].recorded.metadata.recordedAt,
                                in: &carts[BytewiseKey(ListOwner.of(e.userId, household: e.household)), default: []])
            case .cartAdjusted(let e):
                Self.adjust(e, at: batch[index].recorded.position,
                            in: &carts[BytewiseKey(ListOwner.of(e.userId, household: e.household)), default: []])
            default:
                continue
            }
        }
    }

    private static func startTimer(_ e: CookingStarted, at recordedAt: Int64, in lines: inout [Line]) {
        guard let index = lines.firstIndex(where: { BytewiseKey.same($0.recipeId.rawValue, e.recipeId.rawValue) }) else { return }
        lines[index].timer = (recordedAt, e.minutes)
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
            INSERT INTO cart_lines (user_id, recipe_id, title, image, count, added_at_position, timer_started_at, timer_minutes)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        for (user, lines) in carts.sorted(by: { $0.key.string < $1.key.string }) {
            for line in lines.count < 2 ? lines : lines.sorted(by: { $0.recipeId.rawValue < $1.recipeId.rawValue }) {
                insert.setUncheckedArguments([user.string, line.recipeId, line.title, line.image, line.count, line.addedAt,
                                              line.timer?.startedAt, line.timer?.minutes])
                try insert.execute()
            }
        }
        carts = [:]
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
