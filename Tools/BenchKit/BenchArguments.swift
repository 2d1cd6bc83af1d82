import Foundation

/// `--name value` command-line options, read by name; `--help` prints the
/// usage, and an unknown name or a bad value ends the program (status 2).
public struct BenchArguments {
    let tool: String
    var values: [String: String] = [:]

    public init(_ arguments: some Sequence<String>, tool: String, names: Set<String>, usage: String) {
        self.tool = tool
        var iterator = arguments.makeIterator()
        while let name = iterator.next() {
            if name == "--help" {
                print(usage)
                exit(0)
            }
            guard names.contains(name) else { fail("unknown argument \(name) (see --help)") }
            guard let value = iterator.next() else { fail("\(name) takes a value") }
            values[name] = value
        }
    }

    /// The value of `name`, or `fallback`; an empty result is refused.
    public func string(_ name: String, _ fallback: String) -> String {
        let value = values[name] ?? fallback
        guard !value.isEmpty else { fail("give \(name)") }
        return value
    }

    /// The number given as `name`, or `fallback`; refused below `minimum`.
    public func number(_ name: String, _ fallback: Double, minimum: Double = Double.leastNonzeroMagnitude) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), value.isFinite, value >= minimum else { fail("\(name) takes a number of at least \(minimum)") }
        return value
    }

    /// The whole number given as `name`, or `fallback`; refused below 1.
    public func count(_ name: String, _ fallback: Int) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), value >= 1 else { fail("\(name) takes a whole number of at least 1") }
        return value
    }

    /// Prints `message` on stderr and ends the program (status 2), as for a bad option.
    public func fail(_ message: String) -> Never {
        FileHandle.standardError.write(Data("\(tool): \(message)\n".utf8))
        exit(2)
    }
}
