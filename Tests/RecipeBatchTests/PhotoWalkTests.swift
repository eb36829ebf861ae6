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

    @Test("a raw the codecs cannot read (GoPro's .gpr) is named and left out of a folder, and refused when given by name; --include takes it as asked")
    func unreadableRaws() throws {
        let dir = TestPaths.temporaryDirectory("walk-gpr").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["a.jpg", "GOPR0001.GPR", "notes.txt"] { try Data(name.utf8).write(to: URL(fileURLWithPath: dir + "/" + name)) }
        let (photos, problems) = PhotoWalk(include: [], exclude: []).expand([dir])
        #expect(photos.map(\.relative) == ["a.jpg"])
        // It was passed by as silently as notes.txt.
        #expect(problems.count == 1 && problems[0].path == dir + "/GOPR0001.GPR" && problems[0].leftOut && problems[0].message.contains("GoPro"), "\(problems)")
        let direct = PhotoWalk(include: [], exclude: []).expand([dir + "/GOPR0001.GPR"])
        #expect(direct.photos.isEmpty && direct.problems.count == 1 && !direct.problems[0].leftOut && direct.problems[0].message.contains("LibRaw 0.20 cannot decode"), "\(direct)")
        #expect(PhotoWalk(include: [], exclude: [Glob("*.gpr", caseInsensitive: true)]).expand([dir]).problems.isEmpty, "an excluded file is not named")
        #expect(PhotoWalk(include: [Glob("*.GPR")], exclude: []).expand([dir]).photos.map(\.relative) == ["GOPR0001.GPR"])
    }

    @Test("--include and --exclude see the path below the folder given")
    func filters() throws {
        let dir = try Self.tree("walk-filter")
        let only = PhotoWalk(include: [Glob("sub/**")], exclude: []).expand([dir]).photos.map(\.relative)
        #expect(only == ["sub/c.jpeg", "sub/deeper/d.jpg"])
        let without = PhotoWalk(include: [], exclude: [Glob("raw/**"), Glob("*.png", caseInsensitive: true), Glob("out/*")]).expand([dir + "/"]).photos.map(\.relative)
        #expect(without == ["b.jpg", "link.jpg", "sub/c.jpeg", "sub/deeper/d.jpg"])
    }

    @Test("links: inside the folder given followed; leaving it, dangling or looping left out and named, as are FIFOs; --follow-links follows the ones leaving")
    func links() throws {
        let root = TestPaths.temporaryDirectory("walk-links").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = root + "/in", elsewhere = root + "/elsewhere"
        for folder in [dir + "/sub", elsewhere] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        for path in [dir + "/real.jpg", elsewhere + "/secret.jpg"] { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        symlink("../real.jpg", dir + "/sub/inside.jpg")
        symlink(elsewhere + "/secret.jpg", dir + "/outside.jpg")
        symlink("nothing-here.jpg", dir + "/dangling.jpg")
        symlink("loop.jpg", dir + "/loop.jpg")
        symlink(elsewhere + "/secret.jpg", dir + "/notes.txt")  // not a photo's name: nothing to say
        #expect(mkfifo(dir + "/pipe.jpg", 0o644) == 0)

        let (photos, problems) = PhotoWalk(include: [], exclude: []).expand([dir])
        #expect(photos.map(\.relative) == ["real.jpg", "sub/inside.jpg"])
        #expect(problems.allSatisfy { $0.leftOut })
        let said = Dictionary(uniqueKeysWithValues: problems.map { (($0.path as NSString).lastPathComponent, $0.message) })
        #expect(said["outside.jpg"] == "a link to a file outside the folder given; left out (--follow-links follows it)")
        #expect(said["dangling.jpg"] == "a link to a file that is not there; left out")
        #expect(said["loop.jpg"] == "a link loop; left out")
        #expect(said["pipe.jpg"] == "a FIFO (named pipe), not a photo; left out")
        #expect(said.count == 4, "\(said)")

        var follow = PhotoWalk(include: [], exclude: [])
        follow.followLinks = true
        let followed = follow.expand([dir])
        #expect(followed.photos.map(\.relative) == ["outside.jpg", "real.jpg", "sub/inside.jpg"])
        #expect(followed.problems.count == 3)
    }
}
