import Testing
@testable import RecipeBatch

@Suite("Glob")
struct GlobTests {
    @Test("a pattern without / matches the file name in any folder")
    func names() {
        let g = Glob("*.jpg")
        #expect(g.matches("a.jpg"))
        #expect(g.matches("2024/rome/IMG_1.jpg"))
        #expect(!g.matches("a.jpeg"))
        #expect(!g.matches("a.JPG"))
        #expect(Glob("*.JPG", caseInsensitive: true).matches("x/a.jpg"))
        #expect(Glob("IMG_????.jpg").matches("d/IMG_0001.jpg"))
        #expect(!Glob("IMG_????.jpg").matches("IMG_01.jpg"))
    }

    @Test("a pattern with / matches the path; * stays in one name, ** spans folders")
    func paths() {
        #expect(Glob("raw/*").matches("raw/a.jpg"))
        #expect(!Glob("raw/*").matches("raw/sub/a.jpg"))
        #expect(!Glob("raw/*").matches("x/raw/a.jpg"))
        #expect(Glob("raw/**").matches("raw/sub/deeper/a.jpg"))
        #expect(Glob("**/raw/*.jpg").matches("raw/a.jpg"))
        #expect(Glob("**/raw/*.jpg").matches("2024/rome/raw/a.jpg"))
        #expect(Glob("2024/**/a.jpg").matches("2024/a.jpg"))
        #expect(Glob("2024/**/a.jpg").matches("2024/x/y/a.jpg"))
        #expect(!Glob("2024/**/a.jpg").matches("2023/x/a.jpg"))
        #expect(Glob("./raw/*").matches("raw/b.png"))
    }

    @Test("classes, negation, escapes, an unclosed bracket")
    func classes() {
        #expect(Glob("[abc].jpg").matches("b.jpg"))
        #expect(!Glob("[abc].jpg").matches("d.jpg"))
        #expect(Glob("[a-c]x").matches("bx"))
        #expect(Glob("[!a-c]x").matches("dx"))
        #expect(!Glob("[!a-c]x").matches("ax"))
        #expect(Glob("\\*.jpg").matches("*.jpg"))
        #expect(!Glob("\\*.jpg").matches("a.jpg"))
        #expect(Glob("[a.jpg").matches("[a.jpg"))
        #expect(Glob("[]]").matches("]"))
    }

    @Test("a pathological pattern finishes")
    func stars() {
        let name = String(repeating: "a", count: 40) + "b"
        #expect(!Glob("*a*a*a*a*a*a*a*c").matches(name))
        #expect(Glob("*a*a*a*a*a*a*a*b").matches(name))
    }
}
