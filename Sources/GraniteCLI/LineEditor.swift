// A small line editor for the `granite sql` prompt: raw-mode terminal input with cursor movement,
// kill commands and a persistent history. The editing logic (`KeyDecoder`, `LineEditorState`,
// `LineHistory`) is pure and tested on its own; `LineEditor` only connects it to the terminal.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// MARK: Keys

/// One editing key, decoded from terminal input.
enum EditorKey: Equatable, Sendable {
    /// A character to insert (printable text, or a tab).
    case insert(Character)
    case enter
    case backspace
    case delete
    case left
    case right
    case home
    case end
    case up
    case down
    /// Ctrl-U: delete from the start of the line to the cursor.
    case killToStart
    /// Ctrl-K: delete from the cursor to the end of the line.
    case killToEnd
    /// Ctrl-W: delete the word before the cursor.
    case deleteWordBefore
    /// Ctrl-D: end of input on an empty line, else delete the character under the cursor.
    case endOfFile
    /// Ctrl-C: abandon the line.
    case interrupt
    /// Ctrl-L: clear the screen.
    case clearScreen
}

/// Turns terminal input bytes into keys: UTF-8 text, control characters and ANSI escape sequences.
/// Keeps partial sequences between calls, so input may arrive split anywhere.
struct KeyDecoder {
    private var pending: [UInt8] = []
    /// Whether the last byte was a carriage return (so a following line feed is not a second Enter).
    private var afterCarriageReturn = false

    /// The keys completed by `bytes`.
    mutating func decode(_ bytes: [UInt8]) -> [EditorKey] {
        var keys: [EditorKey] = []
        for byte in bytes { decode(byte, into: &keys) }
        return keys
    }

    private mutating func decode(_ byte: UInt8, into keys: inout [EditorKey]) {
        let wasCarriageReturn = afterCarriageReturn
        afterCarriageReturn = false
        guard let first = pending.first else {
            decodeFirst(byte, afterCarriageReturn: wasCarriageReturn, into: &keys)
            return
        }
        if first == 0x1B {
            decodeEscape(byte, into: &keys)
            return
        }
        // Inside a UTF-8 sequence.
        guard byte & 0xC0 == 0x80 else {
            pending = []
            decodeFirst(byte, afterCarriageReturn: false, into: &keys)
            return
        }
        pending.append(byte)
        if pending.count == Self.utf8Length(first) {
            if let text = String(validating: pending, as: UTF8.self), let character = text.first {
                keys.append(.insert(character))
            }
            pending = []
        }
    }

    private mutating func decodeFirst(_ byte: UInt8, afterCarriageReturn: Bool, into keys: inout [EditorKey]) {
        switch byte {
        case 0x1B: pending = [byte]
        case 0x20...0x7E: keys.append(.insert(Character(Unicode.Scalar(byte))))
        case 0x09: keys.append(.insert("\t"))
        case 0x0D:
            self.afterCarriageReturn = true
            keys.append(.enter)
        case 0x0A: if !afterCarriageReturn { keys.append(.enter) }
        case 0x7F, 0x08: keys.append(.backspace)
        case 0x01: keys.append(.home)
        case 0x05: keys.append(.end)
        case 0x02: keys.append(.left)
        case 0x06: keys.append(.right)
        case 0x10: keys.append(.up)
        case 0x0E: keys.append(.down)
        case 0x15: keys.append(.killToStart)
        case 0x0B: keys.append(.killToEnd)
        case 0x17: keys.append(.deleteWordBefore)
        case 0x04: keys.append(.endOfFile)
        case 0x03: keys.append(.interrupt)
        case 0x0C: keys.append(.clearScreen)
        case 0xC2...0xF4: pending = [byte]
        default: break  // other control characters and invalid UTF-8 lead bytes
        }
    }

    /// Continues `pending` (which starts with ESC).
    private mutating func decodeEscape(_ byte: UInt8, into keys: inout [EditorKey]) {
        if pending.count == 1 {
            if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "O") {
                pending.append(byte)
            } else {
                // A lone ESC (or Alt-key): ignore the ESC.
                pending = []
                decodeFirst(byte, afterCarriageReturn: false, into: &keys)
            }
            return
        }
        if pending[1] == UInt8(ascii: "O") {
            pending = []
            if let key = Self.finalKey(byte) { keys.append(key) }
            return
        }
        // CSI: parameter and intermediate bytes, then a final byte.
        switch byte {
        case 0x20...0x3F:
            pending.append(byte)
            if pending.count > 16 { pending = [] }
        case 0x40...0x7E:
            let parameters = String(decoding: pending.dropFirst(2), as: UTF8.self)
            pending = []
            if byte == UInt8(ascii: "~") {
                let first = parameters.split(separator: ";").first.flatMap { Int($0) }
                switch first {
                case 1, 7: keys.append(.home)
                case 4, 8: keys.append(.end)
                case 3: keys.append(.delete)
                default: break
                }
            } else if let key = Self.finalKey(byte) {
                keys.append(key)
            }
        default:
            pending = []
        }
    }

    private static func finalKey(_ byte: UInt8) -> EditorKey? {
        switch byte {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }

    private static func utf8Length(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC0...0xDF: 2
        case 0xE0...0xEF: 3
        default: 4
        }
    }
}

// MARK: History

/// The lines entered at the prompt: no blank lines, no consecutive duplicates, at most `capacity`.
struct LineHistory: Equatable {
    static let defaultCapacity = 1000

    let capacity: Int
    /// Oldest first.
    private(set) var entries: [String] = []
    /// The entries added in this session (appended to the file by `save`).
    private(set) var added: [String] = []

    init(capacity: Int = LineHistory.defaultCapacity, entries: [String] = []) {
        self.capacity = max(1, capacity)
        for entry in entries { append(entry) }
        added = []
    }

    /// Adds a line entered at the prompt; false when it is blank or repeats the last entry.
    @discardableResult
    mutating func add(_ line: String) -> Bool {
        guard append(line) else { return false }
        added.append(line)
        if added.count > capacity { added.removeFirst(added.count - capacity) }
        return true
    }

    @discardableResult
    private mutating func append(_ line: String) -> Bool {
        guard !Self.isBlank(line), line != entries.last, !line.contains(where: \.isNewline) else { return false }
        entries.append(line)
        if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        return true
    }

    private static func isBlank(_ line: String) -> Bool {
        line.allSatisfy(\.isWhitespace)
    }

    /// The history file: `$GRANITE_HISTORY` if set (nil, so no history file, when it is empty), else
    /// `~/.granite_history`.
    static func path(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let path = environment["GRANITE_HISTORY"] { return path.isEmpty ? nil : path }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home.hasSuffix("/") ? home + ".granite_history" : home + "/.granite_history"
    }

    /// The lines of a history file (empty when it is missing or unreadable).
    static func readLines(path: String) -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true)
            .map { String($0.hasSuffix("\r") ? $0.dropLast() : $0) }
    }

    /// The history stored at `path` (its last `capacity` entries).
    static func load(path: String, capacity: Int = LineHistory.defaultCapacity) -> LineHistory {
        LineHistory(capacity: capacity, entries: readLines(path: path))
    }

    /// Appends this session's entries to the file at `path` (as it is now, so concurrent sessions
    /// do not lose each other's lines), keeping its last `capacity` lines. Does nothing when no
    /// entries were added.
    func save(path: String) throws {
        guard !added.isEmpty else { return }
        let lines = (Self.readLines(path: path) + added).suffix(capacity)
        let text = lines.joined(separator: "\n") + "\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
        _ = chmod(path, 0o600)
    }
}

// MARK: Editing state

/// The line being edited: a pure state machine from keys to buffer, cursor, history position
/// and actions for the terminal.
struct LineEditorState {
    enum Action: Equatable {
        /// The line changed (or the cursor moved): redraw it.
        case redraw
        /// Nothing to do (the key did not apply): ring the bell, or ignore.
        case bell
        /// Enter: the line is complete (it was added to the history, and the state reset).
        case submit(String)
        /// Ctrl-D on an empty line.
        case endOfInput
        /// Ctrl-C: the line was abandoned (and the state reset).
        case interrupt
        /// Ctrl-L: clear the screen, then redraw.
        case clearScreen
    }

    /// The line, one element per character (grapheme cluster).
    private(set) var buffer: [Character] = []
    /// Where the cursor is, as an index into `buffer`.
    private(set) var cursor = 0
    private(set) var history: LineHistory
    /// The history entry shown; `history.entries.count` for the line being entered.
    private(set) var historyIndex: Int
    /// The line being entered, while the history is browsed.
    private var inProgress: [Character] = []
    /// Decodes bytes given to `feed`.
    private var decoder = KeyDecoder()

    init(history: LineHistory = LineHistory()) {
        self.history = history
        historyIndex = history.entries.count
    }

    var text: String { String(buffer) }

    /// Starts a new, empty line.
    mutating func reset() {
        buffer = []
        cursor = 0
        inProgress = []
        historyIndex = history.entries.count
    }

    /// Records a line entered some other way.
    mutating func addToHistory(_ line: String) {
        history.add(line)
        reset()
    }

    /// Decodes `bytes` and handles the keys, returning one action per key.
    mutating func feed(_ bytes: [UInt8]) -> [Action] {
        decoder.decode(bytes).map { handle($0) }
    }

    /// Feeds the UTF-8 of `text`.
    mutating func feed(_ text: String) -> [Action] {
        feed(Array(text.utf8))
    }

    mutating func handle(_ key: EditorKey) -> Action {
        switch key {
        case .insert(let character):
            insert(character)
            return .redraw
        case .enter:
            let line = text
            history.add(line)
            reset()
            return .submit(line)
        case .backspace:
            guard cursor > 0 else { return .bell }
            cursor -= 1
            buffer.remove(at: cursor)
            return .redraw
        case .delete:
            guard cursor < buffer.count else { return .bell }
            buffer.remove(at: cursor)
            return .redraw
        case .endOfFile:
            if buffer.isEmpty { return .endOfInput }
            return handle(.delete)
        case .left:
            guard cursor > 0 else { return .bell }
            cursor -= 1
            return .redraw
        case .right:
            guard cursor < buffer.count else { return .bell }
            cursor += 1
            return .redraw
        case .home:
            cursor = 0
            return .redraw
        case .end:
            cursor = buffer.count
            return .redraw
        case .killToStart:
            buffer.removeSubrange(0..<cursor)
            cursor = 0
            return .redraw
        case .killToEnd:
            buffer.removeSubrange(cursor...)
            return .redraw
        case .deleteWordBefore:
            var start = cursor
            while start > 0 && buffer[start - 1].isWhitespace { start -= 1 }
            while start > 0 && !buffer[start - 1].isWhitespace { start -= 1 }
            buffer.removeSubrange(start..<cursor)
            cursor = start
            return .redraw
        case .up:
            guard historyIndex > 0 else { return .bell }
            if historyIndex == history.entries.count { inProgress = buffer }
            historyIndex -= 1
            show(Array(history.entries[historyIndex]))
            return .redraw
        case .down:
            guard historyIndex < history.entries.count else { return .bell }
            historyIndex += 1
            show(historyIndex == history.entries.count ? inProgress : Array(history.entries[historyIndex]))
            return .redraw
        case .interrupt:
            reset()
            return .interrupt
        case .clearScreen:
            return .clearScreen
        }
    }

    private mutating func insert(_ character: Character) {
        // A combining mark joins the character before it.
        if cursor > 0 {
            let combined = String(buffer[cursor - 1]) + String(character)
            if combined.count == 1, let joined = combined.first {
                buffer[cursor - 1] = joined
                return
            }
        }
        buffer.insert(character, at: cursor)
        cursor += 1
    }

    private mutating func show(_ line: [Character]) {
        buffer = line
        cursor = line.count
    }

    // MARK: Display

    /// The columns `character` takes on a terminal (2 for wide East Asian characters and emoji).
    static func displayWidth(_ character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
            return 2
        default:
            return 1
        }
    }

    /// What the terminal shows for `character` (a tab is shown as one space).
    private static func shown(_ character: Character) -> String {
        character == "\t" ? " " : String(character)
    }

    /// The part of the line shown after `prompt` on a terminal `columns` wide, and the cursor's
    /// column within it. A line too long for the terminal scrolls horizontally, keeping the cursor
    /// visible, so the display never wraps.
    func visibleLine(promptWidth: Int, columns: Int) -> (text: String, cursorColumn: Int) {
        let available = max(1, columns - promptWidth - 1)
        let widths = buffer.map(Self.displayWidth)
        var start = 0
        var widthToCursor = widths[0..<cursor].reduce(0, +)
        while widthToCursor >= available && start < cursor {
            widthToCursor -= widths[start]
            start += 1
        }
        var end = start
        var width = 0
        while end < buffer.count && width + widths[end] <= available {
            width += widths[end]
            end += 1
        }
        let text = buffer[start..<end].map(Self.shown).joined()
        return (text, widthToCursor)
    }

    /// The escape sequences that redraw the line with `prompt` on a terminal `columns` wide.
    func render(prompt: String, columns: Int) -> String {
        let promptWidth = prompt.reduce(0) { $0 + Self.displayWidth($1) }
        let (text, cursorColumn) = visibleLine(promptWidth: promptWidth, columns: columns)
        var output = "\r" + prompt + text + "\u{1B}[0K\r"
        let column = promptWidth + cursorColumn
        if column > 0 { output += "\u{1B}[\(column)C" }
        return output
    }
}

// MARK: Terminal

/// The terminal mode to restore from a signal handler, and whether raw mode is on. Allocated
/// before any handler is installed, so the handler only reads memory.
private nonisolated(unsafe) let savedTerminalMode = UnsafeMutablePointer<termios>.allocate(capacity: 1)
private nonisolated(unsafe) let rawModeActive = UnsafeMutablePointer<sig_atomic_t>.allocate(capacity: 1)

/// SIGINT/SIGTERM while in raw mode: restores the terminal, then dies of the signal as before.
private func restoreTerminalAndReraise(_ signalNumber: Int32) {
    if rawModeActive.pointee != 0 {
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, savedTerminalMode)
        rawModeActive.pointee = 0
    }
    _ = signal(signalNumber, SIG_DFL)
    _ = raise(signalNumber)
}

/// Reads lines from the terminal with editing and history. Only for when standard input and
/// output are both terminals.
final class LineEditor {
    /// What `readLine` got.
    enum Result: Equatable {
        case line(String)
        /// Ctrl-C: the line (and any statement being collected) is abandoned.
        case interrupted
        /// Ctrl-D on an empty line, or the end of the input.
        case endOfInput
    }

    private(set) var state: LineEditorState
    private let historyPath: String?
    private var decoder = KeyDecoder()
    /// Keys read but not yet handled (typed ahead, or pasted after a newline).
    private var queuedKeys: [EditorKey] = []

    /// A line editor when standard input and output are terminals and TERM is set and not "dumb".
    static func forTerminal(environment: [String: String] = ProcessInfo.processInfo.environment) -> LineEditor? {
        guard isatty(STDIN_FILENO) != 0, isatty(STDOUT_FILENO) != 0 else { return nil }
        guard let term = environment["TERM"], !term.isEmpty, term != "dumb" else { return nil }
        let path = LineHistory.path(environment: environment)
        return LineEditor(history: path.map { LineHistory.load(path: $0) } ?? LineHistory(), historyPath: path)
    }

    init(history: LineHistory, historyPath: String?) {
        state = LineEditorState(history: history)
        self.historyPath = historyPath
    }

    /// Appends this session's lines to the history file (errors are ignored).
    func saveHistory() {
        guard let historyPath else { return }
        try? state.history.save(path: historyPath)
    }

    /// Reads one line after showing `prompt`.
    func readLine(prompt: String) -> Result {
        guard enterRawMode() else {
            // Not a usable terminal after all: read a plain line.
            writeOutput(prompt)
            guard let line = Swift.readLine(strippingNewline: true) else { return .endOfInput }
            state.addToHistory(line)
            return .line(line)
        }
        defer { leaveRawMode() }
        state.reset()
        write(state.render(prompt: prompt, columns: terminalColumns()))
        while true {
            if queuedKeys.isEmpty {
                var bytes = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &bytes, bytes.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    write("\n")
                    return .endOfInput
                }
                queuedKeys = decoder.decode(Array(bytes[0..<count]))
                continue
            }
            let key = queuedKeys.removeFirst()
            switch state.handle(key) {
            case .redraw:
                write(state.render(prompt: prompt, columns: terminalColumns()))
            case .bell:
                break
            case .clearScreen:
                write("\u{1B}[H\u{1B}[2J" + state.render(prompt: prompt, columns: terminalColumns()))
            case .submit(let line):
                write(Self.finalRender(prompt: prompt, line: line, columns: terminalColumns()) + "\n")
                return .line(line)
            case .interrupt:
                write("^C\n")
                return .interrupted
            case .endOfInput:
                write("\n")
                return .endOfInput
            }
        }
    }

    /// The line as shown once entered: from its start (cursor at the end of what fits).
    private static func finalRender(prompt: String, line: String, columns: Int) -> String {
        var shown = LineEditorState()
        for character in line { _ = shown.handle(.insert(character)) }
        _ = shown.handle(.home)
        let promptWidth = prompt.reduce(0) { $0 + LineEditorState.displayWidth($1) }
        let (text, _) = shown.visibleLine(promptWidth: promptWidth, columns: columns)
        return "\r" + prompt + text + "\u{1B}[0K"
    }

    private func write(_ text: String) {
        writeOutput(text)
    }

    private func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }

    private var previousInterruptHandler: __sighandler_t?
    private var previousTerminateHandler: __sighandler_t?

    private func enterRawMode() -> Bool {
        guard tcgetattr(STDIN_FILENO, savedTerminalMode) == 0 else { return false }
        var raw = savedTerminalMode.pointee
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        previousInterruptHandler = signal(SIGINT, restoreTerminalAndReraise)
        previousTerminateHandler = signal(SIGTERM, restoreTerminalAndReraise)
        rawModeActive.pointee = 1
        guard tcsetattr(STDIN_FILENO, TCSADRAIN, &raw) == 0 else {
            leaveRawMode()
            return false
        }
        return true
    }

    private func leaveRawMode() {
        _ = tcsetattr(STDIN_FILENO, TCSADRAIN, savedTerminalMode)
        rawModeActive.pointee = 0
        _ = signal(SIGINT, previousInterruptHandler)
        _ = signal(SIGTERM, previousTerminateHandler)
    }
}
