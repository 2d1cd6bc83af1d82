/// The shapes of the outpost API's answers the tests read, decoded as the App would.
enum OutpostResponses {
    /// `POST /v1/management/redeem`.
    struct Redeemed: Decodable {
        let granted: [String]
        let outpostID: String
        enum CodingKeys: String, CodingKey {
            case granted
            case outpostID = "outpost_id"
        }
    }

    /// `GET /v1/messages/body`: the parts the tests check.
    struct Body: Decodable {
        struct Headers: Decodable {
            struct Address: Decodable { let address: String }
            let subject: String
            let from: [Address]
        }
        struct Image: Decodable { let url: String }
        let headers: Headers
        let html: String?
        let text: String?
        let images: [Image]
    }

    /// `POST /v1/channels` for a webhook: its signing secret, shown once.
    struct ChannelCreated: Decodable {
        let webhookSecret: String
        enum CodingKeys: String, CodingKey { case webhookSecret = "webhook_secret" }
    }

    /// `GET /v1/status`: the outpost's identity.
    struct Status: Decodable {
        let outpostID: String
        enum CodingKeys: String, CodingKey { case outpostID = "outpost_id" }
    }

    /// One of `GET /v1/mailboxes`.
    struct Mailbox: Decodable { let label: String }

    /// One of `GET /v1/changes`.
    struct Change: Decodable {
        let action: String
        let actor: String?
    }

    /// An entry of a list whose fields a test does not read (`GET /v1/rules`, `GET /v1/devices`).
    struct Entry: Decodable {}
}
