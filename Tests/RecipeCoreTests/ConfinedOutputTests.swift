import Foundation
import RecipeCore
import Testing
import TestSupport

/// An output written inside a folder stays there when a folder below it is swapped for a link
/// while it is being written (a batch's output folder that someone else can write in).
@Suite("outputs confined to their folder")
struct ConfinedOutputTests {
    @Test("the folder swapped for a link between open and commit: the file lands in the folder as it was opened, nothing outside")
    func swappedFolder() throws {
        let dir = TestPaths.temporaryDirectory("confined").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/out/sub", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        let file = try AtomicOutputFile(path: dir + "/out/sub/x.jpg", inside: dir + "/out")
        _ = "written".withCString { fputs($0, file.handle) }
        // Swapped meanwhile: out/sub is now a link to ../elsewhere.
        try fm.moveItem(atPath: dir + "/out/sub", toPath: dir + "/out/sub.was")
        try fm.createSymbolicLink(atPath: dir + "/out/sub", withDestinationPath: "../elsewhere")
        try file.commit()
        #expect(try fm.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty, "written outside the output folder")
        #expect(try String(contentsOfFile: dir + "/out/sub.was/x.jpg", encoding: .utf8) == "written")
    }

    @Test("a link below the folder is refused at open, naming it; the folder itself may be a link")
    func linkRefused() throws {
        let dir = TestPaths.temporaryDirectory("confined-link").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/elsewhere", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: dir + "/out/sub", withDestinationPath: "../elsewhere")
        do {
            _ = try AtomicOutputFile(path: dir + "/out/sub/x.jpg", inside: dir + "/out")
            Issue.record("opened through a link")
        } catch {
            #expect(error.kind == .refused && error.description.contains("out/sub is a link"), "\(error)")
        }
        #expect(try fm.contentsOfDirectory(atPath: dir + "/elsewhere").isEmpty)
        try fm.createSymbolicLink(atPath: dir + "/named", withDestinationPath: "out")
        let file = try AtomicOutputFile(path: dir + "/named/y.jpg", inside: dir + "/named")
        try file.commit()
        #expect(fm.fileExists(atPath: dir + "/out/y.jpg"))
    }
}
