extension TrustedRoots {
    /// How a chain fared against the roots, with OpenSSL's reason when it failed.
    public enum ChainResult: Sendable, Equatable {
        case trusted
        case untrusted(String)
        case expired(String)
        case notYetValid(String)
    }
}
