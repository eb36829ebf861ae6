import RecipeCore

/// What a tool writes into a recipe a person keeps: the file's own text with only the spans whose
/// meaning changes edited (`TextRewriter`), read back and compared with what was meant; the
/// canonical text, with a note saying why, when an edit in place is not clear or does not read
/// back the same. `recipe fmt` is the one command that canonicalises on purpose.
///
/// ```swift
/// let w = FormatPreservingWrite.write(canonicalText, over: file)   // file: 4-space indents, `0.30`
/// w.text   // the file with one value changed; w.note == nil
/// ```
public struct FormatPreservingWrite: Sendable {
    /// The text to write.
    public var text: String
    /// Why the canonical text was written instead of an edit in place (nil: edited in place).
    public var note: String?

    public init(text: String, note: String?) {
        self.text = text
        self.note = note
    }

    /// Writes the meaning of `intended` (a recipe's whole text, in any form) over `original`'s
    /// text. `intended` is the fallback, so it should be what the tool wrote before (canonical).
    public static func write(_ intended: String, over original: SourceFile) -> FormatPreservingWrite {
        guard let target = try? RecipeDocument.parse(SourceFile(path: original.path, text: intended)) else {
            return FormatPreservingWrite(text: intended, note: nil)
        }
        return write(target, over: original, fallback: intended, restyleNewStages: true) { target.isMeant(by: $0) }
    }

    /// Writes `target` over `original`'s text; `means` says whether a result reads back as meant.
    /// `restyleNewStages`: a stage the file lacks is written in the file's style rather than as
    /// the target's text has it (for a tool's canonical target, not for a person's text).
    static func write(_ target: RecipeDocument, over original: SourceFile, fallback: String, restyleNewStages: Bool = false,
                      means: (String) -> Bool) -> FormatPreservingWrite {
        do {
            var rewriter = try TextRewriter(original, target: target)
            rewriter.restyleNewStages = restyleNewStages
            let text = try rewriter.run()
            guard means(text) else {
                return FormatPreservingWrite(text: fallback, note: "\(original.path): written in the canonical form (an edit in place did not read back the same)")
            }
            return FormatPreservingWrite(text: text, note: nil)
        } catch {
            return FormatPreservingWrite(text: fallback, note: "\(original.path): written in the canonical form (\(error.reason))")
        }
    }
}
