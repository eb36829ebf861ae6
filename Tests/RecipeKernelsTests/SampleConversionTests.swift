import RecipeKernels
import Testing

@Suite("Sample conversions")
struct SampleConversionTests {
    @Test("8-bit → float → 8-bit is exact for every code")
    func roundTrip8() {
        for v in 0...255 {
            let f = Float(v) / 255
            let back: UInt8 = SampleConversion.quantize(f, max: 255)
            #expect(Int(back) == v)
        }
    }

    @Test("16-bit → float → 16-bit is exact for every code")
    func roundTrip16() {
        var wrong = 0
        for v in 0...65535 {
            let back: UInt16 = SampleConversion.quantize(Float(v) / 65535, max: 65535)
            if Int(back) != v { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    @Test("linear → encoded integers, eight at a time, gives the scalar loop's bytes: every 8- and 16-bit code's linear value and its neighbours, out-of-range values, a tail")
    func fromLinearMatchesScalar() {
        var values: [Float] = [-1, -0.0, 0, 1, 1.5, .infinity, -.infinity, .leastNonzeroMagnitude, 0.0031308, 0.5, 0.99999994]
        for v in stride(from: 0, through: 65535, by: 1) {
            let l = SRGB.decodeTable16[v]
            values += [l, l.nextUp, l.nextDown]
        }
        var state: UInt32 = 99
        for _ in 0..<100_003 {
            state = state &* 1_664_525 &+ 1_013_904_223
            values.append(Float(state >> 8) / Float(1 << 24) * 1.2 - 0.1)
        }
        SRGB.encodeTable.withUnsafeBufferPointer { t in
            let ref8 = SampleConversion.fromLinearReference(values, as: UInt8.self, encodeTable: t.baseAddress!)
            let ref16 = SampleConversion.fromLinearReference(values, as: UInt16.self, encodeTable: t.baseAddress!)
            var fast8 = [UInt8](repeating: 0, count: values.count), fast16 = [UInt16](repeating: 0, count: values.count)
            values.withUnsafeBufferPointer { src in
                fast8.withUnsafeMutableBufferPointer {
                    SampleConversion.fromLinearPremultiplied(src.baseAddress!, $0.baseAddress!, pixels: values.count, channels: 1, hasAlpha: false,
                                                             encodeTable: t.baseAddress!)
                }
                fast16.withUnsafeMutableBufferPointer {
                    SampleConversion.fromLinearPremultiplied(src.baseAddress!, $0.baseAddress!, pixels: values.count, channels: 1, hasAlpha: false,
                                                             encodeTable: t.baseAddress!)
                }
            }
            let differing8 = zip(fast8, ref8).filter { $0 != $1 }.count
            let differing16 = zip(fast16, ref16).filter { $0 != $1 }.count
            #expect(values.count % 8 != 0)
            #expect(differing8 == 0)
            #expect(differing16 == 0)
            // The blur's store: eight lanes in, bytes out at a stride (here 3, interleaved RGB).
            var strided = [UInt8](repeating: 7, count: 3 * values.count)
            values.withUnsafeBufferPointer { src in
                strided.withUnsafeMutableBufferPointer { out in
                    var i = 0
                    while i + 8 <= values.count {
                        SRGB.storeCodes8(UnsafeRawPointer(src.baseAddress! + i).loadUnaligned(as: SIMD8<Float>.self), table: t.baseAddress!,
                                         into: out.baseAddress! + 3 * i + 1, stride: 3)
                        i += 8
                    }
                }
            }
            let whole = values.count / 8 * 8
            let differingStored = (0..<whole).filter { strided[3 * $0 + 1] != ref8[$0] }.count
            #expect(differingStored == 0, "storeCodes8: \(differingStored) of \(whole) codes differ from the scalar pair")
            #expect((0..<whole).allSatisfy { strided[3 * $0] == 7 && strided[3 * $0 + 2] == 7 }, "storeCodes8 wrote between its strides")
            // Whole pixels: three lanes of values (r, g, b taken from the list at three offsets)
            // as 4-byte stores, the same codes as the scalar pair, nothing past the eighth pixel's
            // spare byte.
            let pixels = (values.count - 16) / 8 * 8
            var packed = [UInt8](repeating: 7, count: 3 * pixels + 1)
            values.withUnsafeBufferPointer { src in
                packed.withUnsafeMutableBytes { out in
                    @inline(__always) func load(_ i: Int) -> SIMD8<Float> { UnsafeRawPointer(src.baseAddress! + i).loadUnaligned(as: SIMD8<Float>.self) }
                    for i in stride(from: 0, to: pixels, by: 8) {
                        SRGB.storePixels8(load(i), load(i + 8), load(i + 16), table: t.baseAddress!, into: out.baseAddress! + 3 * i)
                    }
                }
            }
            let differingPixels = (0..<pixels).filter { p in (0..<3).contains { packed[3 * p + $0] != ref8[p + 8 * $0] } }.count
            #expect(differingPixels == 0, "storePixels8: \(differingPixels) of \(pixels) pixels differ from the scalar pair")
            #expect(packed[3 * pixels] == 0, "the last spare byte")
        }
    }

    @Test("8-bit → linear → sRGB-encoded 8-bit is exact for every code (the resampler's path)")
    func linearRoundTrip8() {
        SRGB.encodeTable.withUnsafeBufferPointer { t in
            for v in 0...255 {
                let back: UInt8 = SampleConversion.quantize(SRGB.encodeClamped(SRGB.decodeTable8[v], table: t.baseAddress!), max: 255)
                #expect(Int(back) == v)
            }
        }
    }

    @Test("the encode table agrees with the IEC formula to 2e-6")
    func encodeTable() {
        SRGB.encodeTable.withUnsafeBufferPointer { t in
            var worst = 0.0
            for i in 0...10000 {
                let l = Double(i) / 10000
                worst = max(worst, abs(Double(SRGB.encodeClamped(Float(l), table: t.baseAddress!)) - SRGB.encode(l)))
            }
            #expect(worst < 2e-6)
        }
    }

    @Test("sRGB formula: known points")
    func srgbPoints() {
        #expect(abs(SRGB.decode(0.5) - 0.21404114) < 1e-7)
        #expect(abs(SRGB.encode(0.21404114) - 0.5) < 1e-7)
        #expect(SRGB.decode(0.04045) == 0.04045 / 12.92)
    }

    @Test("CMYK → RGB follows the formula, Adobe-inverted or not")
    func cmyk() {
        let src: [UInt8] = [0, 0, 0, 0, 255, 0, 0, 0, 10, 20, 30, 40]
        var dst = [UInt8](repeating: 0, count: 9)
        src.withUnsafeBufferPointer { s in dst.withUnsafeMutableBufferPointer { d in
            ColorConversion.cmykToRGB(s.baseAddress!, d.baseAddress!, width: 3, adobeInverted: false)
        } }
        func plain(_ c: Int, _ k: Int) -> UInt8 { UInt8(((255 - c) * (255 - k) + 127) / 255) }
        #expect(dst == [255, 255, 255, 0, 255, 255, plain(10, 40), plain(20, 40), plain(30, 40)])
        src.withUnsafeBufferPointer { s in dst.withUnsafeMutableBufferPointer { d in
            ColorConversion.cmykToRGB(s.baseAddress!, d.baseAddress!, width: 3, adobeInverted: true)
        } }
        #expect(dst[0] == 0 && dst[6] == UInt8((10 * 40 + 127) / 255))
    }

    @Test("flattening alpha onto white")
    func flatten() {
        let src: [UInt8] = [0, 0, 0, 255, 0, 0, 0, 0, 100, 100, 100, 128]
        var dst = [UInt8](repeating: 0, count: 9)
        src.withUnsafeBufferPointer { s in dst.withUnsafeMutableBufferPointer { d in
            SampleConversion.flattenOnWhite(s.baseAddress!, d.baseAddress!, pixels: 3, colorChannels: 3)
        } }
        #expect(Array(dst[0..<6]) == [0, 0, 0, 255, 255, 255])
        let expected: Int = (100 * 128 + 255 * 127 + 127) / 255
        #expect(dst[6] == UInt8(expected))
    }
}
