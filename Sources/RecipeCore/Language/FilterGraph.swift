/// The typed filter DAG a recipe compiles to: nodes are operations with checked parameter values,
/// edges are image inputs, and every node knows its output size for a given source size.
///
/// ```yaml
/// stages:                      # source 6000×4000
///   - exposure: 0.3            # node 1: exposure(ev 0.3) ← source        6000×4000
///   - id: small
///     resize: {long-edge: 2048}  # node 2: resize ← node 1                  2048×1365
/// ```
public struct FilterGraph: Sendable, Hashable {
    /// Index of a node in `nodes`; node 0 is the source image.
    public typealias NodeID = Int

    /// A mask that makes a stage local: the stage's result is mixed with its input by the mask.
    public struct Mask: Sendable, Hashable {
        /// `gradient`, `radial` or `luminance`.
        public var kind: String
        public var params: ParamSet
        public var range: SourceRange?
        /// A combination's masks (`all`: where every one selects, `any`: where one does);
        /// empty for a mask of one kind.
        public var parts: [Mask]
        public init(kind: String, params: ParamSet, range: SourceRange?, parts: [Mask] = []) {
            self.kind = kind
            self.params = params
            self.range = range
            self.parts = parts
        }

        /// `all` and `any`: the kinds that combine other masks.
        public static let combinations = ["all", "any"]

        /// The mask's meaning as text, parameters sorted, parts in order:
        /// `all(color(hue-max=270 …), gradient(…))`.
        public var signature: String {
            if !parts.isEmpty { return kind + "(" + parts.map(\.signature).joined(separator: ", ") + ")" }
            return kind + "(" + params.names.sorted().map { "\($0)=\(params[$0]!.description)" }.joined(separator: " ") + ")"
        }
    }

    public struct Node: Sendable, Hashable {
        /// The op name (`exposure`), or `source` for node 0.
        public var op: String
        public var opClass: OperationClass?
        /// The stage's `id`, if it has one.
        public var stageID: String?
        /// The stage's 1-based position in `stages:` (0 for the source).
        public var stageIndex: Int
        public var params: ParamSet
        /// Which params come from a recipe-level knob: parameter → knob name (`$warmth`).
        public var bindings: [String: String]
        /// Image inputs: the primary input first, then a composite op's others.
        public var inputs: [NodeID]
        public var mask: Mask?
        /// Output size for the graph's source size.
        public var size: CanvasSize
        /// The op key in the recipe.
        public var range: SourceRange?

        public init(op: String, opClass: OperationClass?, stageID: String?, stageIndex: Int, params: ParamSet,
                    bindings: [String: String] = [:], inputs: [NodeID], mask: Mask?, size: CanvasSize,
                    range: SourceRange?) {
            self.op = op
            self.opClass = opClass
            self.stageID = stageID
            self.stageIndex = stageIndex
            self.params = params
            self.bindings = bindings
            self.inputs = inputs
            self.mask = mask
            self.size = size
            self.range = range
        }
    }

    public var nodes: [Node]
    /// The node whose pixels are the result.
    public var output: NodeID

    public init(nodes: [Node], output: NodeID) {
        self.nodes = nodes
        self.output = output
    }

    public var sourceSize: CanvasSize { nodes[0].size }
}

extension FilterGraph {
    /// The graph's meaning as text, without source positions: two recipes that differ only in
    /// formatting, comments or key order have the same signature (`fmt` is tested with it).
    public var signature: String {
        var out = ""
        for (i, n) in nodes.enumerated() {
            out += "#\(i) \(n.op)"
            if let id = n.stageID { out += " id=\(id)" }
            out += " in=\(n.inputs.map(String.init).joined(separator: ",")) size=\(n.size)"
            for name in n.params.names.sorted() { out += " \(name)=\(n.params[name]!.description)" }
            if let m = n.mask { out += " mask=" + m.signature }
            out += "\n"
        }
        return out + "output=#\(output)\n"
    }
}
