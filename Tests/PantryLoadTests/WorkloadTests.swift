import PantryLoad
import PantryRandom
import Testing

@Suite struct WorkloadTests {
    let mix = WorkloadMix(readRatio: 0.5, top10Share: 0.5, repeatRatio: 0.1)
    /// Real recipes' ingredients, as the load test reads them from the deployment.
    static let items = (0..<60).flatMap { recipe in (0..<10).map { Item(recipeId: "catalog:r\(recipe)", ingredient: "ingredient \($0)") } }

    func operations(seed: UInt64, client: Int = 0, count: Int = 2_000, mix: WorkloadMix? = nil,
                    pointsPerUser: Int = 600) -> [LoadOperation] {
        var workload = ClientWorkload(seed: seed, client: client, clients: 4, users: 100, items: Self.items,
                                      mix: mix ?? self.mix, keyPrefix: "run", pointsPerUser: pointsPerUser)
        return (0..<count).map { _ in
            let operation = workload.next()
            workload.accepted(operation)
            return operation
        }
    }

    @Test func theSameSeedMakesTheSameWorkload() {
        #expect(operations(seed: 7) == operations(seed: 7))
        #expect(operations(seed: 7) != operations(seed: 8))
        #expect(operations(seed: 7, client: 0) != operations(seed: 7, client: 1))
    }

    @Test func theSharesFollowTheMix() {
        let ops = operations(seed: 1, count: 20_000)
        func share(_ kind: OperationKind) -> Double { Double(ops.filter { $0.kind == kind }.count) / Double(ops.count) }
        #expect(abs(share(.top10) - 0.25) < 0.02)
        #expect(abs(share(.myRank) - 0.25) < 0.02)
        #expect(abs(share(.repeat) - 0.05) < 0.01)
        // A cook before each recipe's 10 items.
        #expect(abs(share(.increment) + share(.cook) - 0.45) < 0.02)
        #expect(abs(share(.cook) * 10 - share(.increment)) < 0.01)
        #expect(ops.allSatisfy { (0..<100).contains($0.user) })
    }

    @Test func onlyIncrementsOrOnlyTop10Reads() {
        #expect(operations(seed: 2, mix: WorkloadMix(readRatio: 0, repeatRatio: 0)).allSatisfy { $0.kind == .increment || $0.kind == .cook })
        #expect(operations(seed: 2, mix: WorkloadMix(readRatio: 1, top10Share: 1)).allSatisfy { $0.kind == .top10 })
    }

    @Test("increments are new for their user across clients, each client earns only its own users' points, and keys are unique")
    func incrementsAreNewForTheirUserAcrossClientsAndKeysAreUnique() {
        let ops = (0..<4).flatMap { client in operations(seed: 3, client: client).map { (client, $0) } }.map { client, operation in
            #expect(operation.kind == .top10 || operation.kind == .myRank || operation.user % 4 == client)
            return operation
        }
        let increments = ops.filter { $0.kind == .increment }
        let earned = increments.map { "\($0.user)|\($0.item!.recipeId)|\($0.item!.ingredient.lowercased())" }
        #expect(Set(earned).count == earned.count)
        let keys = ops.compactMap(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(keys.count == ops.filter { $0.kind == .increment || $0.kind == .repeat || $0.kind == .cook }.count)
        #expect(keys.allSatisfy { $0.utf8.count <= 100 && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) } })
    }

    @Test func repeatsOnlyRepeatAcceptedIncrements() {
        var workload = ClientWorkload(seed: 4, client: 0, clients: 4, users: 10, items: Self.items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 0.5), keyPrefix: "run", pointsPerUser: 600)
        var accepted: Set<String> = []
        for n in 0..<2_000 {
            let operation = workload.next()
            let identity = "\(operation.user)|\(operation.item!.recipeId)|\(operation.item!.ingredient)"
            switch operation.kind {
            case .repeat:
                #expect(accepted.contains(identity))
            case .cook:
                break
            case .increment:
                // Every other increment is "refused": it must never come back as a repeat.
                if n % 2 == 0 {
                    workload.accepted(operation)
                    accepted.insert(identity)
                }
            default:
                Issue.record("a read in a command-only mix")
            }
        }
    }

    @Test func noRepeatBeforeAnythingWasAccepted() {
        var workload = ClientWorkload(seed: 5, client: 0, clients: 4, users: 10, items: Self.items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 1), keyPrefix: "run", pointsPerUser: 60)
        #expect((0..<50).allSatisfy { _ in [.increment, .cook].contains(workload.next().kind) })
    }

    @Test func aClientOutOfItemsForEveryUserReadsRatherThanRepeatAnItem() {
        let items = (0..<8).map { Item(recipeId: "r", ingredient: "i\($0)") }
        var workload = ClientWorkload(seed: 6, client: 1, clients: 2, users: 4, items: items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 0), keyPrefix: "run", pointsPerUser: 60)
        let ops = (0..<40).map { _ in workload.next() }
        let increments = ops.filter { $0.kind == .increment }
        #expect(increments.count == 16)   // this client's 2 users (1 and 3) x the 8 items
        #expect(Set(increments.map { "\($0.user)|\($0.item!.ingredient)" }).count == 16)
        #expect(increments.allSatisfy { [1, 3].contains($0.user) })
        #expect(ops.suffix(10).allSatisfy { $0.kind == .top10 || $0.kind == .myRank })
    }

    @Test("a user earns at most pointsPerUser, the pace's burst, and each recipe is cooked for them before its first point")
    func usersCookFirstAndStayWithinThePace() {
        var workload = ClientWorkload(seed: 7, client: 0, clients: 1, users: 3, items: Self.items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 0), keyPrefix: "run", pointsPerUser: 25)
        var cooking: [Int: String] = [:]
        var earned: [Int: Int] = [:]
        for _ in 0..<500 {
            let operation = workload.next()
            switch operation.kind {
            case .cook: cooking[operation.user] = operation.item!.recipeId
            case .increment:
                #expect(cooking[operation.user] == operation.item!.recipeId)
                earned[operation.user, default: 0] += 1
            default: break
            }
        }
        #expect(earned == [0: 25, 1: 25, 2: 25])
        #expect(cooking.values.allSatisfy { $0 == "catalog:r2" })   // 25 items: recipes r0 and r1 (10 each), then 5 of r2
    }

    @Test func generatorStreamsAreRepeatableAndDistinct() {
        var a = SeededGenerator(seed: 42, stream: 0), b = SeededGenerator(seed: 42, stream: 0), c = SeededGenerator(seed: 42, stream: 1)
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first != (0..<5).map { _ in c.next() })
    }
}
