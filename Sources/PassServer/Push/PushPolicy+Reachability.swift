import Foundation

extension PushPolicy.Outcome {
    /// What a push's outcome says about APNs's reachability (`Reachability`): lost connections and
    /// timeouts say nothing either way (APNs was reached), nor does a push that was only logged.
    var reachedAPNs: Bool? {
        switch self {
        case .unreachable: false
        case .answered: true
        case .transportFailure, .logged: nil
        }
    }
}

extension Reachability {
    /// Takes one push outcome into account.
    mutating func observe(_ outcome: PushPolicy.Outcome, at time: Date) -> Change? {
        observe(reached: outcome.reachedAPNs, at: time)
    }
}
