/// What the routes reach outside the API's process, each through a port: the wiring (`PantryAPI`)
/// gives its ZeroMQ adapters, a test may give a port of its own.
package struct HTTPPorts: Sendable {
    package var commands: any CommandPort
    package var queries: any QueryPort
    package var recipes: any RecipePort
    package var feed: any FeedPort

    package init(commands: any CommandPort, queries: any QueryPort, recipes: any RecipePort, feed: any FeedPort) {
        self.commands = commands
        self.queries = queries
        self.recipes = recipes
        self.feed = feed
    }
}
