import Foundation
import PantryDomain
import Testing
@testable import PantryAPI

struct APISnapshotTests {
    static let snapshot = APISnapshot(
        position: 40, commandIdAtPosition: "c40",
        accounts: ["u1": .init(registeredAt: 1, passwordChangedAt: 30, credentialsGeneration: 2),
                   "u2": .init(registeredAt: 2, passwordChangedAt: nil, credentialsGeneration: 0)],
        revocations: ["token-a": 4_000_000_000],
        standings: [.init(userId: "u1", name: .account, points: 3, reachedAt: 12),
                    .init(userId: "ghost", name: .userId, points: 1, reachedAt: 13),
                    .init(userId: "u9", name: .erased, points: 0, reachedAt: 9)])

    @Test("An API snapshot reads back exactly as it was written")
    func roundTrip() throws {
        #expect(try APISnapshot(decoding: Self.snapshot.encoded()) == Self.snapshot)
    }

    // Another version's is refused too: Tests/system/test_api_snapshot.py writes one.
    @Test("A damaged, truncated or foreign API snapshot is refused, never half read")
    func badFilesAreRefused() throws {
        let good = [UInt8](Self.snapshot.encoded())
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
        late.accounts["u3"] = .init(registeredAt: 41, passwordChangedAt: nil, credentialsGeneration: 0)
        var twice = Self.snapshot
        twice.standings.append(.init(userId: "u2", name: .account, points: 3, reachedAt: 12))
        for bad in [late, twice] {
            #expect(throws: SnapshotFailure.notASnapshot) { try APISnapshot(decoding: bad.encoded()) }
        }
    }
}
