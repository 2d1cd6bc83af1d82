/// INTERNALDATE (`"17-Jul-1996 02:44:25 -0700"`) to Unix seconds.
enum IMAPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    static func unixSeconds(_ text: String) -> Int64? {
        let parts = text.trimmingPrefix(" ").split(separator: " ")
        guard parts.count == 3 else { return nil }
        let date = parts[0].split(separator: "-")
        let time = parts[1].split(separator: ":")
        guard date.count == 3, time.count == 3, let day = Int(date[0]), let year = Int(date[2]),
              let month = months.firstIndex(of: date[1].lowercased()).map({ $0 + 1 }),
              let hour = Int(time[0]), let minute = Int(time[1]), let second = Int(time[2])
        else { return nil }
        let zone = parts[2]
        guard zone.count == 5, let sign = zone.first, sign == "+" || sign == "-", let hhmm = Int(zone.dropFirst()) else { return nil }
        let offset = (hhmm / 100 * 3600 + hhmm % 100 * 60) * (sign == "-" ? -1 : 1)
        return Int64(daysFromCivil(year, month, day)) * 86400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset)
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    private static func daysFromCivil(_ y0: Int, _ m: Int, _ d: Int) -> Int {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }
}
