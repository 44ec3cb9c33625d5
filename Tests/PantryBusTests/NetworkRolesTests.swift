import Foundation
import PantryBus
import Testing
import ZeroMQ

/// The roles a bus's CURVE policy admits on each socket, from real key files in a directory.
@Suite struct NetworkRolesTests {
    /// A bus on tcp:// and a keys directory with one host of every role, the core's the `.secret`.
    func policy() throws -> (ZMQCurvePolicy, BusEndpoints, [NetworkRole: String]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("roles-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var publicKeys: [NetworkRole: String] = [:]
        for (number, role) in NetworkRole.allCases.enumerated() {
            let key = NetworkKey(name: role.rawValue, role: role, hosts: ["10.0.0.\(number + 1)"], keyPair: try ZMQCurveKeyPair.generate())
            publicKeys[role] = key.publicKey
            let file = directory.appendingPathComponent("\(role.rawValue).\(role == .core ? "secret" : "public")").path
            #expect(FileManager.default.createFile(atPath: file, contents: Data(key.text(withSecret: role == .core).utf8),
                                                   attributes: [.posixPermissions: 0o600]))
        }
        var bus = BusEndpoints(dataDirectory: directory)
        bus.commands = "tcp://10.0.0.1:7001"
        bus.events = "tcp://10.0.0.1:7002"
        bus.log = "tcp://10.0.0.1:7003"
        bus.fetch = "tcp://10.0.0.1:7004"
        bus.queries[.carts] = "tcp://10.0.0.3:7102 tcp://10.0.0.9:7102"
        let keys = try #require(try NetworkKeys.load(directory))
        return (try bus.curvePolicy(keys), bus, publicKeys)
    }

    @Test("only API hosts may send commands, ask workers or the fetch worker; the feed serves API and worker hosts; the log service also ops")
    func rolesPerSocket() throws {
        let (policy, bus, keys) = try policy()
        let expected: [(String, Set<NetworkRole>)] = [
            (bus.commands, [.api]), (bus.fetch, [.api]), ("tcp://10.0.0.3:7102", [.api]),
            (bus.events, [.api, .worker]), (bus.log, [.api, .worker, .ops]),
        ]
        for (endpoint, roles) in expected {
            for role in NetworkRole.allCases {
                let admitted = (try? policy.admit(clientKey: keys[role]!, domain: endpoint).get()) != nil
                #expect(admitted == roles.contains(role), "\(role) on \(endpoint)")
            }
        }
        // A key nobody listed, and an endpoint the bus does not have, admit nothing.
        #expect(throws: ZMQSecurityError.self) { try policy.admit(clientKey: ZMQCurveKeyPair.generate().publicKey, domain: bus.commands).get() }
        #expect(throws: ZMQSecurityError.self) { try policy.admit(clientKey: keys[.api]!, domain: "tcp://10.0.0.1:9999").get() }
        // A client pins each server's key by the host in its endpoint.
        #expect(policy.serverKeys["10.0.0.1"] == keys[.core] && policy.serverKeys["10.0.0.3"] == keys[.worker])
    }

    @Test("a key file that names no role, or whose secret is not its public key's, is refused naming the file")
    func badKeyFilesAreRefused() throws {
        let key = NetworkKey(name: "w", role: .worker, hosts: [], keyPair: try ZMQCurveKeyPair.generate())
        let other = try ZMQCurveKeyPair.generate()
        let mismatched = key.text(withSecret: true).replacingOccurrences(of: key.secretKey!, with: other.secretKey)
        for text in [key.text(withSecret: false).replacingOccurrences(of: "role = worker", with: "role = admin"), mismatched] {
            let error = #expect(throws: NetworkKeyError.self) { try NetworkKey(parsing: text, file: "w.secret") }
            #expect(error?.description.hasPrefix("w.secret:") == true)
        }
        #expect(try NetworkKey(parsing: key.text(withSecret: true), file: "w.secret") == key)
    }
}
