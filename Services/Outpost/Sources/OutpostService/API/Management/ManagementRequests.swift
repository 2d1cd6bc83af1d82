import MailwakeIMAP
import MailwakeProtocol

/// Bodies of the management API's writes: strict JSON, unknown fields refused.
enum ManagementRequests {
    /// `POST /v1/mailboxes`: password accounts only (an OAuth token command
    /// runs on the outpost's host, so only its owner sets one, with the CLI).
    struct MailboxCreate: Decodable {
        var label: String
        var host: String
        var port: UInt16?
        var tls: String?
        var user: String
        var password: String
        var folders: [String]?
        var maxConnections: Int?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case label, host, port, tls, user, password, folders
            case maxConnections = "max_connections"
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "mailbox")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            label = try c.decode(String.self, forKey: .label)
            host = try c.decode(String.self, forKey: .host)
            port = try c.decodeIfPresent(UInt16.self, forKey: .port)
            tls = try c.decodeIfPresent(String.self, forKey: .tls)
            user = try c.decode(String.self, forKey: .user)
            password = try c.decode(String.self, forKey: .password)
            folders = try c.decodeIfPresent([String].self, forKey: .folders)
            maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections)
        }
    }

    /// `PATCH /v1/mailboxes/{id}`: any of these.
    struct MailboxUpdate: Decodable {
        var password: String?
        var folders: [String]?
        var maxConnections: Int?
        var enabled: Bool?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case password, folders, enabled
            case maxConnections = "max_connections"
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "mailbox update")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            password = try c.decodeIfPresent(String.self, forKey: .password)
            folders = try c.decodeIfPresent([String].self, forKey: .folders)
            maxConnections = try c.decodeIfPresent(Int.self, forKey: .maxConnections)
            enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled)
        }
    }

    /// `PUT /v1/rules`: the rule of one scope.
    struct Rule: Decodable {
        var mailboxID: Int64?
        var folder: String?
        var enabled: Bool
        var quietHours: String?
        var allow: [String]
        var deny: [String]
        var show: [String]

        enum CodingKeys: String, CodingKey, CaseIterable {
            case folder, enabled, allow, deny, show
            case mailboxID = "mailbox_id"
            case quietHours = "quiet_hours"
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "rule")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            mailboxID = try c.decodeIfPresent(Int64.self, forKey: .mailboxID)
            folder = try c.decodeIfPresent(String.self, forKey: .folder)
            enabled = try c.decodeIfPresent(Bool.self, forKey: .enabled) ?? true
            quietHours = try c.decodeIfPresent(String.self, forKey: .quietHours)
            allow = try c.decodeIfPresent([String].self, forKey: .allow) ?? []
            deny = try c.decodeIfPresent([String].self, forKey: .deny) ?? []
            show = try c.decodeIfPresent([String].self, forKey: .show) ?? NotificationRule.Field.allCases.map(\.rawValue)
        }
    }

    /// `POST /v1/channels`: a Bark, Pushover or webhook channel at a public https URL.
    struct Channel: Decodable {
        var name: String
        var kind: String
        var url: String
        var deviceKey: String?
        var userKey: String?
        var appToken: String?
        var webhookSecret: String?
        var priority: Int?
        var level: String?
        var group: String?
        var link: String?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case name, kind, url, priority, level, group, link
            case deviceKey = "device_key"
            case userKey = "user_key"
            case appToken = "app_token"
            case webhookSecret = "webhook_secret"
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "channel")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            kind = try c.decode(String.self, forKey: .kind)
            url = try c.decode(String.self, forKey: .url)
            deviceKey = try c.decodeIfPresent(String.self, forKey: .deviceKey)
            userKey = try c.decodeIfPresent(String.self, forKey: .userKey)
            appToken = try c.decodeIfPresent(String.self, forKey: .appToken)
            webhookSecret = try c.decodeIfPresent(String.self, forKey: .webhookSecret)
            priority = try c.decodeIfPresent(Int.self, forKey: .priority)
            level = try c.decodeIfPresent(String.self, forKey: .level)
            group = try c.decodeIfPresent(String.self, forKey: .group)
            link = try c.decodeIfPresent(String.self, forKey: .link)
        }
    }

    /// `POST /v1/devices/{id}/permissions`.
    struct Grant: Decodable {
        var scope: String
        var mailboxIDs: [Int64]?

        enum CodingKeys: String, CodingKey, CaseIterable {
            case scope
            case mailboxIDs = "mailbox_ids"
        }

        init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "grant")
            let c = try decoder.container(keyedBy: CodingKeys.self)
            scope = try c.decode(String.self, forKey: .scope)
            mailboxIDs = try c.decodeIfPresent([Int64].self, forKey: .mailboxIDs)
        }
    }
}
