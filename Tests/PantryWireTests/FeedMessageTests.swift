import Foundation
import PantryDomain
import PantryLog
import PantryWire
import Testing

/// Feed messages carry each run of one event type of a committed batch, up to 32 events.
@Suite struct FeedMessageTests {
    static func point(_ position: Int64) -> RecordedEvent {
        RecordedEvent(position: position, streamId: "user-u1", streamVersion: position, type: "PointEarned", schemaVersion: 1,
                      data: Data(#"{"userId":"u1","recipeId":"r1","ingredient":"salt \#(position)"}"#.utf8),
                      metadata: EventMetadata(commandId: "c\(position)", correlationId: nil, causationId: nil, userId: "u1",
                                              recordedAt: 1_700_000_000_000 + position))
    }

    static func recipe(_ position: Int64) -> RecordedEvent {
        RecordedEvent(position: position, streamId: "recipe-r\(position)", streamVersion: 1, type: "RecipeRecorded", schemaVersion: 1,
                      data: Data(#"{"userId":"u1","recipeId":"r\#(position)","title":"Soup","ingredients":["salt"]}"#.utf8),
                      metadata: EventMetadata(commandId: "c\(position)", correlationId: nil, causationId: nil, userId: "u1",
                                              recordedAt: 1_700_000_000_000 + position))
    }

    @Test("A committed batch goes out as one message per run of one type, cut at 32, and reads back as the same events")
    func aBatchGoesOutInRunsOfOneType() throws {
        let batch = [Self.recipe(1)] + (2...71).map(Self.point) + [Self.recipe(72), Self.point(73)]
        let messages = FeedMessage.messages(for: batch)
        #expect(messages.map { $0.count - 2 } == [1, 32, 32, 6, 1, 1])
        #expect(messages.map { String(decoding: $0[0], as: UTF8.self) }
                == ["RecipeRecorded", "PointEarned", "PointEarned", "PointEarned", "RecipeRecorded", "PointEarned"])
        var read: [RecordedEvent] = []
        for frames in messages {
            guard case .events(let events, let payloads) = try FeedMessage.decode(frames) else {
                Issue.record("not an event message")
                continue
            }
            #expect(payloads.allSatisfy { $0 != nil })
            read += events
        }
        #expect(read == batch)
    }

    @Test("A message of one event is the three-frame form, as before")
    func oneEventIsThreeFrames() throws {
        let frames = FeedMessage.frames(for: [Self.point(9)])
        #expect(frames == [Data("PointEarned".utf8), Data("9".utf8), EventDocument.encode(Self.point(9))])
        #expect(try FeedMessage.decode(frames) == .events([Self.point(9)], [.pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "salt 9"))]))
    }

    @Test("A heartbeat carries the head, and why the core's writes fail while they do")
    func heartbeatsSayWhyWritesFail() throws {
        #expect(try FeedMessage.decode(FeedMessage.heartbeatFrames(head: 7)) == .heartbeat(head: 7, storage: nil))
        let full = "the disk holding the log is full (12 KiB free, 1024 KiB needed)"
        let frames = FeedMessage.heartbeatFrames(head: 9, storage: full)
        #expect(try FeedMessage.decode(frames) == .heartbeat(head: 9, storage: full))
        #expect(String(decoding: frames[2], as: UTF8.self) == #"{"head":9,"storage":"the disk holding the log is full (12 KiB free, 1024 KiB needed)"}"#)
    }

    @Test("A message whose documents do not sit at the positions it names is refused")
    func documentsAtOtherPositionsAreRefused() throws {
        var frames = FeedMessage.frames(for: [Self.point(4), Self.point(5)])
        frames[1] = Data("6".utf8)
        #expect(throws: FeedMessage.DecodingError.self) { try FeedMessage.decode(frames) }
        #expect(throws: FeedMessage.DecodingError.self) {
            try FeedMessage.decode([Data("PointEarned".utf8), Data("1".utf8)] + FeedMessage.frames(for: [Self.point(1), Self.point(2)]).dropFirst(2))
        }
        let tooMany = FeedMessage.frames(for: (1...33).map(Self.point))
        #expect(throws: FeedMessage.DecodingError.self) { try FeedMessage.decode(tooMany) }
        #expect(throws: FeedMessage.DecodingError.self) { try FeedMessage.decode([Data("heartbeat".utf8), Data("3".utf8), Data(), Data()]) }
    }

    @Test("Events at or below the reader's position, or of types it skips, come back undecoded with their positions")
    func skippedEventsAreNotDecoded() throws {
        let frames = FeedMessage.frames(for: (10...12).map(Self.point))
        guard case .events(let events, let payloads) = try FeedMessage.decode(frames, after: 11) else {
            Issue.record("not an event message")
            return
        }
        #expect(events.map(\.position) == [10, 11, 12])
        #expect(payloads.map { $0 != nil } == [false, false, true])
    }
}
