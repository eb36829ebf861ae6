import Testing
@testable import RecipeBatch

@Suite("NameTemplate")
struct NameTemplateTests {
    @Test("the default keeps the folder tree and the photo's extension")
    func defaults() throws {
        let t = try NameTemplate(NameTemplate.default)
        #expect(t.path(for: "2024/rome/IMG_1.JPG", ext: nil, recipe: "film") == "2024/rome/IMG_1.JPG")
        #expect(t.path(for: "IMG_1.JPG", ext: nil, recipe: "film") == "IMG_1.JPG")
        #expect(t.path(for: "IMG_1.JPG", ext: "png", recipe: "film") == "IMG_1.png")
    }

    @Test("every placeholder")
    func placeholders() throws {
        let t = try NameTemplate("{recipe}/{dir}/{stem}-{srcext}.{ext}")
        #expect(t.path(for: "a/b/c.tar.jpg", ext: "png", recipe: "base+film") == "base+film/a/b/c.tar-jpg.png")
        #expect(try NameTemplate("{name}.{ext}").path(for: "x/y.png", ext: "jpg", recipe: "") == "y.png.jpg")
        #expect(try NameTemplate("{stem}").path(for: "noext", ext: nil, recipe: "") == "noext")
        #expect(try NameTemplate("{dir}/{stem}.{ext}").path(for: ".hidden", ext: "jpg", recipe: "") == ".hidden.jpg")
    }

    @Test("a template that leaves the folder, or names every photo alike, is refused")
    func refused() {
        #expect(throws: NameTemplate.Invalid.self) { try NameTemplate("{dir}/{stm}.jpg") }
        #expect(throws: NameTemplate.Invalid.self) { try NameTemplate("{dir/{stem}") }
        #expect(throws: NameTemplate.Invalid.self) { try NameTemplate("out}.jpg") }
        #expect(throws: NameTemplate.Invalid.self) { try NameTemplate("{dir}/cover.jpg") }
        let up = try? NameTemplate("../{stem}.{ext}")
        #expect(up?.path(for: "a.jpg", ext: nil, recipe: "") == nil)
        let absolute = try? NameTemplate("/{stem}.{ext}")
        #expect(absolute?.path(for: "a.jpg", ext: nil, recipe: "") == "a.jpg")
    }
}
