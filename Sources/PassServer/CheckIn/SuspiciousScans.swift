import Foundation
import Logging
import PassIdentifiers

/// The forged codes and refused bare serials of one request, counted, with the first few kept
/// for its log line.
struct SuspiciousScans {
    struct Sample {
        var code: String
        var serial: String
        var gate: String
    }

    var forged = 0
    var unsigned = 0
    var samples: [Sample] = []

    var total: Int { forged + unsigned }

    mutating func note(_ scan: DoorScan, serial: SerialNumber, forged isForged: Bool) {
        if isForged { forged += 1 } else { unsigned += 1 }
        if samples.count < ScanWarnings.samples { samples.append(Sample(code: scan.code, serial: serial.rawValue, gate: scan.gate ?? "")) }
    }

    /// Writes the warning line of a request's suspicious scans (none: nothing), if the scanner's
    /// lines are within `ScanWarnings.linesPerMinute`: one line per request, a batch's with its
    /// counts and a few of its codes (`batch` is its number of scans; nil for a single scan).
    func log(to logger: Logger, warnings: ScanWarnings, batch: Int?, scanner: String, requestID: String, now: Date) {
        guard let first = samples.first else { return }
        guard let unlogged = warnings.admit(scanner: scanner, scans: total, now: now) else { return }
        // Everything a scanner sends is escaped by the logger.
        var fields: Logger.Metadata = ["admin.token": scanner, "request.id": requestID]
        if unlogged > 0 { fields["checkin.unlogged"] = "\(unlogged)" }
        guard let batch else {
            fields["checkin.code"] = first.code
            fields["pass.serial"] = first.serial
            fields["checkin.gate"] = first.gate
            logger.warning(forged > 0 ? "forged ticket code scanned" : "bare serial of a signed ticket scanned", fields)
            return
        }
        fields["checkin.scans"] = "\(batch)"
        fields["checkin.forged"] = "\(forged)"
        fields["checkin.unsigned"] = "\(unsigned)"
        fields["checkin.gate"] = first.gate
        for (number, sample) in samples.enumerated() { fields["checkin.sample.\(number + 1)"] = sample.code }
        logger.warning("forged codes or bare serials of signed tickets in a batch", fields)
    }
}
