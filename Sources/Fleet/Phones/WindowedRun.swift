/// Runs `count` asynchronous steps with at most `window` in flight (event loop thread only). The
/// first error stops new steps; `done` runs once, after the last running step has ended.
final class WindowedRun {
    typealias Step = (_ index: Int, _ finished: @escaping (FleetError?) -> Void) -> Void

    private let count: Int
    private let window: Int
    private let step: Step
    private var done: ((FleetError?) -> Void)?
    private var next = 0
    private var running = 0
    private var firstError: FleetError?

    init(count: Int, window: Int, step: @escaping Step, done: @escaping (FleetError?) -> Void) {
        self.count = count
        self.window = max(1, window)
        self.step = step
        self.done = done
    }

    /// Steps must finish asynchronously (never inside `step` itself).
    func start() { fill() }

    private func fill() {
        while running < window, next < count, firstError == nil {
            let index = next
            next += 1
            running += 1
            step(index) { [self] error in
                running -= 1
                if let error, firstError == nil { firstError = error }
                fill()
            }
        }
        if running == 0, next >= count || firstError != nil, let finish = done {
            done = nil
            finish(firstError)
        }
    }
}
