import Foundation
import Hummingbird
import NIOPosix
import PantryDomain
import PantryLog
import PantryWire
import Synchronization

/// "Already counted": the ingredients that earned a user a point for one recipe, asked of the log's
/// point index (the file or PostgreSQL here, or the core's log service) rather than of the
/// leaderboard worker, whose table of one row per point halved its replay. Read-your-writes
/// holds without waiting: a point is in the log before its command is answered.
package final class CountedIngredientsRead: Sendable {
    /// The log, or nil while it does not exist yet (the API may start before the core).
    private let open: @Sendable () throws -> (any EventLogReader)?
    private let log = Mutex<(any EventLogReader)?>(nil)

    package init(open: @escaping @Sendable () throws -> (any EventLogReader)?) {
        self.open = open
    }

    struct Result: Encodable {
        var recipeId: String
        var ingredients: [String]
    }

    /// The answer at the log's head, on NIO's pool for blocking work since the read blocks. A
    /// position `after` beyond the head is refused, as the feed refuses it.
    func answer(userId: String, recipeId rawRecipeId: String, after: Int64?) async throws -> Response {
        // The log service validates the id so; the file must answer the same for the same path.
        let recipeId: String
        do { recipeId = try Validate.recipeId(RecipeID(rawRecipeId)).rawValue } catch { throw Problem(error) }
        let earned: EarnedIngredients
        do {
            earned = try await NIOThreadPool.singleton.runIfActive { [self] in
                guard let log = try log.withLock({ log in
                    if log == nil { log = try open() }
                    return log
                }) else {
                    throw Problem(.coreUnavailable, detail: "the core has not made the log yet", headers: [.retryAfter: "1"])
                }
                return try log.earnedIngredients(userId: userId, recipeId: recipeId)
            }
        } catch let problem as Problem {
            throw problem
        } catch is any LogServiceUnavailable {
            throw Problem(.coreUnavailable, detail: "the core's log service did not answer", headers: [.retryAfter: "1"])
        } catch EventStoreError.unavailable {
            throw Problem(.storageUnavailable, detail: "the log's server cannot be reached now", headers: [.retryAfter: "1"])
        } catch {
            throw Problem(.storageError, detail: "the log could not be read: \(error)", headers: [.retryAfter: "1"])
        }
        if let after, after > earned.head {
            throw Problem(.positionNotWritten, detail: "position \(after) is beyond the log's head (\(earned.head))")
        }
        return JSONResponse.make(QueryReply(position: earned.head, result: Result(recipeId: recipeId, ingredients: earned.ingredients)))
    }
}

/// The core's log service did not answer: its client's error, marked so where the API is wired
/// (a 503 `core_unavailable`, as when the core's socket does not answer).
package protocol LogServiceUnavailable: Error {}
