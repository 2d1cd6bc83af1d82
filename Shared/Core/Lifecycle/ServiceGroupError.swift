/// Why a `ServiceGroup` did not end cleanly: services that failed (before or
/// during shutdown) and services abandoned after their grace period.
public struct ServiceGroupError: Error, Sendable, CustomStringConvertible {
    public struct Failure: Sendable {
        /// The service's name.
        public let service: String
        public let error: any Error
    }

    public let failures: [Failure]
    /// Names of services that did not stop within the grace period.
    public let abandoned: [String]

    public var description: String {
        var parts = failures.map { "\($0.service) failed: \($0.error)" }
        parts += abandoned.map { "\($0) did not stop in time" }
        return "service group: " + parts.joined(separator: "; ")
    }
}
