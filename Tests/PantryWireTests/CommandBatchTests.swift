import Foundation
import PantryDomain
import PantryWire
import Testing

/// The batch frame between the API and the core: commands in one JSON array, outcomes back in one.
@Suite struct CommandBatchTests {
    @Test("A batch of outcomes joined into one frame splits back into the same outcomes, in order")
    func outcomesRoundTripThroughOneFrame() throws {
        let outcomes = CommandOutcomeTests.samples
        let frame = CommandBatch.join(outcomes.map(\.jsonDocument))
        #expect(CommandBatch.isBatch(frame))
        #expect(try JSONSerialization.jsonObject(with: frame) is [Any])
        #expect(try CommandBatch.split(frame).map(CommandOutcome.init(json:)) == outcomes)
    }

    @Test("Commands joined into a batch frame split back into the same commands")
    func commandsRoundTripThroughOneFrame() throws {
        let envelopes = (0..<3).map { CommandEnvelope(commandId: "c\($0)", command: .addGrocery(AddGrocery(userId: "u1", ingredient: "Flour \($0) \"kg\""))) }
        let split = try CommandBatch.split(CommandBatch.join(envelopes.map(CommandCoding.encode)))
        #expect(try split.map { try CommandCoding.decode($0).get() } == envelopes)
    }

    @Test("Only a frame that starts with an array past whitespace is a batch; one command document is not")
    func aBatchIsRecognisedByItsFirstByte() {
        #expect(CommandBatch.isBatch(Data(" \n[1]".utf8)))
        #expect(!CommandBatch.isBatch(Data(#"{"commandId":"c1"}"#.utf8)))
        #expect(!CommandBatch.isBatch(Data()))
        #expect(!CommandBatch.isBatch(Data("   ".utf8)))
    }

    @Test("Documents are cut into runs of at most 4,096 commands and 4 MiB a frame, in order, a larger one alone")
    func runsStayWithinAFramesBounds() {
        let small = [Data](repeating: Data(repeating: 0x31, count: 100), count: 10_000)
        #expect(CommandBatch.runs(of: small) == [0..<4096, 4096..<8192, 8192..<10_000])
        let large = Data(repeating: 0x31, count: 60 * 1024)
        let documents = [Data](repeating: large, count: 200) + [Data(repeating: 0x31, count: 5 << 20), large]
        let runs = CommandBatch.runs(of: documents)
        #expect(runs.flatMap { Array($0) } == Array(documents.indices), "every document once, in order")
        for run in runs where run.count > 1 {
            #expect(CommandBatch.join(Array(documents[run])).count <= CommandBatch.maxFrameBytes)
        }
        #expect(runs.contains(200..<201), "a document larger than a frame goes alone")
        #expect(CommandBatch.runs(of: []).isEmpty)
    }

    @Test("A frame that is not one JSON array is refused whole", arguments: ["[", "[1,", "[1]x", "[1][2]", "[1,]", "{}", "[\"a]"])
    func aBrokenBatchIsRefused(_ frame: String) {
        #expect(throws: (any Error).self) { try CommandBatch.split(Data(frame.utf8)) }
    }
}
