import ArgumentParser

@main
struct PantryBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pantry-bench",
        abstract: "Benchmarks of Pantry's hot paths; each prints its figures beside a baseline measured in the same run.",
        subcommands: [GroupCommitBench.self, EndToEndBench.self, FetchBench.self, ReplayBench.self, LogBench.self, BareHTTPServer.self, UsualStackServer.self, JSONReaderBench.self, SealBench.self, LiveStreamsHolder.self, ClientBaseline.self]
    )
}
