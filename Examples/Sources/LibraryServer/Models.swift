import DBBBuilder
import Foundation

/// A book of the library.
@DBBTable(indexes: [DBBIndexer(columnsToIndex: ["title"])])
final class Book: DBBTableObject {
    var title = ""
    var author = ""
    var year = 0
}

/// A member who borrows books.
@DBBTable(indexes: [DBBIndexer(columnsToIndex: ["name"])])
final class Member: DBBTableObject {
    var name = ""
    var email = ""
}

/// A book lent to a member, until it is returned.
@DBBTable
final class Loan: DBBTableObject {
    var book: Book?
    var member: Member?
    var due: Date?
    var returned = false
}

/// The classes the server registers.
let libraryClasses: [DBBTableObject.Type] = [Book.self, Member.self, Loan.self]
