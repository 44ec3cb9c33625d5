import CZeroMQ
import Foundation

/// A CURVE key pair (Curve25519), each key as its 40 characters of Z85 text: the form libzmq
/// takes in socket options and the form key files hold.
package struct ZMQCurveKeyPair: Sendable, Equatable {
    package let publicKey: String
    package let secretKey: String

    /// A fresh pair from libzmq's (libsodium's) random source.
    package static func generate() throws -> ZMQCurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41)
        var secretText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError.last("zmq_curve_keypair") }
        return ZMQCurveKeyPair(publicKey: z85Text(publicText), secretKey: z85Text(secretText))
    }

    /// The pair of a secret key read back from a file: its public key is derived, so a pair
    /// whose halves do not match cannot be built.
    package init(secretKey: String) throws {
        guard Self.isZ85Key(secretKey) else { throw ZMQError.failed(operation: "zmq_curve_public", code: EINVAL) }
        var publicText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicText, secretKey) == 0 else { throw ZMQError.last("zmq_curve_public") }
        self.init(publicKey: Self.z85Text(publicText), secretKey: secretKey)
    }

    private init(publicKey: String, secretKey: String) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    /// Whether `text` is a 32-byte key in Z85: 40 characters of the Z85 alphabet.
    package static func isZ85Key(_ text: String) -> Bool {
        text.utf8.count == 40 && text.utf8.allSatisfy { z85Alphabet.contains($0) }
    }

    /// A NUL-terminated Z85 buffer filled by libzmq, as text.
    static func z85Text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static let z85Alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#".utf8)
}
