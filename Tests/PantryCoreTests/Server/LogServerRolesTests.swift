import Foundation
import Logging
import PantryBus
import PantryCore
import PantryDomain
import PantryEventStore
import PantryKeys
import PantryLog
import PantryWire
import Testing
import ZeroMQ

/// What the log service opens for each role (docs/keys.md, "What the log service opens"), over
/// real CURVE sockets on loopback: the role is the one the asker's key is listed with.
@Suite struct LogServerRolesTests {
    /// Distinct per run, so a match can only come from this log.
    let secret = UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    var email: String { "mail\(secret.prefix(12))@example.org" }
    var oldEmail: String { "old\(secret.prefix(12))@example.org" }
    /// PHC strings whose salt and digest are this run's.
    var hash: String { "$scrypt$ln=15,r=8,p=1$\(Data(secret.prefix(12).utf8).base64EncodedString())$\(Data(secret.utf8).base64EncodedString())" }
    var newHash: String { "$scrypt$ln=15,r=8,p=1$\(Data(secret.suffix(12).utf8).base64EncodedString())$\(Data(String(secret.reversed()).utf8).base64EncodedString())" }
    var oldHash: String { "$scrypt$ln=15,r=8,p=1$\(Data("oldsalt\(secret.prefix(5))".utf8).base64EncodedString())$\(Data("old\(secret)".utf8).base64EncodedString())" }

    /// Every way `text` could sit in an answer: itself, and its base64 at each of the three
    /// alignments (the characters that depend on what surrounds it cut off).
    static func forms(of text: String) -> [Data] {
        var forms = [Data(text.utf8)]
        for pad in 0..<3 {
            let encoded = Array((Data(repeating: 0, count: pad) + Data(text.utf8)).base64EncodedString().utf8)
            let start = pad == 0 ? 0 : 4
            let end = encoded.count - 4
            if end > start + 8 { forms.append(Data(encoded[start..<end])) }
        }
        return forms
    }

    static func holds(_ bytes: Data, _ text: String) -> Bool {
        forms(of: text).contains { bytes.range(of: $0) != nil }
    }

    /// Every answer of the reads a follower makes (a range, each type, positions), as raw bytes.
    static func everything(asked endpoint: String, from context: ZMQContext, head: Int64) throws -> Data {
        let dealer = try ZMQSocket(context: context, type: .dealer)
        try dealer.setReceiveTimeout(milliseconds: 30_000)
        try dealer.connect(endpoint)
        var bytes = Data()
        let reads: [LogRead] = [.range(after: 0, limit: 10_000), .positions(Array(1...head)),
                                .types(after: 0, through: head, types: ["UserRegistered", "PasswordChanged", "GroceryAdded", "ExperienceWritten"])]
        for read in reads {
            try dealer.send([read.json])
            let frames = try #require(try dealer.receive(), "the log service answered \(read)")
            #expect(try LogAnswer.decode(frames[0]).events > 0)
            for frame in frames { bytes += frame }
        }
        return bytes
    }

    @Test("a worker key's log read holds no email or password hash, raw or in base64; an operator's neither; an API key's holds them")
    func aWorkerKeysLogReadHoldsNoEmailOrHash() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pantry-roles-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path)
        let keys = try UserKeyStore(path: directory.appendingPathComponent("keys.sqlite").path, readOnly: false)
        // A log from before the seal: version 1 held the account in the clear.
        let metadata = EventMetadata(commandId: "old", correlationId: nil, causationId: nil, userId: "old", recordedAt: 0)
        _ = try store.append([StreamAppend(streamId: "user-old", expectedVersion: 0, events: [NewEvent(
            type: "UserRegistered", schemaVersion: 1,
            data: Data(#"{"userId":"old","username":"old_timer","email":"\#(oldEmail)","passwordHash":"\#(oldHash)"}"#.utf8),
            metadata: metadata)])])
        let processor = try CommandProcessor(store: store, keys: keys, logger: quietLogger())
        let outcomes = processor.process([
            CommandEnvelope(commandId: "r", command: .registerUser(RegisterUser(userId: "u1", username: "anna", email: email, passwordHash: hash))),
            CommandEnvelope(commandId: "p", command: .changePassword(ChangePassword(userId: "u1", passwordHash: newHash))),
            CommandEnvelope(commandId: "g", command: .addGrocery(AddGrocery(userId: "u1", ingredient: "saffron"))),
            CommandEnvelope(commandId: "t", command: .writeExperience(WriteExperience(userId: "u1", recipeId: "catalog:paella", text: "toast the rice"))),
        ])
        #expect(outcomes.allSatisfy { $0.status == .accepted }, "\(outcomes)")
        let head = try store.headPosition()

        let serverKey = try ZMQCurveKeyPair.generate()
        let roleKeys = try Dictionary(uniqueKeysWithValues: [NetworkRole.api, .worker, .ops].map { ($0, try ZMQCurveKeyPair.generate()) })
        // The ZAP domain is the endpoint as bound, so the port is chosen here: below the kernel's
        // ephemeral range, which the other tests' `tcp://127.0.0.1:*` binds draw from.
        let endpoint = "tcp://127.0.0.1:\(Int.random(in: 20_000..<30_000))"
        let serverContext = try ZMQContext(security: .curve(ZMQCurvePolicy(
            keyPair: serverKey, serverKeys: [:],
            clients: Dictionary(uniqueKeysWithValues: roleKeys.map { ($0.value.publicKey, $0.key.rawValue) }),
            admitted: [endpoint: Set(BusEndpoints.admittedRoles[.log]!.map(\.rawValue))])))
        let server = try LogServer(log: store, vault: keys, context: serverContext, endpoint: endpoint, logger: quietLogger())
        let serving = Task.immediate { try await server.run() }
        defer { serving.cancel(); serverContext.shutdown() }

        var answers: [NetworkRole: Data] = [:]
        var decoded: [NetworkRole: [Event]] = [:]
        for (role, keyPair) in roleKeys {
            let context = try ZMQContext(security: .curve(ZMQCurvePolicy(keyPair: keyPair, serverKeys: ["127.0.0.1": serverKey.publicKey],
                                                                         clients: [:], admitted: [:])))
            defer { context.shutdown() }
            answers[role] = try Self.everything(asked: endpoint, from: context, head: head)
            decoded[role] = try RemoteEventStore(context: context, endpoint: endpoint, timeout: .seconds(30)).read(after: 0, limit: 1_000).map {
                try EventCoding.decode(type: $0.type, schemaVersion: $0.schemaVersion, data: $0.data, vault: nil)
            }
        }
        let secrets = [email, oldEmail, hash, newHash, oldHash, String(hash.split(separator: "$").last!), String(oldHash.split(separator: "$").last!)]
        for role in [NetworkRole.worker, .ops] {
            let bytes = try #require(answers[role])
            for text in secrets { #expect(!Self.holds(bytes, text), "\(role) was sent \(text)") }
            // What a projection folds still comes: the usernames (the old one upcast), the item, the tip.
            #expect(decoded[role]?.contains(.userRegistered(UserRegistered(userId: "u1", username: "anna", email: EventCoding.erased,
                                                                           passwordHash: EventCoding.erased))) == true)
            #expect(decoded[role]?.contains(.userRegistered(UserRegistered(userId: "old", username: "old_timer", email: EventCoding.erased,
                                                                           passwordHash: EventCoding.erased))) == true)
            #expect(decoded[role]?.contains { if case .groceryAdded(let e) = $0 { e.item == "saffron" } else { false } } == true)
            #expect(decoded[role]?.contains { if case .experienceWritten(let e) = $0 { e.text == "toast the rice" } else { false } } == true)
        }
        // The search finds them where they are sent: the API verifies passwords.
        let api = try #require(answers[.api])
        for text in secrets { #expect(Self.holds(api, text), "the API was not sent \(text)") }
        #expect(decoded[.api]?.contains(.passwordChanged(PasswordChanged(userId: "u1", passwordHash: newHash))) == true)
    }
}
