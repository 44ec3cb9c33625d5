import Foundation
@testable import PantryHTTP
import PantryTestSupport
import Testing

@Suite struct PasswordHasherTests {
    let hasher = PasswordHasher()

    @Test func aHashVerifiesItsPasswordAndNoOther() throws {
        let phc = try hasher.hash("correct horse battery")
        #expect(hasher.verify("correct horse battery", against: phc))
        #expect(!hasher.verify("correct horse batterY", against: phc))
        #expect(!hasher.verify("", against: phc))
    }

    @Test func theHashIsAPHCStringWithTheParametersAndASixteenByteSalt() throws {
        let phc = try hasher.hash("päss wörd ✓")
        let parts = phc.split(separator: "$", omittingEmptySubsequences: false)
        #expect(parts.count == 5)
        #expect(parts[1] == "scrypt")
        #expect(parts[2] == "ln=15,r=8,p=1")
        #expect(PHCBase64.decode(parts[3])?.count == 16)
        #expect(PHCBase64.decode(parts[4])?.count == 32)
        #expect(!parts[3].contains("=") && !parts[4].contains("="))
        #expect(hasher.verify("päss wörd ✓", against: phc))
    }

    @Test func theSamePasswordGetsADifferentSaltEachTime() throws {
        #expect(try hasher.hash("same password") != hasher.hash("same password"))
    }

    @Test(arguments: [
        "", "plain", "$argon2id$v=19$m=65536,t=3,p=4$c2FsdA$aGFzaA", "$scrypt$ln=15,r=8,p=1$c2FsdA",
        "$scrypt$ln=40,r=8,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaA", "$scrypt$ln=15,r=8,p=1$!!!$aGFzaA",
        "$scrypt$ln=x,r=8,p=1$c2FsdA$aGFzaA",
    ])
    func refusesStringsThatAreNotItsHashes(_ phc: String) {
        #expect(!hasher.verify("whatever password", against: phc))
    }

    /// The guarantee is a slow hash: a guess must cost real time (and 32 MiB of memory).
    @Test func oneHashTakesTensOfMilliseconds() throws {
        let clock = ContinuousClock()
        let elapsed = try clock.measure { _ = try hasher.hash("timing password") }
        print("one scrypt hash (ln=15, r=8, p=1): \(elapsed)")
        #expect(elapsed > .milliseconds(10))
    }

    @Test func hashingOffThePoolGivesTheSameResult() async throws {
        let phc = try await hasher.hash("async password", for: nil)
        #expect(try await hasher.verify("async password", against: phc, for: nil))
        #expect(try await !hasher.verify("async passworD", against: phc, for: nil))
    }
}

@Suite struct PasswordHashingPoolTests {
    @Test func aFullQueueIsRefusedAtOnceAndTheRestRun() async throws {
        let pool = PasswordHashingPool(threads: 1, queueLimit: 2)
        let gate = DispatchSemaphore(value: 0)
        // Tasks rather than `async let`: a failed step leaves the scope, and leaving it waited for
        // `async let` children before this defer ran, with the gate shut (the run hung, under a
        // soak's load, 2026-11-27).
        defer { gate.signal() }
        // One job holds the only thread; two wait; the fourth is refused without waiting. Each step
        // waits for the pool to be in that state (fixed sleeps let the fourth in on a busy machine,
        // where it then waited for the blocked thread forever): the first job says when it holds
        // the thread, and `run` queues or refuses a job before its first suspension, which a task
        // started with `Task.immediate` reaches before the call returns.
        let (holding, holds) = AsyncStream.makeStream(of: Void.self)
        let first = Task { try await pool.run(client: nil) { holds.yield(); gate.wait(); return 1 } }
        var holdingEvents = holding.makeAsyncIterator()
        await holdingEvents.next()
        let second = Task.immediate { try await pool.run(client: nil) { 2 } }
        let third = Task.immediate { try await pool.run(client: nil) { 3 } }
        #expect(pool.queued == 2, "two jobs wait")
        let fourth = Task.immediate { try await pool.run(client: nil) { 4 } }
        #expect(pool.queued == 2, "the fourth job is not queued")
        gate.signal()
        await #expect(throws: PasswordHashingPool.Busy.self) { try await fourth.value }
        #expect(try await [first.value, second.value, third.value] == [1, 2, 3])
    }

    @Test func aNewcomerTakesTheQueuePlaceOfTheClientWithTheMostPlacesThisMinute() async throws {
        let pool = PasswordHashingPool(threads: 1, queueLimit: 2)
        let gate = DispatchSemaphore(value: 0)
        defer { gate.signal() }
        let (holding, holds) = AsyncStream.makeStream(of: Void.self)
        let first = Task { try await pool.run(client: "flood") { holds.yield(); gate.wait(); return 1 } }
        var holdingEvents = holding.makeAsyncIterator()
        await holdingEvents.next()
        let second = Task.immediate { try await pool.run(client: "flood") { 2 } }
        let third = Task.immediate { try await pool.run(client: "flood") { 3 } }
        let newcomer = Task.immediate { try await pool.run(client: "cook") { 4 } }
        #expect(pool.queued == 2, "the newcomer took a place, it did not add one")
        let again = Task.immediate { try await pool.run(client: "flood") { 5 } }
        gate.signal()
        await #expect(throws: PasswordHashingPool.Busy.self, "the flood's latest is refused") { try await again.value }
        let refusedOfTheFirstThree = await [second, third].asyncCount { (try? await $0.value) == nil }
        #expect(refusedOfTheFirstThree == 1, "one of the flood's waiting jobs gave its place")
        #expect(try await [first.value, newcomer.value] == [1, 4])
    }
}

@Suite struct PasswordHashingPoolLengthTests {
    @Test func theQueueFollowsTheTimeTheHashesTake() async throws {
        let clock = ManualClock()
        let pool = PasswordHashingPool(threads: 1, queueLimit: 2, now: { clock.instant })
        // One thread, 10 ms a hash, a wait of 2 s: what it hashes in that time.
        #expect(pool.limitQueue(toWait: .seconds(2), oneHash: .milliseconds(10)) == 200)
        // A machine slowed by other work: each hash now takes 100 ms. Each reads the length its
        // predecessor left (one thread: a job runs after the last one's time is counted).
        var limits: [Int] = []
        for _ in 0...8 {
            limits.append(try await pool.run(client: nil) {
                clock.advance(by: .milliseconds(100))
                return pool.queueLimit
            })
        }
        #expect(limits.first == 200 && limits == limits.sorted(by: >), "it shortens with each slow hash: \(limits)")
        #expect(limits.last == 32, "down to the floor of 32 (2 s of 100 ms hashes is 20), not 200: \(limits)")
    }
}

private extension Array {
    func asyncCount(_ predicate: (Element) async -> Bool) async -> Int {
        var count = 0
        for element in self where await predicate(element) { count += 1 }
        return count
    }
}
