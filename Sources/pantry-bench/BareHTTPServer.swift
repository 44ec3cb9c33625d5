import ArgumentParser
import Hummingbird

/// The ceiling for a Swift HTTP server on this machine: a bare Hummingbird 2 route answering a
/// constant JSON body, with no middleware. `ops/bench-http` puts every Pantry route beside it.
struct BareHTTPServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-bare", abstract: "Serve GET /bare with a constant JSON body until stopped.")

    @Option(help: "The port to listen on.") var port = 8090

    func run() async throws {
        let router = Router()
        let body = ByteBuffer(string: #"{"position":1,"result":[{"rank":1,"userId":"u1","username":"anna","points":3}]}"#)
        router.get("bare") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }
}
