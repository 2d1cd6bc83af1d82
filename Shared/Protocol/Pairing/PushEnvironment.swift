/// The APNs environment a device's token belongs to.
public enum PushEnvironment: String, Sendable, Hashable, Codable, CaseIterable {
    case production, sandbox
}
