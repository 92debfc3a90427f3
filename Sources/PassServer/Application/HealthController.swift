import HTTPServer
import Logging
import Storage

/// `/healthz`: the process answers. `/readyz`: the database answers and no component reports a
/// problem; the body lists every reason (503) and every warning (also with 200), so a load
/// balancer stops sending traffic and an operator sees why.
struct HealthController: Sendable {
    let store: any Store
    let readiness: Readiness
    let logger: Logger

    private struct Status: Encodable {
        var status: String
    }

    /// The `/readyz` body. On 503 it also carries the usual `error` object, whose message joins the reasons.
    struct ReadinessBody: Encodable {
        var status: String
        var reasons: [Readiness.Finding]
        var warnings: [Readiness.Finding]
        var error: ErrorDetail?

        struct ErrorDetail: Encodable {
            var code: String
            var message: String
        }
    }

    func register(in router: inout Router) {
        // The same bytes every time: encoded once, not per request (load balancers ask often).
        let alive = Response.json(Status(status: "ok"), encoder: .api)
        router.get("/healthz") { _ in alive }
        router.get("/readyz") { request in
            var findings: [Readiness.Finding] = []
            do {
                try store.ping()
            } catch {
                logger.warning("readiness check: database unavailable", ["error": "\(error)", "request.id": request.requestID])
                findings.append(Readiness.Finding(severity: .problem, component: "database", message: "unreachable"))
            }
            findings += readiness.evaluate()
            let reasons = findings.filter { $0.severity == .problem }
            let warnings = findings.filter { $0.severity == .warning }
            guard reasons.isEmpty else {
                let message = reasons.map { "\($0.component): \($0.message)" }.joined(separator: "; ")
                let body = ReadinessBody(status: "not_ready", reasons: reasons, warnings: warnings, error: .init(code: "not_ready", message: message))
                return .json(body, status: 503, encoder: .api)
            }
            return .json(ReadinessBody(status: "ready", reasons: [], warnings: warnings), encoder: .api)
        }
    }
}
