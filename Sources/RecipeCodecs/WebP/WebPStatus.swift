internal import CWebP

/// libwebp's result codes as the words an error line shows: what went wrong, then the code's own
/// name so a user can look it up (`bitstream error (VP8_STATUS_BITSTREAM_ERROR)`).
enum WebPStatus {
    /// A decoder status (`VP8StatusCode`).
    static func text(_ status: VP8StatusCode) -> String {
        switch status {
        case VP8_STATUS_OK: "no error (VP8_STATUS_OK)"
        case VP8_STATUS_OUT_OF_MEMORY: "out of memory (VP8_STATUS_OUT_OF_MEMORY)"
        case VP8_STATUS_INVALID_PARAM: "invalid parameter (VP8_STATUS_INVALID_PARAM)"
        case VP8_STATUS_BITSTREAM_ERROR: "bitstream error (VP8_STATUS_BITSTREAM_ERROR)"
        case VP8_STATUS_UNSUPPORTED_FEATURE: "unsupported feature (VP8_STATUS_UNSUPPORTED_FEATURE)"
        case VP8_STATUS_SUSPENDED: "data ends before the image does (VP8_STATUS_SUSPENDED)"
        case VP8_STATUS_USER_ABORT: "aborted (VP8_STATUS_USER_ABORT)"
        case VP8_STATUS_NOT_ENOUGH_DATA: "data ends before the image does (VP8_STATUS_NOT_ENOUGH_DATA)"
        default: "unknown status \(status.rawValue)"
        }
    }

    /// An encoder error (`WebPEncodingError`), worded as cwebp words it.
    static func text(_ error: WebPEncodingError) -> String {
        switch error {
        case VP8_ENC_OK: "no error (VP8_ENC_OK)"
        case VP8_ENC_ERROR_OUT_OF_MEMORY: "out of memory (VP8_ENC_ERROR_OUT_OF_MEMORY)"
        case VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY: "out of memory for the bitstream (VP8_ENC_ERROR_BITSTREAM_OUT_OF_MEMORY)"
        case VP8_ENC_ERROR_NULL_PARAMETER: "missing parameter (VP8_ENC_ERROR_NULL_PARAMETER)"
        case VP8_ENC_ERROR_INVALID_CONFIGURATION: "invalid configuration (VP8_ENC_ERROR_INVALID_CONFIGURATION)"
        case VP8_ENC_ERROR_BAD_DIMENSION:
            "picture too big: WebP allows at most \(WEBP_MAX_DIMENSION)×\(WEBP_MAX_DIMENSION) pixels (VP8_ENC_ERROR_BAD_DIMENSION)"
        case VP8_ENC_ERROR_PARTITION0_OVERFLOW:
            "first partition over 512 KiB: lower the quality (VP8_ENC_ERROR_PARTITION0_OVERFLOW)"
        case VP8_ENC_ERROR_PARTITION_OVERFLOW: "partition over 16 MiB (VP8_ENC_ERROR_PARTITION_OVERFLOW)"
        case VP8_ENC_ERROR_BAD_WRITE: "could not store the encoded bytes (VP8_ENC_ERROR_BAD_WRITE)"
        case VP8_ENC_ERROR_FILE_TOO_BIG: "file would be over 4 GiB (VP8_ENC_ERROR_FILE_TOO_BIG)"
        case VP8_ENC_ERROR_USER_ABORT: "aborted (VP8_ENC_ERROR_USER_ABORT)"
        default: "unknown encoder error \(error.rawValue)"
        }
    }

    /// A mux error (`WebPMuxError`).
    static func text(_ error: WebPMuxError) -> String {
        switch error {
        case WEBP_MUX_OK: "no error (WEBP_MUX_OK)"
        case WEBP_MUX_NOT_FOUND: "chunk not found (WEBP_MUX_NOT_FOUND)"
        case WEBP_MUX_INVALID_ARGUMENT: "invalid argument (WEBP_MUX_INVALID_ARGUMENT)"
        case WEBP_MUX_BAD_DATA: "bad data (WEBP_MUX_BAD_DATA)"
        case WEBP_MUX_MEMORY_ERROR: "out of memory (WEBP_MUX_MEMORY_ERROR)"
        case WEBP_MUX_NOT_ENOUGH_DATA: "not enough data (WEBP_MUX_NOT_ENOUGH_DATA)"
        default: "unknown mux error \(error.rawValue)"
        }
    }
}
