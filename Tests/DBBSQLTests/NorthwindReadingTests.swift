import DBBSQL
import Foundation
import Testing

/// Facts of the Northwind fixture (checked with the sqlite3 shell and Python), read through DBBSQL.
@Suite("Northwind: BLOB-free and BLOB-holding tables")
struct NorthwindReadingTests {
    private func open() throws -> DBBDatabase {
        try DBBDatabase(path: try fixture("northwind.sqlite").path, mode: .readOnly)
    }

    struct Shipper: Decodable, Equatable {
        var id: Int
        var companyName: String
        var phone: String?
        enum CodingKeys: String, CodingKey {
            case id = "ShipperID"
            case companyName = "CompanyName"
            case phone = "Phone"
        }
    }

    @Test("a BLOB-free table decodes into values")
    func shippers() throws {
        let db = try open()
        #expect(
            try db.fetchAll(Shipper.self, "SELECT * FROM Shippers ORDER BY ShipperID") == [
                Shipper(id: 1, companyName: "Speedy Express", phone: "(503) 555-9831"),
                Shipper(id: 2, companyName: "United Package", phone: "(503) 555-3199"),
                Shipper(id: 3, companyName: "Federal Shipping", phone: "(503) 555-9931"),
            ])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM [Order Details]") == 2155)
        #expect(try db.fetchValue(String.self, "SELECT CustomerID FROM Customers ORDER BY CustomerID") == "ALFKI")
    }

    @Test("BLOB columns read byte for byte: JPEG pictures of the documented sizes")
    func pictures() throws {
        let db = try open()
        let pictures = try db.fetchCursor(
            "SELECT CategoryName, Picture, hex(Picture) FROM Categories ORDER BY CategoryID"
        ).map {
            (try $0[0] as String, try $0[1] as Data, try $0[2] as String)
        }
        #expect(pictures.map(\.1.count) == [10151, 12107, 12007, 9756, 12131, 11280, 12338, 12069])
        for (name, picture, hex) in pictures {
            #expect(picture.prefix(2) == Data([0xFF, 0xD8]), "\(name) starts as a JPEG")
            // Each ends with the JPEG end marker FF D9 and one padding byte, as the sqlite3 shell shows.
            #expect(picture.suffix(3) == Data([0xFF, 0xD9, 0x00]), "\(name) ends with the JPEG end marker")
            #expect(picture.map { String(format: "%02X", $0) }.joined() == hex)
        }
        // Byte sum of the Beverages picture, computed independently with Python.
        #expect(pictures[0].0 == "Beverages")
        #expect(pictures[0].1.reduce(0) { $0 + Int($1) } == 1_201_767)
        let photos = try db.fetchValues(Data.self, "SELECT Photo FROM Employees ORDER BY EmployeeID")
        #expect(photos.count == 9)
        #expect(photos.reduce(0) { $0 + $1.count } == 108_144)
        #expect(photos.allSatisfy { $0.prefix(2) == Data([0xFF, 0xD8]) && $0.suffix(3) == Data([0xFF, 0xD9, 0x00]) })
        let row = try #require(try db.fetchCursor("SELECT * FROM Categories WHERE CategoryID = 1").next())
        #expect(row.dictionary["Picture"] == .blob(pictures[0].1))
        #expect(row.dictionary["Description"] == .text("Soft drinks, coffees, teas, beers, and ales"))
    }

    @Test("schema helpers: SQLite's own tables are left out, views count as tables for tableExists")
    func schema() throws {
        let db = try open()
        #expect(
            try db.tableNames() == [
                "Categories", "CustomerCustomerDemo", "CustomerDemographics", "Customers", "EmployeeTerritories",
                "Employees", "Order Details", "Orders", "Products", "Regions", "Shippers", "Suppliers", "Territories",
            ])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM sqlite_sequence") == 6)
        #expect(try db.tableExists("Order Details Extended"))  // one of the 17 views
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'view'") == 17)
        #expect(try db.columnExists("Picture", in: "Categories"))
        #expect(try db.columns(in: "Categories").map(\.declaredType) == ["INTEGER", "TEXT", "TEXT", "BLOB"])
    }

    @Test("a column holding both INTEGER and REAL keeps each value's storage class")
    func mixedStorage() throws {
        let db = try open()
        let prices = try db.fetchCursor("SELECT UnitPrice FROM Products").map { $0.value(at: 0) }
        #expect(prices.filter { $0.storageClass == .integer }.count == 42)
        #expect(prices.filter { $0.storageClass == .real }.count == 35)
        #expect(try db.fetchValue(DBBValue.self, "SELECT UnitPrice FROM Products WHERE ProductID = 1") == .integer(18))
        #expect(try db.fetchValue(Double.self, "SELECT UnitPrice FROM Products WHERE ProductID = 1") == 18)
    }

    @Test("writing to a copy works and leaves the fixture as it was")
    func writeToCopy() throws {
        let directory = try TemporaryFolder()
        let original = try Data(contentsOf: try fixture("northwind.sqlite"))
        let db = try DBBDatabase(path: try copyOfFixture("northwind.sqlite", into: directory).path)
        let picture = try #require(try db.fetchValue(Data.self, "SELECT Picture FROM Categories WHERE CategoryID = 1"))
        try db.inTransaction { db in
            try db.execute("INSERT INTO Categories (CategoryName, Picture) VALUES (?, ?)", "Copies", picture)
            try db.execute("UPDATE Shippers SET Phone = NULL WHERE ShipperID = 3")
        }
        #expect(db.lastInsertRowID == 9)
        #expect(try db.fetchValue(Data.self, "SELECT Picture FROM Categories WHERE CategoryID = 9") == picture)
        #expect(try db.fetchValue(String.self, "SELECT Phone FROM Shippers WHERE ShipperID = 3") == nil)
        try db.close()
        #expect(
            try Data(contentsOf: try fixture("northwind.sqlite")) == original)
    }
}
