// Records of a CSV file (RFC 4180, as the sqlite3 shell's `.import` reads them), read line by line so a file of
// any size is read in constant memory: fields separated by a separator byte; a field in double quotes may hold the
// separator, line breaks and doubled quotes; a line ends with LF or CRLF.

/// A malformed CSV file, with the line where the bad record starts.
struct CSVError: Error, CustomStringConvertible {
    enum Problem {
        /// A quoted field whose closing quote is followed by something other than a separator or a line end.
        case unescapedQuote
        /// A quoted field still open at the end of the file.
        case unterminatedQuote
    }

    var problem: Problem
    /// The file's name as given, and the line (1-based) where the record starts.
    var source: String
    var line: Int

    var description: String {
        switch problem {
        case .unescapedQuote: return "\(source):\(line): unescaped \" character"
        case .unterminatedQuote: return "\(source):\(line): unterminated \"-quoted field"
        }
    }
}

/// Reads CSV records from a ``LineReader``.
struct CSVReader {
    private let lines: LineReader
    private let separator: UInt8
    /// The name errors and warnings give the input.
    let source: String
    /// The number of lines read so far.
    private(set) var lineNumber = 0
    /// The line where the last record returned started.
    private(set) var recordLine = 0
    /// The fields of the record being read, and the bytes of the field being read.
    private var fields: [String] = []
    private var field: [UInt8] = []

    init(lines: LineReader, separator: UInt8 = UInt8(ascii: ","), source: String) {
        self.lines = lines
        self.separator = separator
        self.source = source
    }

    /// The input bytes read so far.
    var bytesRead: Int64 { lines.bytesRead }

    /// The next record's fields, or nil at the end of the input. A blank line is a record of one empty field, as
    /// sqlite3 reads it.
    mutating func nextRecord() throws -> [String]? {
        guard var line = try nextLine() else { return nil }
        recordLine = lineNumber
        if lineNumber == 1, line.starts(with: [0xEF, 0xBB, 0xBF]) { line = line.dropFirst(3) }
        fields.removeAll(keepingCapacity: true)
        field.removeAll(keepingCapacity: true)
        var index = line.startIndex
        while true {
            let atFieldStart = index
            if index < line.endIndex && line[index] == UInt8(ascii: "\"") {
                index = try readQuoted(&line, from: index + 1)
            } else {
                while index < line.endIndex && line[index] != separator && line[index] != 0x0A { index += 1 }
                field.append(contentsOf: line[atFieldStart..<index])
                if index == line.endIndex || line[index] == 0x0A, field.last == 0x0D { field.removeLast() }
            }
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            guard index < line.endIndex, line[index] == separator else { return fields }
            index += 1
        }
    }

    /// Reads a quoted field whose content starts at `start` of `line`, reading further lines while it is open.
    /// Returns the index after the closing quote, which must be at a separator or the line's end.
    private mutating func readQuoted(_ line: inout ArraySlice<UInt8>, from start: Int) throws -> Int {
        var runStart = start
        var index = start
        while true {
            guard index < line.endIndex else {
                field.append(contentsOf: line[runStart..<index])
                guard let next = try nextLine() else {
                    throw CSVError(problem: .unterminatedQuote, source: source, line: recordLine)
                }
                line = next
                runStart = line.startIndex
                index = runStart
                continue
            }
            guard line[index] == UInt8(ascii: "\"") else {
                index += 1
                continue
            }
            field.append(contentsOf: line[runStart..<index])
            let after = index + 1
            if after < line.endIndex && line[after] == UInt8(ascii: "\"") {
                // A doubled quote is one quote of the content.
                field.append(UInt8(ascii: "\""))
                runStart = after + 1
                index = runStart
                continue
            }
            if after == line.endIndex || line[after] == separator || line[after] == 0x0A { return after }
            if line[after] == 0x0D && (after + 1 == line.endIndex || line[after + 1] == 0x0A) { return after + 1 }
            throw CSVError(problem: .unescapedQuote, source: source, line: recordLine)
        }
    }

    private mutating func nextLine() throws -> ArraySlice<UInt8>? {
        guard let line = try lines.nextLine() else { return nil }
        lineNumber += 1
        return line
    }
}
