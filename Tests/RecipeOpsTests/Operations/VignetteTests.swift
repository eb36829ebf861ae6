import RecipeCore
@testable import RecipeOps
import Testing

@Suite struct VignetteTests {
    @Test func version2RenamedIntensityToAmount() throws {
        let vignette = Operations.vignette
        #expect(vignette.version == 2)
        let migration = try #require(vignette.migrations.first)
        #expect(migration.toVersion == 2)
        #expect(migration.sinceFormat == FormatVersion(1, 1))
        #expect(migration.oldKeys == ["intensity", "radius", "feather", "center"])
        #expect(migration.steps == [.rename("intensity", to: "amount")])
        #expect(vignette.params.map(\.name) == ["amount", "radius", "feather", "center"])
    }

    @Test func isPositionalAndKeepsTheSize() {
        #expect(Operations.vignette.opClass == .positional)
        #expect(Operations.vignette.size(6000, 4000, ["amount": .number(0.4)]) == size(6000, 4000))
    }
}
