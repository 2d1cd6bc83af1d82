import Foundation

/// The `/admin` status page: server-rendered HTML with inline styles, no
/// scripts and no external assets; refreshes itself every 10 seconds.
struct AdminPage {
    let snapshot: StatusSnapshot

    var html: String {
        let s = snapshot
        var out = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="10">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>Mailwake relay · \(escape(s.instance))</title>
            <style>
            body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#1d2433;background:#f6f7f9}
            h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:24px 0 8px}
            .sub{color:#5b6576;margin-bottom:16px}
            .cards{display:flex;flex-wrap:wrap;gap:12px}
            .card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:12px 16px;min-width:150px}
            .card .n{font-size:24px;font-weight:600}.card .l{color:#5b6576;font-size:12px;text-transform:uppercase;letter-spacing:.04em}
            table{border-collapse:collapse;background:#fff;border:1px solid #dde1e8;border-radius:8px;width:100%;max-width:1100px}
            th,td{text-align:left;padding:6px 10px;border-bottom:1px solid #eef0f4;font-variant-numeric:tabular-nums}
            th{background:#f0f2f6;font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#414b5c}
            .bad{color:#b42318}.ok{color:#067647}.warn{color:#b54708}.mono{font-family:ui-monospace,Menlo,monospace;font-size:12px}
            .empty{color:#5b6576;font-style:italic}
            </style></head><body>
            <h1>Mailwake relay</h1>
            <div class="sub">instance \(escape(s.instance)) · version \(escape(s.version)) · \(timestamp(s.generatedAt)) UTC · refreshes \
            every 10 s</div>
            <div class="cards">
            \(card("Queued", "\(s.queued)", s.queued > 1000 ? "warn" : ""))
            \(card("Sending", "\(s.sending)", ""))
            \(card("Due now", "\(s.dueNow)", s.dueNow > 1000 ? "warn" : ""))
            \(card("Longest overdue", duration(s.oldestAgeSeconds), s.oldestAgeSeconds > 60 ? "bad" : ""))
            \(card("Active pairings", "\(s.activePairings)", ""))
            \(card("APNs in flight", "\(s.apnsInFlight) / \(s.apnsWindowLimit)", ""))
            \(card("Accepted here", "\(s.acceptedHere)", ""))
            </div>
            <h2>Throughput</h2>
            <table><tr><th>Window</th><th>Sent</th><th>Sent / s</th><th>Failed</th><th>Expired</th></tr>
            """
        for w in s.windows {
            let rate = String(format: "%.2f", Double(w.sent) / Double(w.seconds))
            out += "<tr><td>\(escape(w.label))</td><td class=\"ok\">\(w.sent)</td><td>\(rate)</td>"
            out += "<td class=\"\(w.failed > 0 ? "bad" : "")\">\(w.failed)</td><td " +
                   "class=\"\(w.expired > 0 ? "warn" : "")\">\(w.expired)</td></tr>\n"
        }
        out += "</table>\n<h2>Failures by reason (last hour)</h2>\n"
        if s.failuresByReason.isEmpty {
            out += "<p class=\"empty\">No failures in the last hour.</p>\n"
        } else {
            out += "<table><tr><th>Reason</th><th>Deliveries</th></tr>\n"
            for (reason, count) in s.failuresByReason {
                out += "<tr><td class=\"mono\">\(escape(reason))</td><td class=\"bad\">\(count)</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<h2>Recent failed deliveries</h2>\n"
        if s.recentFailures.isEmpty {
            out += "<p class=\"empty\">No failed or expired deliveries in the last day.</p>\n"
        } else {
            out += "<table><tr><th>When (UTC)</th><th>Status</th><th>APNs</th><th>Reason</th><th>Attempts</th><th>Pairing</th>" +
                "<th>Event</th><th>Device</th></tr>\n"
            for d in s.recentFailures {
                out += "<tr><td>\(timestamp(d.updatedMS / 1000))</td><td class=\"bad\">\(escape(d.status))</td>"
                out += "<td>\(d.apnsStatus.map(String.init) ?? "–")</td><td " +
                       "class=\"mono\">\(escape(d.apnsReason ?? ""))</td><td>\(d.attempts)</td>"
                out += "<td class=\"mono\">\(escape(d.pairingID))</td><td class=\"mono\">\(escape(d.eventID))</td><td " +
                       "class=\"mono\">\(escape(String(d.deviceID.prefix(12))))…</td></tr>\n"
            }
            out += "</table>\n"
        }
        out += "<p class=\"sub\">Details: <span class=\"mono\">GET /admin/v1/deliveries?status=failed&amp;since=UNIX</span> · metrics " +
               "at <span class=\"mono\">/metrics</span></p>\n</body></html>\n"
        return out
    }

    private func card(_ label: String, _ value: String, _ cls: String) -> String {
        "<div class=\"card\"><div class=\"l\">\(escape(label))</div><div class=\"n \(cls)\">\(escape(value))</div></div>"
    }

    private func duration(_ seconds: Double) -> String {
        seconds < 1 ? "–" : seconds < 120 ? String(format: "%.0f s", seconds) : String(format: "%.1f min", seconds / 60)
    }

    private func timestamp(_ unix: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(unix)))
    }

    /// HTML-escapes text (every value on the page goes through this).
    func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for ch in text.unicodeScalars {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}
