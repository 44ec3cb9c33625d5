import NIOCore
import PantryBounded

/// What the routes, what the API keeps and its HTTP server are told by the configuration
/// (`APIServer.Configuration` says what each means and its default).
package struct HTTPSettings: Sendable {
    package var host: String
    package var port: Int
    package var recipeReuse: Duration
    package var tokenLifetimeSeconds: Int64
    package var passwordLogN: Int
    package var hashingQueueWait: Duration
    package var loginLimitPerClient: RateLimit
    package var loginLimitOverall: RateLimit
    package var idleTimeout: TimeAmount
    package var headerTimeout: TimeAmount
    package var bodyTimeout: TimeAmount
    package var maxConnections: Int
    package var maxConnectionsPerAddress: Int
    package var accessLogPath: String?
    package var corsOrigins: Set<String>
    package var trustedProxies: Set<String>
    package var docsAssets: String
    package var liveHeartbeat: Duration
    package var passwordResetMail: PasswordResetMail?
    /// How the network between the processes is protected (`NetworkProtection`), said in every `/ready`.
    package var network: String

    package init(host: String, port: Int, recipeReuse: Duration, tokenLifetimeSeconds: Int64, passwordLogN: Int,
                 hashingQueueWait: Duration, loginLimitPerClient: RateLimit, loginLimitOverall: RateLimit,
                 idleTimeout: TimeAmount, headerTimeout: TimeAmount, bodyTimeout: TimeAmount,
                 maxConnections: Int, maxConnectionsPerAddress: Int, accessLogPath: String?,
                 corsOrigins: Set<String>, trustedProxies: Set<String>, docsAssets: String, liveHeartbeat: Duration,
                 passwordResetMail: PasswordResetMail?, network: String) {
        self.host = host
        self.port = port
        self.recipeReuse = recipeReuse
        self.tokenLifetimeSeconds = tokenLifetimeSeconds
        self.passwordLogN = passwordLogN
        self.hashingQueueWait = hashingQueueWait
        self.loginLimitPerClient = loginLimitPerClient
        self.loginLimitOverall = loginLimitOverall
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.accessLogPath = accessLogPath
        self.corsOrigins = corsOrigins
        self.trustedProxies = trustedProxies
        self.docsAssets = docsAssets
        self.liveHeartbeat = liveHeartbeat
        self.passwordResetMail = passwordResetMail
        self.network = network
    }
}
