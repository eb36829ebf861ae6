import RecipeCore

extension ConflictMarker {
    /// The text with every marker replaced by one side's value (`ours`, `theirs` or `base`), as a
    /// person resolving it would: the value in the marker's place, or, where that side has none,
    /// the key or the stage item removed. Nil when a marker cannot be resolved in place.
    ///
    /// ```yaml
    /// exposure: {ev: {conflict: {ours: 0.5, theirs: 0.7}}}    # side ours → exposure: {ev: 0.5}
    /// ```
    ///
    /// A merge that keeps ours' text checks itself with it: resolved to either side, it must mean
    /// what the merge written afresh means resolved to the same side.
    static func resolved(_ file: SourceFile, side: String) -> String? {
        let (root, diagnostics) = YAMLReader.read(file)
        guard let root, diagnostics.isEmpty else { return nil }
        var editor = SourceEditor(file)
        do {
            try resolve(root, parent: nil, side: side, editor: &editor)
        } catch {
            return nil
        }
        return editor.apply()
    }

    /// Where a node sits: the value of `pair` in `mapping`, or an item of a block sequence.
    enum Parent {
        case pair(YAMLPair, in: YAMLNode)
        case item
    }

    static func resolve(_ node: YAMLNode, parent: Parent?, side: String, editor: inout SourceEditor) throws(SourceEditor.Unclear) {
        if let sides = sides(of: node) {
            let value = sides[side]
            if let value, !value.isNull {
                let text = editor.file.text(value.range)
                if node.flow {
                    editor.replace(node.range, with: text)
                } else {
                    editor.replace(node.range.start.offset..<editor.contentEnd(node), with: text)
                }
                return
            }
            switch parent {
            case .pair(let p, let mapping): try editor.deletePair(p, in: mapping)
            case .item:
                guard node.range.start.line <= node.lastLine else { throw SourceEditor.Unclear("a stage marker spans no line") }
                editor.delete(lines: node.range.start.line...node.lastLine)
            case nil: throw SourceEditor.Unclear("the whole file is a marker")
            }
            return
        }
        switch node.content {
        case .scalar: break
        case .sequence(let items):
            for item in items { try resolve(item, parent: node.flow ? nil : .item, side: side, editor: &editor) }
        case .mapping(let pairs):
            for p in pairs { try resolve(p.value, parent: .pair(p, in: node), side: side, editor: &editor) }
        }
    }
}
