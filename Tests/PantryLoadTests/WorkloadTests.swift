import PantryLoad
import PantryRandom
import Testing

@Suite struct WorkloadTests {
    let mix = WorkloadMix(readRatio: 0.5, top10Share: 0.5, repeatRatio: 0.1)
    /// Real recipes' ingredients, as the load test reads them from the deployment.
    static let items = (0..<60).flatMap { recipe in (0..<10).map { Item(recipeId: "catalog:r\(recipe)", ingredient: "ingredient \($0)") } }

    func operations(seed: UInt64, client: Int = 0, count: Int = 2_000, mix: WorkloadMix? = nil) -> [LoadOperation] {
        var workload = ClientWorkload(seed: seed, client: client, clients: 4, users: 100, items: Self.items,
                                      mix: mix ?? self.mix, keyPrefix: "run")
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
        #expect(abs(share(.increment) - 0.45) < 0.02)
        #expect(ops.allSatisfy { (0..<100).contains($0.user) })
    }

    @Test func onlyIncrementsOrOnlyTop10Reads() {
        #expect(operations(seed: 2, mix: WorkloadMix(readRatio: 0, repeatRatio: 0)).allSatisfy { $0.kind == .increment })
        #expect(operations(seed: 2, mix: WorkloadMix(readRatio: 1, top10Share: 1)).allSatisfy { $0.kind == .top10 })
    }

    @Test func incrementsAreNewForTheirUserAcrossClientsAndKeysAreUnique() {
        let ops = (0..<4).flatMap { operations(seed: 3, client: $0) }
        let increments = ops.filter { $0.kind == .increment }
        let earned = increments.map { "\($0.user)|\($0.item!.recipeId)|\($0.item!.ingredient.lowercased())" }
        #expect(Set(earned).count == earned.count)
        let keys = ops.compactMap(\.key)
        #expect(Set(keys).count == keys.count)
        #expect(keys.count == ops.filter { $0.kind == .increment || $0.kind == .repeat }.count)
        #expect(keys.allSatisfy { $0.utf8.count <= 100 && $0.utf8.allSatisfy { (0x21...0x7E).contains($0) } })
    }

    @Test func repeatsOnlyRepeatAcceptedIncrements() {
        var workload = ClientWorkload(seed: 4, client: 0, clients: 4, users: 10, items: Self.items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 0.5), keyPrefix: "run")
        var accepted: Set<String> = []
        for n in 0..<2_000 {
            let operation = workload.next()
            let identity = "\(operation.user)|\(operation.item!.recipeId)|\(operation.item!.ingredient)"
            switch operation.kind {
            case .repeat:
                #expect(accepted.contains(identity))
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
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 1), keyPrefix: "run")
        #expect((0..<50).allSatisfy { _ in workload.next().kind == .increment })
    }

    @Test func aClientOutOfItemsForEveryUserReadsRatherThanRepeatAnItem() {
        let items = (0..<8).map { Item(recipeId: "r", ingredient: "i\($0)") }
        var workload = ClientWorkload(seed: 6, client: 1, clients: 2, users: 2, items: items,
                                      mix: WorkloadMix(readRatio: 0, repeatRatio: 0), keyPrefix: "run")
        let ops = (0..<40).map { _ in workload.next() }
        let increments = ops.filter { $0.kind == .increment }
        #expect(increments.count == 8)   // 2 users x this client's 4 items (every 2nd of 8, from index 1)
        #expect(Set(increments.map { "\($0.user)|\($0.item!.ingredient)" }).count == 8)
        #expect(increments.allSatisfy { ["i1", "i3", "i5", "i7"].contains($0.item!.ingredient) })
        #expect(ops.suffix(10).allSatisfy { $0.kind == .top10 || $0.kind == .myRank })
    }

    @Test func generatorStreamsAreRepeatableAndDistinct() {
        var a = SeededGenerator(seed: 42, stream: 0), b = SeededGenerator(seed: 42, stream: 0), c = SeededGenerator(seed: 42, stream: 1)
        let first = (0..<5).map { _ in a.next() }
        #expect(first == (0..<5).map { _ in b.next() })
        #expect(first != (0..<5).map { _ in c.next() })
    }
}
