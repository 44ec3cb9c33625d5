import PantryProjections
import PantryWire
import Testing

@Suite struct WorkerNameTests {
    /// A worker keeps the projection of its name: the two lists are one.
    @Test func everyProjectionHasAWorkerOfItsName() {
        #expect(ProjectionCatalog.names == WorkerName.allCases.map(\.rawValue))
    }
}
