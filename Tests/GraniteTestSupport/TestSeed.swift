// The seed policy of every randomized test, and the scale of the long runs.

import Foundation

/// The scale factor of long randomized runs: `GRANITE_STRESS=10 swift test` runs ten times as many
/// operations. 1 when unset or not a positive integer.
public let stressFactor: Int = {
    guard let raw = ProcessInfo.processInfo.environment["GRANITE_STRESS"], let value = Int(raw), value > 0 else {
        return 1
    }
    return value
}()

/// The seed a CI run uses when `GRANITE_SEED` is not set.
public let continuousIntegrationSeed: UInt64 = 0x4752_414E_4954_4521

/// The seed of a randomized test: `GRANITE_SEED` when set; ``continuousIntegrationSeed`` under CI
/// (`CI` set), so that a CI run is reproducible; otherwise a fresh random seed, so that local runs
/// keep exploring.
///
/// The seed is printed with the test's name as it is drawn, so the log of a failing run shows the
/// `GRANITE_SEED=…` that reproduces it just before the failure.
public func testSeed(function: String = #function, fileID: String = #fileID) -> UInt64 {
    let environment = ProcessInfo.processInfo.environment
    let seed: UInt64
    if let raw = environment["GRANITE_SEED"], let value = UInt64(raw) {
        seed = value
    } else if environment["CI"] != nil {
        seed = continuousIntegrationSeed
    } else {
        seed = UInt64.random(in: .min ... .max)
    }
    print("\(fileID) \(function): seed \(seed) (rerun with GRANITE_SEED=\(seed))")
    return seed
}
