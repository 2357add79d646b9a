// Transfer+Redirects: following a 3xx — the Location to follow, the decision (follow, over the
// limit, refused by the redirect handler) and draining the body nobody wants. Split from
// Transfer.swift, which keeps the exchange that calls these.

import CourierHTTP1

extension Transfer {
    // MARK: Redirects

    /// The Location to follow (RFC 9110 §10.2.2): nil when there is none or it is empty — the
    /// 3xx is then the final response, as curl and browsers deliver it. Two different Location
    /// values leave no way to tell where the resource is: neither is requested, the body is
    /// drained and the task fails (`.conflictingLocations`, curl exit 8).
    func redirectLocation(_ response: HTTP1Response, connection: HTTP1Connection, url: String) async throws -> String? {
        var location: String?
        for value in response.head.headers["Location"] where !value.isEmpty {
            if let earlier = location, earlier != value {
                try await drain(response.body, connection: connection)
                throw SessionError(.conflictingLocations, "Weird server reply: two different Location fields (\(earlier), \(value))", url: url)
            }
            location = value
        }
        return location
    }

    /// What to do with a followable 3xx.
    enum RedirectDecision {
        /// Send this request next.
        case follow(HTTPRequest)
        /// The redirect limit is reached: the task fails with `.tooManyRedirects`.
        case overLimit
        /// The redirect handler refused it: the 3xx itself is the task's response, as
        /// AFNetworking returns it when the redirect block answers nil; nothing is sent again.
        case refused
    }

    /// Decides a redirect while its response is still unread. A redirect that cannot be followed
    /// drains the body, then throws.
    func redirect(to location: String, from request: HTTPRequest, head: HTTPResponseHead,
                          redirectsSoFar: Int, body: HTTP1ResponseBody, connection: HTTP1Connection) async throws -> RedirectDecision {
        guard redirectsSoFar < configuration.redirectLimit else { return .overLimit }
        var next: HTTPRequest
        do throws(SessionError) {
            next = try RedirectRules.nextRequest(after: request, status: head.status, location: location,
                                                 allowsInsecure: configuration.allowsInsecureRedirects)
        } catch {
            try await drain(body, connection: connection)
            throw error
        }
        if let handler = storage.hooks.withLock({ $0.redirect }) {
            let redirect = Redirect(status: head.status, response: head, previousRequest: request, nextRequest: next)
            // User code runs off the loop.
            let decision = await withTaskExecutorPreference(globalConcurrentExecutor) { await handler(redirect) }
            switch decision {
            case .follow: break
            case .followWith(let replacement): next = replacement
            case .refuse: return .refused
            }
        }
        return .follow(next)
    }

    /// Reads and drops a body that nobody wants (a redirect's); a large one closes the connection
    /// instead of being read (curl reads redirect bodies too, up to a limit).
    func drain(_ body: HTTP1ResponseBody, connection: HTTP1Connection) async throws {
        var dropped = 0
        for try await slice in body {
            dropped += slice.readableBytes
            if dropped > 1 << 20 {
                await connection.close()
                return
            }
        }
    }
}
