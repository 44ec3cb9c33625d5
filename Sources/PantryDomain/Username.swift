import Foundation

/// Usernames are shown to everyone (leaderboard, experiences), so two that look alike must not
/// both exist: uniqueness is decided on the UTS #39 skeleton, not on the characters.
package enum Username {
    package static let lengths = 3...32

    /// NFC-normalised; 3-32 Unicode scalars of letters (with their combining marks), digits, '_',
    /// '.' or '-', starting with a letter or digit. Invisible and bidirectional controls are
    /// format characters, so they are refused with everything else that is not listed.
    package static func validate(_ raw: String) throws(Rejection) -> String {
        let name = raw.precomposedStringWithCanonicalMapping
        let scalars = name.unicodeScalars
        guard lengths.contains(scalars.count), let first = scalars.first, isLetterOrDigit(first),
              scalars.allSatisfy({ isLetterOrDigit($0) || isMark($0) || "_.-".unicodeScalars.contains($0) }) else {
            throw Rejection(.invalidUsername,
                            "username must be 3-32 letters, digits, '_', '.' or '-', starting with a letter or digit")
        }
        return name
    }

    /// The comparison key: compatibility-normalised (`Ａｎｎａ` is `Anna`), case-folded, with
    /// default-ignorable code points removed and every character replaced by its prototype from
    /// Unicode's confusables table (`аnna` with a Cyrillic а is `anna`).
    package static func skeleton(_ name: String) -> String {
        let folded = name.precomposedStringWithCompatibilityMapping.lowercased().decomposedStringWithCanonicalMapping
        var mapped = String.UnicodeScalarView()
        for scalar in folded.unicodeScalars where !scalar.properties.isDefaultIgnorableCodePoint {
            if let prototype = confusables[scalar.value] {
                mapped.append(contentsOf: prototype)
            } else {
                mapped.append(scalar)
            }
        }
        // Prototypes may be upper case ('l' and 'I' share one): fold again so case never matters.
        return String(mapped).lowercased().decomposedStringWithCanonicalMapping
    }

    private static func isLetterOrDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic && !isMark(scalar) || scalar.properties.numericType == .decimal
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Parsed once from the generated table.
    private static let confusables: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for entry in confusablesTable.split(separator: ";") {
            let parts = entry.split(separator: ">")
            guard parts.count == 2, let source = UInt32(parts[0], radix: 16) else { continue }
            table[source] = parts[1].split(separator: " ").compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }
        }
        return table
    }()
}
