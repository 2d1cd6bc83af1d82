import Foundation
import MailwakeCore
import MailwakeCrypto
import MailwakeProtocol

/// The JSON key file written by `keygen` and read by the other commands.
struct KeyFile {
    var signing: P256.Signing.PrivateKey
    var agreement: P256.KeyAgreement.PrivateKey

    static func generate() throws -> KeyFile {
        KeyFile(signing: try P256.Signing.PrivateKey(), agreement: try P256.KeyAgreement.PrivateKey())
    }

    /// The whole file, private keys included.
    var jsonBytes: [UInt8] { json(includingPrivateKeys: true) }

    /// The public half, safe to print.
    var publicJSONBytes: [UInt8] { json(includingPrivateKeys: false) }

    private func json(includingPrivateKeys: Bool) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        if includingPrivateKeys { w.base64URL("signing_private", signing.rawRepresentation) }
        w.base64URL("signing_public", signing.publicKey.x963Representation)
        if includingPrivateKeys { w.base64URL("agreement_private", agreement.rawRepresentation) }
        w.base64URL("agreement_public", agreement.publicKey.x963Representation)
        let id = KeyIdentity.id(of: signing.publicKey)
        w.string("device_id", id)
        w.string("outpost_id", id)
        w.endObject()
        return w.bytes + [0x0A]
    }

    /// Writes the file with mode 0600, refusing to replace an existing one.
    func write(to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard fd >= 0 else {
            throw ToolError(errno == EEXIST ? "\(path) already exists; refusing to overwrite a key file" : "cannot create \(path): " +
                "\(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let bytes = jsonBytes
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw ToolError("cannot write \(path)") }
    }

    static func read(_ path: String) throws -> KeyFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw ToolError("cannot read key file \(path)") }
        guard data.count <= 4096,
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let sp = (object["signing_private"] as? String).flatMap(Base64URL.decode),
              let ap = (object["agreement_private"] as? String).flatMap(Base64URL.decode)
        else {
            throw ToolError("\(path) is not a keygen file (needs signing_private and agreement_private)")
        }
        let file = KeyFile(signing: try P256.Signing.PrivateKey(rawRepresentation: sp),
                           agreement: try P256.KeyAgreement.PrivateKey(rawRepresentation: ap))
        if let pub = (object["signing_public"] as? String).flatMap(Base64URL.decode), pub != file.signing.publicKey.x963Representation {
            throw ToolError("\(path): signing_public does not match signing_private")
        }
        if let pub = (object["agreement_public"] as? String).flatMap(Base64URL.decode),
           pub != file.agreement.publicKey.x963Representation {
            throw ToolError("\(path): agreement_public does not match agreement_private")
        }
        return file
    }
}

/// A failure of the tool itself (bad file, bad argument value): exit 1.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
