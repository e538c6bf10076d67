// The interactive prompt of `granite sql`: line editing and history on a terminal, plain reads otherwise.

import Foundation

extension SQLSession {
    /// The interactive loop: prompts, reads lines, runs what completes.
    func runInteractive() {
        writeOutput("Granite SQL shell. Enter \".help\" for usage hints.\n")
        if let editor = LineEditor.forTerminal() {
            runEditing(with: editor)
            return
        }
        while !quitRequested {
            writeOutput(prompt)
            guard let line = readLine(strippingNewline: false) else {
                writeOutput("\n")
                break
            }
            _ = feed(Array(line.utf8)[...])
        }
    }

    /// The prompt for the next line.
    var prompt: String {
        isCollecting ? "   ...> " : "granite> "
    }

    /// The interactive loop with line editing and history (saved when the loop ends).
    func runEditing(with editor: LineEditor) {
        defer { editor.saveHistory() }
        while !quitRequested {
            switch editor.readLine(prompt: prompt) {
            case .line(let line):
                _ = feed(Array((line + "\n").utf8)[...])
            case .interrupted:
                discardPending()
            case .endOfInput:
                return
            }
        }
    }
}
