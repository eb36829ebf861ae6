import Foundation
import Testing
import TestSupport
@testable import RecipeBatch
import RecipeHistory

@Suite("Freshness")
struct FreshnessTests {
    struct Setup {
        var dir: String
        var photo: PhotoFile
        var output: String
        var record: Manifest.Record
    }

    /// A photo and an output, recorded two seconds after both were written.
    static func setup(_ label: String) throws -> Setup {
        let dir = TestPaths.temporaryDirectory(label).path
        try Data("photo bytes".utf8).write(to: URL(fileURLWithPath: dir + "/p.jpg"))
        try Data("output bytes".utf8).write(to: URL(fileURLWithPath: dir + "/o.jpg"))
        let ps = FileStat.of(dir + "/p.jpg")!, os = FileStat.of(dir + "/o.jpg")!
        let record = Manifest.Record(output: "o.jpg", source: dir + "/p.jpg", sourceSHA256: try ContentHash.file(dir + "/p.jpg").sha256,
                                     sourceStat: ps, recipeSHA256: "key", engine: "e1",
                                     outputSHA256: try ContentHash.file(dir + "/o.jpg").sha256, outputStat: os,
                                     recorded: max(ps.mtime, os.mtime) + 2_000_000_000)
        return Setup(dir: dir, photo: PhotoFile(path: dir + "/p.jpg", relative: "p.jpg", stat: ps), output: dir + "/o.jpg", record: record)
    }

    @Test("up to date, and each input that changes it")
    func decisions() throws {
        let s = try Self.setup("fresh")
        let f = Freshness(engine: "e1")
        #expect(f.decide(s.photo, output: s.output, record: s.record, recipeSHA256: "key").decision == .skip("up to date"))
        #expect(f.decide(s.photo, output: s.output, record: nil, recipeSHA256: "key").decision == .render("new"))
        #expect(f.decide(s.photo, output: s.output, record: s.record, recipeSHA256: "other").decision == .render("the recipe or the settings changed"))
        #expect(Freshness(engine: "e2").decide(s.photo, output: s.output, record: s.record, recipeSHA256: "key").decision?.renders == true)
        #expect(Freshness(engine: "e1", force: true).decide(s.photo, output: s.output, record: s.record, recipeSHA256: "key").decision == .render("--force"))
    }

    @Test("a touched photo with the same bytes is hashed and skipped; changed bytes render; without hashing the decision waits")
    func touched() throws {
        let s = try Self.setup("fresh-touch")
        var touched = s.photo
        touched.stat.mtime += 5_000_000_000
        let f = Freshness(engine: "e1")
        #expect(f.decide(touched, output: s.output, record: s.record, recipeSHA256: "key", mayHash: false).decision == nil)
        let same = f.decide(touched, output: s.output, record: s.record, recipeSHA256: "key")
        #expect(same.decision == .skip("up to date (same content)"))
        #expect(same.sourceSHA256 == s.record.sourceSHA256)
        try Data("other bytes".utf8).write(to: URL(fileURLWithPath: s.photo.path))
        var changed = s.photo
        changed.stat = FileStat.of(s.photo.path)!
        #expect(f.decide(changed, output: s.output, record: s.record, recipeSHA256: "key").decision == .render("the source changed"))
    }

    @Test("a photo whose stat equals the record's but was modified within a second of the record is hashed again")
    func racy() throws {
        let s = try Self.setup("fresh-racy")
        var record = s.record
        record.recorded = s.photo.stat.mtime + 1000
        #expect(Freshness(engine: "e1").decide(s.photo, output: s.output, record: record, recipeSHA256: "key", mayHash: false).decision == nil)
    }

    @Test("a missing or replaced output renders; a copied one with the same bytes does not")
    func outputs() throws {
        let s = try Self.setup("fresh-output")
        let f = Freshness(engine: "e1")
        var record = s.record
        record.outputStat.inode += 1
        #expect(f.decide(s.photo, output: s.output, record: record, recipeSHA256: "key").decision == .skip("up to date"))
        try Data("edited output".utf8).write(to: URL(fileURLWithPath: s.output))
        #expect(f.decide(s.photo, output: s.output, record: s.record, recipeSHA256: "key").decision == .render("the output was changed or replaced since it was written"))
        unlink(s.output)
        #expect(f.decide(s.photo, output: s.output, record: s.record, recipeSHA256: "key").decision == .render("the output is missing"))
    }
}
