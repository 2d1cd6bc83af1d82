import MailwakeServiceSupport
import MailwakeProtocol
import MailwakeHTTPServer
import MailwakeHTTPTypes

/// The body of the operator's block calls.
struct BlockRequest: Decodable, Sendable {
    var reason: String
    enum CodingKeys: String, CodingKey, CaseIterable { case reason }
    init(from decoder: any Decoder) throws {
        try decoder.rejectUnknownKeys(allowed: Set(CodingKeys.allCases.map(\.rawValue)), in: "block request")
        reason = try DeviceFields.short(decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .reason), field: "reason")
    }
}

extension AccountsApp {
    func addOperatorRoutes(to router: inout Router) {
        router.group("/operator/v1", middleware: operatorAuthentication) { operatorRoutes in
            addBlockRoutes(to: &operatorRoutes)
            addOperatorPurchaseRoutes(to: &operatorRoutes)
        }
    }

    /// Blocking and unblocking devices and outposts.
    func addBlockRoutes(to router: inout RouterGroup) {
        for target in BlockStore.Target.allCases {
            let kind = target.rawValue
            router.put("/\(kind)/{id}/block") { [self] request, context in
                let reason = try request.decodeJSON(BlockRequest.self).reason
                let id = try context.parameter("id")
                guard try await blockStore.block(target, id: id, reason: reason, now: clock()) else {
                    throw HTTPError(.notFound, code: .notFound, detail: "no such \(kind.dropLast())")
                }
                context.logger.notice("blocked by the operator", [target.idColumn: .string(id)])
                return .empty(.noContent)
            }
            router.delete("/\(kind)/{id}/block") { [self] request, context in
                let id = try context.parameter("id")
                guard try await blockStore.unblock(target,
                                                   id: id) else { throw HTTPError(.notFound, code: .notFound,
                                                                                  detail: "no such \(kind.dropLast())") }
                context.logger.notice("unblocked by the operator", [target.idColumn: .string(id)])
                return .empty(.noContent)
            }
        }
    }

    func addOperatorPurchaseRoutes(to router: inout RouterGroup) {
        router.get("/purchases/{original_transaction_id}") { [self] request, context in
            let original = try context.parameter("original_transaction_id")
            guard let purchase = try await purchaseStore.sharing([original], deviceLimit: configuration.purchaseDeviceLimit).first else {
                throw HTTPError(.notFound, code: .purchaseNotFound, detail: "no such originalTransactionId")
            }
            return try .json(purchase)
        }
    }

    /// The operator token opens the group; without one configured the operator API answers 404.
    var operatorAuthentication: [any HTTPMiddleware] {
        guard let operatorGate else { return [RefusingMiddleware(HTTPError(.notFound, code: .notFound,
                                                                           detail: "the operator API is disabled"))] }
        return [BearerTokenAuthentication(operatorGate, as: .operator, named: "operator")]
    }
}
