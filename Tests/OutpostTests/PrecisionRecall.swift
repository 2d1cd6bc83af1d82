/// Tallies a detector's answers against expected ones.
struct PrecisionRecall {
    var truePositives = 0
    var falsePositives = 0
    var falseNegatives = 0
    var misses: [String] = []

    mutating func record(found: String?, expected: String?, label: String) {
        switch (found, expected) {
        case let (f?, e?) where f == e: truePositives += 1
        case let (f?, e?):
            falsePositives += 1
            falseNegatives += 1
            misses.append("\(label): found \(f), expected \(e)")
        case let (f?, nil):
            falsePositives += 1
            misses.append("\(label): found \(f), expected none")
        case let (nil, e?):
            falseNegatives += 1
            misses.append("\(label): missed \(e)")
        case (nil, nil): break
        }
    }

    var precision: Double { Double(truePositives) / Double(max(1, truePositives + falsePositives)) }
    var recall: Double { Double(truePositives) / Double(max(1, truePositives + falseNegatives)) }
    var report: String { misses.joined(separator: "\n") }
}
