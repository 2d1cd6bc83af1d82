import MailwakeSQLite

extension OutpostStore {
    /// Stores a plain setting (relay URL, environment).
    public func set(_ name: String, _ value: String) async throws {
        let now = clock()
        _ = try await database.execute("""
            INSERT INTO settings (name, value, value_sealed, updated_at) VALUES (?, ?, NULL, ?)
            ON CONFLICT (name) DO UPDATE SET value = excluded.value, value_sealed = NULL, updated_at = excluded.updated_at
            """, name, value, now)
    }

    /// Stores a secret setting sealed under `secret.key` (tokens, passwords).
    public func setSecret(_ name: String, _ value: String) async throws {
        let sealed = try box.seal(Array(value.utf8), purpose: "setting", context: "setting:\(name)")
        let now = clock()
        _ = try await database.execute("""
            INSERT INTO settings (name, value, value_sealed, updated_at) VALUES (?, NULL, ?, ?)
            ON CONFLICT (name) DO UPDATE SET value = NULL, value_sealed = excluded.value_sealed, updated_at = excluded.updated_at
            """, name, sealed, now)
    }

    /// A setting's value (opened when sealed), nil when unset.
    public func setting(_ name: String) async throws -> String? {
        guard let row = try await database.queryRow("SELECT value, value_sealed FROM settings WHERE name = ?", name) else { return nil }
        if let value: String = try row.get("value", as: String?.self) { return value }
        let sealed: [UInt8] = try row.get("value_sealed")
        return String(decoding: try box.open(sealed, purpose: "setting", context: "setting:\(name)"), as: UTF8.self)
    }

    public func removeSetting(_ name: String) async throws {
        _ = try await database.execute("DELETE FROM settings WHERE name = ?", name)
    }
}
