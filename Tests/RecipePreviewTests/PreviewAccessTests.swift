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

    @Test("request numbers: digits only (and a leading minus), at most 10, within the range; no overflow")
    func decimal() {
        #expect(PreviewAccess.decimal("0", in: 0...10) == 0)
        #expect(PreviewAccess.decimal("-42", in: -100...100) == -42)
        #expect(PreviewAccess.decimal("2147483647", in: 0...Int(Int32.max)) == 2147483647)
        for bad in ["9223372036854775807", "-9223372036854775808", "99999999999", "+5", "1e3", "0x1", " 1", "1 ", "", "-", "--1", "١",
                    "4097"] {
            #expect(PreviewAccess.decimal(Substring(bad), in: -4096...4096) == nil, "\(bad)")
        }
    }

    @Test("Host: localhost, 127.0.0.1, [::1] or the bound address, with the bound port; a wildcard bind takes any literal address")
    func host() {
        let access = PreviewAccess(token: "t")
        #expect(!access.allows(host: "127.0.0.1:8080"), "nothing passes before the port is known")
        access.listening(on: 8080)
        for good in ["127.0.0.1:8080", "localhost:8080", "LocalHost:8080", "[::1]:8080"] { #expect(access.allows(host: good), "\(good)") }
        for bad in ["127.0.0.1", "127.0.0.1:8081", "127.0.0.1:80", "evil.example:8080", "localhost.:8080", "127.0.0.1:8080/x", "[::1]8080",
                    "::1:8080", "127.0.0.1:-8080", "127.0.0.1:08080x", "", ":8080", "192.168.1.2:8080", "user@localhost:8080"] {
            #expect(!access.allows(host: bad), "\(bad)")
        }
        let named = PreviewAccess(token: "t", address: "::1")
        named.listening(on: 80)
        #expect(named.allows(host: "[::1]") && named.allows(host: "localhost"), "port 80 may go unsaid")
        let wildcard = PreviewAccess(token: "t", address: "0.0.0.0")
        wildcard.listening(on: 9000)
        #expect(wildcard.allows(host: "192.168.1.2:9000") && wildcard.allows(host: "[fe80::1]:9000"))
        #expect(!wildcard.allows(host: "evil.example:9000") && !wildcard.allows(host: "192.168.1.2:9001"))
    }

    @Test("Origin must be the page's own (http, the Host's name and port); refusals come in order Host, Origin, token")
    func origin() {
        let access = PreviewAccess(token: "t")
        access.listening(on: 8080)
        #expect(access.allows(origin: "http://127.0.0.1:8080", host: "127.0.0.1:8080"))
        #expect(access.allows(origin: "http://LOCALHOST:8080", host: "localhost:8080"))
        for bad in ["http://evil.example", "null", "https://127.0.0.1:8080", "http://127.0.0.1:8081", "http://localhost:8080", "http://127.0.0.1:8080/",
                    "file://", ""] {
            #expect(!access.allows(origin: bad, host: "127.0.0.1:8080"), "\(bad)")
        }
        #expect(access.refusal(hosts: ["127.0.0.1:8080"], origin: nil, token: "t") == nil)
        #expect(access.refusal(hosts: ["127.0.0.1:8080"], origin: "http://127.0.0.1:8080", token: "t") == nil)
        #expect(access.refusal(hosts: [], origin: nil, token: "t")?.status == 400)
        #expect(access.refusal(hosts: ["127.0.0.1:8080", "127.0.0.1:8080"], origin: nil, token: "t")?.status == 400)
        #expect(access.refusal(hosts: ["evil.example:8080"], origin: "http://evil.example:8080", token: "t")?.status == 421)
        #expect(access.refusal(hosts: ["127.0.0.1:8080"], origin: "http://evil.example", token: "t")?.message.contains("another site") == true)
        #expect(access.refusal(hosts: ["127.0.0.1:8080"], origin: nil, token: "u")?.message.contains("token") == true)
    }

    @Test("a picture is named render, region, before, thumb, stage-K or upto-K (K 0 to 256)")
    func pictureNames() {
        #expect(PreviewPicture("stage-3") == .stage(3))
        #expect(PreviewPicture("upto-0") == .upTo(0))
        #expect(PreviewPicture("upto-256")?.name == "upto-256")
        for bad in ["stage-257", "stage--1", "stage-+1", "stage-", "stage", "upto-9223372036854775807", "other-1", "stage-1-2", "Render", ""] {
            #expect(PreviewPicture(Substring(bad)) == nil, "\(bad)")
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
        // A sibling whose name merely starts with the folder's ("shoot-private" beside "shoot") is outside.
        let sibling = root.appendingPathComponent("shoot-private").path
        try FileManager.default.createDirectory(atPath: sibling, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: sibling + "/c.jpg", contents: Data([0xFF, 0xD8]))
        try FileManager.default.createSymbolicLink(atPath: folder + "/next-door.jpg", withDestinationPath: sibling + "/c.jpg")
        let nextDoor = PreviewAccess.insideFolder([folder + "/next-door.jpg"], folder: folder)
        #expect(nextDoor.kept.isEmpty && nextDoor.refused.count == 1)
    }
}
