// A libFuzzer target (built by ops/fuzz with `swiftc -sanitize=fuzzer,address`, together with the
// sources of PantryJSON and PantryDomain): the reader and the command decoder against
// Foundation's JSONSerialization, the oracle.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    let oracle = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]

    // 1. Whatever the reader accepts, the oracle accepts, with the same top-level fields and values.
    let read: [String: Any]? = try? bytes.withUnsafeBytes { buffer in
        try JSONObjectReader.read(buffer) { (reader: borrowing JSONObjectReader) -> [String: Any] in
            var fields: [String: Any] = [:]
            for name in reader.names {
                if let text = try? reader.optionalString(name) { fields[name] = text as Any }
                else if let number = try? reader.optionalInt(name) { fields[name] = number as Any }
                else if let flag = try? reader.optionalBool(name) { fields[name] = flag as Any }
                else { fields[name] = NSNull() }
            }
            return fields
        }
    }
    if let read {
        guard let oracle else { fatalError("the reader accepted what JSONSerialization refuses: \(bytes)") }
        guard Set(read.keys) == Set(oracle.keys) else { fatalError("field names differ: \(read.keys) vs \(oracle.keys)") }
        for (name, value) in read {
            switch value {
            case let text as String:
                guard oracle[name] as? String == text else { fatalError("'\(name)' reads \(text) vs \(String(describing: oracle[name]))") }
            case let number as Int:
                guard (oracle[name] as? NSNumber)?.int64Value == Int64(number) else { fatalError("'\(name)' reads \(number)") }
            default:
                break
            }
        }
    }

    // 2. The command decoder never crashes, and what it accepts is a document the oracle accepts.
    if case .success(let envelope) = CommandCoding.decode(bytes) {
        guard let oracle else { fatalError("the command decoder accepted what JSONSerialization refuses: \(bytes)") }
        guard oracle["commandId"] as? String == envelope.commandId, oracle["type"] as? String == envelope.command.typeName else {
            fatalError("the command decoder read another commandId or type than the oracle")
        }
        // Its own encoding reads back as the same command.
        guard case .success(let again) = CommandCoding.decode(Array(CommandCoding.encode(envelope))), again == envelope else {
            fatalError("a decoded command does not survive its own encoding")
        }
    }

    // 3. Event payloads: decoding never crashes (an unsealed type of each kind).
    for type in ["PointEarned", "RecipeRecorded", "GroceryAdded", "CartAdjusted", "ExperienceWritten", "UserDeleted"] {
        _ = try? EventCoding.decode(type: type, schemaVersion: 1, data: Data(bytes), vault: nil)
    }
    return 0
}
