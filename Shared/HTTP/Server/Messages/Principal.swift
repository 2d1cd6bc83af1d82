/// Who an authentication middleware found behind a request.
///
/// Middleware on a ``RouterGroup`` sets it in ``RequestContext/principal``;
/// handlers read it with ``RequestContext/authenticated(_:)``, never checking
/// credentials themselves.
public struct Principal: Sendable {
    /// The kind of party.
    public enum Kind: String, Sendable, Hashable {
        /// An iPhone, by its signing key (PROTOCOL.md §8) and session.
        case device
        /// An outpost, by its identity key.
        case outpost
        /// Another Mailwake service, by its bearer token.
        case service
        /// The operator, by the operator token.
        case `operator`
    }

    public let kind: Kind
    /// The party's id: a device or outpost key id, a service or operator name.
    public let id: String
    /// The service's own record of the party (a device row, a pairing, a known device), read by handlers.
    public let record: (any Sendable)?

    public init(_ kind: Kind, id: String, record: (any Sendable)? = nil) {
        self.kind = kind
        self.id = id
        self.record = record
    }
}
