/// The built-in seed recipes: small files that between them use every piece of the syntax the
/// checker and printer handle, so the mutator starts from inputs that reach deep into the checker
/// (a random byte string rarely gets past `format:`). Most are valid; the fuzzer mutates them into
/// near misses.
///
/// | seed                | covers                                                            |
/// |---------------------|-------------------------------------------------------------------|
/// | flow-minimal        | a whole recipe as one flow mapping, empty `stages: []`            |
/// | block-comments      | block style, full-line and trailing comments, blank lines         |
/// | params              | `params:` short and long form, `$knob` uses, `doc`                |
/// | anchors             | `&anchor` / `*alias` on scalars and flow mappings                 |
/// | tags                | `!!str`, `!!float`, `!!int`, `!!map`, `!!seq`, `!!null` tags      |
/// | multiline-flow      | flow collections spanning lines, nested lists                     |
/// | quoted              | single, double (escapes), literal `|` and folded `>` scalars      |
/// | masks               | gradient, radial and luminance masks with invert/amount           |
/// | inputs              | `id`, `input`, `blend: {with: …}`                                 |
/// | disabled            | `enabled: false` stages (also of a broken-looking op)             |
/// | version-1.0         | the older format: `vignette: {intensity: …}`, sharpen `radius`    |
/// | geometry            | orient, crop (rectangle, %), straighten, rotate, flip, resize     |
/// | tone                | levels, gamma, sigmoid, clip, invert, brightness, contrast, curve |
/// | colour              | saturation, vibrance, hue `deg`, grayscale, sepia, colorize, lut  |
/// | documents           | `---` / `...` markers, `%YAML` directive, CRLF line ends          |
/// | wide-values         | flow values near the printer's 100-column limit                   |
/// | block-params        | block-form op parameters with comments inside                     |
///
/// And recipes that stress the renderer's resources (the render probe, `RenderProbe`), which the
/// mutator grows, shrinks and splices into the others:
///
/// | seed                | stresses                                                          |
/// |---------------------|-------------------------------------------------------------------|
/// | many-blurs          | 256 `blur: 5%` stages, the stage bound: per-stage state           |
/// | many-stages         | 200 stages of point, window and geometric ops in turn             |
/// | wide-windows        | blur, sharpen, clarity, shadows-highlights at σ 100% and 1000 px, and just under the coarse grid |
/// | branched            | 60 stages, each blending two earlier ones, flips in some branches |
enum Seeds {
    static let builtIn: [(name: String, text: String)] = [
        ("flow-minimal", """
            {format: dev.recipe.edit, version: 1.1, stages: []}

            """),
        ("block-comments", """
            # Warm portrait
            format: dev.recipe.edit   # the language
            version: 1.1
            note: a trailing-comment test

            stages:
              # lift the whole image
              - exposure: 0.30   # lift
              - white-balance: {temp: 5200, tint: 8}

              # the sky
              - id: sky
                exposure: {ev: -0.7}
                mask: {gradient: {from: [0.5, 0.0], to: [0.5, 0.45]}}
              - vignette: {amount: 0.3}
            # trailing orphan comment

            """),
        ("params", """
            format: dev.recipe.edit
            version: 1.1
            params:
              warmth: {default: 5200, doc: "scene light in kelvin"}
              lift: 0.25
              radius: {default: 3px}
            stages:
              - white-balance: {temp: $warmth, tint: 8}
              - exposure: $lift
              - blur: {sigma: $radius}
              - exposure: {ev: $lift}

            """),
        ("anchors", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - white-balance: &wb {temp: 5200, tint: 8}
              - exposure: &ev 0.3
              - id: again
                white-balance: *wb
              - exposure: *ev
              - vignette: &v
                  amount: 0.2
                  radius: 0.9
              - vignette: *v

            """),
        ("tags", """
            format: !!str dev.recipe.edit
            version: !!str 1.1
            note: !!str 1234
            stages: !!seq
              - !!map
                id: !!str toned
                exposure: !!float 0.5
              - contrast: {amount: !!int 1, pivot: !!float 0.5}
              - note: !!null
                invert: {}

            """),
        ("multiline-flow", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - curve: {points: [[0, 0.02],
                                 [0.5, 0.55],
                                 [1, 0.98]], channel: rgb}
              - matrix: [[0.9, 0.1, 0, 0],
                         [0, 1, 0, 0],
                         [0, 0.05, 0.95, 0.01]]
              - {id: flowstage, enabled: true, saturation: {amount: 1.1}}

            """),
        ("quoted", """
            format: "dev.recipe.edit"
            version: '1.1'
            note: "a \\"quoted\\" note\\twith a tab, a \\u00e9 and a # hash"
            stages:
              - colorize: {color: "#996633", amount: 0.5}
              - crop: {aspect: '3:2', anchor: 'top'}
              - id: 'single-quoted'
                note: 'it''s single # quoted'
                exposure: 0.1
              - note: |
                  a literal block
                  # not a comment
                exposure: 0.2
              - note: >
                  a folded
                  block
                sepia: 0.25

            """),
        ("masks", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - exposure: {ev: -0.7}
                mask: {gradient: {from: [0.5, 0], to: [0.5, 0.45], invert: true}}
              - saturation: 1.3
                mask: {radial: {center: [0.4, 0.6], radius: 0.3, feather: 0.8, amount: 0.5}}
              - clarity: {amount: 0.4}
                mask:
                  luminance: {min: 0.1, max: 0.6, feather: 0.2}
              - vibrance: 0.2
                mask: {radial: {}}

            """),
        ("inputs", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - id: base
                exposure: 0.2
              - id: soft
                blur: {sigma: 1.5%}
              - id: glow
                input: base
                blend: {with: soft, mode: soft-light, opacity: 0.5}
              - blend: glow

            """),
        ("disabled", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - enabled: false
                sepia: 0.4
              - blur: {sigma: 2}
              - enabled: true
                grayscale: {amount: 0.3}
              - enabled: false
                id: off
                hue: 30deg

            """),
        ("version-1.0", """
            # format 1.0: vignette called its strength `intensity`, sharpen its sigma `radius`
            format: dev.recipe.edit
            version: 1.0
            stages:
              - exposure: 0.2
              - vignette: {intensity: 0.8, radius: 0.6}  # darker corners
              - sharpen:
                  amount: 0.6
                  radius: 1.2px  # unsharp mask sigma

            """),
        ("geometry", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - orient: {mode: auto}
              - straighten: {angle: -1.5, fill: crop}
              - crop: {x: 5%, y: 10px, width: 80%, height: 3000}
              - rotate: 90
              - flip: horizontal
              - resize: {long-edge: 2048, kernel: lanczos3}
              - resize: {scale: 0.5}

            """),
        ("tone", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - levels: {black: 0.02, white: 0.98, gamma: 1.1, out-black: 0, out-white: 1}
              - gamma: 0.9
              - sigmoid: {contrast: 4, midpoint: 0.45}
              - clip: {min: 0, max: 1}
              - invert:
              - brightness: -0.05
              - contrast: {amount: 1.2, pivot: 0.5}
              - curve: {points: [[0, 0], [0.25, 0.2], [1, 1]], channel: g}
              - shadows-highlights: {shadows: 0.3, highlights: -0.2, radius: 2%}

            """),
        ("colour", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - saturation: {amount: 0.8}
              - vibrance: -0.3
              - hue: {degrees: -12.5deg}
              - grayscale: 1
              - sepia: {amount: 0.2}
              - colorize: {color: [0.6, 0.4, 0.2], amount: 0.1}
              - lut: {file: looks/warm.cube, interp: trilinear, amount: 0.7}
              - white-balance: {temp: 4800, tint: -5, target-temp: 6500, target-tint: 0}
              - sharpen: {amount: 1, sigma: 0.8px, threshold: 0.02, luma: true}

            """),
        ("documents", "%YAML 1.1\r\n---\r\nformat: dev.recipe.edit\r\nversion: 1.1\r\nstages:\r\n  - exposure: -1e-1\r\n  - contrast: +1.5\r\n...\r\n"),
        ("wide-values", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - curve: [[0, 0.02], [0.1, 0.12], [0.25, 0.27], [0.5, 0.52], [0.75, 0.78], [1, 0.98]]
              - matrix: [[0.393, 0.769, 0.189, 0], [0.349, 0.686, 0.168, 0], [0.272, 0.534, 0.131, 0]]
              - white-balance: {temp: 5200, tint: 8, target-temp: 6500, target-tint: 0}
              - vignette: {amount: 0.3, radius: 1.2, feather: 0.7, center: [0.45, 0.55]}

            """),
        ("many-blurs", header + String(repeating: "  - blur: 5%\n", count: 256)),
        ("many-stages", header + (0..<200).map { i in
            ["  - exposure: 0.1\n", "  - sharpen: 0.5\n", "  - vignette: 0.1\n", "  - flip: horizontal\n", "  - clarity: 0.1\n",
             "  - gamma: 0.9\n", "  - blur: 2px\n", "  - contrast: 1.1\n"][i % 8]
        }.joined()),
        ("wide-windows", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - blur: 100%
              - blur: 1000px
              - sharpen: {amount: 5, sigma: 100%}
              - sharpen: {amount: 5, sigma: 15.9px, luma: true}
              - clarity: {amount: 1, sigma: 100%}
              - clarity: {amount: -1, sigma: 1000px}
              - shadows-highlights: {shadows: 1, highlights: 1, radius: 100%}
              - blur: 15.99px

            """),
        ("branched", header + branched(stages: 60)),
        ("block-params", """
            format: dev.recipe.edit
            version: 1.1
            stages:
              - white-balance:
                  # measured on the grey card
                  temp: 5600
                  tint: 3   # a little magenta
              -   id: indented
                  blur:
                    sigma: 4px

            """),
    ]

    static let header = "format: dev.recipe.edit\nversion: 1.1\nstages:\n"

    /// `stages` stages `s0`, `s1`, …, each (from the third) blending the one before it with an
    /// earlier one; every fifth blurs, every seventh flips top–bottom (a whole image, kept at the
    /// branch point for the reader that waits for it).
    static func branched(stages: Int) -> String {
        var out = "  - id: s0\n    exposure: 0.1\n  - id: s1\n    blur: 1%\n"
        let modes = ["normal", "multiply", "screen", "overlay", "soft-light"]
        for i in 2..<stages {
            if i % 7 == 0 {
                out += "  - id: s\(i)\n    input: s\(i - 2)\n    flip: vertical\n"
            } else if i % 5 == 0 {
                out += "  - id: s\(i)\n    input: s\(i - 3)\n    blur: \(i % 3 + 1)%\n"
            } else {
                out += "  - id: s\(i)\n    input: s\(i - 1)\n    blend: {with: s\(i / 2), mode: \(modes[i % 5])}\n"
            }
        }
        return out
    }
}
