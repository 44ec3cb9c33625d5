import Foundation
import Testing

/// `pantry keys` and the rule that a bus on `tcp://` runs with CURVE keys or not at all, unless
/// the operator says `--insecure-network`.
@Suite struct NetworkKeysTests {
    @Test("a process with a tcp:// endpoint and no keys refuses to start, naming pantry keys and --insecure-network")
    func tcpWithoutKeysIsRefused() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try PantryBinary.run(["worker", "carts", "--data", directory.path],
                                       environment: ["PANTRY_CORE_EVENTS": "tcp://127.0.0.1:1"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("tcp://127.0.0.1:1") && run.stderr.contains("pantry keys") && run.stderr.contains("--insecure-network"),
                "\(run.stderr)")
        // Nothing was started or made: no projection, no lock.
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("projections").path))
    }

    @Test("--insecure-network with this host's keys present refuses to start, saying why and what to do")
    func insecureNetworkWithKeysPresentRefusesToStart() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try PantryBinary.run(["keys", "--data", directory.path, "--role", "worker", "--host", "127.0.0.1", "--name", "w1"],
                                        environment: [:])
        #expect(made.status == 0, "\(made.stderr)")
        let tcp = ["PANTRY_CORE_EVENTS": "tcp://127.0.0.1:1"]
        for (arguments, environment) in [(["--insecure-network"], tcp), ([], tcp.merging(["PANTRY_INSECURE_NETWORK": "true"]) { $1 })] {
            let run = try PantryBinary.run(["worker", "carts", "--data", directory.path] + arguments, environment: environment)
            #expect(run.status == 64, "\(run.stderr)")
            #expect(run.stderr.contains("w1.secret") && run.stderr.contains("anyone on the network")
                    && run.stderr.contains("leave out --insecure-network"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("projections").path))
        }
    }

    @Test("pantry status says when the internal network runs without CURVE")
    func statusSaysTheNetworkIsInsecure() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let submitted = try PantryBinary.run(["submit", "--data", directory.path], environment: [:],
                                             input: Data((CommandLineTests.register + "\n").utf8))
        #expect(submitted.status == 0, "\(submitted.stderr)")
        let local = try PantryBinary.run(["status", "--json", "--data", directory.path], environment: [:])
        #expect(local.stdout.jsonObject?["network"] as? String == "ipc", "\(local.stdout)\(local.stderr)")
        let tcp = ["PANTRY_CORE_EVENTS": "tcp://127.0.0.1:1", "PANTRY_INSECURE_NETWORK": "true"]
        let json = try PantryBinary.run(["status", "--json", "--data", directory.path], environment: tcp)
        #expect(json.stdout.jsonObject?["network"] as? String == "insecure", "\(json.stdout)\(json.stderr)")
        let table = try PantryBinary.run(["status", "--data", directory.path], environment: tcp)
        #expect(table.stdout.contains("INSECURE: tcp:// without CURVE"), "\(table.stdout)")
    }

    @Test("pantry keys writes a 0600 secret and a public file, and never replaces a host's key")
    func keysAreWrittenOnce() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try PantryBinary.run(["keys", "--data", directory.path, "--role", "worker", "--host", "10.0.0.2", "--name", "w1"],
                                        environment: [:])
        #expect(made.status == 0, "\(made.stderr)")
        let keys = directory.appendingPathComponent("keys")
        let secret = keys.appendingPathComponent("w1.secret").path
        let attributes = try FileManager.default.attributesOfItem(atPath: secret)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
        let shared = try String(contentsOfFile: keys.appendingPathComponent("w1.public").path, encoding: .utf8)
        #expect(shared.contains("role = worker") && shared.contains("hosts = 10.0.0.2") && !shared.contains("secret-key"))
        let before = try String(contentsOfFile: secret, encoding: .utf8)
        let again = try PantryBinary.run(["keys", "--data", directory.path, "--role", "api", "--name", "other"], environment: [:])
        #expect(again.status != 0 && again.stderr.contains("w1.secret"), "\(again.stderr)")
        #expect(try String(contentsOfFile: secret, encoding: .utf8) == before)
        // A server role needs the address others reach it at.
        let hostless = try PantryBinary.run(["keys", "--data", directory.path, "--role", "core"], environment: [:])
        #expect(hostless.status == 64 && hostless.stderr.contains("--host"), "\(hostless.stderr)")
    }

    @Test("with a tcp:// bus, a secret key file others may read is refused")
    func readableSecretIsRefused() throws {
        let directory = try PantryBinary.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try PantryBinary.run(["keys", "--data", directory.path, "--role", "api", "--name", "a1"], environment: [:])
        #expect(made.status == 0, "\(made.stderr)")
        let environment = ["PANTRY_CORE_COMMANDS": "tcp://127.0.0.1:7001"]
        let accepted = try PantryBinary.run(["config", "--data", directory.path], environment: environment)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let secret = directory.appendingPathComponent("keys/a1.secret").path
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret)
        let refused = try PantryBinary.run(["config", "--data", directory.path], environment: environment)
        #expect(refused.status == 64 && refused.stderr.contains("chmod 600"), "\(refused.stderr)")
    }
}
