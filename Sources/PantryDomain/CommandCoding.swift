import Foundation
import PantryJSON

/// The JSON wire form of a command, as described by `schemas/commands/*.json`:
/// `{"commandId": "...", "type": "UseOwnedIngredient", "data": {...}, "correlationId"?: "...", "causationId"?: "..."}`.
package enum CommandCoding {
    /// Larger documents are refused before parsing; no legitimate command comes near it.
    package static let maxDocumentBytes = 64 * 1024

    /// A command that could not be read. `commandId` is set when the document got that far.
    package struct DecodingFailure: Error, Sendable, Equatable {
        package var commandId: CommandID?
        package var rejection: Rejection
    }

    /// Reads a command with `JSONObjectReader` rather than `JSONDecoder`: the core decodes every
    /// command it serves, and `JSONDecoder` was half of what the core spent per command. The
    /// rules are the JSON Schemas': every field known, every required field present and of its type.
    package static func decode(_ bytes: some Collection<UInt8>) -> Result<CommandEnvelope, DecodingFailure> {
        guard bytes.count <= maxDocumentBytes else {
            return .failure(DecodingFailure(rejection: Rejection(.tooLarge, "a command must be at most \(maxDocumentBytes) bytes")))
        }
        let bytes = Array(bytes)
        guard String(validating: bytes, as: UTF8.self) != nil else {
            return .failure(DecodingFailure(rejection: Rejection(.invalidUTF8, "a command must be UTF-8 text")))
        }
        do {
            return .success(try bytes.withUnsafeBytes { try JSONObjectReader.read($0, envelope) })
        } catch let failure as DecodingFailure {
            return .failure(failure)
        } catch JSONReadError.malformed(let reason, let offset) {
            // Valid JSON of another shape (an array, a string) is a wrong value, not broken JSON.
            if (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil {
                return .failure(DecodingFailure(rejection: Rejection(.invalidField, "a command must be a JSON object")))
            }
            return .failure(DecodingFailure(rejection: Rejection(.malformedJSON, "not valid JSON: \(reason) at byte \(offset)")))
        } catch {
            return .failure(DecodingFailure(rejection: rejection(for: error, in: nil)))
        }
    }

    /// The wire form, written by hand like the events: the API and the clients encode every
    /// command they send.
    package static func encode(_ envelope: CommandEnvelope) -> Data {
        var document = JSONObjectWriter()
        document.field("commandId", envelope.commandId)
        document.field("type", envelope.command.typeName)
        document.field("correlationId", envelope.correlationId)
        document.field("causationId", envelope.causationId)
        document.field("data", json: data(of: envelope.command, withFacts: true))
        return Data(document.finish())
    }

    /// What the command asks for, as a stable hash: its type and fields, without the recipe facts
    /// the adapter adds (a retry may or may not carry them). The core keeps it with each accepted
    /// command id, so the same id sent again with another command is refused, not answered with
    /// the first command's outcome.
    package static func fingerprint(_ command: Command) -> UInt64 {
        var hash = StableHash()
        hash.combine(command.typeName.utf8)
        hash.combine(data(of: command, withFacts: false))
        return hash.value
    }

    private static func data(of command: Command, withFacts: Bool) -> [UInt8] {
        var data = JSONObjectWriter()
        switch command {
        case .registerUser(let c):
            data.field("userId", c.userId); data.field("username", c.username)
            data.field("email", c.email); data.field("passwordHash", c.passwordHash)
        case .changePassword(let c):
            data.field("userId", c.userId); data.field("passwordHash", c.passwordHash)
        case .requestPasswordReset(let c):
            data.field("userId", c.userId); data.field("tokenDigest", c.tokenDigest)
        case .resetPassword(let c):
            data.field("userId", c.userId); data.field("tokenDigest", c.tokenDigest); data.field("passwordHash", c.passwordHash)
        case .deleteUser(let c):
            data.field("userId", c.userId)
        case .revokeSession(let c):
            data.field("userId", c.userId); data.field("tokenId", c.tokenId); data.field("expiresAt", c.expiresAt)
        case .saveRecipe(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId)
            if withFacts { field("recipe", c.recipe, in: &data) }
        case .removeSavedRecipe(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId)
        case .addGrocery(let c):
            data.field("userId", c.userId); data.field("ingredient", c.ingredient); data.field("amount", c.amount)
            data.field("unit", c.unit); data.field("recipeId", c.recipeId)
        case .checkGrocery(let c):
            data.field("userId", c.userId); data.field("ingredient", c.ingredient); data.field("checked", c.checked)
        case .removeGrocery(let c):
            data.field("userId", c.userId); data.field("ingredient", c.ingredient)
        case .useOwnedIngredient(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId); data.field("ingredient", c.ingredient)
            if withFacts { field("recipe", c.recipe, in: &data) }
        case .adjustCart(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId); data.field("delta", c.delta)
            if withFacts { field("recipe", c.recipe, in: &data) }
        case .startCooking(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId); data.field("minutes", c.minutes)
            if withFacts { field("recipe", c.recipe, in: &data) }
        case .writeExperience(let c):
            data.field("userId", c.userId); data.field("recipeId", c.recipeId); data.field("text", c.text)
        case .createHousehold(let c):
            data.field("userId", c.userId)
        case .inviteToHousehold(let c):
            data.field("userId", c.userId); data.field("codeDigest", c.codeDigest)
        case .revokeHouseholdInvite(let c):
            data.field("userId", c.userId); data.field("inviteId", c.inviteId)
        case .joinHousehold(let c):
            data.field("userId", c.userId); data.field("codeDigest", c.codeDigest)
        case .leaveHousehold(let c):
            data.field("userId", c.userId)
        case .removeHouseholdMember(let c):
            data.field("userId", c.userId); data.field("memberId", c.memberId)
        case .handOverHousehold(let c):
            data.field("userId", c.userId); data.field("memberId", c.memberId)
        }
        return data.finish()
    }

    private static func field(_ key: String, _ facts: RecipeFacts?, in data: inout JSONObjectWriter) {
        guard let facts else { return }
        var recipe = JSONObjectWriter()
        recipe.field("title", facts.title); recipe.field("image", facts.image); recipe.field("ingredients", facts.ingredients)
        data.field(key, json: recipe.finish())
    }

    private static let recipeFields: Set<String> = ["title", "image", "ingredients"]

    /// The optional `recipe` object of a command's data: the facts the adapter looked up.
    private static func recipeFacts(_ json: borrowing JSONObjectReader) throws -> RecipeFacts? {
        guard json.contains("recipe") else { return nil }
        return try JSONObjectReader.read(try json.object("recipe")) { recipe in
            try refuseUnknownFields(recipe, knows: recipeFields.contains)
            guard let ingredients = try recipe.optionalStrings("ingredients") else { throw JSONReadError.missingField("ingredients") }
            return RecipeFacts(title: try recipe.string("title"), image: try recipe.optionalString("image"), ingredients: ingredients)
        }
    }

    private static let envelopeFields = ["commandId", "type", "data", "correlationId", "causationId"]

    private static func envelope(_ json: borrowing JSONObjectReader) throws -> CommandEnvelope {
        let readableId = try? json.string("commandId")
        do {
            try refuseUnknownFields(json, knows: envelopeFields.contains)
            // Read again only to throw the reason it is missing or not a string.
            let commandId = try readableId ?? json.string("commandId")
            let type = try json.string("type")
            guard let read = payloadReaders[type] else {
                throw DecodingFailure(commandId: commandId, rejection: Rejection(.unknownCommand, "unknown command type '\(type)'"))
            }
            let command: Command
            let data = try json.object("data")
            do {
                command = try JSONObjectReader.read(data, read)
            } catch {
                throw DecodingFailure(commandId: commandId, rejection: rejection(for: error, in: "data"))
            }
            return CommandEnvelope(commandId: commandId, correlationId: try json.optionalString("correlationId"),
                                   causationId: try json.optionalString("causationId"), command: command)
        } catch let failure as DecodingFailure {
            throw failure
        } catch {
            throw DecodingFailure(commandId: readableId, rejection: rejection(for: error, in: nil))
        }
    }

    /// Reads a command's `data` by its `type`, refusing fields the command does not have.
    private static let payloadReaders: [String: @Sendable (borrowing JSONObjectReader) throws -> Command] = [
        "RegisterUser": { json in
            try refuseUnknownFields(json, of: RegisterUser.self)
            return .registerUser(RegisterUser(userId: try json.string("userId"), username: try json.string("username"),
                                              email: try json.string("email"), passwordHash: try json.string("passwordHash")))
        },
        "SaveRecipe": { json in
            try refuseUnknownFields(json, of: SaveRecipe.self)
            return .saveRecipe(SaveRecipe(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                                          recipe: try recipeFacts(json)))
        },
        "RemoveSavedRecipe": { json in
            try refuseUnknownFields(json, of: RemoveSavedRecipe.self)
            return .removeSavedRecipe(RemoveSavedRecipe(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId"))))
        },
        "AddGrocery": { json in
            try refuseUnknownFields(json, of: AddGrocery.self)
            return .addGrocery(AddGrocery(userId: try json.string("userId"), ingredient: try json.string("ingredient"),
                                          amount: try json.optionalDouble("amount"), unit: try json.optionalString("unit"),
                                          recipeId: try json.optionalString("recipeId").map(RecipeID.init(_:))))
        },
        "CheckGrocery": { json in
            try refuseUnknownFields(json, of: CheckGrocery.self)
            return .checkGrocery(CheckGrocery(userId: try json.string("userId"), ingredient: try json.string("ingredient"),
                                              checked: try json.bool("checked")))
        },
        "RemoveGrocery": { json in
            try refuseUnknownFields(json, of: RemoveGrocery.self)
            return .removeGrocery(RemoveGrocery(userId: try json.string("userId"), ingredient: try json.string("ingredient")))
        },
        "UseOwnedIngredient": { json in
            try refuseUnknownFields(json, of: UseOwnedIngredient.self)
            return .useOwnedIngredient(UseOwnedIngredient(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                                                          ingredient: try json.string("ingredient"), recipe: try recipeFacts(json)))
        },
        "AdjustCart": { json in
            try refuseUnknownFields(json, of: AdjustCart.self)
            return .adjustCart(AdjustCart(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                                          delta: try json.int("delta"), recipe: try recipeFacts(json)))
        },
        "StartCooking": { json in
            try refuseUnknownFields(json, of: StartCooking.self)
            return .startCooking(StartCooking(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                                              minutes: try json.int("minutes"), recipe: try recipeFacts(json)))
        },
        "ChangePassword": { json in
            try refuseUnknownFields(json, of: ChangePassword.self)
            return .changePassword(ChangePassword(userId: try json.string("userId"), passwordHash: try json.string("passwordHash")))
        },
        "RequestPasswordReset": { json in
            try refuseUnknownFields(json, of: RequestPasswordReset.self)
            return .requestPasswordReset(RequestPasswordReset(userId: try json.string("userId"), tokenDigest: try json.string("tokenDigest")))
        },
        "ResetPassword": { json in
            try refuseUnknownFields(json, of: ResetPassword.self)
            return .resetPassword(ResetPassword(userId: try json.string("userId"), tokenDigest: try json.string("tokenDigest"),
                                                passwordHash: try json.string("passwordHash")))
        },
        "DeleteUser": { json in
            try refuseUnknownFields(json, of: DeleteUser.self)
            return .deleteUser(DeleteUser(userId: try json.string("userId")))
        },
        "RevokeSession": { json in
            try refuseUnknownFields(json, of: RevokeSession.self)
            return .revokeSession(RevokeSession(userId: try json.string("userId"), tokenId: try json.string("tokenId"),
                                                expiresAt: try json.int64("expiresAt")))
        },
        "WriteExperience": { json in
            try refuseUnknownFields(json, of: WriteExperience.self)
            return .writeExperience(WriteExperience(userId: try json.string("userId"), recipeId: RecipeID(try json.string("recipeId")),
                                                    text: try json.string("text")))
        },
        "CreateHousehold": { json in
            try refuseUnknownFields(json, of: CreateHousehold.self)
            return .createHousehold(CreateHousehold(userId: try json.string("userId")))
        },
        "InviteToHousehold": { json in
            try refuseUnknownFields(json, of: InviteToHousehold.self)
            return .inviteToHousehold(InviteToHousehold(userId: try json.string("userId"), codeDigest: try json.string("codeDigest")))
        },
        "RevokeHouseholdInvite": { json in
            try refuseUnknownFields(json, of: RevokeHouseholdInvite.self)
            return .revokeHouseholdInvite(RevokeHouseholdInvite(userId: try json.string("userId"), inviteId: try json.string("inviteId")))
        },
        "JoinHousehold": { json in
            try refuseUnknownFields(json, of: JoinHousehold.self)
            return .joinHousehold(JoinHousehold(userId: try json.string("userId"), codeDigest: try json.string("codeDigest")))
        },
        "LeaveHousehold": { json in
            try refuseUnknownFields(json, of: LeaveHousehold.self)
            return .leaveHousehold(LeaveHousehold(userId: try json.string("userId")))
        },
        "RemoveHouseholdMember": { json in
            try refuseUnknownFields(json, of: RemoveHouseholdMember.self)
            return .removeHouseholdMember(RemoveHouseholdMember(userId: try json.string("userId"), memberId: try json.string("memberId")))
        },
        "HandOverHousehold": { json in
            try refuseUnknownFields(json, of: HandOverHousehold.self)
            return .handOverHousehold(HandOverHousehold(userId: try json.string("userId"), memberId: try json.string("memberId")))
        },
    ]

    private static func refuseUnknownFields<Payload: CommandPayload>(_ json: borrowing JSONObjectReader, of _: Payload.Type) throws {
        try refuseUnknownFields(json) { Payload.Fields(rawValue: $0) != nil }
    }

    private static func refuseUnknownFields(_ json: borrowing JSONObjectReader, knows: (String) -> Bool) throws {
        if let unknown = json.names.filter({ !knows($0) }).min() { throw UnknownField(name: unknown) }
    }

    private struct UnknownField: Error { var name: String }

    private static func rejection(for error: any Error, in parent: String?) -> Rejection {
        func path(_ field: String) -> String { parent.map { "\($0).\(field)" } ?? field }
        switch error {
        case let error as UnknownField: return Rejection(.invalidField, "unknown field '\(path(error.name))'")
        case JSONReadError.missingField(let field): return Rejection(.invalidField, "missing field '\(path(field))'")
        case JSONReadError.wrongType(let field, let expected): return Rejection(.invalidField, "'\(path(field))' must be \(expected)")
        case JSONReadError.duplicateField(let field): return Rejection(.invalidField, "the field '\(path(field))' appears twice")
        case JSONReadError.invalidUTF8(let field): return Rejection(.invalidUTF8, "'\(path(field))' is not valid UTF-8")
        default: return Rejection(.malformedJSON, "not valid JSON: \(error)")
        }
    }
}
