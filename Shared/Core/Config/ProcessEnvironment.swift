#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment as a dictionary (no Foundation).
public enum ProcessEnvironment {
    /// Every `NAME=value` of the process environment (the first one wins for duplicate names).
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                let name = String(text[..<eq])
                if result[name] == nil { result[name] = String(text[text.index(after: eq)...]) }
            }
            pointer += 1
        }
        return result
    }
}
