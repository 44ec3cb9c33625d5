import Configuration
import Foundation
import Synchronization

/// The configuration of one run of `pantry`, read once, at the start of the command, from three
/// sources, each winning over those after it: the command's flags, `PANTRY_*` environment
/// variables, and a JSON file (`--config FILE` or `PANTRY_CONFIG`); a key none of them sets takes
/// its default. A key has one name everywhere: `port` in the file, `PANTRY_PORT` in the
/// environment, `--port` on the command line (where the command has that flag).
///
/// swift-configuration reads the sources (an `InMemoryProvider` of the flags swift-argument-parser
/// parsed, its `EnvironmentVariablesProvider` and `JSONSnapshot`); this type validates each value
/// as it is read, so that a bad one names its key, where it came from and what is allowed, and
/// records it with its origin, which `pantry config` prints. The sections (`Sections.swift`) turn
/// the values into the libraries' own configuration values; no library reads the environment.
final class ConfigurationSources {
    /// Where a value came from, in the order the sources win.
    enum Origin: String, Encodable {
        case flag, environment, file, `default`
    }

    /// A key as read: its value as `pantry config` prints it (secrets masked) and its origin.
    struct Setting: Encodable {
        var key: String
        var value: String
        var origin: Origin
        /// The flag, the environment variable or the file that set it; nil for a default.
        var source: String?
    }

    /// The settings read so far, one per key, in the order they were read.
    private(set) var settings: [Setting] = []
    /// The configuration file, when one is named.
    let file: String?

    private let reader: ConfigReader
    private let lastAccess = LastAccess()
    /// The origin of each provider, in the reader's order.
    private let origins: [Origin]
    private let flags: [String: ConfigContent]
    private let environment: [String: String]

    /// - Parameters:
    ///   - flags: the command's flags that are configuration keys, by key (nil: not given).
    ///   - environment: the process's environment; only `PANTRY_*` variables are read, and an
    ///     empty one counts as unset (as `${X:-default}` in a shell would).
    init(flags: [String: (any ConfigurationFlagValue)?],
         environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let flags = flags.compactMapValues { $0?.configContent }
        for key in flags.keys { precondition(Self.keys.contains(key), "\(key) is not a configuration key") }
        let environment = environment.filter { $0.key.hasPrefix("PANTRY_") && !$0.value.isEmpty }

        var providers: [any ConfigProvider] = [
            InMemoryProvider(name: "flags", values: Dictionary(uniqueKeysWithValues: flags.map {
                (AbsoluteConfigKey([$0.key]), ConfigValue($0.value, isSecret: Self.secretKeys.contains($0.key)))
            })),
            EnvironmentVariablesProvider(
                environmentVariables: environment,
                secretsSpecifier: .specific(Set(Self.secretKeys.map(Self.environmentName)))
            ).prefixKeys(with: "pantry"),
        ]
        var origins: [Origin] = [.flag, .environment]
        var file: String?
        var fileOrigin = Origin.default
        if case .string(let path) = flags["config"] {
            (file, fileOrigin) = (path, .flag)
        } else if let path = environment[Self.environmentName("config")] {
            (file, fileOrigin) = (path, .environment)
        }
        if let file {
            providers.append(try Self.fileProvider(file, origin: fileOrigin))
            origins.append(.file)
        }
        self.flags = flags
        self.environment = environment
        self.file = file
        self.origins = origins
        reader = ConfigReader(providers: providers, accessReporter: lastAccess)
        settings.append(Setting(key: "config", value: file ?? "none", origin: fileOrigin,
                                source: Self.sourceName("config", fileOrigin, file: nil)))
    }

    // MARK: Reading typed values

    /// A whole number in `range`.
    func int(_ key: String, default defaultValue: Int, in range: ClosedRange<Int>, shown: String? = nil) throws -> Int {
        let expected = "a whole number from \(range.lowerBound) to \(range.upperBound)"
        guard case let (value, origin)? = try lookup(key, expected: expected, { $0.int(forKey: $1) }) else {
            record(key, shown ?? String(defaultValue), .default)
            return defaultValue
        }
        guard range.contains(value) else { throw invalid(key, origin, expected, shown: String(value)) }
        record(key, String(value), origin)
        return value
    }

    /// A number in `range`; `above` excludes its lower bound.
    func double(_ key: String, default defaultValue: Double, in range: ClosedRange<Double>, above: Bool = false) throws -> Double {
        let expected = above
            ? "a number above \(Self.format(range.lowerBound)), at most \(Self.format(range.upperBound))"
            : "a number from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))"
        guard case let (value, origin)? = try lookup(key, expected: expected, { $0.double(forKey: $1) }) else {
            record(key, Self.format(defaultValue), .default)
            return defaultValue
        }
        guard value.isFinite, range.contains(value), !(above && value == range.lowerBound) else {
            throw invalid(key, origin, expected, shown: Self.format(value))
        }
        record(key, Self.format(value), origin)
        return value
    }

    /// true or false.
    func bool(_ key: String, default defaultValue: Bool) throws -> Bool {
        guard case let (value, origin)? = try lookup(key, expected: "true or false", { $0.bool(forKey: $1) }) else {
            record(key, String(defaultValue), .default)
            return defaultValue
        }
        record(key, String(value), origin)
        return value
    }

    /// A text value checked and converted by `parse` (nil: not allowed, and `expected` says what
    /// is), or nil when no source sets it; `shown` is what `pantry config` prints for the default.
    /// A secret is never printed, not even in an error; `mask` is what may be printed of a value
    /// (a URL without its password).
    func parsed<Value>(_ key: String, shown: String, expected: String, mask: ((String) -> String)? = nil,
                       _ parse: (String) -> Value?) throws -> Value? {
        let secret = Self.secretKeys.contains(key)
        guard case let (text, origin)? = try lookup(key, expected: expected, { $0.string(forKey: $1, isSecret: secret) }),
              !text.isEmpty else {
            record(key, shown, .default)
            return nil
        }
        let printed = secret ? Self.masked : mask?(text) ?? text
        guard let value = parse(text) else { throw invalid(key, origin, expected, shown: secret ? nil : printed) }
        record(key, printed, origin)
        return value
    }

    /// A text value taken as it is, or nil when no source sets it.
    func text(_ key: String, shown: String = "none") throws -> String? {
        try parsed(key, shown: shown, expected: "a text") { $0 }
    }

    /// Whether a source set `key` (after it was read).
    func isSet(_ key: String) -> Bool {
        settings.last { $0.key == key }.map { $0.origin != .default } ?? false
    }

    /// The value of `key` from the first source that sets it, and which source that was; nil
    /// when none does. A value a source cannot give as the type asked is an error (swift-
    /// configuration stops at the first source that has the key, so it never falls through to
    /// a default).
    private func lookup<Value>(_ key: String, expected: String,
                               _ read: (ConfigReader, ConfigKey) -> Value?) throws -> (Value, Origin)? {
        precondition(Self.keys.contains(key), "\(key) is not a configuration key")
        let value = read(reader, ConfigKey([key]))
        guard let event = lastAccess.take() else { preconditionFailure("swift-configuration reported no access to \(key)") }
        // The providers are asked in order until one has the key: the last one asked answered.
        let origin = origins[max(event.providerResults.count - 1, 0)]
        // The non-throwing reads report a provider's error in its result, not in the event's.
        if case .failure = event.providerResults.last?.result {
            throw invalid(key, origin, expected, shown: nil)
        }
        if event.conversionError != nil {
            throw invalid(key, origin, expected, shown: nil)
        }
        return value.map { ($0, origin) }
    }

    private func record(_ key: String, _ value: String, _ origin: Origin) {
        let setting = Setting(key: key, value: value, origin: origin, source: Self.sourceName(key, origin, file: file))
        if let index = settings.firstIndex(where: { $0.key == key }) {
            settings[index] = setting
        } else {
            settings.append(setting)
        }
    }

    /// `port: PANTRY_PORT=abc (environment) must be a whole number from 1 to 65535`; a secret's
    /// value is never shown.
    func invalid(_ key: String, _ origin: Origin, _ expected: String, shown: String?) -> ConfigurationError {
        let secret = Self.secretKeys.contains(key)
        let given: String
        switch origin {
        case .flag:
            given = "--\(key)" + (secret ? "" : shown.map { " \($0)" } ?? flags[key].map { " \(Self.text($0))" } ?? "")
        case .environment:
            let name = Self.environmentName(key)
            given = secret ? name : "\(name)=\(shown ?? environment[name] ?? "")"
        case .file:
            given = "\"\(key)\"" + (secret ? "" : shown.map { ": \($0)" } ?? "") + " in \(file ?? "the configuration file")"
        case .default:
            given = "the default"
        }
        return ConfigurationError("\(key): \(given) (\(origin.rawValue)\(secret ? ", not shown" : "")) must be \(expected)")
    }

    // MARK: Names

    /// `PANTRY_` and the key in capitals, `-` as `_`: what swift-configuration's
    /// `EnvironmentVariablesProvider` looks up for the key under the `pantry` prefix.
    static func environmentName(_ key: String) -> String {
        "PANTRY_" + key.uppercased().replacingOccurrences(of: "-", with: "_")
    }

    private static func sourceName(_ key: String, _ origin: Origin, file: String?) -> String? {
        switch origin {
        case .flag: "--\(key)"
        case .environment: environmentName(key)
        case .file: file
        case .default: nil
        }
    }

    static let masked = "********"

    /// A number as a person writes it: 2, 0.5, 1e-06 (never 2.0).
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    private static func text(_ content: ConfigContent) -> String {
        switch content {
        case .string(let text): text
        case .int(let value): String(value)
        case .double(let value): format(value)
        case .bool(let value): String(value)
        default: "\(content)"
        }
    }

    // MARK: The file

    /// The JSON file, one object of keys (`{"port": 8080, "log-level": "debug"}`), parsed by
    /// swift-configuration's `JSONSnapshot`. A key Pantry does not know is an error, so that a
    /// misspelt one is not silently ignored.
    private static func fileProvider(_ path: String, origin: Origin) throws -> SnapshotProvider {
        let named = origin == .flag ? "--config \(path)" : "\(environmentName("config"))=\(path)"
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ConfigurationError("config: \(named) (\(origin.rawValue)): cannot read the file: \((error as NSError).localizedDescription)")
        }
        let snapshot: JSONSnapshot
        do {
            snapshot = try JSONSnapshot(data: data.bytes, providerName: "file", parsingOptions: .init(
                secretsSpecifier: .specific(secretKeys)))
        } catch {
            throw ConfigurationError("config: \(named) (\(origin.rawValue)) is not a JSON object of configuration keys: \(error)")
        }
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        if let unknown = object.keys.sorted().first(where: { !keys.contains($0) || $0 == "config" }) {
            let why = unknown == "config" ? "which only a flag or the environment can set" : "which is not a configuration key (pantry config lists them)"
            throw ConfigurationError("config: \(named) (\(origin.rawValue)) sets \"\(unknown)\", \(why)")
        }
        return SnapshotProvider(contents: snapshot)
    }
}

/// The last access swift-configuration reported: which providers it asked and what each answered.
/// Reads happen one at a time on the thread that starts the command.
private final class LastAccess: AccessReporter {
    private let event = Mutex<AccessEvent?>(nil)

    func report(_ event: AccessEvent) {
        self.event.withLock { $0 = event }
    }

    func take() -> AccessEvent? {
        event.withLock { event in
            defer { event = nil }
            return event
        }
    }
}

/// A file read once, synchronously, as a provider: swift-configuration's `FileProvider` does the
/// same, but only from async code, and most commands start synchronously.
private struct SnapshotProvider: ConfigProvider {
    let contents: JSONSnapshot

    var providerName: String { contents.providerName }

    func value(forKey key: AbsoluteConfigKey, type: ConfigType) throws -> LookupResult {
        try contents.value(forKey: key, type: type)
    }

    func fetchValue(forKey key: AbsoluteConfigKey, type: ConfigType) async throws -> LookupResult {
        try value(forKey: key, type: type)
    }

    // swift-configuration builds with NonisolatedNonsendingByDefault, hence the spelling.
    nonisolated(nonsending) func watchValue<Return: ~Copyable>(
        forKey key: AbsoluteConfigKey, type: ConfigType,
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<Result<LookupResult, any Error>, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchValueFromValue(forKey: key, type: type, updatesHandler: updatesHandler)
    }

    func snapshot() -> any ConfigSnapshot { contents }

    nonisolated(nonsending) func watchSnapshot<Return: ~Copyable>(
        updatesHandler: nonisolated(nonsending) (_ updates: ConfigUpdatesAsyncSequence<any ConfigSnapshot, Never>) async throws -> Return
    ) async throws -> Return {
        try await watchSnapshotFromSnapshot(updatesHandler: updatesHandler)
    }
}

/// A flag's value as swift-configuration holds it.
protocol ConfigurationFlagValue {
    var configContent: ConfigContent { get }
}

extension String: ConfigurationFlagValue {
    var configContent: ConfigContent { .string(self) }
}

extension Int: ConfigurationFlagValue {
    var configContent: ConfigContent { .int(self) }
}

extension Int64: ConfigurationFlagValue {
    var configContent: ConfigContent { .int(Int(self)) }
}

extension Bool: ConfigurationFlagValue {
    var configContent: ConfigContent { .bool(self) }
}

extension Double: ConfigurationFlagValue {
    var configContent: ConfigContent { .double(self) }
}

/// A setting the process cannot run with, said before anything starts: the key, where the value
/// came from and what is allowed. `pantry` exits 64 (a usage error) without printing the usage.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
