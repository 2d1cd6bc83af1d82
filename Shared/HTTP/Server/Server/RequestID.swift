import Synchronization

/// Request identifiers: 16 lower-case hex digits, unique within the process.
///
/// A counter run through SplitMix64's finalizer (a bijection on 64 bits)
/// under a key drawn once from the system generator: identifiers never
/// repeat within a process, are no visible sequence, and
/// cost no system call (the system generator cost one `getrandom` per request).
public enum RequestID {
    private static let key: UInt64 = {
        var g = SystemRandomNumberGenerator()
        return g.next()
    }()
    private static let counter = Atomic<UInt64>(0)

    /// A fresh identifier.
    public static func generate() -> String {
        let n = counter.wrappingAdd(1, ordering: .relaxed).newValue
        return hex(mix(n &+ key))
    }

    /// SplitMix64's output function: invertible, so distinct inputs give distinct outputs.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }

    static func hex(_ n: UInt64) -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            for i in 0..<16 {
                let digit = UInt8(truncatingIfNeeded: (n >> (60 - 4 * UInt64(i))) & 0xf)
                buffer[i] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
            }
            return 16
        }
    }
}
