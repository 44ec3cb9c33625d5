/// Lets a test that compares the process's metrics (one registry for every deployment) run with
/// no other deployment beside it, while the others run side by side.
actor DeploymentGate {
    static let shared = DeploymentGate()

    private var running = 0
    /// Set while a lone deployment waits or runs: no other starts meanwhile, so it is not starved.
    private var alone = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func enter(alone wantsToBeAlone: Bool) async {
        while alone { await withCheckedContinuation { waiting.append($0) } }
        running += 1
        guard wantsToBeAlone else { return }
        alone = true
        while running > 1 { await withCheckedContinuation { waiting.append($0) } }
    }

    func leave(alone wasAlone: Bool) {
        running -= 1
        if wasAlone { alone = false }
        let woken = waiting
        waiting = []
        for waiter in woken { waiter.resume() }
    }
}
