import Foundation
import Testing
import TestSupport
@testable import RecipePreview

@Suite("PreviewAccess: the token and what may be served")
struct PreviewAccessTests {
    @Test("only the exact token passes: not nil, empty, a prefix, a longer one or another")
    func token() {
        let access = PreviewAccess(token: "0123456789abcdef0123456789abcdef")
        #expect(access.allows(token: "0123456789abcdef0123456789abcdef"))
        #expect(!access.allows(token: nil))
        #expect(!access.allows(token: ""))
        #expect(!access.allows(token: "0123456789abcdef"))
        #expect(!access.allows(token: "0123456789abcdef0123456789abcdef0"))
        #expect(!access.allows(token: "0123456789abcdef0123456789abcdee"))
        #expect(!access.allows(token: "0123456789ABCDEF0123456789ABCDEF"))
    }

    @Test("a random token is 32 hex digits and new each run")
    func randomToken() {
        let a = PreviewAccess.randomToken(), b = PreviewAccess.randomToken()
        #expect(a.count == 32)
        #expect(a.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(a != b)
    }

    @Test("a photo is named by its index only: digits, no leading zero, in range")
    func photoIndex() {
        #expect(PreviewAccess.photoIndex("0", count: 3) == 0)
        #expect(PreviewAccess.photoIndex("2", count: 3) == 2)
        for bad in ["3", "-1", "00", "01", "", "..", "%2e%2e", "/etc/passwd", "1/../0", "0x1", " 1", "1 ", "9999999999"] {
            #expect(PreviewAccess.photoIndex(Substring(bad), count: 3) == nil, "\(bad)")
        }
    }

    @Test("a folder serves what lies inside it: a link out is refused, a link within kept")
    func insideFolder() throws {
        let root = TestPaths.temporaryDirectory("preview-access")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("shoot").path, outside = root.appendingPathComponent("private").path
        try FileManager.default.createDirectory(atPath: folder + "/day", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        for path in [folder + "/a.jpg", folder + "/day/b.jpg", outside + "/secret.jpg"] {
            FileManager.default.createFile(atPath: path, contents: Data([0xFF, 0xD8]))
        }
        try FileManager.default.createSymbolicLink(atPath: folder + "/out.jpg", withDestinationPath: outside + "/secret.jpg")
        try FileManager.default.createSymbolicLink(atPath: folder + "/in.jpg", withDestinationPath: "day/b.jpg")
        let paths = [folder + "/a.jpg", folder + "/day/b.jpg", folder + "/out.jpg", folder + "/in.jpg", folder + "/../private/secret.jpg"]
        let (kept, refused) = PreviewAccess.insideFolder(paths, folder: folder)
        #expect(kept == [folder + "/a.jpg", folder + "/day/b.jpg", folder + "/in.jpg"])
        #expect(refused.map(\.path) == [folder + "/out.jpg", folder + "/../private/secret.jpg"])
        #expect(refused.allSatisfy { $0.reason.contains("outside") })
        // A folder named through a link is resolved too: what is inside it stays inside.
        try FileManager.default.createSymbolicLink(atPath: root.path + "/alias", withDestinationPath: folder)
        #expect(PreviewAccess.insideFolder([root.path + "/alias/a.jpg"], folder: root.path + "/alias").kept.count == 1)
    }
}
