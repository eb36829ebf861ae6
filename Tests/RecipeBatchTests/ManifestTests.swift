import Foundation
import Testing
import TestSupport
@testable import RecipeBatch

@Suite("Manifest")
struct ManifestTests {
    static func record(_ output: String, recorded: Int64 = 5, sha: String = "aa") -> Manifest.Record {
        Manifest.Record(output: output, source: "in/\(output)", sourceSHA256: sha,
                        sourceStat: FileStat(size: 10, mtime: 1, inode: 2, device: 3), recipeSHA256: "rr", engine: "recipe 1",
                        outputSHA256: "oo", outputStat: FileStat(size: 20, mtime: -4, inode: UInt64.max, device: 6), recorded: recorded)
    }

    @Test("a record reads back from its line, quotes and all")
    func roundTrip() {
        let r = Self.record("a \"quoted\"\\name\t✓.jpg")
        #expect(Manifest.Record(line: Substring(r.line)) == r)
        #expect(!r.line.contains("\n"))
    }

    @Test("flat JSON: strings, escapes, integers; anything else is not a record")
    func flatJSON() {
        let parsed = FlatJSON.parse(#" { "a" : "x\u00e9\ud83d\ude00\n" , "b": -12 } "#)
        #expect(parsed == ["a": .string("xé😀\n"), "b": .int(-12)])
        #expect(FlatJSON.parse("{}") == [:])
        for bad in [#"{"a":1"#, #"{"a":1.5}"#, #"{"a":[1]}"#, #"{"a":"x"} junk"#, #"{"a":"\q"}"#, "", #"{"a":"unterminated}"#] {
            #expect(FlatJSON.parse(Substring(bad)) == nil, "\(bad)")
        }
    }

    @Test("every manifest file in the folder is read; the newest record of an output wins; torn lines are counted, not fatal")
    func load() throws {
        let dir = TestPaths.temporaryDirectory("manifest").path
        let main = Manifest.text([Self.record("a.jpg", recorded: 5), Self.record("b.jpg", recorded: 5)])
        let shard = Self.record("a.jpg", recorded: 9, sha: "newer").line + "\n" + Self.record("c.jpg").line + "\n" + #"{"output":"d.jpg","sou"#
        try main.write(toFile: dir + "/.recipe-manifest.jsonl", atomically: true, encoding: .utf8)
        try shard.write(toFile: dir + "/.recipe-manifest.shard-2-of-3.jsonl", atomically: true, encoding: .utf8)
        try "not a manifest".write(toFile: dir + "/notes.jsonl", atomically: true, encoding: .utf8)
        let m = try Manifest.load(folder: dir)
        #expect(m.files == [".recipe-manifest.jsonl", ".recipe-manifest.shard-2-of-3.jsonl"])
        #expect(m.records.keys.sorted() == ["a.jpg", "b.jpg", "c.jpg"])
        #expect(m.records["a.jpg"]?.sourceSHA256 == "newer")
        #expect(m.unreadable == [".recipe-manifest.shard-2-of-3.jsonl": 1])
        #expect(try Manifest.load(folder: dir + "/missing").records.isEmpty)
        #expect(Manifest.fileName(shard: try Shard("2/3")) == ".recipe-manifest.shard-2-of-3.jsonl")
        #expect(Manifest.fileName(shard: try Shard("1/1")) == ".recipe-manifest.jsonl")
    }

    @Test("the writer appends whole lines")
    func writer() throws {
        let dir = TestPaths.temporaryDirectory("manifest-writer").path
        let w = try ManifestWriter(path: dir + "/m.jsonl")
        try w.append(Self.record("a.jpg"))
        try w.append(Self.record("b.jpg"))
        let text = try String(contentsOfFile: dir + "/m.jsonl", encoding: .utf8)
        #expect(text.split(separator: "\n").compactMap { Manifest.Record(line: $0) }.map(\.output) == ["a.jpg", "b.jpg"])
    }
}
