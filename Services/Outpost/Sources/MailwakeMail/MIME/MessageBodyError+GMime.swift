/// The errors the GMime shims' status codes stand for.
extension MessageBodyError {
    /// Throws the error of a shim's status: 0 parsed, -2 nested too deeply, anything else not a message.
    static func check(_ status: Int32) throws(MessageBodyError) {
        switch status {
        case 0: return
        case -2: throw MessageBodyError(.tooComplex, "the message nests more multiparts than any real message")
        default: throw MessageBodyError(.notAMessage, "not an e-mail message")
        }
    }
}
