extension DovecotServer: TestIMAPServer {
    public var kind: IMAPServerKind { .dovecot }
    public var deliversToMaildir: Bool { true }
}
