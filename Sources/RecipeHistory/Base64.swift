import FoundationEssentials

/// Base64 for `data-base64` of frozen bases (FoundationEssentials' codec; line breaks and
/// blanks in the YAML text are ignored).
public enum Base64 {
    public static func decode(_ text: String) -> [UInt8]? {
        Data(base64Encoded: text, options: .ignoreUnknownCharacters).map { Array($0) }
    }

    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString(options: [.lineLength76Characters, .endLineWithLineFeed])
    }
}
