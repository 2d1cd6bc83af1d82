import CHTTPServerShims
import Dispatch
import MailwakeCore
import MailwakeHTTPTypes

extension HTTPServer {
    /// Called on an MHD thread with a suspended connection: copy the request
    /// into Swift values and start its handler task. Never blocks.
    func dispatch(_ raw: OpaquePointer) {
        let receivedAt = DispatchTime.now().uptimeNanoseconds
        let headerCount = mw_http_request_header_count(raw)
        var headers = HTTPHeaders()
        headers.reserveCapacity(headerCount)
        for i in 0..<headerCount {
            headers.add(String(cString: mw_http_request_header_name(raw, i)), String(cString: mw_http_request_header_value(raw, i)))
        }
        let length = mw_http_request_body_length(raw)
        let body = length > 0 ? Array(UnsafeBufferPointer(start: mw_http_request_body(raw), count: length)) : []
        let request = HTTPRequest(method: HTTPMethod(rawValue: String(cString: mw_http_request_method(raw))),
                                  target: String(cString: mw_http_request_target(raw)),
                                  version: String(cString: mw_http_request_version(raw)),
                                  headers: headers, body: body,
                                  remoteAddress: String(cString: mw_http_request_client_address(raw)))
        let rejection = mw_http_request_rejection(raw)
        let deadline = receivedAt + UInt64(max(0.001, configuration.requestDeadlineSeconds) * 1e9)
        let pending = PendingRequest(raw, deadline: deadline)
        let requestID = RequestID.generate()
        let context = RequestContext(requestID: requestID, logger: logger,
                                     route: "unmatched", receivedAt: receivedAt, deadline: deadline)
        let finalized = state.withLock { s -> Bool in
            guard !s.finalized else { return true }
            s.inFlight[ObjectIdentifier(pending)] = pending
            return false
        }
        if finalized {
            pending.answer(HTTPError(.serviceUnavailable, code: .shuttingDown, detail: "the server is shutting down",
                                     headers: ["Connection": "close"]).response(requestID: requestID))
            return
        }
        metrics.inFlight.increment()

        if rejection == 413 {
            let problem = HTTPError(.contentTooLarge, code: .payloadTooLarge,
                                    detail: "the request body is larger than \(configuration.maxBodyBytes) bytes",
                                    headers: ["Connection": "close"])
            finish(pending, problem.response(requestID: requestID), request: request, context: context)
            return
        }

        let onDeadline: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            let problem = HTTPError(.serviceUnavailable, code: .deadlineExceeded,
                                    detail: "the request took longer than \(self.configuration.requestDeadlineSeconds) s",
                                    headers: ["Retry-After": "1"])
            if self.finish(pending, problem.response(requestID: requestID), request: request, context: context) {
                pending.cancelHandler()
            }
        }
        // Armed before the handler runs: it may answer at once, from another thread, and detach the request.
        let armDeadline = { pending.attach(task: nil, onDeadline: onDeadline) }
        let answeredInline = responder.offerInline(request, context: context, willOffer: armDeadline) { [self] response, routed in
            finish(pending, response, request: request, context: routed)
            pending.detach()
        }
        if answeredInline { return }
        let task = Task { [self] in
            var routed = context
            let response = await self.responder.respond(to: request, context: &routed)
            self.finish(pending, response, request: request, context: routed)
            pending.detach()
        }
        pending.attach(task: task, onDeadline: onDeadline)
    }

    /// Answers every request past its deadline; runs every 50 ms while the server is up.
    func sweepDeadlines() {
        let now = DispatchTime.now().uptimeNanoseconds
        let expired = state.withLock { s in s.inFlight.values.filter { $0.deadline <= now } }
        for pending in expired { pending.expire() }
    }

    /// Answers `pending` (if nobody did yet), logs the access line and counts it.
    @discardableResult
    func finish(_ pending: PendingRequest, _ response: HTTPResponse, request: HTTPRequest, context: RequestContext) -> Bool {
        var response = response
        response.headers.replace("X-Request-Id", context.requestID)
        for (name, value) in configuration.responseHeaders where response.headers[name] == nil { response.headers.replace(name, value) }
        if isDraining.load(ordering: .acquiring) { response.headers.replace("Connection", "close") }
        guard pending.answer(response) else {
            context.logger.debug("handler finished after the request was answered", ["route": .string(context.route)])
            return false
        }
        state.withLock { _ = $0.inFlight.removeValue(forKey: ObjectIdentifier(pending)) }
        metrics.inFlight.decrement()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - context.receivedAt) / 1e9
        let route = context.route
        let (counter, histogram) = metrics.series(method: request.method.rawValue, route: route, status: response.status.code)
        counter.increment()
        histogram.observe(seconds)
        guard context.logLevel <= .info else { return true }
        context.logger.info("request", [
            "method": .string(request.method.rawValue), "route": .string(route), "status": .int(response.status.code),
            "duration_ms": .double((seconds * 1e6).rounded() / 1e3), "bytes_in": .int(request.body.count),
            "bytes_out": .int(response.body.count), "remote": .string(request.remoteAddress),
        ])
        return true
    }
}
