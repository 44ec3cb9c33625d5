import Foundation
import Testing
import ZeroMQ

/// CURVE with the ZAP allow-list, between two contexts (each with its own ZAP handler) over
/// loopback TCP, as between two hosts.
@Suite struct CurveTests {
    let server = try! ZMQCurveKeyPair.generate()
    let client = try! ZMQCurveKeyPair.generate()

    /// The server admits `clients` (key → role) and lets role "api" use its one endpoint.
    func serverSecurity(clients: [String: String]) -> ZMQNetworkSecurity {
        .curve(ZMQCurvePolicy(keyPair: server, serverKeys: [:], clients: clients, admitted: ["tcp://127.0.0.1:*": ["api"]]))
    }

    func clientSecurity(_ keyPair: ZMQCurveKeyPair, trusting serverKey: String? = nil) -> ZMQNetworkSecurity {
        .curve(ZMQCurvePolicy(keyPair: keyPair, serverKeys: ["127.0.0.1": serverKey ?? server.publicKey], clients: [:], admitted: [:]))
    }

    /// Whether a request from the client reaches the server and its reply comes back: a refused
    /// handshake shows as nothing received, so the wait is short.
    func roundTrip(server serverSecurity: ZMQNetworkSecurity, client clientSecurity: ZMQNetworkSecurity,
                   endpoint: String = "tcp://127.0.0.1:*", refusals: ThreadResult<ZMQRefusal>? = nil) throws -> Bool {
        let serverContext = try ZMQContext(security: serverSecurity) { refusals?.set($0) }
        let clientContext = try ZMQContext(security: clientSecurity)
        defer { serverContext.shutdown(); clientContext.shutdown() }
        let router = try makeSocket(serverContext, .router)
        try router.setReceiveTimeout(milliseconds: 700)
        try router.bind(endpoint)
        let dealer = try makeSocket(clientContext, .dealer)
        try dealer.setReceiveTimeout(milliseconds: 700)
        try dealer.connect(router.lastEndpoint)
        try dealer.send(frames("ping"))
        guard let request = try router.receive() else { return false }
        try router.send([request[0], Data("pong".utf8)])
        return try dealer.receive() == frames("pong")
    }

    func refused(server: ZMQNetworkSecurity, client: ZMQNetworkSecurity) throws -> Bool {
        try !roundTrip(server: server, client: client)
    }

    @Test("a CURVE server answers a client whose key is listed for the endpoint's role")
    func listedKeyIsAnswered() throws {
        #expect(try roundTrip(server: serverSecurity(clients: [client.publicKey: "api"]), client: clientSecurity(client)))
    }

    @Test("a CURVE server gives nothing to a client whose valid key is not listed")
    func unlistedKeyGetsNothing() throws {
        let stranger = try ZMQCurveKeyPair.generate()
        let refusals = ThreadResult<ZMQRefusal>()
        let answered = try roundTrip(server: serverSecurity(clients: [client.publicKey: "api"]), client: clientSecurity(stranger),
                                     refusals: refusals)
        #expect(!answered)
        // The server hears of it, with the peer's address and the endpoint it tried.
        let refusal = try #require(refusals.wait(timeout: .seconds(2)))
        #expect(refusal.address == "127.0.0.1" && refusal.endpoint == "tcp://127.0.0.1:*" && refusal.reason == "key not listed")
    }

    @Test("a CURVE server gives nothing to a listed client whose role the endpoint does not admit")
    func otherRoleGetsNothing() throws {
        #expect(try refused(server: serverSecurity(clients: [client.publicKey: "worker"]), client: clientSecurity(client)))
    }

    @Test("a CURVE server gives nothing to a plain client with no key")
    func plainClientGetsNothing() throws {
        #expect(try refused(server: serverSecurity(clients: [client.publicKey: "api"]), client: .plain))
    }

    @Test("a client that expects another server key does not talk to the server it reached")
    func clientPinsTheServerKey() throws {
        let impostor = try ZMQCurveKeyPair.generate()
        #expect(try refused(server: serverSecurity(clients: [client.publicKey: "api"]),
                               client: clientSecurity(client, trusting: impostor.publicKey)))
    }

    @Test("ipc endpoints stay plain under CURVE, on a socket that also binds tcp: a client with no key is answered")
    func ipcStaysPlain() throws {
        try withTemporaryDirectory { directory in
            let serverContext = try ZMQContext(security: serverSecurity(clients: [:]))
            let clientContext = try ZMQContext()
            defer { serverContext.shutdown(); clientContext.shutdown() }
            let router = try makeSocket(serverContext, .router)
            try router.bind("tcp://127.0.0.1:*")
            try router.bind("ipc://\(directory.path)/curve.sock")
            let dealer = try makeSocket(clientContext, .dealer)
            try dealer.connect("ipc://\(directory.path)/curve.sock")
            try dealer.send(frames("ping"))
            let request = try #require(try router.receive())
            #expect(request.last == Data("ping".utf8))
        }
    }

    @Test("a client refuses to connect to a tcp host it has no server key for, saying which")
    func unknownServerHostIsRefused() throws {
        let context = try ZMQContext(security: clientSecurity(client))
        defer { context.shutdown() }
        let dealer = try makeSocket(context, .dealer)
        let error = #expect(throws: ZMQSecurityError.self) { try dealer.connect("tcp://10.9.9.9:7001") }
        #expect(error?.description.contains("tcp://10.9.9.9:7001") == true)
    }

    @Test("a secret key read back gives its own public key; malformed text is refused")
    func keyPairFromSecret() throws {
        #expect(try ZMQCurveKeyPair(secretKey: server.secretKey) == server)
        #expect(throws: ZMQError.self) { try ZMQCurveKeyPair(secretKey: "not a key") }
    }
}
