import Crypto
import Foundation
import PantryDomain
import Testing
@testable import PantryHTTP

struct APISnapshotTests {
    static let digester = LoginDigester(tokenKey: SymmetricKey(size: .bits256))

    static func listing(_ name: String, registeredAt: Int64, passwordChangedAt: Int64?, generation: Int) -> AccountDirectory.Listing {
        .init(origin: .init(registeredAt: registeredAt, passwordChangedAt: passwordChangedAt, credentialsGeneration: generation),
              username: digester.digest(username: name), email: digester.digest(email: "\(name)@example.org"))
    }

    static let snapshot = APISnapshot(
        position: 40, commandIdAtPosition: "c40", keyCheck: digester.keyCheck,
        accounts: AccountTable(["u1": listing("ann", registeredAt: 1, passwordChangedAt: 30, generation: 2),
                                "u2": listing("bo", registeredAt: 2, passwordChangedAt: nil, generation: 0)]),
        revocations: ["token-a": 4_000_000_000],
        standings: [.init(userId: "u1", name: .account, points: 3, reachedAt: 12),
                    .init(userId: "ghost", name: .userId, points: 1, reachedAt: 13),
                    .init(userId: "u9", name: .erased, points: 0, reachedAt: 9)],
        households: ["h-1": .init(owner: "u2", members: ["u2", "u1"], invites: ["i-1": 1_800_086_400_000]),
                     "h-2": .init(owner: "u3", members: ["u3"])])

    @Test("An API snapshot reads back exactly as it was written")
    func roundTrip() throws {
        #expect(try APISnapshot(decoding: try Self.snapshot.encoded()) == Self.snapshot)
    }

    @Test("An API snapshot holds keyed hashes of the names, never the names, and another key's hashes differ")
    func namesAreKeyedHashes() throws {
        let bytes = [UInt8](try Self.snapshot.encoded())
        for name in ["ann", "bo@example.org", "ANN"] {
            #expect(!bytes.indices.contains { bytes[$0...].starts(with: Array(name.utf8)) }, "\(name)")
        }
        let other = LoginDigester(tokenKey: SymmetricKey(size: .bits256))
        #expect(other.digest(username: "ann") != Self.digester.digest(username: "ann"))
        #expect(other.keyCheck != Self.digester.keyCheck)
        // Look-alikes and the email's case make one name, as log-in finds them.
        #expect(Self.digester.digest(login: "ANN@Example.org") == Self.digester.digest(email: "ann@example.org"))
        #expect(Self.digester.digest(login: "ann") != Self.digester.digest(login: "ann@example.org"))
    }

    // Another version's is refused too: Tests/system/test_api_snapshot.py writes one.
    @Test("A damaged, truncated or foreign API snapshot is refused, never half read")
    func badFilesAreRefused() throws {
        let good = [UInt8](try Self.snapshot.encoded())
        var damaged = good
        damaged[good.count / 2] ^= 1
        let cases: [(String, [UInt8])] = [
            ("damaged", damaged), ("truncated", Array(good.prefix(60))), ("empty", []),
            ("the core's", Array("PANTRY-CORE-SNAPSHOT\n".utf8) + good.dropFirst(20)),
        ]
        for (what, bytes) in cases {
            #expect(throws: SnapshotFailure.self, "\(what)") { try APISnapshot(decoding: Data(bytes)) }
        }
    }

    @Test("A snapshot whose positions lie past its own, or that places two users on one position, is refused")
    func inconsistentSnapshotsAreRefused() throws {
        var late = Self.snapshot
        late.accounts = late.accounts.merged(gone: [], changed: [:],
                                             added: ["u3": Self.listing("cy", registeredAt: 41, passwordChangedAt: nil, generation: 0)])
        var twice = Self.snapshot
        twice.standings.append(.init(userId: "u2", name: .account, points: 3, reachedAt: 12))
        var placedTwice = Self.snapshot
        placedTwice.standings.append(.init(userId: "u1", name: .account, points: 0, reachedAt: 20))
        var outOfOrder = Self.snapshot
        outOfOrder.standings.swapAt(0, 1)
        for bad in [late, twice, placedTwice, outOfOrder] {
            #expect(throws: SnapshotFailure.notASnapshot) { try APISnapshot(decoding: bad.encoded()) }
        }
        // A place named by an account that is not there cannot be written.
        var orphan = Self.snapshot
        orphan.standings.append(.init(userId: "u7", name: .account, points: 0, reachedAt: 21))
        #expect(throws: APISnapshot.PlaceWithoutAccount.self) { try orphan.encoded() }
    }
}
