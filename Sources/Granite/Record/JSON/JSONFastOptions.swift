import Foundation

/// The configurations of `JSONDecoder` that the fast JSON decoder reproduces exactly: a plain `JSONDecoder` (not
/// a subclass, which may override `decode`), default keys, no JSON5, no top-level dictionary assumption,
/// non-conforming floats rejected, dates deferred, in seconds or in milliseconds since 1970, data deferred or in
/// base64.
///
/// ```swift
/// if let options = JSONFastOptions(decoder) { /* the fast path may be taken */ }
/// ```
struct JSONFastOptions {
    /// How dates decode.
    enum DateMode {
        /// `Date.init(from:)`.
        case deferred
        /// `Date(timeIntervalSince1970: number)`.
        case secondsSince1970
        /// `Date(timeIntervalSince1970: number / 1000)`.
        case millisecondsSince1970
    }

    /// How data decodes.
    enum DataMode {
        /// `Data.init(from:)`.
        case deferred
        /// `Data(base64Encoded: string)`.
        case base64
    }

    /// How dates decode.
    var dates: DateMode
    /// How data decodes.
    var data: DataMode
    /// The decoder's user info.
    var userInfo: [CodingUserInfoKey: Any]

    /// The options of `decoder`, or nil when the fast decoder cannot reproduce it.
    init?(_ decoder: JSONDecoder) {
        guard type(of: decoder) == JSONDecoder.self,
            case .useDefaultKeys = decoder.keyDecodingStrategy,
            !decoder.allowsJSON5,
            !decoder.assumesTopLevelDictionary,
            case .throw = decoder.nonConformingFloatDecodingStrategy
        else { return nil }
        switch decoder.dateDecodingStrategy {
        case .deferredToDate: dates = .deferred
        case .secondsSince1970: dates = .secondsSince1970
        case .millisecondsSince1970: dates = .millisecondsSince1970
        default: return nil
        }
        switch decoder.dataDecodingStrategy {
        case .deferredToData: data = .deferred
        case .base64: data = .base64
        default: return nil
        }
        userInfo = decoder.userInfo
    }
}
