import ArgumentParser
import Foundation
import PantryDomain
import PantryLoad
import PantryTokens

struct LoadTest: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadtest",
        abstract: "Load-test a running deployment's points leaderboard over HTTP, then check every point.",
        discussion: """
            Registers and logs in --users users, then --clients threads (one kept-alive connection
            each) send UseOwnedIngredient commands (each with an Idempotency-Key, retried with the
            same key after a transport failure or a 503; a few deliberately repeat an earned item
            and must get 409 already_used) and leaderboard reads (top 10, my rank). Its users earn
            points as people do: each recipe's cooking started first, and at
            most --points-per-user each, within the core's pace of points (its burst), so more load
            takes more users. At the end every
            user's points are read back and compared with the ledger of accepted commands: any lost
            or doubled point exits 1. The same --seed drives the same choices; usernames start with
            a run prefix from the seed and the clock, so reruns against one deployment never collide.
            Where it can read the API's token key (--data, or PANTRY_TOKEN_KEY) it registers its
            users as the operator: past the per-address log-in limits, hashed at the lowest cost.
            Exit status: 0 passed, 1 the check failed, 2 the run could not be made, 3 a --fail-on
            threshold was missed.
            """,
        subcommands: [LoadTestCompare.self])

    @Option(help: "The API's base URL.") var url = "http://127.0.0.1:8080"
    @Option(help: "A PEM file of the certificates to trust for an https:// URL instead of the system's (a self-signed balancer's cert.pem); the server is verified either way.")
    var cacert: String?
    @Option(help: "The API's data directory, whose api-token.key lets the users be registered as the operator; default PANTRY_DATA or ./data (PANTRY_TOKEN_KEY, when set, is the key).")
    var data: String?
    @Option(help: "A JSON file of configuration keys (data, token-key); or PANTRY_CONFIG.") var config: String?
    @Option(help: "Users to register and spread the load over.") var users = 10_000
    @Option(help: "Concurrent HTTP clients, each a thread with its own connection.") var clients = 64
    @Option(help: "Seconds to drive the load (default 60 unless --requests is given).") var duration: Double?
    @Option(help: "Requests to send in all; with --duration too, whichever ends first.") var requests: Int?
    @Option(help: "Share of requests that are leaderboard reads (0-1).") var readRatio = 0.5
    @Option(help: "Share of the reads that ask for the top 10; the rest ask for the user's rank.") var top10Share = 0.5
    @Option(help: "Share of the commands that repeat an earned item on purpose (must be refused).") var repeatRatio = 0.02
    @Option(help: "Requests/s over all clients for a fixed-rate run, latency measured from each request's due time; default: as fast as answered.") var rate: Double?
    @Option(help: "Seed of the workload; default: random (printed, to repeat the run).") var seed: UInt64?
    @Option(help: "Prefix of this run's usernames and keys (default: from the seed and the clock).") var runPrefix: String?
    @Option(help: "Password of every test user.") var password = "load-test-password"
    @Option(help: "Seconds a request may take before it counts as a timeout.") var timeout = 15.0
    @Option(help: "Where to write the result as JSON.") var output = "loadtest.json"
    @Option(help: "Where to write the latency plot (SVG).") var plot = "loadtest.svg"
    @Option(help: "Thresholds the run must meet, e.g. \"p99<10ms,errors=0,rps>=1000\" (latencies: the worst kind of request); a miss exits 3.")
    var failOn: String?
    @Option(help: "Seconds of load before the measured drive (not counted in latencies and rates; its points are checked).")
    var warmUp = 0.0
    @Flag(help: "Delete every test user (DELETE /v1/me) after the check.") var cleanup = false
    @Option(help: "A ramp of fixed rates, e.g. \"500,1000,2000,4000\" requests/s, --step-seconds each, with one summary per step: where does p99 break? (Not with --rate or --duration.)")
    var ramp: String?
    @Option(help: "Seconds of each ramp step.") var stepSeconds = 20.0
    @Option(help: "The most points one user earns in the run: the burst of the deployment's points pace (its points-pace key; the default is the core's), so that none is refused as too fast.")
    var pointsPerUser = Paces.human.points.burst

    /// The ramp's rates, once checked.
    private var rampRates: [Double]? {
        ramp.map { $0.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
    }

    func validate() throws {
        guard users > 0 else { throw ValidationError("--users must be positive") }
        guard (1...4096).contains(clients) else { throw ValidationError("--clients must be 1-4096") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        if let requests, requests <= 0 { throw ValidationError("--requests must be positive") }
        if let rate, !(rate > 0) { throw ValidationError("--rate must be positive") }
        for (name, value) in [("--read-ratio", readRatio), ("--top10-share", top10Share), ("--repeat-ratio", repeatRatio)] {
            guard (0...1).contains(value) else { throw ValidationError("\(name) must be from 0 to 1") }
        }
        if let runPrefix {
            guard (1...16).contains(runPrefix.count), runPrefix.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw ValidationError("--run-prefix must be 1-16 ASCII letters or digits")
            }
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let cacert, !FileManager.default.isReadableFile(atPath: cacert) { throw ValidationError("--cacert: cannot read \(cacert)") }
        guard warmUp >= 0, warmUp <= 3600 else { throw ValidationError("--warm-up must be 0-3600 seconds") }
        if let ramp {
            guard let rates = rampRates, rates.count == ramp.split(separator: ",").count, !rates.isEmpty, rates.count <= 100,
                  rates.allSatisfy({ $0 > 0 && $0.isFinite }) else {
                throw ValidationError("--ramp must be 1-100 positive rates separated by commas, e.g. 500,1000,2000")
            }
            guard rate == nil, duration == nil, requests == nil else {
                throw ValidationError("--ramp sets the rates and the length (--step-seconds each): not with --rate, --duration or --requests")
            }
            guard stepSeconds >= 1, stepSeconds <= 3600 else { throw ValidationError("--step-seconds must be 1-3600") }
        }
        guard pointsPerUser > 0 else { throw ValidationError("--points-per-user must be positive") }
        if let failOn {
            do { _ = try Thresholds(parsing: failOn) } catch { throw ValidationError("--fail-on: \(error)") }
        }
    }

    func run() throws {
        let settings = try ConfigurationSources(flags: ["data": data, "config": config])
        let dataDirectory = URL(fileURLWithPath: try settings.deployment().data)
        let tokenKey = try settings.tokenKey(dataDirectory)
        let seed = seed ?? UInt64.random(in: 0...UInt64(UInt32.max))
        let prefix = runPrefix ?? LoadConfiguration.runPrefix(seed: seed, time: UInt64(Date().timeIntervalSince1970 * 1000))
        let configuration = LoadConfiguration(
            url: url, users: users, clients: clients,
            duration: rampRates.map { stepSeconds * Double($0.count) } ?? duration ?? (requests == nil ? 60 : nil), requests: requests,
            rate: rate, mix: WorkloadMix(readRatio: readRatio, top10Share: top10Share, repeatRatio: repeatRatio),
            seed: seed, runPrefix: prefix, password: password, timeout: timeout)
        var configured = configuration
        configured.warmUp = warmUp
        configured.cleanup = cleanup
        configured.ramp = rampRates
        configured.stepSeconds = stepSeconds
        configured.trustedCertificates = cacert
        configured.pointsPerUser = pointsPerUser
        do {
            configured.operatorSigner = try TokenSigner.existingKey(dataDirectory: dataDirectory, configured: tokenKey)
                .map { TokenSigner(key: $0) }
        } catch {
            FileHandle.standardError.write(Data("loadtest: the token key cannot be read: \(error)\n".utf8))
            throw ExitCode(2)
        }
        let thresholds = try failOn.map { try Thresholds(parsing: $0) }
        let startedAt = ISO8601DateFormatter().string(from: Date())
        FileHandle.standardError.write(Data("loadtest: seed \(seed), run prefix \(prefix), \(users) users, \(clients) clients against \(url)\n".utf8))
        FileHandle.standardError.write(Data((configured.operatorSigner == nil
            ? "loadtest: no token key at \(dataDirectory.path): users register like any client, within the per-address limits\n"
            : "loadtest: users register as the operator (the token key of \(dataDirectory.path))\n").utf8))
        let interactive = isatty(STDERR_FILENO) == 1
        let runner = LoadRunner(configuration: configured) { line, done in
            // Redrawn in place on a terminal; only the finished line in a log.
            guard interactive || done else { return }
            FileHandle.standardError.write(Data(((interactive ? "\r" : "") + line + (done ? "\n" : "")).utf8))
        }
        var run: LoadRun
        do {
            run = try runner.run()
        } catch {
            FileHandle.standardError.write(Data("loadtest: \(error)\n".utf8))
            throw ExitCode(2)
        }
        run.result.startedAt = startedAt
        run.result.version = Pantry.version
        run.result.thresholds = thresholds?.verdicts(for: run.result)
        print(run.result.summary)
        try run.result.json.write(to: URL(fileURLWithPath: output))
        try Data(LatencyPlot.svg(latency: run.stats.latency, perSecond: run.stats.perSecond, overTime: run.result.drive.latencySeries,
                                 title: title(run.result), subtitle: subtitle(run.result)).utf8)
            .write(to: URL(fileURLWithPath: plot))
        print("wrote       \(output), \(plot)")
        if !run.result.passed { throw ExitCode(1) }
        if run.result.thresholds?.contains(where: { !$0.met }) == true { throw ExitCode(3) }
    }

    private func title(_ result: LoadResult) -> String {
        let s = result.settings
        let mode = s.ramp.map { "ramp " + $0.map { String(format: "%.0f", $0) }.joined(separator: ", ") + " requests/s" }
            ?? s.rate.map { String(format: "fixed rate %.0f requests/s", $0) } ?? "as fast as answered"
        return "pantry loadtest: \(s.users) users, \(s.clients) clients, \(mode), \(Int(result.drive.seconds)) s"
    }

    private func subtitle(_ result: LoadResult) -> String {
        let s = result.settings
        let mix = String(format: "reads %.0f%% (top 10 %.0f%% of them), repeats %.0f%% of commands",
                         s.mix.readRatio * 100, s.mix.top10Share * 100, s.mix.repeatRatio * 100)
        let m = result.machine
        return "\(String(format: "%.0f", result.drive.perSecond)) requests/s; \(mix); seed \(s.seed); "
            + "\(m.cores) cores, \(Int(m.memoryGiB)) GiB; check \(result.passed ? "passed" : "FAILED")"
    }
}

/// `pantry loadtest compare A.json B.json`.
struct LoadTestCompare: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare", abstract: "Compare two load-test results (--output files): each figure of B as a ratio of A's.")

    @Argument(help: "The baseline result.") var a: String
    @Argument(help: "The result to compare with it.") var b: String

    func run() throws {
        print(LoadComparison.table(try LoadComparison.load(a), try LoadComparison.load(b)))
    }
}
