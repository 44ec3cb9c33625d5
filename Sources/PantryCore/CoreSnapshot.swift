import Crypto
import Foundation
import PantryDomain
import PantryKeys

/// The core's state at a log position, so that a start folds only the log's tail (it folded the
/// whole log: 3.55 s and 191 MB at a million events). It holds no personal data in the clear: the
/// accounts are kept as their names' keyed digests (`NameKey`: no name or address, and a deleted
/// user's leave with the next snapshot), and each grocery list is sealed with its user's key (a
/// destroyed key leaves the list unreadable here too). Nothing in it is opened at a start: it was
/// reading and opening every registration from the log that took a start at a million users to
/// 17-38 s, and the lists are opened when their user's first command comes (`sealedGroceries`).
struct CoreSnapshot: Equatable {
    var position: Int64
    /// The command id of the event at `position`: a snapshot taken of another log (a restore, a
    /// copied directory) does not match and is not used.
    var commandIdAtPosition: String
    /// `NameKey.check` of the key the users' digests were made with: with another key (a key file
    /// replaced) they would let taken names through, so the snapshot is not used.
    var nameKeyCheck: NameDigest
    /// Its grocery lists are those opened since the start; the others are in `sealedGroceries`.
    var holdings: PantryState.Holdings
    var sealedGroceries: [UserID: String]
    var streamVersions: [String: Int64]

    private static let magic = Array("PANTRY-CORE-SNAPSHOT\n".utf8)
    /// 2: grocery lists sealed per user. 3: the accounts as their names' digests, not positions.
    private static let formatVersion: UInt32 = 3

    /// The file: a header, the body, and a SHA-256 of both. A list whose user has no key any more
    /// (deleted meanwhile) is left out.
    func encoded(sealingWith keys: UserKeyStore) throws -> Data {
        var w = SnapshotWriter()
        w.bytes.append(contentsOf: Self.magic)
        w.uint32(Self.formatVersion)
        w.uint32(UInt32(PantryState.holdingsVersion))
        w.int(position)
        w.string(commandIdAtPosition)
        w.digest(nameKeyCheck)
        w.map(streamVersions) { $0.int($1) }
        w.map(holdings.users) { w, user in
            w.int(user.names == nil ? 0 : 1)
            if let names = user.names { w.digest(names.username); w.digest(names.email) }
        }
        w.sequence(holdings.deletedUsers.sorted()) { $0.string($1) }
        w.map(holdings.earnedPoints) { w, points in w.sequence(points) { $0.int(Int64(bitPattern: $1)) } }
        w.map(holdings.unrecordedPoints) { w, used in
            w.sequence(used) { w, one in w.string(one.recipeId.rawValue); w.string(one.ingredient) }
        }
        w.map(holdings.savedRecipes) { w, saved in w.sequence(saved) { $0.string($1.rawValue) } }
        var groceries = sealedGroceries
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

    init(position: Int64, commandIdAtPosition: String, nameKeyCheck: NameDigest, holdings: PantryState.Holdings,
         sealedGroceries: [UserID: String], streamVersions: [String: Int64]) {
        self.position = position
        self.commandIdAtPosition = commandIdAtPosition
        self.nameKeyCheck = nameKeyCheck
        self.holdings = holdings
        self.sealedGroceries = sealedGroceries
        self.streamVersions = streamVersions
    }

    /// Every grocery list comes back sealed (`sealedGroceries`).
    init(decoding bytes: [UInt8]) throws {
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
        nameKeyCheck = try r.digest()
        streamVersions = try r.map { try $0.int() }
        let users: [UserID: PantryState.User] = try r.map { r in
            PantryState.User(names: try r.int() == 0 ? nil : PantryState.Names(username: try r.digest(), email: try r.digest()))
        }
        let deletedUsers = Set(try r.array { try $0.string() })
        let earnedPoints: [UserID: Set<UInt64>] = try r.map { r in Set(try r.array { UInt64(bitPattern: try $0.int()) }) }
        let unrecordedPoints: [UserID: Set<PantryState.UsedIngredient>] = try r.map { r in
            Set(try r.array { r in PantryState.UsedIngredient(recipeId: RecipeID(try r.string()), ingredient: try r.string()) })
        }
        let savedRecipes: [UserID: Set<RecipeID>] = try r.map { r in Set(try r.array { RecipeID(try $0.string()) }) }
        sealedGroceries = try r.map { try $0.string() }
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
        holdings = PantryState.Holdings(users: users, deletedUsers: deletedUsers, earnedPoints: earnedPoints,
                                        unrecordedPoints: unrecordedPoints, savedRecipes: savedRecipes,
                                        groceries: [:], carts: carts, experiences: experiences, cooking: cooking,
                                        pointsDue: pointsDue, tipsDue: tipsDue, recipes: recipes)
    }
}

extension CoreSnapshot {
    /// A list of `sealedGroceries` opened with its user's key; nil when the key is gone (the user
    /// was deleted).
    static func openGroceries(_ sealed: String, for userId: UserID, vault: any PersonalDataVault) throws -> [String: Bool]? {
        guard let list = try vault.open(sealed, for: userId) else { return nil }
        var items = SnapshotReader(bytes: list[...], offset: 0)
        let opened: [String: Bool] = try items.map { try $0.int() != 0 }
        guard items.offset == list.count else { throw SnapshotFailure.notASnapshot }
        return opened
    }
}

private extension SnapshotWriter {
    mutating func digest(_ digest: NameDigest) {
        int(Int64(bitPattern: digest.low))
        int(Int64(bitPattern: digest.high))
    }
}

private extension SnapshotReader {
    mutating func digest() throws -> NameDigest {
        NameDigest(low: UInt64(bitPattern: try int()), high: UInt64(bitPattern: try int()))
    }
}
