import CZeroMQ

/// The socket patterns Pantry uses.
package enum ZMQSocketType: Sendable, Hashable {
    case pub, sub, router, dealer, req, rep, push, pull

    var cValue: Int32 {
        switch self {
        case .pub: ZMQ_PUB
        case .sub: ZMQ_SUB
        case .router: ZMQ_ROUTER
        case .dealer: ZMQ_DEALER
        case .req: ZMQ_REQ
        case .rep: ZMQ_REP
        case .push: ZMQ_PUSH
        case .pull: ZMQ_PULL
        }
    }
}
