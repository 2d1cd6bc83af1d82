public import MailwakeQRCode

extension QRCode {
    /// The code for a terminal: two module rows per text line (upper and
    /// lower half blocks), dark on light with a 2-module quiet zone, so it
    /// scans on dark and light terminal themes alike.
    public var terminalText: String {
        let quiet = 2
        var lines: [String] = []
        var y = -quiet
        while y < size + quiet {
            var line = ""
            for x in -quiet..<(size + quiet) {
                switch (isDark(x, y), isDark(x, y + 1)) {
                case (false, false): line += "█"
                case (true, false): line += "▄"
                case (false, true): line += "▀"
                case (true, true): line += " "
                }
            }
            lines.append(line)
            y += 2
        }
        return lines.joined(separator: "\n")
    }
}
