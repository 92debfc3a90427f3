// How a child's end is learned, and reaping.
//
// The rule that keeps a pid from naming some other process: the child is reaped (its pid freed)
// only under the `exitState` lock, only by a call that needs nothing more from the kernel afterwards,
// and never while a `waitUntilExit()` is blocked in `waitid` on that pid. Blocked waiters wait with
// WNOWAIT (the child stays a zombie, so its pid stays ours); the last of them to wake reaps it.
// `signal(_:)` sends nothing once the child has been reaped.

import Foundation
import Glibc

extension ChildProcess {
    /// How a child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status (0–255).
        case exited(Int32)
        /// This signal ended it.
        case signalled(Int32)
        /// Some other code of this process reaped it (`waitpid(-1, …)`), so its status is lost.
        case unknown

        /// The exit status, or the signal number after a signal (as Foundation's `Process` reports
        /// it); -1 if unknown.
        public var status: Int32 {
            switch self {
            case .exited(let status), .signalled(let status): status
            case .unknown: -1
            }
        }

        public var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            case .unknown: "ended with an unknown status"
            }
        }
    }

    struct ExitState: Sendable {
        /// Known once the child has ended (from a reap or from a WNOWAIT look).
        var termination: Termination?
        /// The pid has been freed: the kernel may give it to another process.
        var reaped = false
        /// Threads blocked in `waitid(…, WNOWAIT)` on the pid.
        var blockedWaiters = 0
    }

    /// True until the child has ended; never blocks.
    public var isRunning: Bool { exitState.withLock { self.check(&$0) } == nil }

    /// How the child ended, or nil while it runs; never blocks.
    public var termination: Termination? { exitState.withLock { self.check(&$0) } }

    /// The exit status, or the signal number if a signal ended the child (as Foundation's `Process`
    /// reports it); waits for the child to end first.
    public var terminationStatus: Int32 { waitUntilExit().status }

    /// Blocks until the child ends and returns how it ended (at once if it already has).
    @discardableResult
    public func waitUntilExit() -> Termination {
        while true {
            let known = exitState.withLock { state -> Termination? in
                if let termination = check(&state) { return termination }
                state.blockedWaiters += 1
                return nil
            }
            if let known { return known }
            var info = siginfo_t()
            var result: Int32
            repeat { result = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) } while result == -1 && errno == EINTR
            let failure = result == 0 ? 0 : errno
            exitState.withLock { state in
                state.blockedWaiters -= 1
                if state.termination == nil {
                    // ECHILD: someone outside this type reaped it; anything else cannot happen for our own child.
                    state.termination = failure == 0 ? Self.termination(info) : .unknown
                    if failure != 0 { state.reaped = true }
                }
                if state.blockedWaiters == 0, !state.reaped { reap(&state) }
            }
        }
    }

    /// Sends `signal` to the child; does nothing once the child has been reaped.
    public func signal(_ signal: Int32) {
        exitState.withLock { state in
            if !state.reaped { kill(pid, signal) }
        }
    }

    /// What is known of the child's end, asking the kernel without blocking. Reaps the child unless
    /// a waiter is blocked on its pid.
    private func check(_ state: inout ExitState) -> Termination? {
        if let termination = state.termination { return termination }
        if state.blockedWaiters == 0 {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid {
                state.termination = Self.termination(waitStatus: status)
                state.reaped = true
            } else if result == -1, errno == ECHILD {
                state.termination = .unknown
                state.reaped = true
            }
        } else {
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0, info._sifields._sigchld.si_pid == pid {
                state.termination = Self.termination(info)
            }
        }
        return state.termination
    }

    /// Frees the pid of a child that has ended (a zombie: this returns at once).
    private func reap(_ state: inout ExitState) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        state.reaped = true
    }

    /// Called from `deinit`: a child still running is reaped by a thread of its own when it ends,
    /// so that it does not stay a zombie for the rest of our life.
    func reapWhenDone() {
        guard isRunning else { return }  // ended: `check` has reaped it
        let pid = self.pid
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        }
    }

    /// Decodes a status from `waitpid` (the WIFEXITED/WEXITSTATUS/WTERMSIG macros, which Swift does not import).
    static func termination(waitStatus status: Int32) -> Termination {
        status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signalled(status & 0x7f)
    }

    /// Decodes the `siginfo_t` that `waitid` fills in for an ended child.
    static func termination(_ info: siginfo_t) -> Termination {
        let status = info._sifields._sigchld.si_status
        return info.si_code == CLD_EXITED ? .exited(status) : .signalled(status)
    }
}
