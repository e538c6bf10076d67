// Tests of the `granite sql` line editor: key decoding, the editing state machine, rendering of
// long lines, and the history file.

import Foundation
import GraniteTestSupport
import XCTest

@testable import granite

final class LineEditorTests: XCTestCase {
    private let left = "\u{1B}[D"
    private let right = "\u{1B}[C"
    private let up = "\u{1B}[A"
    private let down = "\u{1B}[B"

    // MARK: Decoding

    func testDecodesControlKeysEscapeSequencesAndUTF8() {
        var decoder = KeyDecoder()
        XCTAssertEqual(
            decoder.decode(Array("a\u{7F}\u{08}\r\n\n".utf8)), [.insert("a"), .backspace, .backspace, .enter, .enter])
        XCTAssertEqual(
            decoder.decode(Array("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D\u{1B}OH\u{1B}OF\u{1B}[H\u{1B}[F".utf8)),
            [.up, .down, .right, .left, .home, .end, .home, .end])
        XCTAssertEqual(
            decoder.decode(Array("\u{1B}[1~\u{1B}[4~\u{1B}[7~\u{1B}[8~\u{1B}[3~\u{1B}[1;5C".utf8)),
            [.home, .end, .home, .end, .delete, .right])
        XCTAssertEqual(
            decoder.decode([0x01, 0x05, 0x02, 0x06, 0x10, 0x0E, 0x15, 0x0B, 0x17, 0x04, 0x03, 0x0C]),
            [
                .home, .end, .left, .right, .up, .down, .killToStart, .killToEnd, .deleteWordBefore, .endOfFile,
                .interrupt, .clearScreen,
            ])
        // Multi-byte characters and escape sequences split across reads.
        let bytes = Array("é€😀".utf8) + Array("\u{1B}[3~".utf8)
        var keys: [EditorKey] = []
        for byte in bytes { keys += decoder.decode([byte]) }
        XCTAssertEqual(keys, [.insert("é"), .insert("€"), .insert("😀"), .delete])
        // Invalid UTF-8 and unknown sequences are dropped; a lone ESC is ignored.
        XCTAssertEqual(
            decoder.decode([0xFF, 0xE2, 0x41, 0x1B, 0x62] + Array("\u{1B}[5~x".utf8)),
            [.insert("A"), .insert("b"), .insert("x")])
    }

    // MARK: Editing

    func testTypingMovingAndEnter() {
        var state = LineEditorState()
        XCTAssertEqual(state.feed("selct"), Array(repeating: .redraw, count: 5))
        _ = state.feed(left + left)
        _ = state.feed("e")
        XCTAssertEqual(state.text, "select")
        XCTAssertEqual(state.cursor, 4)
        _ = state.feed("\u{01}")  // Ctrl-A
        XCTAssertEqual(state.cursor, 0)
        XCTAssertEqual(state.feed(left), [.bell])
        _ = state.feed("\u{05} 1")  // Ctrl-E
        XCTAssertEqual(state.text, "select 1")
        XCTAssertEqual(state.feed(right), [.bell])
        _ = state.feed("\u{1B}[H" + right + "\u{1B}[3~")  // Home, Right, Delete
        XCTAssertEqual(state.text, "slect 1")
        _ = state.feed("\u{1B}[F")
        XCTAssertEqual(state.cursor, 7)
        XCTAssertEqual(state.feed("\r"), [.submit("slect 1")])
        XCTAssertEqual(state.text, "")
        XCTAssertEqual(state.cursor, 0)
        XCTAssertEqual(state.history.entries, ["slect 1"])
    }

    func testBackspaceInTheMiddleOfUTF8Text() {
        var state = LineEditorState()
        _ = state.feed("'héllo wörld 😀'")
        XCTAssertEqual(state.buffer.count, 15)
        _ = state.feed(left + left + left)  // before " 😀'" ... cursor after "d"
        XCTAssertEqual(state.cursor, 12)
        _ = state.feed("\u{7F}\u{7F}\u{7F}")
        XCTAssertEqual(state.text, "'héllo wö 😀'")
        _ = state.feed("\u{01}" + right + right + right + "\u{08}")  // Ctrl-H after "'hé"
        XCTAssertEqual(state.text, "'hllo wö 😀'")
        XCTAssertEqual(state.cursor, 2)
        _ = state.feed("ü")
        XCTAssertEqual(state.text, "'hüllo wö 😀'")
        // A combining accent joins the character before it, so one Backspace removes both.
        _ = state.feed("\u{05}" + left + "e\u{301}")
        XCTAssertEqual(state.text, "'hüllo wö 😀e\u{301}'")
        _ = state.feed("\u{7F}")
        XCTAssertEqual(state.text, "'hüllo wö 😀'")
        XCTAssertEqual(state.feed("\u{01}\u{7F}"), [.redraw, .bell])
    }

    func testKillCommands() {
        var state = LineEditorState()
        _ = state.feed("select a,  b from t")
        _ = state.feed(String(repeating: left, count: 7))  // cursor before " from"
        _ = state.feed("\u{0B}")  // Ctrl-K
        XCTAssertEqual(state.text, "select a,  b")
        _ = state.feed("\u{17}")  // Ctrl-W
        XCTAssertEqual(state.text, "select a,  ")
        _ = state.feed("\u{17}")  // whitespace, then the word
        XCTAssertEqual(state.text, "select ")
        _ = state.feed("x y" + left + left)
        _ = state.feed("\u{15}")  // Ctrl-U: up to the cursor
        XCTAssertEqual(state.text, " y")
        XCTAssertEqual(state.cursor, 0)
        _ = state.feed("\u{05}\u{15}")
        XCTAssertEqual(state.text, "")
        XCTAssertEqual(state.feed("\u{17}"), [.redraw])
    }

    func testControlDAndControlC() {
        var state = LineEditorState()
        XCTAssertEqual(state.feed("\u{04}"), [.endOfInput])
        _ = state.feed("abc" + left + left)
        XCTAssertEqual(state.feed("\u{04}"), [.redraw])  // deletes under the cursor
        XCTAssertEqual(state.text, "ac")
        _ = state.feed("\u{05}")
        XCTAssertEqual(state.feed("\u{04}"), [.bell])  // at the end of a non-empty line
        XCTAssertEqual(state.feed("\u{03}"), [.interrupt])
        XCTAssertEqual(state.text, "")
        XCTAssertEqual(state.history.entries, [])  // an abandoned line is not history
        XCTAssertEqual(state.feed("\u{04}"), [.endOfInput])
        XCTAssertEqual(state.feed("\u{0C}"), [.clearScreen])
    }

    func testHistoryNavigationKeepsTheLineInProgress() {
        var state = LineEditorState(history: LineHistory(entries: ["one", "two"]))
        _ = state.feed("thr")
        XCTAssertEqual(state.feed(up), [.redraw])
        XCTAssertEqual(state.text, "two")
        XCTAssertEqual(state.cursor, 3)
        _ = state.feed(up)
        XCTAssertEqual(state.text, "one")
        XCTAssertEqual(state.historyIndex, 0)
        XCTAssertEqual(state.feed(up), [.bell])
        _ = state.feed(down)
        XCTAssertEqual(state.text, "two")
        _ = state.feed(down)
        XCTAssertEqual(state.text, "thr")
        XCTAssertEqual(state.historyIndex, 2)
        XCTAssertEqual(state.feed(down), [.bell])
        _ = state.feed("ee\r")
        XCTAssertEqual(state.history.entries, ["one", "two", "three"])
        // Ctrl-P / Ctrl-N; a recalled line can be edited and entered.
        _ = state.feed("\u{10}\u{10}\u{7F}o\r")
        XCTAssertEqual(state.history.entries, ["one", "two", "three", "two"])
        // Duplicates of the last entry and blank lines are not added.
        _ = state.feed("\u{10}\r   \r\r")
        XCTAssertEqual(state.history.entries, ["one", "two", "three", "two"])
        XCTAssertEqual(state.history.added, ["three", "two"])
        _ = state.feed("\u{10}\u{0E}")
        XCTAssertEqual(state.text, "")
    }

    // MARK: Display

    func testLongLinesScrollWithinTheTerminalWidth() {
        var state = LineEditorState()
        _ = state.feed(String(repeating: "x", count: 30) + "0123456789")
        // 10 columns after a 10-column prompt leave 9 for text; the cursor stays visible.
        var (text, cursor) = state.visibleLine(promptWidth: 10, columns: 20)
        XCTAssertEqual(text, "23456789")
        XCTAssertEqual(cursor, 8)
        _ = state.feed("\u{01}")
        (text, cursor) = state.visibleLine(promptWidth: 10, columns: 20)
        XCTAssertEqual(text, "xxxxxxxxx")
        XCTAssertEqual(cursor, 0)
        let rendered = state.render(prompt: "granite> ", columns: 20)
        XCTAssertEqual(rendered, "\rgranite> xxxxxxxxxx\u{1B}[0K\r\u{1B}[9C")
        // Wide characters count two columns.
        var wide = LineEditorState()
        _ = wide.feed("日本語テキスト")
        (text, cursor) = wide.visibleLine(promptWidth: 0, columns: 9)
        XCTAssertEqual(text, "キスト")
        XCTAssertEqual(cursor, 6)
        // Short lines are shown whole, tabs as one space.
        var short = LineEditorState()
        _ = short.feed("a\tb" + left)
        XCTAssertEqual(short.render(prompt: "> ", columns: 80), "\r> a b\u{1B}[0K\r\u{1B}[4C")
    }

    // MARK: History file

    func testHistoryPath() {
        XCTAssertEqual(LineHistory.path(environment: ["HOME": "/home/u"]), "/home/u/.granite_history")
        XCTAssertEqual(LineHistory.path(environment: ["HOME": "/home/u", "GRANITE_HISTORY": "/tmp/h"]), "/tmp/h")
        XCTAssertNil(LineHistory.path(environment: ["HOME": "/home/u", "GRANITE_HISTORY": ""]))
        XCTAssertNil(LineHistory.path(environment: [:]))
    }

    func testHistoryFileLoadSaveAndCap() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("granite-history-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertEqual(LineHistory.load(path: path).entries, [])

        var history = LineHistory.load(path: path)
        history.add("select 1;")
        history.add("create table t(a,")
        history.add("  b);")
        try history.save(path: path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "select 1;\ncreate table t(a,\n  b);\n")

        // A second session appends only its own lines; saving nothing leaves the file alone.
        var second = LineHistory.load(path: path)
        XCTAssertEqual(second.entries, ["select 1;", "create table t(a,", "  b);"])
        XCTAssertEqual(second.added, [])
        try second.save(path: path)
        second.add("  b);")  // a duplicate of the last line
        second.add(".tables")
        try second.save(path: path)
        XCTAssertEqual(LineHistory.load(path: path).entries, ["select 1;", "create table t(a,", "  b);", ".tables"])

        // The file and the loaded history keep the last `capacity` lines.
        var big = LineHistory.load(path: path)
        for i in 0..<1100 { big.add("select \(i);") }
        XCTAssertEqual(big.entries.count, 1000)
        XCTAssertEqual(big.entries.first, "select 100;")
        try big.save(path: path)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 1000)
        XCTAssertEqual(lines.first, "select 100;")
        XCTAssertEqual(lines.last, "select 1099;")
        let small = LineHistory.load(path: path, capacity: 3)
        XCTAssertEqual(small.entries, ["select 1097;", "select 1098;", "select 1099;"])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
    }
}

/// `granite sql` at a real prompt, driven through tmux (skipped when tmux is not installed).
final class LineEditorTerminalTests: XCTestCase {
    private func tmuxPath() -> String? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/opt/homebrew/bin/tmux"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs tmux with `arguments`, returning its standard output. Uses posix_spawn and waitpid
    /// directly: the tmux server that the first command starts outlives it, which confuses
    /// Foundation's `Process`.
    @discardableResult
    private func tmux(_ tmux: String, _ socket: String, _ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("granite-tmux-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([tmux, "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, tmux, &actions, nil, argv, environ)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// Waits (up to 20 seconds) until `condition` holds.
    private func waitUntil(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try condition() { return true }
            usleep(50_000)
        }
        return false
    }

    func testEditingAndHistoryAtATerminal() throws {
        guard let tmux = tmuxPath() else { throw XCTSkip("tmux is not installed") }
        let binary = try GraniteCLITests.binary()
        let directory = try makeTemporaryDirectory(prefix: "granite-pty").url
        let history = directory.appendingPathComponent("history").path
        try "select 'from an earlier session';\n".write(toFile: history, atomically: true, encoding: .utf8)
        let modes = directory.appendingPathComponent("modes").path
        let socket = "granite-test-\(UUID().uuidString.prefix(8))"
        let command =
            "env TERM=xterm GRANITE_HISTORY='\(history)' '\(binary.path)' sql '\(directory.path)/db.granite';"
            + " stty -a > '\(modes)'; sleep 60"
        do {
            try self.tmux(tmux, socket, ["new-session", "-d", "-x", "80", "-y", "24", command])
        } catch {
            throw XCTSkip("tmux could not start: \(error)")
        }
        defer { _ = try? self.tmux(tmux, socket, ["kill-server"]) }
        func screen() -> String { (try? self.tmux(tmux, socket, ["capture-pane", "-p"])) ?? "" }
        func send(_ keys: String...) throws { try self.tmux(tmux, socket, ["send-keys"] + keys) }
        func type(_ text: String) throws { try self.tmux(tmux, socket, ["send-keys", "-l", text]) }

        guard waitUntil({ screen().contains("granite>") }) else {
            throw XCTSkip("the shell did not start under tmux: \(screen())")
        }
        // A multi-line statement, a line abandoned with Ctrl-C, then a recalled and edited line.
        try type("create table t(a)\\;")
        try send("Enter")
        try type("insert into t values (40),")
        try send("Enter")
        try type("(2)\\;")
        try send("Enter")
        try type("select 'nothing'")
        try send("Enter")
        try send("C-c")
        try type("select sum(a) + 1 from t\\;")
        try send("Enter")
        var found = waitUntil({ screen().contains("43") })
        XCTAssertTrue(found, screen())
        try send("Up", "Left", "Left", "Left", "Left", "Left", "Left", "Left", "Left", "Left", "BSpace", "BSpace")
        try type("* ")
        try send("Enter")
        found = waitUntil({ screen().contains("42") })
        XCTAssertTrue(found, screen())
        // Ctrl-C abandoned the pending statement, so this runs on its own.
        XCTAssertFalse(screen().contains("error"), screen())
        try send("C-d")
        XCTAssertTrue(waitUntil({ FileManager.default.fileExists(atPath: modes) }))
        usleep(200_000)
        // The terminal is back in its normal mode.
        let stty = try String(contentsOfFile: modes, encoding: .utf8)
        XCTAssertTrue(stty.contains(" icanon"), stty)
        XCTAssertTrue(stty.contains(" echo"), stty)
        XCTAssertFalse(stty.contains("-icanon"), stty)
        let lines = try String(contentsOfFile: history, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(
            lines,
            [
                "select 'from an earlier session';", "create table t(a);", "insert into t values (40),", "(2);",
                "select 'nothing'", "select sum(a) + 1 from t;", "select sum(a) * 1 from t;",
            ])
    }
}
