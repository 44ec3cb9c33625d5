import Crypto
import Foundation
import PantryDomain
import PantryKeys

/// The core's state at a log position, so that a start folds only the log's tail (it folded the
/// whole log: 3.55 s and 191 MB at a million events). It holds no personal data in the clear: each
/// account is read back from its own sealed events in the log, found by position, and each grocery
/// list is sealed with its user's key (a destroyed key leaves the list unreadable here too).
struct CoreSnapshot: Equatable {
    var position: Int64
    /// The command id of the event at `position`: a snapshot taken of another log (a restore, a
    /// copied directory) does not match and is not used.
    var commandIdAtPosition: String
    var holdings: PantryState.Holdings
    var streamVersions: [String: Int64]
    /// Per user, the events that hold the account today: the registration and the latest
    /// password change.
    var accountPositions: [UserID: [Int64]]

    private static let magic = Array("PANTRY-CORE-SNAPSHOT\n".utf8)
    /// 2: grocery lists sealed per user.
    private static let formatVersion: UInt32 = 2

    /// The file: a header, the body, and a SHA-256 of both. A list whose user has no key any more
    /// (deleted meanwhile) is left out.
    func encoded(sealingWith keys: UserKeyStore) throws -> Data {
        var w = SnapshotWriter()
        w.bytes.append(contentsOf: Self.magic)
        w.uint32(Self.formatVersion)
        w.uint32(UInt32(PantryState.holdingsVersion))
        w.int(position)
        w.string(commandIdAtPosition)
        w.map(streamVersions) { $0.int($1) }
        w.map(accountPositions) { w, positions in w.sequence(positions) { $0.int($1) } }
        w.sequence(holdings.deletedUsers.sorted()) { $0.string($1) }
        w.map(holdings.earnedPoints) { w, points in w.sequence(points) { $0.int(Int64(bitPattern: $1)) } }
        w.map(holdings.unrecordedPoints) { w, used in
            w.sequence(used) { w, one in w.string(one.recipeId.rawValue); w.string(one.ingredient) }
        }
        w.map(holdings.savedRecipes) { w, saved in w.sequence(saved) { $0.string($1.rawValue) } }
        var groceries: [UserID: String] = [:]
        for (userId, items) in holdings.groceries {
            var list = SnapshotWriter()
            list.map(items) { $0.int($1 ? 1 : 0) }
            groceries[userId] = try keys.sealWithExistingKey(list.bytes, for: userId)
        }
        w.map(groceries) { $0.string($1) }
        w.map(holdings.carts) { w, lines in w.map(lines) { $0.int(Int64($1)) } }
        w.map(holdings.experiences) { w, written in w.map(written) { $0.int(Int64($1)) } }
        w.map(holdings.cooking) { w, lines in w.map(lines) { $0.int($1) } }
        w.map(holdings.pointsDue) { $0.int($1) }
        w.map(holdings.tipsDue) { $0.int($1) }
        w.sequence(holdings.recipes) { w, recipe in
            let facts = recipe.facts
            w.string(recipe.id.rawValue)
            w.string(facts.title)
            w.int(facts.image == nil ? 0 : 1)
            if let image = facts.image { w.string(image) }
            w.sequence(facts.ingredients) { $0.string($1) }
        }
        w.bytes.append(contentsOf: SHA256.hash(data: w.bytes))
        return Data(w.bytes)
    }

    init(position: Int64, commandIdAtPosition: String, holdings: PantryState.Holdings,
         streamVersions: [String: Int64], accountPositions: [UserID: [Int64]]) {
        self.position = position
        self.commandIdAtPosition = commandIdAtPosition
        self.holdings = holdings
        self.streamVersions = streamVersions
        self.accountPositions = accountPositions
    }

    /// `vault` opens the grocery lists; a list it cannot open (its user deleted) is left out.
    init(decoding data: Data, vault: any PersonalDataVault) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.magic.count + SHA256.byteCount, bytes.starts(with: Self.magic) else {
            throw SnapshotFailure.notASnapshot
        }
        let body = bytes[..<(bytes.count - SHA256.byteCount)]
        // The version first: it says how the rest is read (and a file of another is removed).
        var r = SnapshotReader(bytes: body, offset: Self.magic.count)
        let format = try r.uint32(), holdingsVersion = try r.uint32()
        guard format == Self.formatVersion, holdingsVersion == PantryState.holdingsVersion else {
            throw SnapshotFailure.otherVersion(format: format, holdings: holdingsVersion)
        }
        guard Array(SHA256.hash(data: body)) == Array(bytes[(bytes.count - SHA256.byteCount)...]) else {
            throw SnapshotFailure.checksumMismatch
        }
        position = try r.int()
        commandIdAtPosition = try r.string()
        streamVersions = try r.map { try $0.int() }
        accountPositions = try r.map { r in try r.array { try $0.int() } }
        let deletedUsers = Set(try r.array { try $0.string() })
        let earnedPoints: [UserID: Set<UInt64>] = try r.map { r in Set(try r.array { UInt64(bitPattern: try $0.int()) }) }
        let unrecordedPoints: [UserID: Set<PantryState.UsedIngredient>] = try r.map { r in
            Set(try r.array { r in PantryState.UsedIngredient(recipeId: RecipeID(try r.string()), ingredient: try r.string()) })
        }
        let savedRecipes: [UserID: Set<RecipeID>] = try r.map { r in Set(try r.array { RecipeID(try $0.string()) }) }
        var groceries: [UserID: [String: Bool]] = [:]
        for (userId, sealed) in try r.map({ try $0.string() }) as [UserID: String] {
            guard let list = try vault.open(sealed, for: userId) else { continue }
            var items = SnapshotReader(bytes: list[...], offset: 0)
            groceries[userId] = try items.map { try $0.int() != 0 }
            guard items.offset == list.count else { throw SnapshotFailure.notASnapshot }
        }
        let carts: [UserID: [RecipeID: Int]] = try r.map { r in try r.map { Int(try $0.int()) } }
        let experiences: [UserID: [RecipeID: Int]] = try r.map { r in try r.map { Int(try $0.int()) } }
        let cooking: [UserID: [RecipeID: Int64]] = try r.map { r in try r.map { try $0.int() } }
        let pointsDue: [UserID: Int64] = try r.map { try $0.int() }
        let tipsDue: [UserID: Int64] = try r.map { try $0.int() }
        let recipes: [(id: RecipeID, facts: RecipeFacts)] = try r.array { r in
            let id = RecipeID(try r.string()), title = try r.string()
            let image = try r.int() == 0 ? nil : try r.string()
            return (id, RecipeFacts(title: title, image: image, ingredients: try r.array { try $0.string() }))
        }
        guard r.offset == body.count else { throw SnapshotFailure.notASnapshot }
        holdings = PantryState.Holdings(deletedUsers: deletedUsers, earnedPoints: earnedPoints,
                                        unrecordedPoints: unrecordedPoints, savedRecipes: savedRecipes,
                                        groceries: groceries, carts: carts, experiences: experiences, cooking: cooking,
                                        pointsDue: pointsDue, tipsDue: tipsDue, recipes: recipes)
    }
}
