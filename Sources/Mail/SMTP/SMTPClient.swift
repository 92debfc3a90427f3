// Submits messages to one SMTP server through libcurl.
//
// Threading: a client is owned by one thread (the mail sender's) and every call blocks it; the
// libcurl easy handle keeps the connection open between messages (libcurl closes it after about
// two minutes idle and reconnects when needed). libcurl's signal use is off (CURLOPT_NOSIGNAL), as
// a multithreaded process needs.

internal import CCurl
import Foundation
import SystemSupport

/// An SMTP submission client: one message to one recipient per call, with a typed outcome
/// (`SMTPOutcome`) that carries the server's reply.
public final class SMTPClient {
    public let configuration: SMTPConfiguration
    private let handle: UnsafeMutableRawPointer
    /// The message being uploaded and the transcript of the exchange (the callbacks' context).
    private let transfer = SMTPTransfer()
    /// libcurl's own account of the last failure (CURLOPT_ERRORBUFFER).
    private let errorBuffer: UnsafeMutablePointer<CChar>

    public init(_ configuration: SMTPConfiguration) throws(MailError) {
        guard SMTPClient.globalInit == CURLE_OK else { throw MailError(.curl, "libcurl cannot initialize") }
        guard let handle = curl_easy_init() else { throw MailError(.curl, "libcurl cannot create a handle") }
        self.configuration = configuration
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure()
    }

    deinit {
        curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// libcurl's global setup, once per process, before the first handle.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    private func configure() throws(MailError) {
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        try set(CURLOPT_URL, configuration.url)
        try set(CURLOPT_PROTOCOLS_STR, "smtp,smtps")
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_UPLOAD, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, Int(configuration.connectTimeout.milliseconds))
        try set(CURLOPT_TIMEOUT_MS, Int(configuration.messageTimeout.milliseconds))
        let security: curl_usessl = switch configuration.security {
        case .implicitTLS, .requireStartTLS: CURLUSESSL_ALL
        case .startTLSIfOffered: CURLUSESSL_TRY
        }
        try set(CURLOPT_USE_SSL, Int(security.rawValue))
        if let caFile = configuration.caFile { try set(CURLOPT_CAINFO, caFile) }
        if let username = configuration.username { try set(CURLOPT_USERNAME, username) }
        if let password = configuration.password { try set(CURLOPT_PASSWORD, password) }
        try check(shim_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(shim_curl_setopt_read_function(handle, smtpReadCallback), "CURLOPT_READFUNCTION")
        try check(shim_curl_setopt_pointer(handle, CURLOPT_READDATA, context), "CURLOPT_READDATA")
        // The debug callback is how libcurl shows the server's replies; nothing is printed.
        try check(shim_curl_setopt_debug_function(handle, smtpDebugCallback), "CURLOPT_DEBUGFUNCTION")
        try check(shim_curl_setopt_pointer(handle, CURLOPT_DEBUGDATA, context), "CURLOPT_DEBUGDATA")
        try set(CURLOPT_VERBOSE, 1)
    }

    /// Submits `message` (a complete RFC 5322 message with CRLF line ends) from `sender` to
    /// `recipient` (bare addresses, checked by `MailAddress`).
    public func send(from sender: String, to recipient: String, message: [UInt8]) -> SMTPOutcome {
        transfer.begin(message)
        errorBuffer[0] = 0
        var recipients: UnsafeMutablePointer<curl_slist>?
        defer {
            _ = shim_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, nil)
            curl_slist_free_all(recipients)
        }
        recipients = curl_slist_append(nil, "<\(recipient)>")
        guard recipients != nil,
            shim_curl_setopt_string(handle, CURLOPT_MAIL_FROM, "<\(sender)>") == CURLE_OK,
            shim_curl_setopt_slist(handle, CURLOPT_MAIL_RCPT, recipients) == CURLE_OK,
            shim_curl_setopt_offset(handle, CURLOPT_INFILESIZE_LARGE, curl_off_t(message.count)) == CURLE_OK
        else {
            return .transient(SMTPFailure(stage: .connect, reply: nil, detail: "libcurl refused the message's options"))
        }
        let code = curl_easy_perform(handle)
        return Self.outcome(code, transcript: transfer.transcript, detail: detail(for: code))
    }

    /// libcurl's message for a failure: its error buffer, else the code's description.
    private func detail(for code: CURLcode) -> String {
        let buffered = String(cString: errorBuffer)
        return buffered.isEmpty ? String(cString: curl_easy_strerror(code)) : buffered
    }

    /// What a finished exchange means: the first negative reply decides (by its code and the step
    /// it answered); without one, libcurl's code does.
    static func outcome(_ code: CURLcode, transcript: SMTPTranscript, detail: String) -> SMTPOutcome {
        if code == CURLE_OK {
            return .accepted(transcript.lastReply ?? SMTPReply(code: 250, text: ""))
        }
        if let (stage, reply) = transcript.failure {
            let failure = SMTPFailure(stage: stage, reply: reply, detail: detail)
            guard reply.isPermanent else { return .transient(failure) }
            switch stage {
            case .recipient, .data:
                return .rejected(failure)
            case .mailFrom:
                // 552 to MAIL FROM is the message's size (the SIZE parameter); anything else is about our sender.
                return reply.code == 552 ? .rejected(failure) : .refused(failure)
            case .connect, .hello, .startTLS, .authentication:
                return .refused(failure)
            }
        }
        let failure = SMTPFailure(stage: transcript.stage, reply: nil, detail: detail)
        let ourConfiguration: Set<CURLcode> = [
            CURLE_USE_SSL_FAILED, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
            CURLE_LOGIN_DENIED, CURLE_AUTH_ERROR, CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT,
        ]
        return ourConfiguration.contains(code) ? .refused(failure) : .transient(failure)
    }

    private func set(_ option: CURLoption, _ value: Int) throws(MailError) {
        try check(shim_curl_setopt_long(handle, option, value), "option \(option.rawValue)")
    }

    private func set(_ option: CURLoption, _ value: String) throws(MailError) {
        try check(shim_curl_setopt_string(handle, option, value), "option \(option.rawValue)")
    }

    private func check(_ code: CURLcode, _ what: String) throws(MailError) {
        guard code == CURLE_OK else {
            throw MailError(.curl, "libcurl refused \(what): \(String(cString: curl_easy_strerror(code)))")
        }
    }
}
