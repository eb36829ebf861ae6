import Crypto
import RecipeCore
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 of files and bytes (swift-crypto), as lower-case hex: how a sidecar binds to its
/// original and how the object store names what it keeps.
///
/// ```swift
/// let (digest, size) = try ContentHash.file("IMG_0001.JPG")   // ("6f1e…", 2318841)
/// ```
public enum ContentHash {
    /// Hashes a file in 1 MiB reads (never whole in memory).
    public static func file(_ path: String) throws -> (sha256: String, size: Int) {
        let f: UnsafeMutablePointer<FILE>
        do { f = try InputFile.open(path) } catch { throw HistoryError(path, error.reason) }
        defer { fclose(f) }
        var hasher = SHA256()
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var size = 0
        while true {
            let n = fread(buffer.baseAddress, 1, chunk, f)
            if n > 0 {
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                size += n
            }
            if n < chunk {
                if ferror(f) != 0 { throw HistoryError(path, "cannot read: \(errnoText())") }
                break
            }
        }
        return (hex(hasher.finalize()), size)
    }

    public static func bytes(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in digest {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
