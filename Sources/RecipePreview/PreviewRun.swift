import Logging
import RecipeBatch
import RecipeCore
import RecipeSession
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One `recipe preview` run from its arguments: which is the recipe, which photos (or the folder),
/// then the watcher, the session and the server. The URL goes to stdout as the first line, and
/// stdout is flushed, so a script or a test can read it.
///
/// ```swift
/// try PreviewRun(arguments: ["IMG_1.jpg", "look.recipe.yaml"], host: "127.0.0.1", port: 0,
///                size: .longEdge(1600)).run()
/// ```
package struct PreviewRun {
    package var recipe: String
    package var photos: [PreviewSession.Photo]
    package var folderMode: Bool
    /// In folder mode, the folder's real path (every open of a photo is checked against it).
    package var folder: String?
    package var host: String
    package var port: Int
    package var size: RenderSize
    /// The memory one render may take (`--max-memory`).
    package var budget = MemoryBudget.standard
    /// Lines for stderr: photos left out of a folder (links out of it) and why.
    package var leftOut: [String] = []

    /// Sorts the arguments: exactly one recipe (`*.recipe.yaml`/`.yml`), then photos or one folder.
    package init(arguments: [String], host: String, port: Int, size: RenderSize, budget: MemoryBudget = .standard) throws(PreviewError) {
        let recipes = arguments.filter { $0.hasSuffix(".recipe.yaml") || $0.hasSuffix(".recipe.yml") }
        guard recipes.count == 1 else {
            throw PreviewError(recipes.isEmpty ? "name one recipe (a *.recipe.yaml file)" : "name one recipe, not \(recipes.count)")
        }
        recipe = recipes[0]
        self.host = host
        self.port = port
        self.size = size
        self.budget = budget
        let recipe = recipes[0]
        let rest = arguments.filter { $0 != recipe }
        guard !rest.isEmpty else { throw PreviewError("name the photos to preview, or one folder of them") }
        var st = stat()
        if rest.count == 1, stat(rest[0], &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            folderMode = true
            let folder = rest[0]
            let (found, problems) = PhotoWalk(include: [], exclude: []).expand([folder])
            let (kept, refused) = PreviewAccess.insideFolder(found.map(\.path), folder: folder)
            self.folder = PreviewAccess.realPath(folder)
            let relative = Dictionary(found.map { ($0.path, $0.relative) }, uniquingKeysWith: { a, _ in a })
            photos = kept.map { PreviewSession.Photo(path: $0, name: relative[$0] ?? $0) }
            leftOut = refused.map { "\($0.path): left out: \($0.reason)" } + problems.map { "\($0.path): \($0.message)" }
            guard !photos.isEmpty else { throw PreviewError("\(folder): no photos in it") }
        } else {
            folderMode = false
            var list: [PreviewSession.Photo] = []
            for path in rest {
                guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
                    throw PreviewError("\(path): not a photo file (a folder is previewed alone: `recipe preview RECIPE FOLDER`)")
                }
                list.append(PreviewSession.Photo(path: path, name: path.split(separator: "/").last.map(String.init) ?? path))
            }
            photos = list
        }
        guard stat(recipe, &st) == 0 else { throw PreviewError("\(recipe): no such file") }
    }

    /// Serves until interrupted. Never returns normally.
    package func run() throws {
        for line in leftOut { Console.warning(line) }
        var template = Array("/tmp/recipe-preview-XXXXXX".utf8CString)
        guard let scratch = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            throw PreviewError("cannot make a scratch folder in /tmp: \(errnoText())")
        }
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        let session = PreviewSession(recipePath: recipe, photos: photos, folderMode: folderMode, folder: folder, size: size, scratch: scratch, budget: budget,
                                     threads: max(1, min(4, RenderJob.defaultThreads)))
        let watcher = try RecipeWatcher(path: recipe) { Task { await session.recipeMayHaveChanged() } }
        let server = PreviewServer(session: session, access: PreviewAccess(token: PreviewAccess.randomToken(), address: host), host: host, port: port)
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        var done = sem_t()
        sem_init(&done, 0, 0)
        nonisolated(unsafe) let doneFlag = withUnsafeMutablePointer(to: &done) { $0 }
        let mode = watcher.mode
        Task {
            await session.recipeMayHaveChanged()
            do {
                try await server.run { url in
                    print(url)
                    fflush(nil)
                    Console.printError("recipe preview: \(self.photos.count) photo\(self.photos.count == 1 ? "" : "s"), watching \(self.recipe) (\(mode.rawValue)); Ctrl-C stops")
                }
                outcome.withLock { $0 = .success(()) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            sem_post(doneFlag)
        }
        while sem_wait(&done) != 0 {}
        watcher.stop()
        rmdir(scratch)
        if case .failure(let error)? = outcome.withLock({ $0 }) { throw PreviewError("the server stopped: \(error)") }
    }
}
