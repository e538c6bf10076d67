import Foundation

/// Foundation's coders want Sendable user info values, GRDB's user info holds `Any`: both existentials share
/// a layout, so the values are carried over as they are.
func sendableUserInfo(_ userInfo: [CodingUserInfoKey: Any]) -> [CodingUserInfoKey: any Sendable] {
    var result: [CodingUserInfoKey: any Sendable] = [:]
    for (key, value) in userInfo {
        let sendable: any Sendable = withUnsafePointer(to: value) { pointer in
            pointer.withMemoryRebound(to: (any Sendable).self, capacity: 1) { $0.pointee }
        }
        result[key] = sendable
    }
    return result
}
