import Foundation
import Logging
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryTestSupport
import Testing

let phcHash = "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA"

func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-core-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { remove(url) }
    return try body(url)
}

func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-core-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { remove(url) }
    return try await body(url)
}

/// A log the test closed may still be read on NIO's pool (the command-id filter's read), and
/// SQLite makes and unlinks its WAL files as it opens and closes: a removal under way then fails
/// on the new file and left an empty directory in /tmp. Removing again once they are gone ends it.
private func remove(_ url: URL) {
    _ = waitUntilBlocking {
        try? FileManager.default.removeItem(at: url)
        return !FileManager.default.fileExists(atPath: url.path)
    }
}

/// Quiet processors: the tests read outcomes, not logs.
func openProcessor(_ path: String) throws -> CommandProcessor {
    try CommandProcessor(store: SQLiteEventStore(path: path), keys: try keyStore(besideLog: path), logger: quietLogger())
}

/// A processor on `dir`'s log that keeps its snapshot beside it, as `pantry core` does.
/// `clock`, when given, is what its deletions' snapshot interval is measured with.
func openProcessor(_ dir: URL, snapshotEvery: Int64, deletionSnapshotInterval: Duration = .seconds(60),
                   clock: ManualClock? = nil) throws -> CommandProcessor {
    let log = dir.appendingPathComponent("events.sqlite").path
    let now: @Sendable () -> ContinuousClock.Instant
    if let clock { now = { clock.instant } } else { now = { .now } }
    return try CommandProcessor(store: SQLiteEventStore(path: log), keys: keyStore(besideLog: log),
                                snapshotPath: dir.appendingPathComponent("core.snapshot").path, snapshotEvery: snapshotEvery,
                                deletionSnapshotInterval: deletionSnapshotInterval, now: now, logger: quietLogger())
}

/// The keyed digests of a username and an email as the core's snapshot holds them.
func nameDigests(_ key: NameKey, username: String, email: String) -> [Data] {
    [key.username(username), key.email(email)].map { digest in
        withUnsafeBytes(of: (digest.low.littleEndian, digest.high.littleEndian)) { Data($0) }
    }
}

/// Whether `dir`'s core snapshot holds any of `digests`.
func snapshotHoldsAny(_ digests: [Data], in dir: URL) throws -> Bool {
    let file = try Data(contentsOf: dir.appendingPathComponent("core.snapshot"))
    return digests.contains { file.range(of: $0) != nil }
}

func quietLogger() -> Logger {
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    return logger
}

/// The users' keys beside a test log, as `pantry core` keeps them beside the real one.
func keyStore(besideLog path: String) throws -> UserKeyStore {
    try UserKeyStore(path: path + ".keys", readOnly: false)
}

/// Every recipe of these tests has the same ingredients; the first command about one records them.
let recipeFacts = RecipeFacts(title: "Recipe", image: nil, ingredients: ["salt", "olive oil", "flour"])

func envelope(_ id: CommandID, _ command: Command) -> CommandEnvelope { CommandEnvelope(commandId: id, command: command) }

func register(_ userId: UserID) -> Command {
    .registerUser(RegisterUser(userId: userId, username: "user_\(userId)", email: "\(userId)@example.org", passwordHash: phcHash))
}

func save(_ userId: UserID, _ recipeId: RecipeID) -> Command {
    .saveRecipe(SaveRecipe(userId: userId, recipeId: recipeId, recipe: recipeFacts))
}

func cart(_ userId: UserID, _ recipeId: RecipeID, _ delta: Int) -> Command {
    .adjustCart(AdjustCart(userId: userId, recipeId: recipeId, delta: delta, recipe: recipeFacts))
}

func use(_ userId: UserID, _ recipeId: RecipeID, _ ingredient: String) -> Command {
    .useOwnedIngredient(UseOwnedIngredient(userId: userId, recipeId: recipeId, ingredient: ingredient, recipe: recipeFacts))
}

/// Starts the timer of a recipe in the cart: what a point for it needs.
func cook(_ userId: UserID, _ recipeId: RecipeID) -> Command {
    .startCooking(StartCooking(userId: userId, recipeId: recipeId, minutes: 60))
}

/// Puts the recipe in the user's cart and starts its timer, as commands `<id>-cart` and `<id>-cook`:
/// two events, three when they record the recipe.
func cooking(_ id: String, _ userId: UserID, _ recipeId: RecipeID) -> [CommandEnvelope] {
    [envelope("\(id)-cart", cart(userId, recipeId, 1)), envelope("\(id)-cook", cook(userId, recipeId))]
}

func addGrocery(_ userId: UserID, _ ingredient: String) -> Command {
    .addGrocery(AddGrocery(userId: userId, ingredient: ingredient))
}

/// The state the log holds, folded afresh from the file, as the writer keeps it: without the
/// earned points, which it asks of the log (`EventStore.earnedPoints`) when a batch needs them.
func foldedState(_ store: any EventStore, keys: UserKeyStore) throws -> PantryState {
    var state = try store.read(after: 0, limit: 1_000_000).reduce(into: PantryState(nameKey: keys.nameKey())) { state, recorded in
        Decider.evolve(&state, try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion,
                                                      data: recorded.data, vault: keys), at: recorded.metadata.recordedAt)
    }
    state.forgetEarnedPoints()
    return state
}
