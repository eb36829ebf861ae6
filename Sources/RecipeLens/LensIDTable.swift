/// The lens ID table (Resources/lens-ids.tsv): what lens a maker-note ID names, for a file that
/// names its lens by number only. A few IDs, not a maker's whole list: an ID not in it is said to
/// be unknown ("(195)"), never guessed.
///
/// ```swift
/// LensIDTable.bundled.lookup(maker: "canon", id: 137)   // .lenses(["Canon EF 85mm f/1.2L USM", "Sigma 18-50mm …", …])
/// LensIDTable.bundled.lookup(maker: "sony", id: 65535)  // .noLens
/// LensIDTable.bundled.lookup(maker: "sony", id: 195)    // nil
/// ```
struct LensIDTable: Sendable {
    enum Entry: Sendable, Equatable {
        /// The lens, or the lenses sharing the ID.
        case lenses([String])
        /// The ID names no lens: manual, adapted, or of another mount.
        case noLens
    }

    let entries: [String: Entry]

    static let bundled = LensIDTable(text: String(decoding: PackageResources.lens_ids_tsv, as: UTF8.self))

    init(text: String) {
        var entries: [String: Entry] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 3, let id = Int64(fields[1]) else { continue }
            let names = fields[2].split(separator: ";").map { String($0.drop { $0 == " " }) }.filter { !$0.isEmpty }
            entries["\(fields[0].lowercased())/\(id)"] = names == ["-"] ? .noLens : .lenses(names)
        }
        self.entries = entries
    }

    /// The entry for a maker's (canonical spelling, `LensMaker`) ID, nil when the table has none.
    func lookup(maker: String?, id: Int64) -> Entry? {
        guard let maker else { return nil }
        // Minolta's and Konica Minolta's A-mount numbering is Sony's.
        let numbering = maker == "minolta" ? "sony" : maker
        return entries["\(numbering)/\(id)"]
    }
}
