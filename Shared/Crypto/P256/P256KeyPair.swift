/// The storage shared by both P-256 private key types: one OpenSSL handle and
/// its public point, exported once.
struct P256KeyPair: Sendable {
    let key: OpenSSLKey
    let publicX963: [UInt8]

    private init(_ key: OpenSSLKey) {
        self.key = key
        publicX963 = key.x963()
    }

    static func generate() throws(CryptoError) -> P256KeyPair {
        try OpenSSL.ensureReady()
        return P256KeyPair(try OpenSSLKey.generate())
    }

    static func raw(_ bytes: [UInt8]) throws(CryptoError) -> P256KeyPair {
        try OpenSSL.ensureReady()
        return P256KeyPair(try OpenSSLKey.privateKey(raw: bytes))
    }

    static func pkcs8(_ der: [UInt8]) throws(CryptoError) -> P256KeyPair {
        try OpenSSL.ensureReady()
        return P256KeyPair(try OpenSSLKey.privateKey(pkcs8: der))
    }

    static func pem(_ text: String) throws(CryptoError) -> P256KeyPair {
        try pkcs8(try PEM.decode(text, label: "PRIVATE KEY"))
    }

    var rawRepresentation: [UInt8] { key.rawPrivate() }
    var pkcs8DERRepresentation: [UInt8] { key.pkcs8() }
    var pemRepresentation: String { PEM.encode(pkcs8DERRepresentation, label: "PRIVATE KEY") }
}
