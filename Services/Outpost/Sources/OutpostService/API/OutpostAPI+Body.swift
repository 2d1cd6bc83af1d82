import MailwakeCrypto
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakeMail
import MailwakeProtocol

extension OutpostAPI {
    /// `GET /v1/messages/body?ref=REF`: the message the reference names,
    /// read from the mailbox now and answered as a sanitized document.
    func body(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let reader = try context.authenticated(DeviceAuthentication.AuthenticatedDevice.self)
        let (refString, ref, mailboxID) = try reference(request, device: reader.device, permission: reader.permission)
        let fetched = try await fetch(ref, mailboxID: mailboxID)
        let document: BodyDocument
        do {
            document = try BodyDocument(message: fetched.bytes, messageTruncated: fetched.truncated, sanitizer: sanitizer) {
                BodyRoutes.partPath(ref: refString, contentID: $0)
            }
        } catch {
            throw HTTPError(.unprocessableContent, code: .messageUnreadable, detail: "the message cannot be shown: \(error.description)")
        }
        metrics.bodyRead("body")
        return .json(bytes: document.jsonBytes)
    }

    /// `GET /v1/messages/part?ref=REF&cid=CID`: an inline raster image of the message.
    func part(_ request: HTTPRequest, _ context: RequestContext) async throws -> HTTPResponse {
        let reader = try context.authenticated(DeviceAuthentication.AuthenticatedDevice.self)
        let (_, ref, mailboxID) = try reference(request, device: reader.device, permission: reader.permission)
        guard let cid = request.query("cid"), !cid.isEmpty, cid.utf8.count <= 512 else {
            throw HTTPError(.badRequest, code: .cidRequired, detail: "the cid query parameter (at most 512 bytes) names the part")
        }
        let fetched = try await fetch(ref, mailboxID: mailboxID)
        let found: (contentType: String, bytes: [UInt8])?
        do { found = try MessageBody.inlinePart(rfc822: fetched.bytes, contentID: cid) } catch {
            throw HTTPError(.unprocessableContent, code: .messageUnreadable, detail: "the message cannot be shown: \(error.description)")
        }
        guard let found, BodyDocument.servedImageTypes.contains(found.contentType.lowercased()) else {
            throw HTTPError(.notFound, code: .partNotFound, detail: "the message has no inline raster image with this Content-ID")
        }
        metrics.bodyRead("part")
        return HTTPResponse(status: .ok, headers: ["Content-Type": found.contentType.lowercased(), "Content-Disposition": "inline"],
                            body: found.bytes)
    }

    /// The request's `ref`, verified (§7): this outpost's signature, issued
    /// for the requesting device, for a mailbox its content permission covers.
    func reference(_ request: HTTPRequest, device: KnownDevice, permission: DevicePermission) throws -> (String, MessageReference, Int64) {
        guard let refString = request.query("ref"), !refString.isEmpty else {
            throw HTTPError(.badRequest, code: .refRequired, detail: "the ref query parameter names the message (from its notification)")
        }
        let ref: MessageReference
        do {
            ref = try MessageReference.verify(refString, outpostKey: identity.signingKey.publicKey, deviceID: device.deviceID)
        } catch {
            switch error.code {
            case .malformed, .tooLarge: throw HTTPError(.badRequest, code: .refMalformed, detail: error.message)
            default: throw HTTPError(.forbidden, code: .refRefused, detail: error.message)
            }
        }
        guard let mailboxID = Int64(ref.mailboxID), permission.covers(mailboxID: mailboxID) else {
            throw HTTPError(.forbidden, code: .mailboxNotPermitted, detail: "the device's content permission does not cover this mailbox")
        }
        return (refString, ref, mailboxID)
    }

    func fetch(_ ref: MessageReference, mailboxID: Int64) async throws -> FetchedMessage {
        do {
            return try await fetcher.fetch(mailboxID: mailboxID, folder: ref.folder, uidValidity: ref.uidValidity, uid: ref.uid)
        } catch let failure as MessageFetcher.Failure {
            switch failure {
            case .folderReset:
                throw HTTPError(.gone, code: .folderReset,
                                detail: "the folder was reset on the mail server (UIDVALIDITY changed); "
                                    + "the message can no longer be found by this reference")
            case .gone: throw HTTPError(.notFound, code: .messageGone, detail: "the message or its mailbox no longer exists")
            case .server(let reason): throw HTTPError(.badGateway, code: .mailServer,
                                                      detail: "the mail server did not give the message: \(reason)")
            }
        }
    }
}
