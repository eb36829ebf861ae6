import Glibc
import RecipeCore
import RecipeHistory
import Testing
import TestSupport

@Suite("Object store and content hashes")
struct ObjectStoreTests {
    @Test("SHA-256 matches the FIPS 180-2 test vectors")
    func vectors() {
        let abc = ContentHash.bytes(Array("abc".utf8))
        let empty = ContentHash.bytes([])
        #expect(abc == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(empty == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("objects are stored byte for byte under their SHA-256, read-only; a tampered or missing object is an error naming it")
    func storeAndVerify() throws {
        let dir = TestPaths.temporaryDirectory("store").path
        let store = ObjectStore(root: dir + "/recipe-objects")
        let bytes: [UInt8] = Array("abc".utf8)
        let ref = try store.put(bytes: bytes, type: "jpeg")
        #expect(ref.sha256 == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let path = try store.verify(ref)
        #expect(path == dir + "/recipe-objects/sha256/ba/7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let stored = try InputFile.readAll(path, limit: 1 << 20)
        #expect(stored == bytes)
        // Storing again is a no-op; the file is read-only.
        #expect(try store.put(bytes: bytes, type: "jpeg") == ref)
        #expect(access(path, W_OK) != 0 || getuid() == 0)
        var st = stat()
        #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o444, "mode \(String(st.st_mode & 0o777, radix: 8)): read-only for everyone (root passes access() anyway)")
        // Tampered: chmod, change, verify fails naming the path.
        chmod(path, 0o644)
        let f = fopen(path, "wb")!
        fputs("abd", f)
        fclose(f)
        var message = ""
        do { try store.verify(ref) } catch let e as HistoryError { message = e.description }
        #expect(message.hasPrefix(path + ": object is damaged or was changed"))
        unlink(path)
        do { try store.verify(ref) } catch let e as HistoryError { message = e.description }
        #expect(message.contains("is missing from the store"))
    }
}
