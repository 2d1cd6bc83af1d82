public import MailwakeMail

/// A message that could not be read, as the outpost reports it.
extension OutpostError {
    /// The `.storage` error carrying `error`'s description.
    public init(_ error: MessageBodyError) {
        self.init(.storage, error.description)
    }
}
