/// Every problem code a Mailwake service answers with, in one place.
///
/// The spellings are published (`urn:mailwake:problem:<code>` in problem
/// documents, the App matches on them) and never change: the protocol's own
/// codes are snake_case (`clock_skew`), everything else kebab-case
/// (`pairing-not-found`). docs/problems.md is the table of all of them, with
/// their statuses; `ProblemCodeTests` keeps the two in agreement.
extension ProblemCode {
    // MARK: Protocol checks (PROTOCOL.md; shared with the test vectors)

    /// JSON shape, unknown or missing field, bad base64url, wrong length, unsupported version, algorithm or kind.
    public static let malformed = ProblemCode(ProtocolError.Code.malformed)
    /// A public key that is not a valid P-256 point.
    public static let invalidKey = ProblemCode(ProtocolError.Code.invalidKey)
    /// A signature that does not verify.
    public static let badSignature = ProblemCode(ProtocolError.Code.badSignature)
    /// `aud` is not the expected audience.
    public static let wrongAudience = ProblemCode(ProtocolError.Code.wrongAudience)
    /// `pairing_id` is not the expected pairing.
    public static let wrongPairing = ProblemCode(ProtocolError.Code.wrongPairing)
    /// The AES-GCM tag check failed.
    public static let decryptionFailed = ProblemCode(ProtocolError.Code.decryptionFailed)
    /// An event id or nonce that was already accepted.
    public static let replayed = ProblemCode(ProtocolError.Code.replayed)
    /// Past `exp`, or outside the allowed age.
    public static let expired = ProblemCode(ProtocolError.Code.expired)
    /// A request timestamp more than the allowed skew from now.
    public static let clockSkew = ProblemCode(ProtocolError.Code.clockSkew)
    /// A key id or device id that does not match its key, or an unknown key id.
    public static let wrongKey = ProblemCode(ProtocolError.Code.wrongKey)
    /// A pairing credential or management token that does not match.
    public static let badCredential = ProblemCode(ProtocolError.Code.badCredential)
    /// A pairing consent whose `mac` does not verify under the pairing's `mac_key` (PROTOCOL.md §9).
    public static let badMAC = ProblemCode(ProtocolError.Code.badMAC)
    /// A link or consent of an older protocol revision; the message names what to upgrade.
    public static let upgradeRequired = ProblemCode(ProtocolError.Code.upgradeRequired)
    /// A management consent asking for a scope that was not offered.
    public static let scopeNotOffered = ProblemCode(ProtocolError.Code.scopeNotOffered)
    /// An input over its size limit.
    public static let tooLarge = ProblemCode(ProtocolError.Code.tooLarge)
    /// Randomness or OpenSSL failed while producing a message.
    public static let internalFailure = ProblemCode(ProtocolError.Code.internalFailure)

    // MARK: App Store verification (docs/app-store.md)

    /// Not three base64url parts, bad base64url, header not JSON, oversize.
    public static let jwsMalformed = ProblemCode("jws-malformed")
    /// The header's `alg` is not `ES256` (or carries `crit` parameters).
    public static let jwsUnsupportedAlgorithm = ProblemCode("jws-unsupported-algorithm")
    /// The header has no `x5c`, or not exactly three certificates.
    public static let x5cMissing = ProblemCode("x5c-missing")
    /// A certificate is not standard base64 of one DER certificate, or the leaf key is not a P-256 key.
    public static let certificateMalformed = ProblemCode("certificate-malformed")
    /// The leaf and intermediate do not chain to a configured root.
    public static let chainUntrusted = ProblemCode("chain-untrusted")
    /// A certificate of the chain was not valid at the payload's `signedDate`.
    public static let certificateExpired = ProblemCode("certificate-expired")
    /// The leaf or intermediate lacks Apple's marker extension.
    public static let oidMissing = ProblemCode("oid-missing")
    /// The ES256 signature does not verify with the leaf's key.
    public static let signatureInvalid = ProblemCode("signature-invalid")
    /// The payload's `bundleId` is not the configured one.
    public static let bundleMismatch = ProblemCode("bundle-mismatch")
    /// The payload's `environment` is not the configured one.
    public static let environmentMismatch = ProblemCode("environment-mismatch")
    /// A notification's `appAppleId` is not the configured one.
    public static let appAppleIdMismatch = ProblemCode("app-apple-id-mismatch")
    /// The payload is not the expected JSON object.
    public static let payloadMalformed = ProblemCode("payload-malformed")
    /// The verifier's configuration is unusable (raised at start, never per request).
    public static let configurationInvalid = ProblemCode("configuration-invalid")

    // MARK: Services

    /// The device and purchase service did not answer; try again.
    public static let accountsUnavailable = ProblemCode("accounts-unavailable")
    /// No update token for this activity.
    public static let activityNotFound = ProblemCode("activity-not-found")
    /// This transaction was bought on another device, which has not linked it: link it there first; nothing was linked here.
    public static let appAccountTokenMismatch = ProblemCode("app-account-token-mismatch")
    /// After must be an event id (a UUID).
    public static let badAfter = ProblemCode("bad-after")
    /// Limit must be 1 to ….
    public static let badLimit = ProblemCode("bad-limit")
    /// Unknown query parameter …; only after and limit are read.
    public static let badParameter = ProblemCode("bad-parameter")
    /// The request path is not valid percent-encoded UTF-8.
    public static let badPath = ProblemCode("bad-path")
    /// Since must be Unix seconds.
    public static let badSince = ProblemCode("bad-since")
    /// Status must be one of ….joined(separator: .
    public static let badStatus = ProblemCode("bad-status")
    /// Wait must be 0 to … seconds.
    public static let badWait = ProblemCode("bad-wait")
    /// The request was cancelled.
    public static let cancelled = ProblemCode("cancelled")
    /// The cid query parameter (at most 512 bytes) names the part.
    public static let cidRequired = ProblemCode("cid-required")
    /// This pairing already has a consent.
    public static let credentialUsed = ProblemCode("credential-used")
    /// Storage is briefly unavailable; send the request again.
    public static let databaseUnavailable = ProblemCode("database-unavailable")
    /// The request took longer than … s.
    public static let deadlineExceeded = ProblemCode("deadline-exceeded")
    /// This device is blocked by the operator.
    public static let deviceBlocked = ProblemCode("device-blocked")
    /// The device was deleted or blocked meanwhile; try again.
    public static let deviceChanged = ProblemCode("device-changed")
    /// This device was deleted; the App restores it only with the recovery_code its deletion answered.
    public static let deviceDeleted = ProblemCode("device-deleted")
    /// This device may not receive push.
    public static let deviceNotAuthorized = ProblemCode("device-not-authorized")
    /// The paired device has no push entitlement.
    public static let deviceNotEntitled = ProblemCode("device-not-entitled")
    /// No such device.
    public static let deviceNotFound = ProblemCode("device-not-found")
    /// This device has no pairing at this relay.
    public static let deviceNotPaired = ProblemCode("device-not-paired")
    /// Register the device at accounts first.
    public static let deviceNotRegistered = ProblemCode("device-not-registered")
    /// This device is registered and has an active session: registering again needs Mailwake-Session of one of them.
    public static let deviceRegistered = ProblemCode("device-registered")
    /// No envelope with this event id for this pairing.
    public static let envelopeNotFound = ProblemCode("envelope-not-found")
    /// Another envelope with this event id was accepted for this pairing.
    public static let eventConflict = ProblemCode("event-conflict")
    /// Expires_at may be at most … seconds ahead.
    public static let expiryTooFar = ProblemCode("expiry-too-far")
    /// The folder was reset on the mail server (UIDVALIDITY changed); the message can no longer be found by this reference.
    public static let folderReset = ProblemCode("folder-reset")
    /// The device's stored key is unusable.
    public static let internalError = ProblemCode("internal")
    /// A field of the request is not valid (the detail names it).
    public static let invalidField = ProblemCode("invalid-field")
    /// Mailboxes and failing are counts from 0 to ….
    public static let invalidHeartbeat = ProblemCode("invalid-heartbeat")
    /// The invitation was already used.
    public static let invitationUsed = ProblemCode("invitation-used")
    /// A mailbox has this label already.
    public static let labelTaken = ProblemCode("label-taken")
    /// The mail server did not give the message: ….
    public static let mailServer = ProblemCode("mail-server")
    /// The device's content permission does not cover this mailbox.
    public static let mailboxNotPermitted = ProblemCode("mailbox-not-permitted")
    /// The outpost could not log in to the mailbox: ….
    public static let mailboxUnreachable = ProblemCode("mailbox-unreachable")
    /// The message or its mailbox no longer exists.
    public static let messageGone = ProblemCode("message-gone")
    /// The message cannot be shown: ….
    public static let messageUnreadable = ProblemCode("message-unreadable")
    /// … is not allowed here.
    public static let methodNotAllowed = ProblemCode("method-not-allowed")
    /// A channel has this name already.
    public static let nameTaken = ProblemCode("name-taken")
    /// No device has consented to this pairing yet.
    public static let noConsent = ProblemCode("no-consent")
    /// No channel with this name.
    public static let noSuchChannel = ProblemCode("no-such-channel")
    /// No device with this id.
    public static let noSuchDevice = ProblemCode("no-such-device")
    /// The mailbox has no folder ….
    public static let noSuchFolder = ProblemCode("no-such-folder")
    /// No mailbox with this id.
    public static let noSuchMailbox = ProblemCode("no-such-mailbox")
    /// The device does not hold this permission.
    public static let noSuchPermission = ProblemCode("no-such-permission")
    /// No rule for this scope.
    public static let noSuchRule = ProblemCode("no-such-rule")
    /// A scope is manage, content or push.
    public static let noSuchScope = ProblemCode("no-such-scope")
    /// No such …).
    public static let notFound = ProblemCode("not-found")
    /// Only the device itself may read its catch-up log.
    public static let notThisDevice = ProblemCode("not-this-device")
    /// A receipt names a pairing that is not this device's; nothing was recorded.
    public static let notThisDevicesPairing = ProblemCode("not-this-devices-pairing")
    /// Set MAILWAKE_RELAY_OPERATOR_TOKEN to enable the operator pages.
    public static let operatorApiDisabled = ProblemCode("operator-api-disabled")
    /// This outpost is blocked by the operator.
    public static let outpostBlocked = ProblemCode("outpost-blocked")
    /// No such outpost.
    public static let outpostNotFound = ProblemCode("outpost-not-found")
    /// This relay has no active pairing of this outpost.
    public static let outpostNotPaired = ProblemCode("outpost-not-paired")
    /// A device cannot revoke its own manage permission: another managing device or `mailwake-outpost devices revoke` can.
    public static let ownManagePermission = ProblemCode("own-manage-permission")
    /// The pairing changed meanwhile; read it again.
    public static let pairingChanged = ProblemCode("pairing-changed")
    /// This pairing has ended.
    public static let pairingEnded = ProblemCode("pairing-ended")
    /// This pairing id is taken.
    public static let pairingExists = ProblemCode("pairing-exists")
    /// The pairing is not confirmed yet.
    public static let pairingNotActive = ProblemCode("pairing-not-active")
    /// No such pairing.
    public static let pairingNotFound = ProblemCode("pairing-not-found")
    /// The message has no inline raster image with this Content-ID.
    public static let partNotFound = ProblemCode("part-not-found")
    /// The APNs payload would be … bytes; the limit is ….
    public static let payloadTooLarge = ProblemCode("payload-too-large")
    /// The device does not hold the … permission.
    public static let permissionMissing = ProblemCode("permission-missing")
    /// This purchase entitles … devices already, the most this service allows; delete one of them to free its place.
    public static let purchaseDeviceLimit = ProblemCode("purchase-device-limit")
    /// No such originalTransactionId.
    public static let purchaseNotFound = ProblemCode("purchase-not-found")
    /// This instance does not accept App Store purchases.
    public static let purchasesDisabled = ProblemCode("purchases-disabled")
    /// Push ends by unpairing: DELETE /v1/pairings/{id} at the relay, or `mailwake-outpost devices revoke ID push`.
    public static let pushViaRelay = ProblemCode("push-via-relay")
    /// Too many envelopes from this outpost; slow down.
    public static let rateLimited = ProblemCode("rate-limited")
    /// This is not the recovery code of this device's deletion.
    public static let recoveryCodeInvalid = ProblemCode("recovery-code-invalid")
    /// The invitation cannot be redeemed (the detail says why).
    public static let redeemRefused = ProblemCode("redeem-refused")
    /// The message reference is malformed or over its size limit.
    public static let refMalformed = ProblemCode("ref-malformed")
    /// The message reference does not verify for this device.
    public static let refRefused = ProblemCode("ref-refused")
    /// The ref query parameter names the message (from its notification).
    public static let refRequired = ProblemCode("ref-required")
    /// No such active session for this device.
    public static let sessionNotFound = ProblemCode("session-not-found")
    /// Device calls carry Mailwake-Session: the session_id registration answered.
    public static let sessionRequired = ProblemCode("session-required")
    /// This session was revoked.
    public static let sessionRevoked = ProblemCode("session-revoked")
    /// No such session for this device.
    public static let sessionUnknown = ProblemCode("session-unknown")
    /// The server is shutting down.
    public static let shuttingDown = ProblemCode("shutting-down")
    /// This endpoint needs a Mailwake-Signature header.
    public static let signatureRequired = ProblemCode("signature-required")
    /// The bearer token is not valid here.
    public static let tokenInvalid = ProblemCode("token-invalid")
    /// The operator token is required.
    public static let tokenRequired = ProblemCode("token-required")
    /// This outpost has not locked the keys of the signing device.
    public static let unknownDevice = ProblemCode("unknown-device")
    /// Send application/json.
    public static let unsupportedMediaType = ProblemCode("unsupported-media-type")
    /// A device may only act on itself.
    public static let wrongDevice = ProblemCode("wrong-device")

    /// Every registered code.
    public static let all: [ProblemCode] = [
        .malformed, .invalidKey, .badSignature, .wrongAudience, .wrongPairing, .decryptionFailed, .replayed, .expired, .clockSkew,
        .wrongKey, .badCredential, .badMAC, .upgradeRequired, .scopeNotOffered, .tooLarge, .internalFailure, .jwsMalformed,
        .jwsUnsupportedAlgorithm, .x5cMissing, .certificateMalformed, .chainUntrusted, .certificateExpired, .oidMissing,
        .signatureInvalid, .bundleMismatch, .environmentMismatch, .appAppleIdMismatch, .payloadMalformed, .configurationInvalid,
        .accountsUnavailable, .activityNotFound, .appAccountTokenMismatch, .badAfter, .badLimit, .badParameter, .badPath,
        .badSince, .badStatus, .badWait, .cancelled, .cidRequired, .credentialUsed, .databaseUnavailable, .deadlineExceeded,
        .deviceBlocked, .deviceChanged, .deviceDeleted, .deviceNotAuthorized, .deviceNotEntitled, .deviceNotFound,
        .deviceNotPaired, .deviceNotRegistered, .deviceRegistered, .envelopeNotFound, .eventConflict, .expiryTooFar, .folderReset,
        .internalError, .invalidField, .invalidHeartbeat, .invitationUsed, .labelTaken, .mailServer, .mailboxNotPermitted,
        .mailboxUnreachable, .messageGone, .messageUnreadable, .methodNotAllowed, .nameTaken, .noConsent, .noSuchChannel,
        .noSuchDevice, .noSuchFolder, .noSuchMailbox, .noSuchPermission, .noSuchRule, .noSuchScope, .notFound, .notThisDevice,
        .notThisDevicesPairing, .operatorApiDisabled, .outpostBlocked, .outpostNotFound, .outpostNotPaired, .ownManagePermission,
        .pairingChanged, .pairingEnded, .pairingExists, .pairingNotActive, .pairingNotFound, .partNotFound, .payloadTooLarge,
        .permissionMissing, .purchaseDeviceLimit, .purchaseNotFound, .purchasesDisabled, .pushViaRelay, .rateLimited,
        .recoveryCodeInvalid, .redeemRefused, .refMalformed, .refRefused, .refRequired, .sessionNotFound, .sessionRequired,
        .sessionRevoked, .sessionUnknown, .shuttingDown, .signatureRequired, .tokenInvalid, .tokenRequired, .unknownDevice,
        .unsupportedMediaType, .wrongDevice,
    ]
}
