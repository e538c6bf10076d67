// The parsed form of a JSON document, as SQLite 3.40's JSON1 functions see it.

import GraniteStorage

/// One JSON value of a parsed document.
///
/// Scalars keep the exact bytes of their token, because SQLite 3.40 renders a parsed document from its tokens:
/// `json('1E5')` is `1E5` and `json('"\u0041"')` keeps the escape. Containers hold their children in order,
/// duplicate object keys included.
indirect enum JSONNode: Sendable {
    case null
    case `true`
    case `false`
    /// A number without fraction or exponent: the token's bytes (sign included).
    case integer([UInt8])
    /// A number with a fraction or an exponent: the token's bytes.
    case real([UInt8])
    /// A string: the bytes between the quotes, escapes left as written; `escaped` when there is a backslash.
    case string([UInt8], escaped: Bool)
    /// An array; the last `appended` elements were added by the current edit (`json_set` & co.), one at a
    /// time, which changes how SQLite finds elements by index (see `JSONPath`).
    case array([JSONNode], appended: Int)
    case object([JSONMember])
    /// A node an edit (`json_set` & co.) replaced by an SQL value. SQLite marks such nodes and never looks
    /// inside them again in the same call, so later paths that go through them find nothing.
    case replaced(JSONArgument)

    /// The name `json_type` gives the node.
    var typeName: String {
        switch self {
        case .null: return "null"
        case .true: return "true"
        case .false: return "false"
        case .integer: return "integer"
        case .real: return "real"
        case .string: return "text"
        case .array: return "array"
        case .object: return "object"
        case .replaced(let argument):
            // Only reachable through a root replaced earlier in the same call, which SQLite never asks about.
            switch argument.value {
            case .integer: return "integer"
            case .real: return "real"
            case .null: return "null"
            default: return "text"
            }
        }
    }
}

/// One member of a JSON object.
struct JSONMember: Sendable {
    /// The label.
    var key: JSONKey
    /// The value.
    var value: JSONNode
    /// Set by `json_remove` and `json_patch`: the member is no longer rendered, but its key still matches
    /// lookups (SQLite flags removed members rather than dropping them, so a duplicate key behind one stays
    /// hidden).
    var isRemoved = false
    /// Set by `json_patch` when the member's value was replaced by a patch value: SQLite patches such a member
    /// no further in the same call.
    var isPatched = false
    /// Set by `json_patch` on a member it added to the object.
    var isAddedByPatch = false
}

/// An object label.
struct JSONKey: Sendable, Equatable {
    /// The label's bytes: as written between the quotes for a parsed label (escapes included), or the plain
    /// text of a label a path created.
    var bytes: [UInt8]
    /// Whether ``bytes`` is plain text that needs quoting and escaping when rendered (a label from a path).
    var isPlain: Bool
}

/// An argument of a JSON function: an SQL value and whether it carries SQLite's JSON subtype, i.e. whether it
/// came straight from a JSON-returning function (then a text is embedded as JSON rather than as a string).
package struct JSONArgument: Sendable {
    /// The SQL value.
    package var value: Value
    /// Whether the value is JSON text produced by a JSON function.
    package var isJSON: Bool

    /// Creates an argument.
    package init(_ value: Value, isJSON: Bool = false) {
        self.value = value
        self.isJSON = isJSON
    }
}

/// The failures of the JSON functions, with SQLite's messages.
enum JSONError: Error, Equatable {
    /// The document is not well-formed JSON (or nests deeper than 2000 levels).
    case malformed
    /// A path is malformed; `near` is the rest of the path from where the error was found.
    case badPath(near: [UInt8])
    /// A BLOB was to be embedded in JSON output.
    case blob
    /// `json_object` with an odd number of arguments.
    case objectArgumentCount
    /// `json_object` with a label that is not TEXT.
    case objectLabel
    /// `json_insert`, `json_replace` or `json_set` (`function`) with an even number of arguments.
    case editArgumentCount(function: String)
    /// An edit whose path would create containers nested deeper than ``JSONParser/maximumDepth``. Granite's
    /// own limit: SQLite builds such documents (which its parser then refuses) until its stack overflows.
    case tooDeep

    /// SQLite's message.
    var message: String {
        switch self {
        case .malformed: return "malformed JSON"
        case .badPath(let near): return "JSON path error near '\(String(decoding: near, as: UTF8.self))'"
        case .blob: return "JSON cannot hold BLOB values"
        case .objectArgumentCount: return "json_object() requires an even number of arguments"
        case .objectLabel: return "json_object() labels must be TEXT"
        case .editArgumentCount(let function): return "\(function)() needs an odd number of arguments"
        case .tooDeep: return "JSON nested too deep"
        }
    }

    /// The error as the evaluator reports it.
    var evaluationError: SQLEvaluationError { SQLEvaluationError(message) }
}

extension JSONNode {
    /// Whether the node is a container with a container among its children.
    private var holdsContainer: Bool {
        switch self {
        case .array(let elements, _): return elements.contains { $0.isContainer }
        case .object(let members): return members.contains { $0.value.isContainer }
        default: return false
        }
    }

    private var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }

    /// Releases the tree `node` holds without recursion, leaving `null`.
    ///
    /// Swift frees an indirect enum by recursing into its payload, one level of the tree per few stack frames;
    /// for documents near the depth limit that is more stack than a secondary thread may have. Here each
    /// container's children are first moved onto a work list, so that freeing a container never frees a
    /// child in turn. Nodes still referenced elsewhere are only released by this reference.
    static func dismantle(_ node: inout JSONNode) {
        // A scalar, or a container of scalars, is freed without deep recursion: no work list needed.
        guard node.holdsContainer else {
            node = .null
            return
        }
        var work: [JSONNode] = [node]
        node = .null
        while var next = work.popLast() {
            switch next {
            case .array(let elements, _):
                next = .null
                work.append(contentsOf: elements)
            case .object(let members):
                next = .null
                for member in members { work.append(member.value) }
            default:
                break
            }
        }
    }
}
