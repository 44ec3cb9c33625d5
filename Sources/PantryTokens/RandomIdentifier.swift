/// Random identifiers for users, tokens and commands: 22 base62 characters (about 131 bits),
/// short enough that `<userId>:<Idempotency-Key>` fits the core's 128-character command ids.
package enum RandomIdentifier {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")

    package static func make(length: Int = 22) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
