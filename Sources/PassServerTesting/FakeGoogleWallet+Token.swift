// The fake's OAuth 2.0 token endpoint: the JWT bearer grant of a service account (RFC 7523), as
// Google's token endpoint documents it.

import ByteEncoding
import Certificates
import Foundation
import HTTPServer

extension FakeGoogleWallet {
    static let walletScope = "https://www.googleapis.com/auth/wallet_object.issuer"

    func token(_ request: Request) throws -> Response {
        if let failure = takeFailure(method: "POST", kind: .token) {
            return scriptedAnswer(failure, to: request, kind: .token)
        }
        let form = Self.parseForm(request.bodyText ?? "")
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" else {
            return oauthError(request, "unsupported_grant_type", "Invalid grant_type: \(form["grant_type"] ?? "")")
        }
        guard let assertion = form["assertion"] else { return oauthError(request, "invalid_request", "Missing required parameter: assertion") }
        if let problem = check(assertion: assertion) { return oauthError(request, "invalid_grant", problem) }
        let token = "ya29.fake-" + Hex.encode(SecureRandom.bytes(24))
        let expiry = Date().addingTimeInterval(TimeInterval(tokenLifetime))
        state.withLock { state in
            state.tokens[token] = expiry
            state.grants += 1
        }
        record(request, kind: .token, status: 200)
        return Self.jsonResponse(["access_token": token, "expires_in": tokenLifetime, "token_type": "Bearer"])
    }

    /// Why `assertion` is no valid grant of a registered account; nil when it is one.
    func check(assertion: String) -> String? {
        let parts = assertion.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]),
            let header = (try? JSONSerialization.jsonObject(with: Data(headerBytes))) as? [String: Any],
            let claims = (try? JSONSerialization.jsonObject(with: Data(claimBytes))) as? [String: Any]
        else { return "Invalid JWT: not a signed JWT." }
        guard header["alg"] as? String == "RS256" else { return "Invalid JWT: the algorithm is not RS256." }
        guard let issuer = claims["iss"] as? String, let account = state.withLock({ $0.verifiers[issuer] }) else {
            return "Invalid JWT: no service account \(claims["iss"] as? String ?? "") is known."
        }
        guard header["kid"] as? String == account.keyID else { return "Invalid JWT Signature: unknown key id." }
        guard account.verifier.verify(signature, of: Array("\(parts[0]).\(parts[1])".utf8)) else { return "Invalid JWT Signature." }
        guard claims["aud"] as? String == endpoints.token else { return "Invalid JWT: the audience is not the token endpoint." }
        let scopes = (claims["scope"] as? String ?? "").split(separator: " ")
        guard scopes.contains(Substring(Self.walletScope)) else { return "Invalid JWT: the scope does not include the Wallet API." }
        guard let iat = (claims["iat"] as? NSNumber)?.intValue, let exp = (claims["exp"] as? NSNumber)?.intValue else {
            return "Invalid JWT: iat and exp are required."
        }
        let now = Int(Date().timeIntervalSince1970)
        guard iat <= now + 60 else { return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe." }
        guard exp > now, exp > iat, exp - iat <= 3600 else {
            return "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values."
        }
        return nil
    }

    /// `{"error":…,"error_description":…}` with 400, as RFC 6749 §5.2 and Google answer.
    private func oauthError(_ request: Request, _ code: String, _ description: String) -> Response {
        record(request, kind: .token, status: 400)
        return Self.jsonResponse(["error": code, "error_description": description], status: 400)
    }

    /// A scripted failure, recorded; a token endpoint's status failure carries an OAuth error body.
    func scriptedAnswer(_ failure: Failure, to request: Request, kind: Kind) -> Response {
        switch failure {
        case .drop:
            record(request, kind: kind, status: 0, dropped: true)
            return Self.dropped()
        case .status(let status):
            record(request, kind: kind, status: status)
            if kind == .token {
                return Self.jsonResponse(["error": status == 400 ? "invalid_grant" : "internal_failure", "error_description": "scripted"], status: status)
            }
            return Self.scripted(status)
        }
    }

    /// `application/x-www-form-urlencoded` fields (`+` is a space).
    static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in String(part).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            fields[decode(parts[0])] = parts.count > 1 ? decode(parts[1]) : ""
        }
        return fields
    }
}
