import MailwakeProtocol
import MailwakeHTTPServer
import MailwakeHTTPTypes
import MailwakePostgres

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
        for kind in ["devices", "outposts"] {
            let table = kind
            let idColumn = kind == "devices" ? "device_id" : "outpost_id"
            router.put("/operator/v1/\(kind)/{id}/block") { [self] request, context in
                try checkOperator(request)
                let reason = try request.decodeJSON(BlockRequest.self).reason
                let id = try context.parameter("id")
                let changed = try await database.execute("""
                    UPDATE \(identifier: table) SET blocked_at = COALESCE(blocked_at, \(clock())), block_reason = \(reason) WHERE \(identifier: idColumn) = \(id)
                    """)
                guard changed == 1 else { throw HTTPError(.notFound, code: "not-found", detail: "no such \(kind.dropLast())") }
                context.logger.notice("blocked by the operator", [idColumn: .string(id)])
                return .empty(.noContent)
            }
            router.delete("/operator/v1/\(kind)/{id}/block") { [self] request, context in
                try checkOperator(request)
                let id = try context.parameter("id")
                let changed = try await database.execute("""
                    UPDATE \(identifier: table) SET blocked_at = NULL, block_reason = NULL WHERE \(identifier: idColumn) = \(id)
                    """)
                guard changed == 1 else { throw HTTPError(.notFound, code: "not-found", detail: "no such \(kind.dropLast())") }
                context.logger.notice("unblocked by the operator", [idColumn: .string(id)])
                return .empty(.noContent)
            }
        }
        addOperatorPurchaseRoutes(to: &router)
    }

    func addOperatorPurchaseRoutes(to router: inout Router) {
        router.get("/operator/v1/purchases/{original_transaction_id}") { [self] request, context in
            try checkOperator(request)
            let original = try context.parameter("original_transaction_id")
            guard let purchase = try await PurchaseSharing.load([original], from: database, limit: configuration.purchaseDeviceLimit).first else {
                throw HTTPError(.notFound, code: "purchase-not-found", detail: "no such originalTransactionId")
            }
            return try .json(purchase)
        }
    }

    func checkOperator(_ request: HTTPRequest) throws {
        guard let operatorGate else { throw HTTPError(.notFound, code: "not-found", detail: "the operator API is disabled") }
        try operatorGate.check(request)
    }
}
