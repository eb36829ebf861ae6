import Foundation
import Testing
import TestSupport
@testable import RecipeBatch

@Suite("PhotoWalk")
struct PhotoWalkTests {
    static func tree(_ label: String) throws -> String {
        let dir = TestPaths.temporaryDirectory(label).path
        for path in ["b.jpg", "a.PNG", "notes.txt", "sub/c.jpeg", "sub/deeper/d.jpg", ".hidden/e.jpg", "sub/.f.jpg", "raw/g.jpg", "out/h.jpg"] {
            let full = dir + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(path.utf8).write(to: URL(fileURLWithPath: full))
        }
        symlink(dir + "/sub", dir + "/loop-to-sub")
        symlink(dir + "/b.jpg", dir + "/link.jpg")
        return dir
    }

    @Test("folders are walked in name order; hidden names, other files and links to folders are left out")
    func walk() throws {
        let dir = try Self.tree("walk")
        var walk = PhotoWalk(include: [], exclude: [])
        walk.skipFolders = [dir + "/out"]
        let (photos, problems) = walk.expand([dir, dir + "/notes.txt", dir + "/missing"])
        #expect(photos.map(\.relative) == ["a.PNG", "b.jpg", "link.jpg", "raw/g.jpg", "sub/c.jpeg", "sub/deeper/d.jpg", "notes.txt"])
        #expect(photos.first?.path == dir + "/a.PNG")
        #expect(problems == [PhotoWalk.Problem(path: dir + "/missing", message: "no such file or folder")])
    }

    @Test("--include and --exclude see the path below the folder given")
    func filters() throws {
        let dir = try Self.tree("walk-filter")
        let only = PhotoWalk(include: [Glob("sub/**")], exclude: []).expand([dir]).photos.map(\.relative)
        #expect(only == ["sub/c.jpeg", "sub/deeper/d.jpg"])
        let without = PhotoWalk(include: [], exclude: [Glob("raw/**"), Glob("*.png", caseInsensitive: true), Glob("out/*")]).expand([dir + "/"]).photos.map(\.relative)
        #expect(without == ["b.jpg", "link.jpg", "sub/c.jpeg", "sub/deeper/d.jpg"])
    }
}
