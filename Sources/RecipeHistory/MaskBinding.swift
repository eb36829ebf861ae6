import RecipeCore
import RecipeLanguage

/// Binds the `image` masks of a stage added to a sidecar to their files' bytes, as the sidecar is
/// bound to its original: `sha256: <digest>` written after each such mask's `file:` that has none.
/// A mask painted again afterwards then stops the render with the file named, instead of
/// silently applying another mask.
enum MaskBinding {
    /// `snippet` (one stage as YAML, parsed as `root`) with the digests inserted; paths relative
    /// to `folder` (the sidecar's). Files that cannot be read are left for the checker to report.
    static func bind(_ snippet: String, root: YAMLNode, folder: String) -> String {
        guard let mask = root.mapping?.first(where: { $0.key.scalar == "mask" })?.value else { return snippet }
        var insertions: [(offset: Int, text: String)] = []
        collect(mask, snippet: snippet, folder: folder, into: &insertions)
        var bytes = Array(snippet.utf8)
        for insertion in insertions.sorted(by: { $0.offset > $1.offset }) {
            bytes.insert(contentsOf: Array(insertion.text.utf8), at: insertion.offset)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func collect(_ mask: YAMLNode, snippet: String, folder: String, into insertions: inout [(offset: Int, text: String)]) {
        guard let pair = mask.mapping?.first, mask.mapping?.count == 1, let kind = pair.key.scalar else { return }
        if FilterGraph.Mask.combinations.contains(kind) {
            for item in pair.value.sequence ?? [] { collect(item, snippet: snippet, folder: folder, into: &insertions) }
            return
        }
        guard kind == "image", let fields = pair.value.mapping, !fields.contains(where: { $0.key.scalar == "sha256" }),
              let file = fields.first(where: { $0.key.scalar == "file" }), let path = file.value.scalar, !path.isEmpty else { return }
        let full = path.hasPrefix("/") ? path : folder + "/" + path
        guard let digest = try? ContentHash.file(full).sha256 else { return }
        let bytes = Array(snippet.utf8)
        let isFlow = bytes.indices.contains(pair.value.range.start.offset) && bytes[pair.value.range.start.offset] == UInt8(ascii: "{")
        if isFlow {
            insertions.append((file.value.range.end.offset, ", sha256: \(digest)"))
        } else {
            // A block mapping: a line of its own under `file:`, at its indentation.
            var end = file.value.range.end.offset
            while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
            insertions.append((end, "\n" + String(repeating: " ", count: file.key.range.start.column - 1) + "sha256: \(digest)"))
        }
    }
}
