/// An attribute of an `HTMLElement`: its lower-case name and its decoded value.
struct HTMLAttribute: Sendable, Equatable {
    let name: String
    let value: String
}
