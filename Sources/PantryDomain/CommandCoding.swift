import Foundation

/// The JSON wire form of a command, as described by `schemas/commands/*.json`:
/// `{"commandId": "...", "type": "UseOwnedIngredient", "data": {...}, "correlationId"?: "...", "causationId"?: "..."}`.
public enum CommandCoding {
    /// Larger documents are refused before parsing; no legitimate command comes near it.
    public static let maxDocumentBytes = 64 * 1024

    /// A command that could not be read. `commandId` is set when the document got that far.
    public struct DecodingFailure: Error, Sendable, Equatable {
        public var commandId: CommandID?
        public var rejection: Rejection
    }

    public static func decode(_ bytes: some Collection<UInt8>) -> Result<CommandEnvelope, DecodingFailure> {
        guard bytes.count <= maxDocumentBytes else {
            return .failure(DecodingFailure(rejection: Rejection(.tooLarge, "a command must be at most \(maxDocumentBytes) bytes")))
        }
        let data = Data(bytes)
        guard String(validating: data, as: UTF8.self) != nil else {
            return .failure(DecodingFailure(rejection: Rejection(.invalidUTF8, "a command must be UTF-8 text")))
        }
        do {
            return .success(try JSONDecoder().decode(WireEnvelope.self, from: data).envelope)
        } catch var failure as DecodingFailure {
            // An unknown top-level field is found before `commandId` is read; report it all the same.
            if failure.commandId == nil { failure.commandId = partialCommandId(data) }
            return .failure(failure)
        } catch let error as DecodingError {
            var rejection = rejection(for: error)
            // Some decoders report a value of the wrong kind (1.5 for an integer) as corrupt data at
            // the root; the document is valid JSON, so it is a field that is wrong.
            if rejection.code == .malformedJSON, (try? JSONSerialization.jsonObject(with: data)) != nil {
                rejection = Rejection(.invalidField, "a field has a value of the wrong type")
            }
            return .failure(DecodingFailure(commandId: partialCommandId(data), rejection: rejection))
        } catch {
            return .failure(DecodingFailure(rejection: Rejection(.malformedJSON, "not a JSON object: \(error)")))
        }
    }

    public static func encode(_ envelope: CommandEnvelope) -> Data {
        // Encoding plain structs of strings and numbers cannot fail.
        try! JSONEncoder().encode(WireEnvelope(envelope))
    }

    private static func partialCommandId(_ data: Data) -> CommandID? {
        struct IdOnly: Decodable { var commandId: String }
        return try? JSONDecoder().decode(IdOnly.self, from: data).commandId
    }

    private static func rejection(for error: DecodingError) -> Rejection {
        func path(_ context: DecodingError.Context) -> String {
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            return path.isEmpty ? "the document" : "'\(path)'"
        }
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return Rejection(.malformedJSON, "not valid JSON")
        case .dataCorrupted(let context):
            return Rejection(.invalidField, "\(path(context)): \(context.debugDescription)")
        case .keyNotFound(let key, let context):
            let field = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return Rejection(.invalidField, "missing field '\(field)'")
        case .typeMismatch(let type, let context):
            return Rejection(.invalidField, "\(path(context)) must be \(describe(type))")
        case .valueNotFound(let type, let context):
            return Rejection(.invalidField, "\(path(context)) must be \(describe(type)), not null")
        @unknown default:
            return Rejection(.invalidField, "\(error)")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type: "an integer"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: "an object"
        }
    }
}

private struct WireEnvelope: Codable {
    var envelope: CommandEnvelope

    enum CodingKeys: String, CodingKey, CaseIterable { case commandId, type, data, correlationId, causationId }

    init(_ envelope: CommandEnvelope) { self.envelope = envelope }

    init(from decoder: any Decoder) throws {
        let keys = try decoder.container(keyedBy: AnyCodingKey.self).allKeys.map(\.stringValue)
        if let unknown = keys.first(where: { CodingKeys(rawValue: $0) == nil }) {
            throw CommandCoding.DecodingFailure(rejection: Rejection(.invalidField, "unknown field '\(unknown)'"))
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let commandId = try c.decode(String.self, forKey: .commandId)
        let type = try c.decode(String.self, forKey: .type)
        func data<T: StrictlyDecodable>(_: T.Type) throws -> T { try c.decode(Strict<T>.self, forKey: .data).value }
        let command: Command
        switch type {
        case "RegisterUser": command = .registerUser(try data(RegisterUser.self))
        case "SaveRecipe": command = .saveRecipe(try data(SaveRecipe.self))
        case "RemoveSavedRecipe": command = .removeSavedRecipe(try data(RemoveSavedRecipe.self))
        case "AddGrocery": command = .addGrocery(try data(AddGrocery.self))
        case "CheckGrocery": command = .checkGrocery(try data(CheckGrocery.self))
        case "RemoveGrocery": command = .removeGrocery(try data(RemoveGrocery.self))
        case "UseOwnedIngredient": command = .useOwnedIngredient(try data(UseOwnedIngredient.self))
        case "AdjustCart": command = .adjustCart(try data(AdjustCart.self))
        case "WriteExperience": command = .writeExperience(try data(WriteExperience.self))
        default:
            throw CommandCoding.DecodingFailure(
                commandId: commandId, rejection: Rejection(.unknownCommand, "unknown command type '\(type)'"))
        }
        envelope = CommandEnvelope(
            commandId: commandId,
            correlationId: try c.decodeIfPresent(String.self, forKey: .correlationId),
            causationId: try c.decodeIfPresent(String.self, forKey: .causationId),
            command: command)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(envelope.commandId, forKey: .commandId)
        try c.encode(envelope.command.typeName, forKey: .type)
        try c.encodeIfPresent(envelope.correlationId, forKey: .correlationId)
        try c.encodeIfPresent(envelope.causationId, forKey: .causationId)
        switch envelope.command {
        case .registerUser(let v): try c.encode(v, forKey: .data)
        case .saveRecipe(let v): try c.encode(v, forKey: .data)
        case .removeSavedRecipe(let v): try c.encode(v, forKey: .data)
        case .addGrocery(let v): try c.encode(v, forKey: .data)
        case .checkGrocery(let v): try c.encode(v, forKey: .data)
        case .removeGrocery(let v): try c.encode(v, forKey: .data)
        case .useOwnedIngredient(let v): try c.encode(v, forKey: .data)
        case .adjustCart(let v): try c.encode(v, forKey: .data)
        case .writeExperience(let v): try c.encode(v, forKey: .data)
        }
    }
}
