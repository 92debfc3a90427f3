/// What one SMTP exchange said, as libcurl reports it line by line (its debug callback): the
/// commands it sent tell which step each reply answers; the first negative reply is the one that
/// ended the exchange (libcurl stops there, and then only says QUIT).
///
/// Pure: fed with lines, tested without a server.
struct SMTPTranscript {
    /// The step the last command sent began (the greeting belongs to `.connect`).
    private(set) var stage: SMTPStage = .connect
    /// The last complete reply before QUIT.
    private(set) var lastReply: SMTPReply?
    /// The first reply that was not 2xx or 3xx, with the step it answered.
    private(set) var failure: (stage: SMTPStage, reply: SMTPReply)?
    private var quitting = false
    /// The lines of a multi-line reply so far.
    private var pendingLines: [String] = []

    /// Starts over for the next message (the connection may be reused: no greeting then).
    mutating func reset() {
        self = SMTPTranscript()
    }

    /// The commands that begin a step, by the start of their line.
    private static let commands: [(prefix: String, stage: SMTPStage)] = [
        ("EHLO", .hello), ("HELO", .hello), ("STARTTLS", .startTLS), ("AUTH", .authentication),
        ("MAIL FROM", .mailFrom), ("RCPT TO", .recipient), ("DATA", .data),
    ]

    /// A command line libcurl sent.
    mutating func sent(_ line: String) {
        let command = line.uppercased()
        if let step = Self.commands.first(where: { command.hasPrefix($0.prefix) }) {
            stage = step.stage
        } else if command.hasPrefix("QUIT") {
            quitting = true
        }
        // Anything else (an AUTH continuation) belongs to the step in progress.
    }

    /// A reply line the server sent.
    mutating func received(_ line: String) {
        guard !quitting, let parsed = SMTPReply.parseLine(line) else { return }
        pendingLines.append(parsed.text)
        guard parsed.isLast else { return }
        let reply = SMTPReply(code: parsed.code, text: pendingLines.filter { !$0.isEmpty }.joined(separator: " "))
        pendingLines.removeAll()
        lastReply = reply
        if !reply.isPositive && failure == nil { failure = (stage, reply) }
    }
}
