import DBBBuilder
import Foundation
import Hummingbird

/// A book as the API shows it.
public struct BookDTO: ResponseCodable, Equatable, Sendable {
    public var id: Int64
    public var title: String
    public var author: String
    public var year: Int

    init(_ book: Book) {
        self.init(id: book.idNum, title: book.title, author: book.author, year: book.year)
    }

    public init(id: Int64, title: String, author: String, year: Int) {
        self.id = id
        self.title = title
        self.author = author
        self.year = year
    }
}

/// A new book, or the fields of a book to change (those present).
public struct BookInput: Codable, Sendable {
    public var title: String?
    public var author: String?
    public var year: Int?

    public init(title: String? = nil, author: String? = nil, year: Int? = nil) {
        self.title = title
        self.author = author
        self.year = year
    }
}

/// A member as the API shows it.
public struct MemberDTO: ResponseCodable, Equatable, Sendable {
    public var id: Int64
    public var name: String
    public var email: String
}

/// A new member.
public struct MemberInput: Codable, Sendable {
    public var name: String
    public var email: String

    public init(name: String, email: String) {
        self.name = name
        self.email = email
    }
}

/// A loan as the API shows it, with its book's title and its member's name.
public struct LoanDTO: ResponseCodable, Equatable, Sendable {
    public var id: Int64
    public var bookID: Int64
    public var title: String
    public var memberID: Int64
    public var member: String
    public var due: Date?
    public var returned: Bool

    init(_ loan: Loan) {
        id = loan.idNum
        bookID = loan.book?.idNum ?? 0
        title = loan.book?.title ?? ""
        memberID = loan.member?.idNum ?? 0
        member = loan.member?.name ?? ""
        due = loan.due
        returned = loan.returned
    }
}

/// A new loan: a book, to a member, for some days.
public struct LoanInput: Codable, Sendable {
    public var bookID: Int64
    public var memberID: Int64
    public var days: Int?

    public init(bookID: Int64, memberID: Int64, days: Int? = nil) {
        self.bookID = bookID
        self.memberID = memberID
        self.days = days
    }
}

/// One page of results, and how many there are in all.
public struct Page<Item: Codable & Sendable & Equatable>: ResponseCodable, Equatable, Sendable {
    public var items: [Item]
    public var total: Int
    public var offset: Int
    public var limit: Int
}
