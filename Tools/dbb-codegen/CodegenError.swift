/// A failure of the generator, with the exit code it ends the process with (sysexits.h values).
struct CodegenError: Error, CustomStringConvertible {
    /// EX_DATAERR: a property list, type or table the generator cannot map.
    static let dataError: Int32 = 65
    /// EX_NOINPUT: a database or properties file that cannot be opened.
    static let noInput: Int32 = 66
    /// EX_CANTCREAT: an output file that cannot be written.
    static let cannotCreate: Int32 = 73

    var message: String
    var exitCode: Int32

    init(_ message: String, exitCode: Int32 = CodegenError.dataError) {
        self.message = message
        self.exitCode = exitCode
    }

    var description: String { message }
}
