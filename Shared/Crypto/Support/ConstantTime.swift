import COpenSSLShims

/// Comparisons whose timing does not depend on the bytes compared.
public enum ConstantTime {
    /// Whether two byte strings are equal, in time that depends only on their lengths.
    ///
    /// Different lengths answer `false` at once: lengths are not secret here
    /// (tags, hashes and credentials have fixed sizes).
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                mw_ct_equal(pa.baseAddress, pb.baseAddress, pa.count) == 1
            }
        }
    }
}
