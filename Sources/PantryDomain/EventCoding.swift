import Foundation
import PantryJSON

/// Seals and opens the personal fields of events (username, email, password hash, grocery items,
/// tips) with a key per user that is kept outside the log. Destroying a user's key leaves those fields unreadable in the
/// log itself: the log is never rewritten, yet a closed account's details are gone.
package protocol PersonalDataVault {
    func seal(_ plaintext: [UInt8], for userId: UserID) throws -> String
    /// Nil when the user's key has been destroyed.
    func open(_ sealed: String, for userId: UserID) throws -> [UInt8]?
    /// A vault for opening many users' fields at once (a rebuild, a start from a snapshot); this
    /// one unless a vault has a faster way.
    func preloaded() throws -> any PersonalDataVault & Sendable
}

extension PersonalDataVault where Self: Sendable {
    package func preloaded() throws -> any PersonalDataVault & Sendable { self }
}

/// The JSON form of event payloads (`schemas/events/*.json`) and the upcasting of old versions.
package enum EventCoding {
    /// What a sealed text reads as once its user's key is destroyed. Only a deleted user's key is
    /// destroyed, so the user's `UserDeleted` follows in the log and takes it out of every read model.
    package static let erased = ""

    /// The sealed types as the log spells them, for readers that match the log's strings.
    package static let sealedTypes: Set<String> = Set(EventType.allCases.filter(\.isSealed)).names

    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownType(String)
        case unsupportedSchemaVersion(type: String, version: Int)
        case invalidPayload(type: String, reason: String)

        package var description: String {
            switch self {
            case .unknownType(let type): "unknown event type '\(type)'"
            case .unsupportedSchemaVersion(let type, let version): "\(type) version \(version) is newer than this reader"
            case .invalidPayload(let type, let reason): "\(type) payload is invalid: \(reason)"
            }
        }
    }

    /// The payload at the type's current version; personal fields go through `vault`.
    package static func encode(_ event: Event, vault: some PersonalDataVault) throws -> Data {
        var w = JSONObjectWriter()
        writeClearFields(of: event, to: &w)
        if event.type.isSealed {
            guard let personal = personalFields(of: event) else {
                throw Failure.invalidPayload(type: event.type.rawValue, reason: "erased personal fields cannot be written")
            }
            w.field("sealed", try vault.seal(personal, for: event.userId))
        }
        return Data(w.finish())
    }

    /// The fields every reader may see, in the payload itself.
    private static func writeClearFields(of event: Event, to w: inout JSONObjectWriter) {
        switch event {
        case .userRegistered(let e):
            w.field("userId", e.userId)
        case .passwordChanged(let e):
            w.field("userId", e.userId)
        case .userDeleted(let e):
            w.field("userId", e.userId)
        case .sessionRevoked(let e):
            w.field("userId", e.userId); w.field("tokenId", e.tokenId); w.field("expiresAt", e.expiresAt)
        case .recipeRecorded(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("title", e.facts.title)
            w.field("image", e.facts.image); w.field("ingredients", e.facts.ingredients)
        case .recipeSaved(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
        case .savedRecipeRemoved(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId)
        case .groceryAdded(let e):
            w.field("userId", e.userId); w.field("amount", e.amount); w.field("unit", e.unit)
            w.field("recipeId", e.recipeId); w.field("merged", e.merged)
            w.field("household", e.household); w.field("itemId", e.itemId)
        case .groceryChecked(let e):
            w.field("userId", e.userId); w.field("checked", e.checked)
            w.field("household", e.household); w.field("itemId", e.itemId)
        case .groceryRemoved(let e):
            w.field("userId", e.userId)
            w.field("household", e.household); w.field("itemId", e.itemId)
        case .pointEarned(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("ingredient", e.ingredient)
        case .cartAdjusted(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
            w.field("delta", e.delta); w.field("count", e.count); w.field("household", e.household)
        case .cookingStarted(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("minutes", e.minutes)
            w.field("title", e.title); w.field("image", e.image)
        case .experienceWritten(let e):
            w.field("experienceId", e.experienceId); w.field("userId", e.userId); w.field("recipeId", e.recipeId)
        case .householdCreated(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId)
        case .householdInviteCreated(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId); w.field("inviteId", e.inviteId)
            w.field("codeDigest", e.codeDigest); w.field("expiresAt", e.expiresAt)
        case .householdInviteRevoked(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId); w.field("inviteId", e.inviteId)
        case .householdJoined(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId); w.field("inviteId", e.inviteId)
        case .householdLeft(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId); w.field("removedBy", e.removedBy)
            w.field("dissolved", e.dissolved)
        case .householdHandedOver(let e):
            w.field("householdId", e.householdId); w.field("userId", e.userId); w.field("newOwner", e.newOwner)
        case .passwordResetRequested(let e):
            w.field("userId", e.userId); w.field("tokenDigest", e.tokenDigest); w.field("expiresAt", e.expiresAt)
        }
    }

    /// The JSON object sealed under the user's key, for the sealed types.
    private static func personalFields(of event: Event) -> [UInt8]? {
        var personal = JSONObjectWriter()
        switch event {
        case .userRegistered(let e):
            guard let account = e.account else { return nil }
            personal.field("username", account.username); personal.field("email", account.email)
            personal.field("passwordHash", account.passwordHash)
        case .passwordChanged(let e):
            guard let hash = e.passwordHash else { return nil }
            personal.field("passwordHash", hash)
        case .groceryAdded(let e):
            personal.field("item", e.item); personal.field("ingredient", e.ingredient)
        case .groceryChecked(let e):
            personal.field("item", e.item)
        case .groceryRemoved(let e):
            personal.field("item", e.item)
        case .experienceWritten(let e):
            personal.field("text", e.text)
        case .userDeleted, .sessionRevoked, .recipeRecorded, .recipeSaved, .savedRecipeRemoved, .pointEarned,
             .cartAdjusted, .cookingStarted, .householdCreated, .householdInviteCreated, .householdInviteRevoked,
             .householdJoined, .householdLeft, .householdHandedOver, .passwordResetRequested:
            return nil
        }
        return personal.finish()
    }

    package static func decode(type: String, schemaVersion: Int, data: Data,
                              vault: (any PersonalDataVault)?) throws(Failure) -> Event {
        let known = try checkVersion(type: type, schemaVersion)
        do {
            return try data.withUnsafeBytes { bytes in
                try JSONObjectReader.read(bytes) { payload in try decode(type: known, schemaVersion: schemaVersion, payload, vault: vault) }
            }
        } catch let failure as Failure {
            throw failure
        } catch {
            throw .invalidPayload(type: type, reason: "\(error)")
        }
    }

    /// The payload with its sealed personal fields opened by `vault`, for readers that hold no
    /// keys (the log service's answers): `sealed` becomes `opened`, the plaintext object, or
    /// `null` when the user's key is destroyed; the clear fields stay as they are. Payloads
    /// without a seal (other types, versions before the seal) come back as they are.
    package static func opened(type: String, data: Data, vault: any PersonalDataVault) throws -> Data {
        guard let known = EventType(rawValue: type), known.isSealed else { return data }
        return try data.withUnsafeBytes { bytes in
            try JSONObjectReader.read(bytes) { json in
                guard let sealed = try json.optionalString("sealed") else { return data }
                let personal = try vault.open(sealed, for: try json.string("userId"))
                var w = JSONObjectWriter()
                // The clear fields as this version writes them: every sealed version so far keeps
                // the same clear fields as the current one.
                writeClearFields(of: try decode(type: known, schemaVersion: known.schemaVersion, json, vault: vault), to: &w)
                w.field("opened", json: personal ?? Array("null".utf8))
                return Data(w.finish())
            }
        }
    }

    /// The payload as a projection may see it, for the log service's answers to a worker or an
    /// operator's replay (docs/keys.md, "What the log service opens"): the type's current version,
    /// with `opened` holding only what a projection folds (a username, grocery items, a tip's
    /// text), never an email or a password hash (`PasswordChanged` comes with `opened` null, as
    /// when the key is destroyed: no projection reads it). Old versions, which hold their personal
    /// fields in the clear, are upcast first, so none of theirs passes either.
    package static func openedForProjections(type: String, schemaVersion: Int, data: Data,
                                             vault: any PersonalDataVault) throws -> (schemaVersion: Int, data: Data) {
        guard let known = EventType(rawValue: type), known.isSealed else { return (schemaVersion, data) }
        let event = try decode(type: type, schemaVersion: schemaVersion, data: data, vault: vault)
        var w = JSONObjectWriter()
        writeClearFields(of: event, to: &w)
        var personal = JSONObjectWriter()
        let opened: [UInt8]?
        switch event {
        case .userRegistered(let e):
            if let account = e.account { personal.field("username", account.username) }
            opened = e.account == nil ? nil : personal.finish()
        case .passwordChanged:
            opened = nil
        case .groceryAdded, .groceryChecked, .groceryRemoved, .experienceWritten:
            // All they hold is what the groceries and experiences projections show their author
            // (`erased` once the key is destroyed, which reads back as erased).
            opened = personalFields(of: event)
        case .userDeleted, .sessionRevoked, .recipeRecorded, .recipeSaved, .savedRecipeRemoved, .pointEarned,
             .cartAdjusted, .cookingStarted, .householdCreated, .householdInviteCreated, .householdInviteRevoked,
             .householdJoined, .householdLeft, .householdHandedOver, .passwordResetRequested:
            preconditionFailure("\(known) is not sealed")
        }
        w.field("opened", json: opened ?? Array("null".utf8))
        return (known.schemaVersion, Data(w.finish()))
    }

    /// The type a log or feed names, if this reader knows it at that version.
    package static func checkVersion(type: String, _ schemaVersion: Int) throws(Failure) -> EventType {
        guard let known = EventType(rawValue: type) else { throw .unknownType(type) }
        guard (1...known.schemaVersion).contains(schemaVersion) else {
            throw .unsupportedSchemaVersion(type: type, version: schemaVersion)
        }
        return known
    }

    /// Decodes a payload already opened by a reader (the payload nested in an event document on
    /// the feed). The mirror of `encode`: fields the type does not know are ignored, so a reader
    /// keeps working when a later version adds one. Old versions are read as they were written
    /// (upcasting on read): `ExperienceWritten` v1 carried the author's name, which is now
    /// ignored; `UserRegistered` v1, the grocery events' v1 and `ExperienceWritten` v1 and v2 hold
    /// their personal fields in the clear, later versions under a seal that only `vault` opens (a
    /// sealed payload without a vault is refused, never guessed).
    package static func decode(type: EventType, schemaVersion: Int, _ json: borrowing JSONObjectReader,
                              vault: (any PersonalDataVault)?) throws -> Event {
        switch type {
        case .userRegistered:
            let userId = try json.string("userId")
            if schemaVersion == 1 {
                return .userRegistered(UserRegistered(
                    userId: userId, username: try json.string("username"), email: try json.string("email"),
                    passwordHash: try json.string("passwordHash")))
            }
            let account = try open(json, type: type, userId: userId, vault: vault) { personal in
                // A worker is sent the username alone (`openedForProjections`).
                AccountDetails(username: try personal.string("username"), email: try personal.optionalString("email") ?? erased,
                               passwordHash: try personal.optionalString("passwordHash") ?? erased)
            }
            return .userRegistered(UserRegistered(userId: userId, account: account))
        case .passwordChanged:
            let userId = try json.string("userId")
            let hash = try open(json, type: type, userId: userId, vault: vault) { try $0.string("passwordHash") }
            return .passwordChanged(PasswordChanged(userId: userId, passwordHash: hash))
        case .userDeleted:
            return .userDeleted(UserDeleted(userId: try json.string("userId")))
        case .sessionRevoked:
            return .sessionRevoked(SessionRevoked(
                userId: try json.string("userId"), tokenId: try json.string("tokenId"), expiresAt: try json.int64("expiresAt")))
        case .recipeRecorded:
            return .recipeRecorded(RecipeRecorded(
                userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                facts: RecipeFacts(title: try json.string("title"), image: try json.optionalString("image"),
                                   ingredients: try json.optionalStrings("ingredients") ?? [])))
        case .recipeSaved:
            return .recipeSaved(RecipeSaved(
                userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                title: try json.string("title"), image: try json.optionalString("image")))
        case .savedRecipeRemoved:
            return .savedRecipeRemoved(SavedRecipeRemoved(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId"))))
        case .groceryAdded:
            let userId = try json.string("userId")
            let (item, ingredient) = try personal(json, type: type, schemaVersion: schemaVersion, userId: userId, vault: vault) {
                (try $0.string("item"), try $0.string("ingredient"))
            } ?? (erased, erased)
            return .groceryAdded(GroceryAdded(
                userId: userId, item: item, ingredient: ingredient,
                amount: try json.optionalDouble("amount"), unit: try json.optionalString("unit"),
                recipeId: try json.optionalString("recipeId").map(RecipeID.init(_:)), merged: try json.bool("merged"),
                household: try json.optionalString("household"), itemId: try json.optionalString("itemId")))
        case .groceryChecked:
            let userId = try json.string("userId")
            let item = try personal(json, type: type, schemaVersion: schemaVersion, userId: userId, vault: vault) { try $0.string("item") }
            return .groceryChecked(GroceryChecked(userId: userId, item: item ?? erased, checked: try json.bool("checked"),
                                                  household: try json.optionalString("household"), itemId: try json.optionalString("itemId")))
        case .groceryRemoved:
            let userId = try json.string("userId")
            let item = try personal(json, type: type, schemaVersion: schemaVersion, userId: userId, vault: vault) { try $0.string("item") }
            return .groceryRemoved(GroceryRemoved(userId: userId, item: item ?? erased,
                                                  household: try json.optionalString("household"), itemId: try json.optionalString("itemId")))
        case .pointEarned:
            return .pointEarned(PointEarned(
                userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")), ingredient: try json.string("ingredient")))
        case .cartAdjusted:
            return .cartAdjusted(CartAdjusted(
                userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")), title: try json.string("title"),
                image: try json.optionalString("image"), delta: try json.int("delta"), count: try json.int("count"),
                household: try json.optionalString("household")))
        case .cookingStarted:
            // Versions 1 and 2 have no title (their line's is the cart's) and may name a household's cart.
            return .cookingStarted(CookingStarted(
                userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")), minutes: try json.int("minutes"),
                title: schemaVersion >= 3 ? try json.string("title") : nil, image: try json.optionalString("image"),
                cartHousehold: schemaVersion >= 3 ? nil : try json.optionalString("household")))
        case .householdCreated:
            return .householdCreated(HouseholdCreated(householdId: try json.string("householdId"), userId: try json.string("userId")))
        case .householdInviteCreated:
            return .householdInviteCreated(HouseholdInviteCreated(
                householdId: try json.string("householdId"), userId: try json.string("userId"), inviteId: try json.string("inviteId"),
                codeDigest: try json.string("codeDigest"), expiresAt: try json.int64("expiresAt")))
        case .householdInviteRevoked:
            return .householdInviteRevoked(HouseholdInviteRevoked(
                householdId: try json.string("householdId"), userId: try json.string("userId"), inviteId: try json.string("inviteId")))
        case .householdJoined:
            return .householdJoined(HouseholdJoined(
                householdId: try json.string("householdId"), userId: try json.string("userId"), inviteId: try json.string("inviteId")))
        case .householdLeft:
            return .householdLeft(HouseholdLeft(
                householdId: try json.string("householdId"), userId: try json.string("userId"),
                removedBy: try json.optionalString("removedBy"), dissolved: try json.bool("dissolved")))
        case .householdHandedOver:
            return .householdHandedOver(HouseholdHandedOver(
                householdId: try json.string("householdId"), userId: try json.string("userId"), newOwner: try json.string("newOwner")))
        case .passwordResetRequested:
            return .passwordResetRequested(PasswordResetRequested(
                userId: try json.string("userId"), tokenDigest: try json.string("tokenDigest"), expiresAt: try json.int64("expiresAt")))
        case .experienceWritten:
            let userId = try json.string("userId")
            let text = try personal(json, type: type, schemaVersion: schemaVersion, userId: userId, vault: vault) { try $0.string("text") }
            return .experienceWritten(ExperienceWritten(
                experienceId: try json.string("experienceId"), userId: userId,
                recipeId: RecipeID(try json.string("recipeId")), text: text ?? erased))
        }
    }

    /// The personal fields of a type that seals them since some version: read from the payload
    /// itself when it is older (in the clear), else from the seal (nil when the key is destroyed).
    private static func personal<T>(_ json: borrowing JSONObjectReader, type: EventType, schemaVersion: Int, userId: UserID,
                                    vault: (any PersonalDataVault)?, _ body: (borrowing JSONObjectReader) throws -> T) throws -> T? {
        if let since = type.sealedSince, schemaVersion < since { return try body(json) }
        return try open(json, type: type, userId: userId, vault: vault, body)
    }

    /// The sealed personal fields of a payload, read by `body`; nil when the key is destroyed.
    /// A payload the log service opened (`opened`) needs no vault.
    private static func open<T>(_ json: borrowing JSONObjectReader, type: EventType, userId: UserID,
                                vault: (any PersonalDataVault)?, _ body: (borrowing JSONObjectReader) throws -> T) throws -> T? {
        if json.contains("opened") {
            guard let opened = try json.optionalObject("opened") else { return nil }
            return try JSONObjectReader.read(opened, body)
        }
        guard let vault else { throw Failure.invalidPayload(type: type.rawValue, reason: "sealed personal fields need the key vault") }
        guard let plaintext = try vault.open(try json.string("sealed"), for: userId) else { return nil }
        return try plaintext.withUnsafeBytes { try JSONObjectReader.read($0, body) }
    }
}
