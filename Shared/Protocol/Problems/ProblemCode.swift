/// The stable code of a problem document: its `type` is `urn:mailwake:problem:<code>`.
///
/// Codes exist only in the registry (`ProblemCode+Registry.swift`), so a
/// handler cannot invent a spelling; a code read from elsewhere (the App Store
/// verifier's) is looked up with ``init(registered:)``.
public struct ProblemCode: Sendable, Hashable, CustomStringConvertible {
    /// The published spelling.
    public let rawValue: String

    init(_ rawValue: String) { self.rawValue = rawValue }

    /// The problem a failed protocol check answers with.
    public init(_ code: ProtocolError.Code) { rawValue = code.rawValue }

    /// The registered code spelled `rawValue`, or nil when there is none.
    public init?(registered rawValue: String) {
        guard let code = Self.byRawValue[rawValue] else { return nil }
        self = code
    }

    public var description: String { rawValue }

    private static let byRawValue: [String: ProblemCode] = Dictionary(all.map { ($0.rawValue, $0) },
                                                                      uniquingKeysWith: { first, _ in first })
}
