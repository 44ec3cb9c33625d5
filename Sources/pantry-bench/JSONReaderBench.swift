import ArgumentParser
import Foundation
import PantryDomain

/// How long the core's command decoder takes on a hostile 64 KiB command of thousands of field
/// names (duplicate detection was quadratic: 77 ms for 5,956 names), beside a 64 KiB command of
/// the same size with one long field, and Foundation's `JSONSerialization` on both.
struct JSONReaderBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "json")

    @Option(help: "Times each document is decoded.") var repeats = 200

    func run() throws {
        var names = ""
        var n = 0
        while names.utf8.count < 64 * 1024 - 200 {
            names += ",\"f\(n)\":\(n)"
            n += 1
        }
        let manyNames = Array(#"{"commandId":"c1","type":"DeleteUser","data":{"userId":"u1"}"#.utf8) + Array(names.utf8) + [UInt8(ascii: "}")]
        let text = String(repeating: "a", count: manyNames.count - 80)
        let oneField = Array(#"{"commandId":"c1","type":"WriteExperience","data":{"userId":"u1","recipeId":"r","text":"\#(text)"}}"#.utf8)
        func time(_ body: () -> Void) -> Double {
            let clock = ContinuousClock()
            let began = clock.now
            for _ in 0..<repeats { body() }
            return seconds(clock.now - began) / Double(repeats) * 1000
        }
        let hostile = time { _ = CommandCoding.decode(manyNames) }
        let plain = time { _ = CommandCoding.decode(oneField) }
        let oracleHostile = time { _ = try? JSONSerialization.jsonObject(with: Data(manyNames)) }
        let oraclePlain = time { _ = try? JSONSerialization.jsonObject(with: Data(oneField)) }
        print("command decoder, \(manyNames.count) bytes with \(n + 3) names: \(fmt(hostile, 3)) ms; \(oneField.count) bytes in one field: \(fmt(plain, 3)) ms")
        print("JSONSerialization on the same documents:        \(fmt(oracleHostile, 3)) ms;                      \(fmt(oraclePlain, 3)) ms")
        print("ratio hostile/plain: \(fmt(hostile / plain, 1)) (JSONSerialization: \(fmt(oracleHostile / oraclePlain, 1)))")
    }
}
