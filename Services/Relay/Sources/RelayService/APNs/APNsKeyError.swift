/// The APNs key file is missing, unreadable or not a P-256 PKCS#8 key.
struct APNsKeyError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
