import RecipeCore
import RecipeHistory
import RecipeLanguage
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("Sidecar text edits and foreign data")
struct SidecarTests {
    static let digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    func sidecar(_ text: String) throws -> Sidecar {
        let path = TestPaths.temporaryDirectory("sidecar").path + "/p.jpg.recipe.yaml"
        try Paths.writeAtomically(path, Array(text.utf8))
        return try Sidecar.load(path)
    }

    @Test("frozen base data survives the YAML round trip exactly: tabs, leading blanks, BOM, CR, trailing newlines, '#' lines")
    func dataRoundTrip() throws {
        let samples = ["<?xml?>\n\t<key>a</key>\n", "  leading blank\nsecond\n", "no newline\nat end", "two\n\n\n",
                       "\u{FEFF}<?xpacket begin=\"\u{FEFF}\"?> padded   ", "crlf\r\nline\r\n", "# a comment-looking line\n  - exposure: 1 # not a comment\n",
                       "\n\nstarts with blank lines\n", "single line"]
        for (i, data) in samples.enumerated() {
            var s = try sidecar("format: dev.recipe.edit\nversion: 1.1\nstages: []\n")
            let base = FrozenBase(format: "org.example", version: "1.\(i)", pixels: ObjectReference(sha256: Self.digest, size: 3, type: "jpeg"),
                                  data: .text(data), dataSHA256: ContentHash.bytes(Array(data.utf8)))
            try s.append(stages: [SidecarText.baseStage(base, id: "base-1")])
            let back = s.checked.stages.first?.base?.data
            #expect(back == .text(data), "sample \(i)")
            // fmt is idempotent on it.
            let again = try sidecar(s.text)
            #expect(RecipePrinter.format(again.checked) == s.text, "sample \(i) not idempotent")
        }
    }

    @Test("removing, disabling and appending stages keeps the comments of the other stages")
    func edits() throws {
        var s = try sidecar("""
            format: dev.recipe.edit
            version: 1.1
            stages:
              # brighten first
              - id: exposure
                exposure: 0.3   # a bit
              # then warm
              - id: warm
                white-balance: {temp: 5600}
              - sepia: 0.2

            """)
        try s.remove(stage: 2)
        #expect(!s.text.contains("warm"))
        #expect(s.text.contains("# brighten first") && s.text.contains("# a bit"))
        try s.setEnabled(false, stage: 2)
        #expect(s.text.contains("  - enabled: false\n    sepia: 0.2"))
        try s.append(stages: ["  - id: late\n    contrast: 1.1\n"])
        #expect(s.checked.stages.map(\.id) == ["exposure", nil, "late"])
        try s.remove(stage: 3)
        try s.remove(stage: 2)
        try s.remove(stage: 1)
        #expect(s.text.hasSuffix("stages: []\n"))
    }

    @Test("a `develop` added to a 1.1 sidecar moves its version to 1.2, so the file says what reading it needs")
    func developMovesTheVersion() throws {
        var s = try Sidecar(editing: "format: dev.recipe.edit\nversion: 1.1\nstages: []\n", path: "/nonexistent/x.dng.recipe.yaml")
        #expect(s.text.contains("version: 1.1\n"))
        try s.append(stages: ["  - develop: {white-balance: daylight}\n"])
        #expect(s.text.contains("version: \(RecipeFormat.current)\n"), "\(s.text)")
        #expect(s.checked.diagnostics.isEmpty, "\(s.checked.diagnostics)")
        // other stages leave an older version alone
        var t = try Sidecar(editing: "format: dev.recipe.edit\nversion: 1.1\nstages: []\n", path: "/nonexistent/y.jpg.recipe.yaml")
        try t.append(stages: ["  - exposure: 0.3\n"])
        #expect(t.text.contains("version: 1.1\n"), "\(t.text)")
    }

    @Test("foreign data is recognised by content: Apple plist, darktable XMP, foreign recipe; garbage is a clear error")
    func foreignDetection() throws {
        let dir = TestPaths.temporaryDirectory("foreign").path
        let plist = "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>adjustmentFormatIdentifier</key><string>com.apple.photo</string><key>adjustmentFormatVersion</key><string>1.5</string><key>adjustmentEditorBundleID</key><string>com.apple.Photos</string></dict></plist>\n"
        try Paths.writeAtomically(dir + "/a.AAE", Array(plist.utf8))
        let apple = try ForeignEdit.read(dir + "/a.AAE")
        #expect(apple.format == "com.apple.photo" && apple.version == "1.5" && apple.tool == "com.apple.Photos")
        let xmp = try String(contentsOfFile: TestPaths.fixture("foreign/photo.jpg.xmp"), encoding: .utf8)
        try Paths.writeAtomically(dir + "/p.jpg.xmp", Array(xmp.utf8))
        let dt = try ForeignEdit.read(dir + "/p.jpg.xmp")
        #expect(dt.format == "org.darktable.xmp" && dt.version == "5")
        #expect(dt.summary == "darktable history: colorin, colorout, gamma, flip, exposure ×2 (history_end 6)")
        try Paths.writeAtomically(dir + "/f.recipe.yaml", Array("format: dev.recipe.edit\nversion: 99.0\nstages: []\n".utf8))
        let future = try ForeignEdit.read(dir + "/f.recipe.yaml")
        #expect(future.format == "dev.recipe.edit" && future.version == "99.0")
        try Paths.writeAtomically(dir + "/bad.AAE", Array("<plist><dict><key>x</key>".utf8))
        var message = ""
        do { _ = try ForeignEdit.read(dir + "/bad.AAE") } catch let e as HistoryError { message = e.description }
        #expect(message == dir + "/bad.AAE: not an Apple adjustment file: it is not a readable property list")
    }

    @Test("darktable XMP that is broken or hostile is a clear error or a plain reading: no hang, no entity expansion, no network")
    func hostileXMP() throws {
        let dir = TestPaths.temporaryDirectory("foreign-xmp").path
        func read(_ name: String, _ text: String) -> (edit: ForeignEdit?, error: String) {
            try? Paths.writeAtomically(dir + "/" + name, Array(text.utf8))
            do { return (try ForeignEdit.read(dir + "/" + name), "") } catch { return (nil, "\(error)") }
        }
        let head = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
        // Cut off in the middle of an element: the error names the file and the line.
        let cut = read("cut.xmp", head + "<rdf:Description xmlns:darktable=\"http://darktable.sf.net/\"\n darktable:xmp_version=\"5\">\n<darktable:history><rdf:Seq>\n<rdf:li darktable:operation=\"exp")
        #expect(cut.edit == nil)
        #expect(cut.error.hasPrefix(dir + "/cut.xmp: not a readable XMP file (XML error at line "), "\(cut.error)")
        // Billion laughs: entities are not expanded, and libxml2's amplification guard stops it.
        var laughs = "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY a \"ha\">"
        var previous = "a"
        for n in 0..<12 {
            let name = "e\(n)"
            laughs += "<!ENTITY \(name) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
            previous = name
        }
        laughs += "]>\n" + head + "<rdf:Description xmlns:darktable=\"http://darktable.sf.net/\" darktable:xmp_version=\"&\(previous);\"/></rdf:RDF></x:xmpmeta>\n"
        let bomb = read("bomb.xmp", laughs)
        let expanded = bomb.edit.map { $0.version.count } ?? 0
        #expect(expanded < 1_000_000)
        // An external entity is never fetched or read.
        let external = read("ext.xmp", "<?xml version=\"1.0\"?>\n<!DOCTYPE x [<!ENTITY s SYSTEM \"file:///etc/passwd\">]>\n" + head
            + "<rdf:Description xmlns:darktable=\"http://darktable.sf.net/\" darktable:xmp_version=\"&s;\"/></rdf:RDF></x:xmpmeta>\n")
        let leaked = external.edit.map { $0.version.contains("root:") } ?? false
        #expect(!leaked, "\(external.error)")
        // Well-formed XMP from another tool: not taken for darktable's.
        let other = read("other.xmp", head + "<rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmp:Rating=\"3\"/></rdf:RDF></x:xmpmeta>\n")
        #expect(other.error.hasPrefix(dir + "/other.xmp: cannot tell which tool wrote this adjustment data"), "\(other.error)")
    }
}

@Suite("Sidecar prefixes")
struct SidecarPrefixTests {
    @Test("keepFirst(n) keeps exactly the first n stages (0 gives `stages: []`)")
    func keepFirst() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  # one\n  - id: a\n    exposure: 0.1\n  # two\n  - id: b\n    sepia: 0.2\n  - id: c\n    contrast: 1.1\n"
        let path = TestPaths.temporaryDirectory("prefix").path + "/p.jpg.recipe.yaml"
        try Paths.writeAtomically(path, Array(text.utf8))
        for n in 0...3 {
            var s = try Sidecar.load(path)
            try s.keepFirst(n)
            let ids = s.checked.stages.compactMap(\.id)
            #expect(ids == Array(["a", "b", "c"].prefix(n)))
            #expect(s.text.contains("# two") == (n >= 2))
            #expect(s.text.contains("stages: []") == (n == 0))
        }
    }

    @Test("save writes only over what was read: a file changed, removed or created meanwhile is left as it is and the save throws")
    func saveChecksTheFile() throws {
        let text = "format: dev.recipe.edit\nversion: 1.1\nstages:\n  - id: a\n    exposure: 0.1\n"
        let path = TestPaths.temporaryDirectory("cas").path + "/p.jpg.recipe.yaml"
        try Paths.writeAtomically(path, Array(text.utf8))

        // Unchanged: the edit is written.
        var s = try Sidecar.load(path)
        try Lifecycle.append(snippet: "sepia: 0.2", to: &s)
        try s.save()
        #expect(try Sidecar.load(path).checked.stages.count == 2)

        // Changed by another writer (an editor's save) after the read: refused, theirs kept.
        var stale = try Sidecar.load(path)
        try Lifecycle.append(snippet: "contrast: 1.1", to: &stale)
        let theirs = text + "  - id: b\n    saturation: 0.8\n"
        try Paths.writeAtomically(path, Array(theirs.utf8))
        #expect(throws: HistoryError.self) { try stale.save() }
        #expect(try Paths.readBytes(path, limit: 1 << 20) == Array(theirs.utf8))
        do { try stale.save() } catch { #expect("\(error)".contains("nothing written")) }

        // Removed meanwhile: refused, not re-created.
        let gone = try Sidecar.load(path)
        unlink(path)
        #expect(throws: HistoryError.self) { try gone.save() }
        #expect(!Paths.exists(path))

        // A new sidecar whose file appeared meanwhile: refused.
        let fresh = try Sidecar(path: path, original: OriginalBinding(file: "p.jpg", sha256: SidecarTests.digest, size: 3))
        try Paths.writeAtomically(path, Array(theirs.utf8))
        #expect(throws: HistoryError.self) { try fresh.save() }
        #expect(try Paths.readBytes(path, limit: 1 << 20) == Array(theirs.utf8))
    }
}
