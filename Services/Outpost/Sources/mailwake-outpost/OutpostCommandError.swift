/// A command that failed for a reason the user can fix (an unknown label, a
/// duplicate name); printed as one line.
struct OutpostCommandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
