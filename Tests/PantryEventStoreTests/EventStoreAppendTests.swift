import Foundation
import PantryEventStore
import Testing
import PantryLog

/// Run against every `EventStore` implementation.
@Suite struct EventStoreAppendTests {
    @Test(arguments: StoreKind.allCases) func positionsAreDenseAcrossAppendsAndStreams(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            #expect(try store.headPosition() == 0)
            #expect(try store.read(after: 0, limit: 10).isEmpty)
            let first = try store.append([
                append("user-a", expecting: 0, event("A1"), event("A2")),
                append("user-b", expecting: 0, event("B1")),
            ])
            #expect(first == [1...2, 3...3])
            let second = try store.append([append("user-a", expecting: 2, event("A3"))])
            #expect(second == [4...4])
            let third = try store.append([
                append("user-b", expecting: 1, event("B2"), event("B3")),
                append("user-a", expecting: 3, event("A4")),
                append("user-b", expecting: 3, event("B4")),
            ])
            #expect(third == [5...6, 7...7, 8...8])
            #expect(try store.headPosition() == 8)

            let all = try store.read(after: 0, limit: 100)
            #expect(all.map(\.position) == Array(1...8))
            #expect(all.map(\.type) == ["A1", "A2", "B1", "A3", "B2", "B3", "A4", "B4"])
            let a = try store.readStream("user-a")
            #expect(a.map(\.streamVersion) == [1, 2, 3, 4])
            #expect(a.map(\.type) == ["A1", "A2", "A3", "A4"])
            #expect(a.map(\.position) == [1, 2, 4, 7])
            let b = try store.readStream("user-b")
            #expect(b.map(\.streamVersion) == [1, 2, 3, 4])
            #expect(b.map(\.position) == [3, 5, 6, 8])
            #expect(try store.readStream("user-nobody").isEmpty)
            #expect(try store.countsByType() == ["A1": 1, "A2": 1, "A3": 1, "A4": 1, "B1": 1, "B2": 1, "B3": 1, "B4": 1])
        }
    }

    @Test(arguments: StoreKind.allCases) func eventsComeBackAsTheyWentIn(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            let payload = #"{"text":"Crème brûlée 🍮 \"quoted\" \\ \n 中文"}"#
            let new = [
                event("ExperienceWritten", payload, commandId: "cmd-1", correlationId: "corr", causationId: "cause", userId: "u1", recordedAt: 42),
                event("PointEarned", #"{}"#, commandId: "cmd-2", userId: "u1", recordedAt: 43),
            ]
            _ = try store.append([StreamAppend(streamId: "user-u1", expectedVersion: 0, events: new)])
            let read = try store.readStream("user-u1")
            #expect(read == [
                RecordedEvent(position: 1, streamId: "user-u1", streamVersion: 1, type: "ExperienceWritten", schemaVersion: 1,
                              data: Data(payload.utf8), metadata: new[0].metadata),
                RecordedEvent(position: 2, streamId: "user-u1", streamVersion: 2, type: "PointEarned", schemaVersion: 1,
                              data: Data("{}".utf8), metadata: new[1].metadata),
            ])
            #expect(read[1].metadata.correlationId == nil)
            #expect(try store.read(after: 0, limit: 10) == read)
        }
    }

    @Test(arguments: StoreKind.allCases) func readPagesThroughTheLog(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            for i in 0..<25 {
                _ = try store.append([append("s\(i % 3)", expecting: Int64(i / 3), event("E\(i % 4)", commandId: "c\(i)"))])
            }
            #expect(try store.headPosition() == 25)
            var seen: [Int64] = []
            var after: Int64 = 0
            var pages = 0
            while true {
                let page = try store.read(after: after, limit: 10)
                guard let last = page.last else { break }
                #expect(page.count <= 10)
                seen += page.map(\.position)
                after = last.position
                pages += 1
            }
            #expect(seen == Array(1...25))
            #expect(pages == 3)
            #expect(try store.read(after: 7, limit: 3).map(\.position) == [8, 9, 10])
            #expect(try store.read(after: 24, limit: 10).map(\.position) == [25])
            #expect(try store.read(after: 25, limit: 10).isEmpty)
            #expect(try store.read(after: 5, limit: 0).isEmpty)
            #expect(try store.countsByType() == ["E0": 7, "E1": 6, "E2": 6, "E3": 6])
            for s in 0..<3 {
                let stream = try store.readStream("s\(s)")
                #expect(stream.map(\.streamVersion) == Array(1...Int64(stream.count)))
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aRangeCanBeReadForSomeTypesOnly(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            for i in 0..<20 {
                _ = try store.append([append("s\(i)", expecting: 0, event("E\(i % 4)", commandId: "c\(i)"))])
            }
            // E1 sits at positions 2, 6, 10, ...; E3 at 4, 8, 12, ...
            let page = try store.read(after: 3, through: 12, types: ["E1", "E3"])
            #expect(page.map(\.position) == [4, 6, 8, 10, 12])
            #expect(page.map(\.type) == ["E3", "E1", "E3", "E1", "E3"])
            #expect(page == (try store.read(after: 3, limit: 9)).filter { ["E1", "E3"].contains($0.type) })
            #expect(try store.read(after: 3, through: 3, types: ["E1"]).isEmpty)
            #expect(try store.read(after: 0, through: 20, types: []).isEmpty)
            #expect(try store.read(after: 0, through: 20, types: ["Unknown"]).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func wrongExpectedVersionRollsBackTheWholeBatch(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            _ = try store.append([append("s1", expecting: 0, event("X"))])
            #expect(throws: EventStoreError.wrongExpectedVersion(streamId: "s3", expected: 5, actual: 0)) {
                try store.append([
                    append("s1", expecting: 1, event("Y"), event("Y")),
                    append("s2", expecting: 0, event("Y")),
                    append("s3", expecting: 5, event("Y")),
                ])
            }
            #expect(try store.headPosition() == 1)
            #expect(try store.read(after: 0, limit: 100).map(\.type) == ["X"])
            #expect(try store.readStream("s2").isEmpty)
            #expect(try store.countsByType() == ["X": 1])

            // A stale expectation later in the batch on a stream written earlier in the same batch.
            #expect(throws: EventStoreError.wrongExpectedVersion(streamId: "s1", expected: 1, actual: 2)) {
                try store.append([append("s1", expecting: 1, event("Z")), append("s1", expecting: 1, event("Z"))])
            }
            #expect(try store.headPosition() == 1)

            // Nothing of the rolled-back batches is remembered: their expectations hold again.
            #expect(try store.append([append("s1", expecting: 1, event("W")), append("s2", expecting: 0, event("W"))]) == [2...2, 3...3])
            #expect(try store.read(after: 0, limit: 100).map(\.position) == [1, 2, 3])
            #expect(try store.readStream("s1").map(\.streamVersion) == [1, 2])
        }
    }

    @Test(arguments: StoreKind.allCases) func anEmptyAppendIsRefusedAndWritesNothing(_ kind: StoreKind) throws {
        try withStore(kind) { store throws in
            #expect(try store.append([]) == [])
            #expect(throws: EventStoreError.emptyAppend(streamId: "s2")) {
                try store.append([append("s1", expecting: 0, event("X")), StreamAppend(streamId: "s2", expectedVersion: 0, events: [])])
            }
            #expect(try store.headPosition() == 0)
            #expect(try store.append([append("s1", expecting: 0, event("X"))]) == [1...1])
        }
    }
}
