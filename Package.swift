// swift-tools-version:6.0
//
// One layer = one target = one folder (see ../shared/STYLE.md). Dependencies point one way:
// Core ← Kernels ← Ops ← Language; Kernels, Ops ← Optimizer; Core ← Kernels ← Render; Core ← Codecs;
// Core ← Color (lcms2); only the CLI sees everything.
import PackageDescription

let aptJPEG: [SystemPackageProvider] = [.apt(["libjpeg62-turbo-dev"])]
let aptPNG: [SystemPackageProvider] = [.apt(["libpng-dev"])]
let aptYAML: [SystemPackageProvider] = [.apt(["libyaml-dev"])]
let aptLCMS2: [SystemPackageProvider] = [.apt(["liblcms2-dev"])]
let aptWebP: [SystemPackageProvider] = [.apt(["libwebp-dev"])]

// The git commit `recipe --version` names: RECIPE_COMMIT in the build's environment (.ci/package sets
// it to `git describe --always --dirty`), passed to CBuildInfo as a C define. Letters, digits, '.',
// '-' and '+' only, as a commit or a describe string has; anything else, or none, builds "unknown".
let buildCommit: String = {
    guard let commit = Context.environment["RECIPE_COMMIT"], !commit.isEmpty, commit.count <= 64,
        commit.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.+".contains($0)) })
    else { return "unknown" }
    return commit
}()

let package = Package(
    name: "recipe",
    products: [
        .executable(name: "recipe", targets: ["recipe"]),
        .executable(name: "recipe-preview", targets: ["recipe-preview"]),
        .executable(name: "recipe-bench", targets: ["recipe-bench"]),
        .executable(name: "recipe-fuzz", targets: ["recipe-fuzz"]),
        .library(name: "RecipeCodecs", targets: ["RecipeCodecs"]),
        .library(name: "RecipeRender", targets: ["RecipeRender"]),
        .library(name: "RecipeLanguage", targets: ["RecipeLanguage"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // SHA-256 for content hashes (the sidecar's binding to its original, the object store).
        // From 4.x it imports FoundationEssentials only, not the whole of Foundation.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // `recipe preview`'s local web server and its live channel (RecipePreview only).
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", exact: "2.8.1"),
        // Already resolved for hummingbird; named so the preview can set its logger to stderr.
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // Already resolved for hummingbird; named for the preview's connection guard (a NIO handler
        // after the HTTP/1 decoder: see Sources/RecipePreview/PreviewConnectionGuard.swift).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        // System libraries (pkg-config names as Debian ships them).
        .systemLibrary(name: "CJPEG", pkgConfig: "libjpeg", providers: aptJPEG),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: aptPNG),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: aptYAML),
        // darktable's XMP sidecars (RDF/XML): libxml2's reader, loaded on the first sidecar read
        // (no header or link: see CXML2Loader.h).
        .target(name: "CXML2Loader", dependencies: ["CLibraryLoader"]),
        // Little CMS 2: ICC profiles and colour transforms (RecipeColor only).
        .systemLibrary(name: "CLCMS2", pkgConfig: "lcms2", providers: aptLCMS2),
        // The other formats of a photographer's library: TIFF, WebP (with its mux and demux APIs
        // for metadata), HEIF/HEIC and AVIF (libheif over libde265, x265, dav1d and aom).
        // libtiff's header only: CTIFFLoader loads the library on the first TIFF (see its .c).
        .systemLibrary(name: "CTIFF"),
        .target(name: "CTIFFLoader", dependencies: ["CTIFF", "CLibraryLoader"]),
        .systemLibrary(name: "CWebP", pkgConfig: "libwebpdemux", providers: aptWebP),
        // Libraries loaded on first use, not at every start (see CLibraryLoader.h).
        .target(name: "CLibraryLoader"),
        // libheif's header only: CHeifLoader loads the library on first use (see its .c).
        .systemLibrary(name: "CHeif"),
        .target(name: "CHeifLoader", dependencies: ["CHeif", "CLibraryLoader"]),
        // Camera raw files: LibRaw (libraw_r.so.20) behind a few C calls, loaded on the first raw
        // file (its header only at build time: Debian's libraw-dev).
        .target(name: "CRawLoader", dependencies: ["CLibraryLoader"]),
        // lensfun's lens database (liblensfun.so.1) behind a few C calls, loaded on the first lens
        // look-up (its header only at build time: Debian's liblensfun-dev).
        .target(name: "CLensfunLoader", dependencies: ["CLibraryLoader"]),
        // recipe's own Bayer demosaic, strip by strip (see its header for why not LibRaw's).
        .target(name: "CDemosaic", cSettings: [.unsafeFlags(["-O3", "-fno-math-errno", "-ffp-contract=off"])]),
        // Noise reduction: the plane denoiser, the raw develop's denoise and the noise model's
        // estimate (-O3 like the demosaic: the debug build's tests run it on real photos).
        .target(name: "CDenoise", cSettings: [.unsafeFlags(["-O3"])]),
        // setjmp/longjmp traps: Swift cannot longjmp, so these few calls stay in C.
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        .target(name: "CPNGShim", dependencies: ["CPNG"]),

        // The commit the binaries were built from (see buildCommit above).
        .target(name: "CBuildInfo", cSettings: [.define("RECIPE_COMMIT", to: "\"\(buildCommit)\"")]),
        // Output streams that start the kernel's writeback as they go (fopencookie and
        // sync_file_range, which Swift's Glibc module does not declare).
        .target(name: "CFileSync"),
        .target(name: "RecipeCore", dependencies: ["CFileSync"]),
        // The one kernel Swift cannot vectorise (a gather), in C with a run-time AVX2 check.
        .target(name: "CKernelsSIMD"),
        .target(name: "RecipeKernels", dependencies: ["RecipeCore", "CKernelsSIMD"]),
        .target(
            name: "RecipeCodecs",
            dependencies: ["RecipeCore", "RecipeKernels", "CJPEG", "CJPEGShim", "CPNG", "CPNGShim", "CTIFF", "CTIFFLoader", "CWebP", "CHeif", "CHeifLoader", "CRawLoader"]),
        // Lens corrections' profiles: what a photo says about its lens, matched against lensfun's
        // database, and the calibration at the photo's focal length, aperture and distance.
        .target(
            name: "RecipeLens", dependencies: ["RecipeCore", "RecipeKernels", "RecipeCodecs", "CLensfunLoader"],
            exclude: ["README.md"], resources: [.embedInCode("Resources/lens-ids.tsv")]),
        .target(name: "RecipeRender", dependencies: ["RecipeCore", "RecipeKernels", "CKernelsSIMD", "CDemosaic", "CDenoise"]),
        // Colour management: ICC profiles, lcms2 transforms, matrix-shaper constants for the kernels.
        .target(name: "RecipeColor", dependencies: ["RecipeCore", "CLCMS2"], exclude: ["README.md"]),
        .target(name: "RecipeOps", dependencies: ["RecipeCore", "RecipeKernels"]),
        .target(name: "RecipeLanguage", dependencies: ["RecipeCore", "RecipeOps", "CYAML"]),
        // The plan is made of kernel steps that the ops declare, so the optimiser sees Kernels and Ops.
        .target(name: "RecipeOptimizer", dependencies: ["RecipeCore", "RecipeKernels", "RecipeOps"]),
        // The edit lifecycle: sidecars, frozen base layers, the object store, foreign formats.
        .target(
            name: "RecipeHistory",
            dependencies: ["RecipeCore", "RecipeLanguage", "RecipeCodecs", "CXML2Loader", .product(name: "Crypto", package: "swift-crypto")]),
        // Batches: walking folders, output names, shards, the manifest and what is up to date, and
        // `recipe apply`'s engine (BatchRun: the photos rendered on worker threads through RecipeSession,
        // each reported as a bar, lines or JSON records) with the release it records as the engine version.
        .target(
            name: "RecipeBatch",
            dependencies: ["RecipeCore", "RecipeCodecs", "RecipeRender", "RecipeColor", "RecipeLanguage", "RecipeHistory", "RecipeSession",
                           .product(name: "Crypto", package: "swift-crypto")]),
        // What every front end renders with (the CLI's commands and the preview server): a recipe
        // checked and planned for a photo, and the one render job that runs the plan.
        .target(
            name: "RecipeSession",
            dependencies: ["RecipeCore", "RecipeKernels", "RecipeCodecs", "RecipeRender", "RecipeOps", "RecipeLanguage", "RecipeOptimizer",
                           "RecipeHistory", "RecipeColor", "RecipeLens"]),
        // `recipe preview`: the local web server (Hummingbird, NIO), its page (embedded in the binary),
        // the recipe watcher. The only target that sees NIO; it renders through RecipeSession.
        .target(
            name: "RecipePreview",
            dependencies: [
                "RecipeCore", "RecipeCodecs", "RecipeLanguage", "RecipeOps", "RecipeOptimizer", "RecipeHistory", "RecipeBatch", "RecipeSession",
                "RecipeRender",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            resources: [.embedInCode("Resources/index.html"), .embedInCode("Resources/preview.js"), .embedInCode("Resources/preview.css")]),
        // Option groups more than one executable declares: `--max-memory` (recipe, recipe-fuzz).
        .target(
            name: "RecipeOptions",
            dependencies: ["RecipeSession", "RecipeCodecs", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // `recipe preview`'s command line, shared by `recipe` (which parses it and execs the server)
        // and `recipe-preview` (the server).
        .target(
            name: "RecipePreviewOptions",
            dependencies: ["RecipeOptions", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        .executableTarget(
            name: "recipe",
            dependencies: [
                "RecipeCore", "RecipeKernels", "RecipeCodecs", "RecipeRender", "RecipeOps", "RecipeLanguage", "RecipeOptimizer", "RecipeHistory",
                "RecipeBatch", "RecipeColor", "RecipeSession", "RecipeOptions", "RecipePreviewOptions", "RecipeLens", "CBuildInfo",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        // The preview server, a second executable beside `recipe` (which execs it for `recipe preview`):
        // linked into `recipe`, Hummingbird, NIO and Foundation made every command start 3.5 ms slower
        // and 6.5 MiB larger.
        .executableTarget(
            name: "recipe-preview",
            dependencies: [
                "RecipePreview", "RecipePreviewOptions", "RecipeSession",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "recipe-fuzz",
            dependencies: [
                "RecipeCore", "RecipeKernels", "RecipeOps", "RecipeLanguage", "RecipeCodecs", "RecipeRender", "RecipeOptimizer",
                "RecipeSession", "RecipeOptions", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),
        .executableTarget(
            name: "recipe-bench",
            dependencies: [
                "RecipeCore", "RecipeCodecs", "RecipeRender", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]),

        .target(name: "TestSupport", dependencies: ["RecipeCore"], path: "Tests/TestSupport"),
        .testTarget(name: "RecipeCoreTests", dependencies: ["RecipeCore", "TestSupport"]),
        .testTarget(name: "RecipeKernelsTests", dependencies: ["RecipeKernels", "TestSupport"]),
        .testTarget(name: "RecipeCodecsTests", dependencies: ["RecipeCodecs", "CDemosaic", "CRawLoader", "TestSupport"]),
        .testTarget(name: "RecipeLensTests", dependencies: ["RecipeLens", "RecipeCodecs", "RecipeKernels", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "RecipeColorTests", dependencies: ["RecipeColor", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(
            name: "RecipeRenderTests",
            dependencies: ["RecipeRender", "RecipeCodecs", "CDenoise", "TestSupport"]),
        .testTarget(name: "RecipeOpsTests", dependencies: ["RecipeOps", "TestSupport"]),
        .testTarget(name: "RecipeOptimizerTests", dependencies: ["RecipeOptimizer", "RecipeLanguage", "TestSupport"]),
        .testTarget(
            name: "RecipeLanguageTests", dependencies: ["RecipeLanguage", "RecipeOps", "TestSupport"],
            exclude: ["Fixtures"]),
        .testTarget(name: "RecipeHistoryTests", dependencies: ["RecipeHistory", "RecipeLanguage", "TestSupport"]),
        .testTarget(name: "RecipeBatchTests", dependencies: ["RecipeBatch", "TestSupport"]),
        .testTarget(name: "RecipePreviewTests", dependencies: ["RecipePreview", "RecipeSession", "RecipeCodecs", "RecipeCore", "TestSupport"]),
        .testTarget(name: "RecipeSessionTests", dependencies: ["RecipeSession", "RecipeCore", "RecipeLanguage", "TestSupport"]),
        .testTarget(name: "recipeTests", dependencies: ["RecipeCodecs", "RecipeColor", "RecipeLanguage", "RecipeHistory", "RecipeBatch", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
