import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// Walks a PNG's chunk list without decoding pixels, to find ancillary chunks stored after the
/// image data (eXIf, tEXt, iTXt), which a streaming decoder would otherwise see too late, and the
/// cICP chunk (PNG third edition), which Debian's libpng 1.6.39 does not know.
///
/// Hand-written because libpng only reports those chunks after every IDAT has been decompressed.
/// Only uncompressed chunks are returned; the walk stops at the first inconsistency, leaving
/// libpng to report real damage.
enum PNGChunkScanner {
    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    static func ancillaryChunksAfterImageData(path: String) -> [Chunk] {
        guard let f = fopen(path, "rb") else { return [] }
        defer { fclose(f) }
        var header = [UInt8](repeating: 0, count: 8)
        guard fread(&header, 1, 8, f) == 8 else { return [] }
        var afterIDAT = false
        var found: [Chunk] = []
        var budget = 64 << 20  // never read more than 64 MB of ancillary data
        while true {
            var head = [UInt8](repeating: 0, count: 8)
            guard fread(&head, 1, 8, f) == 8 else { break }
            let length = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
            guard length >= 0, length < 0x7FFF_FFFF else { break }
            let type = String(decoding: head[4..<8], as: UTF8.self)
            if type == "IDAT" { afterIDAT = true }
            if type == "IEND" { break }
            let wanted = (afterIDAT && (type == "eXIf" || type == "tEXt" || type == "iTXt")) || (!afterIDAT && type == "cICP")
            if wanted && length <= budget {
                var data = [UInt8](repeating: 0, count: length)
                guard length == 0 || fread(&data, 1, length, f) == length else { break }
                budget -= length
                found.append(Chunk(type: type, data: data))
                guard fseek(f, 4, SEEK_CUR) == 0 else { break }
            } else {
                guard fseek(f, length + 4, SEEK_CUR) == 0 else { break }
            }
        }
        return found
    }

    /// tEXt or uncompressed iTXt as a text entry; nil for compressed or malformed ones.
    static func decodeText(_ chunk: Chunk) -> PNGText? {
        let d = chunk.data
        guard let nul = d.firstIndex(of: 0), nul > 0 else { return nil }
        let keyword = String(decoding: d[..<nul], as: UTF8.self)
        if chunk.type == "tEXt" { return PNGText(keyword: keyword, text: Array(d[(nul + 1)...])) }
        // iTXt: keyword\0 compression-flag compression-method language\0 translated\0 text
        guard d.count > nul + 2, d[nul + 1] == 0 else { return nil }
        var i = nul + 3
        guard let langEnd = d[i...].firstIndex(of: 0) else { return nil }
        let lang = String(decoding: d[i..<langEnd], as: UTF8.self)
        i = langEnd + 1
        guard let transEnd = d[i...].firstIndex(of: 0) else { return nil }
        let translated = String(decoding: d[i..<transEnd], as: UTF8.self)
        return PNGText(keyword: keyword, text: Array(d[(transEnd + 1)...]), international: true,
                       languageTag: lang, translatedKeyword: translated)
    }
}
