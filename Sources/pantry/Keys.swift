import ArgumentParser
import Foundation
import PantryBus
import ZeroMQ

/// `pantry keys`: this host's CURVE key pair for the internal network (docs/keys.md).
struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make this host's CURVE key pair for tcp:// endpoints: NAME.secret (mode 0600, stays here) and NAME.public (copy it to every host this one talks to).",
        discussion: "Roles, and the .public files each needs in its keys directory besides its own .secret:\n"
            + NetworkRole.allCases.map { "  \($0.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)) \(needs[$0]!)" }.joined(separator: "\n")
            + "\nWhom each socket admits: " + BusEndpoints.Socket.allCases.map { socket in
                "\(socket) \(BusEndpoints.admittedRoles[socket, default: []].map(\.rawValue).sorted().joined(separator: ", "))"
            }.joined(separator: "; ") + ".")

    /// What each role's host must be given, as `--help` and the command's output say it.
    static let needs: [NetworkRole: String] = [
        .core: "binds commands, feed, log service (and the fetch worker's socket): the .public of every api, worker and ops host",
        .api: "the .public of the core host, of every worker host it asks, and of the fetch host if separate",
        .worker: "binds its queries: the .public of the core host and of every api host it answers",
        .fetch: "binds the fetch socket: the .public of every api host",
        .ops: "pantry replay over the log service: the .public of the core host",
    ]

    @OptionGroup var options: DataOptions

    @Option(help: "This host's role: \(NetworkRole.allCases.map(\.rawValue).joined(separator: ", ")).")
    var role: NetworkRole

    @Option(name: .customLong("host"), help: "An address other hosts reach this one at, as in their tcp:// endpoints (repeatable); needed for core, worker and fetch.")
    var hosts: [String] = []

    @Option(help: "The host's name, naming its files; default this machine's host name.")
    var name: String?

    func validate() throws {
        if [.core, .worker, .fetch].contains(role), hosts.isEmpty {
            throw ValidationError("a \(role.rawValue) host binds sockets others connect to: give --host ADDRESS")
        }
        if let name, name.isEmpty || name.contains("/") || name.hasPrefix(".") {
            throw ValidationError("--name must be a plain file name")
        }
    }

    func run() throws {
        let config = try options.configuration()
        let data = try config.deployment().data
        let fallback = URL(fileURLWithPath: data).standardizedFileURL.appendingPathComponent("keys").path
        let directory = URL(fileURLWithPath: try config.text("keys", shown: fallback) ?? fallback, isDirectory: true)
        let name = self.name ?? ProcessInfo.processInfo.hostName
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if let existing = try manager.contentsOfDirectory(atPath: directory.path).first(where: { $0.hasSuffix(".secret") }) {
            throw ValidationError("\(directory.path) already holds this host's key (\(existing)); remove it first to replace it")
        }
        let key = NetworkKey(name: name, role: role, hosts: hosts, keyPair: try ZMQCurveKeyPair.generate())
        let secret = directory.appendingPathComponent("\(name).secret").path
        let shared = directory.appendingPathComponent("\(name).public").path
        // Made with 0600 from the start: never readable by others, not even for a moment.
        guard manager.createFile(atPath: secret, contents: Data(key.text(withSecret: true).utf8), attributes: [.posixPermissions: 0o600]),
              manager.createFile(atPath: shared, contents: Data(key.text(withSecret: false).utf8), attributes: [.posixPermissions: 0o644])
        else { throw ValidationError("cannot write \(secret) and \(shared)") }
        print("""
            \(secret)  this host's secret key (mode 0600): never copy it
            \(shared)  copy it into the keys directory of every host this \(role.rawValue) host talks to
            public key \(key.publicKey)
            a \(role.rawValue) host \(Self.needs[role]!), copied into \(directory.path)
            """)
    }
}

extension NetworkRole: ExpressibleByArgument {}
