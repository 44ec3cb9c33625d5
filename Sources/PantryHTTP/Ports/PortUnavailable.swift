/// What a port throws when its other side did not answer: nothing connected to it (the other
/// process is not running), or no answer in time. The route says what the client is told (a 503
/// and its code); the reason, which may name a socket, is for the log.
package struct PortUnavailable: Error, CustomStringConvertible {
    package var description: String
    /// No connection at all, rather than a late answer.
    package var notConnected: Bool

    package init(_ description: String, notConnected: Bool = false) {
        self.description = description
        self.notConnected = notConnected
    }
}
