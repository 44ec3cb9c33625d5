import Foundation

/// The web app's files as this target ships them: `Web`, copied whole into its resource bundle.
package enum WebFiles {
    /// Their folder; nil if the bundle holds none.
    package static var root: String? { Bundle.module.resourceURL?.appendingPathComponent("Web").path }
}
