/// An outpost identity as accounts knows it (`/internal/v1/outposts`).
struct OutpostStanding: Decodable, Sendable, Hashable {
    var outpostID: String
    var blocked: Bool

    enum CodingKeys: String, CodingKey {
        case outpostID = "outpost_id"
        case blocked
    }
}
