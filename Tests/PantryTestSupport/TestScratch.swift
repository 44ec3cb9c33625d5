import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One directory per test process in the system's temporary directory, removed as the process
/// exits: for what a test cannot remove itself (a key store a whole suite shares, a file whose
/// WAL outlives its handle), so that a test run leaves nothing behind.
package let testScratch: URL = {
    let url = URL(fileURLWithPath: testScratchPath)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(atPath: testScratchPath) }
    return url
}()

private let testScratchPath = FileManager.default.temporaryDirectory
    .appendingPathComponent("pantry-tests-\(getpid())-\(UUID().uuidString.prefix(8))").path

/// A new path in `testScratch` named `prefix`, a unique part and `suffix` (nothing is made there).
package func scratchPath(_ prefix: String, _ suffix: String = "") -> String {
    testScratch.appendingPathComponent("\(prefix)-\(UUID().uuidString)\(suffix)").path
}
