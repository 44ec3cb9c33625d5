import Crypto
import Foundation
import PantryDomain
import PantryKeys

/// The core's state at a log position, so that a start folds only the log's tail (it folded the
/// whole log: 3.55 s and 191 MB at a million events). It holds no personal data in the clear: the
/// accounts are kept as their names' keyed digests (`NameKey`: no name or address, and a deleted
/// user's leave with the next snapshot), and each grocery list is sealed with its user's key (a
/// destroyed key leaves the list unreadable here too). A start decodes only what every command
/// may need (accounts, recipes); the name index, the stream versions and each user's holdings
/// are read where they lie in the file, the holdings decoded at that user's first event or
/// command (`unopened`, `openHoldings`). Building every user's sets and dictionaries took half of
/// a start at a million users, hashing the ids and digests into dictionaries most of the rest.
struct CoreSnapshot {
    var position: Int64
    /// The command id of the event at `position`: a snapshot taken of another log (a restore, a
    /// copied directory) does not match and is not used.
    var commandIdAtPosition: String
    /// `NameKey.check` of the key the users' digests were made with: with another key (a key file
    /// replaced) they would let taken names through, so the snapshot is not used.
    var nameKeyCheck: NameDigest
    /// The accounts, deleted users and recipes; the per-user holdings of the users opened since
    /// the start, the others' are in `unopened`. No points: the writer reads them from the log.
    var holdings: PantryState.Holdings
    /// Per user, `PantryState.UserHoldings` as a snapshot holds them (`userBytes`), the grocery
    /// list sealed: slices of the file read at the start, written back as they are.
    var unopened: UnopenedHoldings
    var streamVersions: StreamVersions

    private static let magic = Array("PANTRY-CORE-SNAPSHOT\n".utf8)
    /// 2: grocery lists sealed per user. 3: the accounts as their names' digests, not positions.
    /// 4: each user's holdings as one run of bytes, decoded on their first command; no points.
    /// 5: the name index stored (the usernames' and emails' digests, sorted), not rebuilt; the
    /// stream versions and the unopened holdings sorted by key and read where they lie
    /// (`StoredKeys`): a start builds no dictionary of them.
    /// 6: the revoked sessions (token ids by their tokens' expiry hour), after the deleted users.
    /// 7: the households, after the recipes (ids, members, invites' code digests, the shared list
    /// as item ids, authors and keyed digests: no text anyone wrote), all decoded at the start.
    /// 8: the password reset links (user, the token's keyed digest, expiry, used), after the
    /// households; a household has no timers (cooking is the cook's own, with their holdings).
    private static let formatVersion: UInt32 = 8

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
        streamVersions.write(into: &w)
        w.map(holdings.users) { w, user in
            w.int(user.names == nil ? 0 : 1)
            if let names = user.names { w.digest(names.username); w.digest(names.email) }
        }
        w.sortedDigests(holdings.usernames.sorted)
        w.sortedDigests(holdings.emails.sorted)
        w.sequence(holdings.deletedUsers.sorted()) { $0.string($1) }
        let revoked: [(hour: Int64, tokenIds: [String])] = holdings.revokedTokens.keys.sorted().map { ($0, holdings.revokedTokens[$0]!.sorted()) }
        w.sequence(revoked) { (w: inout SnapshotWriter, hour: (hour: Int64, tokenIds: [String])) in
            w.int(hour.hour)
            w.sequence(hour.tokenIds) { $0.string($1) }
        }
        var fresh: [UserID: [UInt8]] = [:]
        var holders = Set(holdings.savedRecipes.keys)
        holders.formUnion(holdings.groceries.keys)
        holders.formUnion(holdings.carts.keys)
        holders.formUnion(holdings.experiences.keys)
        holders.formUnion(holdings.cooking.keys)
        holders.formUnion(holdings.pointsDue.keys)
        holders.formUnion(holdings.tipsDue.keys)
        for userId in holders {
            fresh[userId] = try Self.userBytes(holdings, of: userId, sealingWith: keys)
        }
        unopened.write(with: fresh, into: &w)
        w.sequence(holdings.recipes) { w, recipe in
            let facts = recipe.facts
            w.string(recipe.id.rawValue)
            w.string(facts.title)
            w.int(facts.image == nil ? 0 : 1)
            if let image = facts.image { w.string(image) }
            w.sequence(facts.ingredients) { $0.string($1) }
        }
        w.households(holdings.households)
        w.sequence(holdings.passwordResets.keys.sorted()) { w, userId in
            let reset = holdings.passwordResets[userId]!
            w.string(userId); w.string(reset.tokenDigest); w.int(reset.expiresAt); w.int(reset.used ? 1 : 0)
        }
        w.bytes.append(contentsOf: SHA256.hash(data: w.bytes))
        return Data(w.bytes)
    }

    init(position: Int64, commandIdAtPosition: String, nameKeyCheck: NameDigest, holdings: PantryState.Holdings,
         unopened: UnopenedHoldings, streamVersions: StreamVersions) {
        self.position = position
        self.commandIdAtPosition = commandIdAtPosition
        self.nameKeyCheck = nameKeyCheck
        self.holdings = holdings
        self.unopened = unopened
        self.streamVersions = streamVersions
    }

    /// Every user's holdings come back unopened (`unopened`).
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
        guard SHA256.hash(data: body).elementsEqual(bytes[(bytes.count - SHA256.byteCount)...]) else {
            throw SnapshotFailure.checksumMismatch
        }
        position = try r.int()
        commandIdAtPosition = try r.string()
        nameKeyCheck = try r.digest()
        // Read by concrete loops: `SnapshotReader.map` is generic across modules, and was not
        // specialised (half of a start went to its generic copies).
        streamVersions = try StreamVersions(reading: &r)
        let count = try r.count()
        var users: [UserID: PantryState.User] = [:]
        users.reserveCapacity(count)
        for _ in 0..<count {
            let userId = try r.string()
            users[userId] = PantryState.User(names: try r.int() == 0 ? nil : PantryState.Names(username: try r.digest(), email: try r.digest()))
        }
        guard let usernames = NameIndex(sorted: try r.digests()), let emails = NameIndex(sorted: try r.digests()) else {
            throw SnapshotFailure.notASnapshot
        }
        let deletedUsers = Set(try r.array { try $0.string() })
        var revokedTokens: [Int64: Set<String>] = [:]
        for _ in 0..<(try r.count()) {
            let hour = try r.int()
            revokedTokens[hour] = Set(try r.array { try $0.string() })
        }
        unopened = try UnopenedHoldings(reading: &r)
        let recipes: [(id: RecipeID, facts: RecipeFacts)] = try r.array { r in
            let id = RecipeID(try r.string()), title = try r.string()
            let image = try r.int() == 0 ? nil : try r.string()
            return (id, RecipeFacts(title: title, image: image, ingredients: try r.array { try $0.string() }))
        }
        let households = try r.households()
        var passwordResets: [UserID: PendingPasswordReset] = [:]
        for _ in 0..<(try r.count()) {
            let userId = try r.string(), digest = try r.string(), expiresAt = try r.int(), used = try r.int()
            passwordResets[userId] = PendingPasswordReset(tokenDigest: digest, expiresAt: expiresAt, used: used != 0)
        }
        guard r.offset == body.count else { throw SnapshotFailure.notASnapshot }
        holdings = PantryState.Holdings(users: users, deletedUsers: deletedUsers, earnedPoints: [:], unrecordedPoints: [:],
                                        savedRecipes: [:], groceries: [:], carts: [:], experiences: [:], cooking: [:],
                                        pointsDue: [:], tipsDue: [:], revokedTokens: revokedTokens, recipes: recipes,
                                        usernames: usernames, emails: emails)
        holdings.households = households
        holdings.passwordResets = passwordResets
    }
}

extension CoreSnapshot {
    /// Which of `PantryState.UserHoldings` a user's bytes hold, in this order.
    private struct Held: OptionSet {
        let rawValue: Int64
        static let savedRecipes = Held(rawValue: 1), groceries = Held(rawValue: 2), carts = Held(rawValue: 4)
        static let experiences = Held(rawValue: 8), cooking = Held(rawValue: 16), pointsDue = Held(rawValue: 32)
        static let tipsDue = Held(rawValue: 64)
        static let every: Held = [.savedRecipes, .groceries, .carts, .experiences, .cooking, .pointsDue, .tipsDue]
    }

    /// `userId`'s holdings as one run of bytes: which are there, then each, the grocery list sealed
    /// (left out when the user has no key any more).
    private static func userBytes(_ holdings: PantryState.Holdings, of userId: UserID, sealingWith keys: UserKeyStore) throws -> [UInt8] {
        var sealed: String?
        if let items = holdings.groceries[userId] {
            var list = SnapshotWriter()
            list.map(items) { $0.int($1 ? 1 : 0) }
            sealed = try keys.sealWithExistingKey(list.bytes, for: userId)
        }
        let saved = holdings.savedRecipes[userId], carts = holdings.carts[userId], experiences = holdings.experiences[userId]
        let cooking = holdings.cooking[userId], pointsDue = holdings.pointsDue[userId], tipsDue = holdings.tipsDue[userId]
        var held: Held = []
        if saved != nil { held.insert(.savedRecipes) }
        if sealed != nil { held.insert(.groceries) }
        if carts != nil { held.insert(.carts) }
        if experiences != nil { held.insert(.experiences) }
        if cooking != nil { held.insert(.cooking) }
        if pointsDue != nil { held.insert(.pointsDue) }
        if tipsDue != nil { held.insert(.tipsDue) }
        var w = SnapshotWriter()
        w.int(held.rawValue)
        if let saved { w.sequence(saved) { $0.string($1.rawValue) } }
        if let sealed { w.string(sealed) }
        if let carts { w.map(carts) { $0.int(Int64($1)) } }
        if let experiences { w.map(experiences) { $0.int(Int64($1)) } }
        if let cooking { w.map(cooking) { $0.int($1) } }
        if let pointsDue { w.int(pointsDue) }
        if let tipsDue { w.int(tipsDue) }
        return w.bytes
    }

    /// A user's `unopened` holdings, the grocery list opened with their key (left out when the key
    /// is gone: the user was deleted).
    static func openHoldings(_ bytes: ArraySlice<UInt8>, for userId: UserID, vault: any PersonalDataVault) throws -> PantryState.UserHoldings {
        var r = SnapshotReader(bytes: bytes, offset: 0)
        let held = Held(rawValue: try r.int())
        guard Held.every.isSuperset(of: held) else { throw SnapshotFailure.notASnapshot }
        func has(_ one: Held) -> Bool { held.contains(one) }
        var user = PantryState.UserHoldings()
        if has(.savedRecipes) { user.savedRecipes = Set(try r.array { RecipeID(try $0.string()) }) }
        if has(.groceries) { user.groceries = try openGroceries(try r.string(), for: userId, vault: vault) }
        if has(.carts) { user.carts = try r.map { Int(try $0.int()) } }
        if has(.experiences) { user.experiences = try r.map { Int(try $0.int()) } }
        if has(.cooking) { user.cooking = try r.map { try $0.int() } }
        if has(.pointsDue) { user.pointsDue = try r.int() }
        if has(.tipsDue) { user.tipsDue = try r.int() }
        guard r.offset == bytes.count else { throw SnapshotFailure.notASnapshot }
        return user
    }

    private static func openGroceries(_ sealed: String, for userId: UserID, vault: any PersonalDataVault) throws -> [String: Bool]? {
        guard let list = try vault.open(sealed, for: userId) else { return nil }
        var items = SnapshotReader(bytes: list[...], offset: 0)
        let opened: [String: Bool] = try items.map { try $0.int() != 0 }
        guard items.offset == list.count else { throw SnapshotFailure.notASnapshot }
        return opened
    }
}

private extension SnapshotWriter {
    /// Sorted by id, and each household's invites and items too, so that equal states write equal files.
    mutating func households(_ households: [HouseholdID: Household]) {
        sequence(households.keys.sorted()) { w, id in
            let household = households[id]!
            w.string(id)
            w.string(household.owner)
            w.sequence(household.members) { $0.string($1) }
            w.sequence(household.invites.keys.sorted()) { w, inviteId in
                let invite = household.invites[inviteId]!
                w.string(inviteId); w.string(invite.codeDigest); w.int(invite.expiresAt); w.int(Int64(invite.status.rawValue))
            }
            w.sequence(household.items.keys.sorted()) { w, itemId in
                let item = household.items[itemId]!
                w.string(itemId); w.int(item.checked ? 1 : 0)
                w.sequence(item.authors) { $0.string($1) }
                w.int(item.digest == nil ? 0 : 1)
                if let digest = item.digest { w.digest(digest) }
            }
            w.sequence(household.cart.keys.sorted { $0.rawValue < $1.rawValue }) { w, recipeId in
                w.string(recipeId.rawValue); w.int(Int64(household.cart[recipeId]!))
            }
        }
    }

    mutating func digest(_ digest: NameDigest) {
        int(Int64(bitPattern: digest.low))
        int(Int64(bitPattern: digest.high))
    }

    /// A count, then the digests as they are ordered (`NameIndex.sorted`).
    mutating func sortedDigests(_ digests: [NameDigest]) {
        int(Int64(digests.count))
        bytes.reserveCapacity(bytes.count + digests.count * 16)
        for one in digests { digest(one) }
    }
}

private extension SnapshotReader {
    mutating func households() throws -> [HouseholdID: Household] {
        var households: [HouseholdID: Household] = [:]
        for _ in 0..<(try count()) {
            let id = try string()
            var household = Household(owner: try string())
            household.members = try array { try $0.string() }
            for _ in 0..<(try count()) {
                let inviteId = try string(), codeDigest = try string(), expiresAt = try int()
                guard let status = Household.Invite.Status(rawValue: Int(try int())) else { throw SnapshotFailure.notASnapshot }
                household.invites[inviteId] = Household.Invite(codeDigest: codeDigest, expiresAt: expiresAt, status: status)
            }
            for _ in 0..<(try count()) {
                let itemId = try string(), checked = try int() != 0
                let authors = try array { try $0.string() }
                let digest = try int() == 0 ? nil : try self.digest()
                household.items[itemId] = Household.SharedGroceryItem(checked: checked, authors: authors, digest: digest)
                if let digest { household.itemIds[digest] = itemId }
            }
            for _ in 0..<(try count()) { household.cart[RecipeID(try string())] = Int(try int()) }
            households[id] = household
        }
        return households
    }

    mutating func digest() throws -> NameDigest {
        NameDigest(low: UInt64(bitPattern: try int()), high: UInt64(bitPattern: try int()))
    }

    /// A count of entries that each take at least one byte (so a damaged count cannot reserve
    /// more than the file holds).
    mutating func count() throws -> Int {
        let count = try int()
        guard count >= 0, count <= bytes.count - offset else { throw SnapshotFailure.truncated }
        return Int(count)
    }

    /// What `sortedDigests` wrote, read in one pass over the bytes (not through `int()` per half).
    mutating func digests() throws -> [NameDigest] {
        let count = try int()
        guard count >= 0, count <= (bytes.count - offset) / 16 else { throw SnapshotFailure.truncated }
        let start = offset
        offset += Int(count) * 16
        return bytes.withUnsafeBytes { raw in
            [NameDigest](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                for index in 0..<Int(count) {
                    let at = start + index * 16
                    buffer[index] = NameDigest(low: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                                               high: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
                }
                initialized = Int(count)
            }
        }
    }
}
