import Foundation
import RecipeCore
import RecipeSession
import Testing
import TestSupport

/// The read-change-write of a recipe (`fmt`, `migrate`, the preview's "write into the recipe"):
/// a save made in between (an editor's) is never overwritten.
@Suite("TextOutput")
struct TextOutputTests {
    @Test("replace(ifStill:) writes over the bytes it was made from, and nothing else: a file changed or removed meanwhile is kept and the call throws")
    func replaceIfStill() throws {
        let dir = TestPaths.temporaryDirectory("text-output").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/look.recipe.yaml"
        let read = "format: dev.recipe.edit\nversion: 1.1\nparams:\n  lift: 0.3\nstages:\n  - exposure: $lift\n"
        try read.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)

        let ours = read.replacingOccurrences(of: "0.3", with: "0.5")
        try TextOutput.replace(path, with: ours, ifStill: Array(read.utf8))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == ours)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o640, "mode kept")

        // Saved by an editor after our read: theirs stays, we are told.
        let theirs = ours + "  - saturation: 1.2\n"
        try theirs.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ImageError.self) { try TextOutput.replace(path, with: read, ifStill: Array(ours.utf8)) }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == theirs)
        do { try TextOutput.replace(path, with: read, ifStill: Array(ours.utf8)) } catch {
            #expect(error.description.contains("changed on disk since it was read") && error.description.contains("nothing written"))
        }

        // Removed meanwhile: not re-created.
        try FileManager.default.removeItem(atPath: path)
        #expect(throws: ImageError.self) { try TextOutput.replace(path, with: read, ifStill: Array(theirs.utf8)) }
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
