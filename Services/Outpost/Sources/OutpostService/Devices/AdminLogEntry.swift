/// One change made to the outpost, and who made it: `cli` or a managing
/// device's id. Shown by `history --changes`.
public struct AdminLogEntry: Sendable, Hashable {
    public var id: Int64
    public var at: Int64
    public var actor: String
    public var action: String
    public var detail: String
}
