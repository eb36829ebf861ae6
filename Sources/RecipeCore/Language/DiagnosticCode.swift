/// Every diagnostic the language reports, with its stable code. Codes are never reused or
/// renumbered: editors, CI logs and Grammar/diagnostics.md refer to them. R1xx are problems of the
/// file and its YAML, R2xx of the recipe's meaning, R3xx are warnings.
public enum DiagnosticCode: String, Sendable, Hashable, CaseIterable {
    // R1xx: the file and its YAML
    case yamlSyntax = "R100"
    case multipleDocuments = "R101"
    case unknownTag = "R102"
    case aliasBudget = "R103"
    case nestingTooDeep = "R104"
    case fileTooLarge = "R105"
    case duplicateKey = "R106"
    case unreadableFile = "R107"
    case tooManyStages = "R108"

    // R2xx: the recipe
    case missingKey = "R200"
    case foreignFormat = "R201"
    case unsupportedVersion = "R202"
    case unknownKey = "R203"
    case unknownOperation = "R204"
    case invalidVersion = "R205"
    case wrongType = "R206"
    case outOfRange = "R207"
    case badUnit = "R208"
    case invalidChoice = "R209"
    case stageWithoutOperation = "R210"
    case multipleOperations = "R211"
    case danglingInput = "R212"
    case cyclicInput = "R213"
    case duplicateID = "R214"
    case invalidID = "R215"
    case missingParameter = "R216"
    case conflictingParameters = "R217"
    case undefinedParam = "R218"
    case fileOutsideRecipe = "R219"
    case missingFile = "R220"
    case wrongLength = "R221"
    case invalidMask = "R222"
    case invalidParamDeclaration = "R223"
    case sizeMismatch = "R224"
    case unresolvedConflict = "R225"
    case misplacedDevelop = "R226"
    case notAFile = "R227"
    case invalidBase = "R230"
    case inputBelowBase = "R231"
    case invalidOriginal = "R232"

    // R3xx: warnings
    case olderVersion = "R300"
    case unusedParam = "R301"
    case unusedStage = "R302"
    case oversizeOutput = "R303"

    /// Errors stop a render and fail `recipe check`; warnings are printed and do not.
    public var defaultSeverity: Diagnostic.Severity {
        rawValue.hasPrefix("R3") ? .warning : .error
    }

    /// A short title, as Grammar/diagnostics.md and `--format json` give it.
    public var title: String {
        switch self {
        case .yamlSyntax: "YAML syntax error"
        case .multipleDocuments: "more than one YAML document"
        case .unknownTag: "unknown YAML tag"
        case .aliasBudget: "too many alias expansions"
        case .nestingTooDeep: "nesting too deep"
        case .fileTooLarge: "recipe file too large"
        case .duplicateKey: "duplicate key"
        case .unreadableFile: "recipe file cannot be read"
        case .tooManyStages: "too many stages"
        case .missingKey: "required key missing"
        case .foreignFormat: "foreign adjustment data"
        case .unsupportedVersion: "unsupported format version"
        case .unknownKey: "unknown key"
        case .unknownOperation: "unknown operation"
        case .invalidVersion: "malformed version"
        case .wrongType: "wrong type"
        case .outOfRange: "value out of range"
        case .badUnit: "bad unit"
        case .invalidChoice: "not one of the choices"
        case .stageWithoutOperation: "stage without an operation"
        case .multipleOperations: "two operations in one stage"
        case .danglingInput: "input names no stage"
        case .cyclicInput: "input would form a cycle"
        case .duplicateID: "duplicate stage id"
        case .invalidID: "malformed id"
        case .missingParameter: "required parameter missing"
        case .conflictingParameters: "parameters conflict"
        case .undefinedParam: "undefined param"
        case .fileOutsideRecipe: "file outside the recipe's folder"
        case .missingFile: "referenced file missing"
        case .wrongLength: "wrong number of elements"
        case .invalidMask: "malformed mask"
        case .invalidParamDeclaration: "malformed param declaration"
        case .sizeMismatch: "inputs of different sizes"
        case .unresolvedConflict: "unresolved merge conflict"
        case .misplacedDevelop: "develop stage out of place"
        case .notAFile: "referenced path is not a file"
        case .invalidBase: "malformed frozen base layer"
        case .inputBelowBase: "input below a frozen base"
        case .invalidOriginal: "malformed original binding"
        case .olderVersion: "older format version"
        case .unusedParam: "param never used"
        case .unusedStage: "stage output never used"
        case .oversizeOutput: "image larger than renders allow"
        }
    }
}
