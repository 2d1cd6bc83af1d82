import Foundation

/// A relay-authored service notice (PROTOCOL.md §14: `mw_sys`, no envelope), shown as the App shows it: never as mail.
enum DeviceNotice {
    /// `notice: <type> outpost=<id> since=<unix>[ failing=<n>]: <alert body>` for a payload with `mw_sys`; nil for any other payload.
    static func line(payload: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let sys = object["mw_sys"] as? [String: Any], object["mw"] == nil
        else { return nil }
        var line = "notice: " + ((sys["type"] as? String) ?? "unknown")
        if let outpost = sys["outpost_id"] as? String { line += " outpost=" + outpost }
        if let since = sys["since"] as? Int { line += " since=\(since)" }
        if let failing = sys["failing"] as? Int { line += " failing=\(failing)" }
        if let body = ((object["aps"] as? [String: Any])?["alert"] as? [String: Any])?["body"] as? String { line += ": " + body }
        return line
    }
}
