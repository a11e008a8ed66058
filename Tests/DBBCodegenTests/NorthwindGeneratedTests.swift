import DBBBuilder
import Foundation
import Testing

/// The generated Northwind classes (`Generated/Northwind.swift`): every table mapped, those with TEXT or
/// composite primary keys through their rowid, kept equal to the tool's output and checked against SQLite.
@Suite struct NorthwindGeneratedTests {
    static let classes: [DBBTableObject.Type] = [
        Categories.self, CustomerCustomerDemo.self, CustomerDemographics.self, Customers.self,
        EmployeeTerritories.self, Employees.self, OrderDetails.self, Orders.self, Products.self, Regions.self,
        Shippers.self, Suppliers.self, Territories.self,
    ]

    @Test func theCommittedFileIsTheToolsOutputByteForByte() throws {
        let run = try Codegen.run(["--database", "northwind.sqlite", "--all-tables"], in: fixturesFolder)
        #expect(run.exitCode == 0)
        let committed = try Data(contentsOf: Codegen.generatedFolder.appendingPathComponent("Northwind.swift"))
        #expect(Data(run.standardOutput.utf8) == committed)
        let notes = run.standardError.components(separatedBy: "\n").filter { !$0.isEmpty }
        #expect(notes.count == 8)
        #expect(
            notes.contains(
                "dbb-codegen: note: class OrderDetails uses the rowid of table Order Details as its id: its primary key "
                    + "is composite (OrderID, ProductID)"))
        #expect(
            notes.contains(
                "dbb-codegen: note: class Customers uses the rowid of table Customers as its id: its primary key "
                    + "CustomerID is not an INTEGER PRIMARY KEY"))
    }

    @Test func everyTableLoadsEveryRowAndWritesItBackUnchanged() throws {
        let result = try GeneratedTablesCheck.run(fixture: "northwind.sqlite", classes: Self.classes)
        #expect(result.problems == [])
        #expect(result.tables.count == 13)
        #expect(result.tables.first { $0.table == "Order Details" }?.rows == 2155)
        #expect(result.tables.first { $0.table == "Customers" }?.rows == 93)
    }

    @Test func theComparisonSeesChangedValues() throws {
        let folder = try TemporaryFolder()
        let url = try copyOfFixture("northwind.sqlite", into: folder)
        let original = try fixture("northwind.sqlite")
        #expect(try GeneratedTablesCheck.differingRows(of: "Order Details", in: url, from: original) == 0)
        _ = try sqlite3Shell(url, "UPDATE [Order Details] SET UnitPrice = 14.5 WHERE rowid = 1")
        #expect(try GeneratedTablesCheck.differingRows(of: "Order Details", in: url, from: original) == 2)
        _ = try sqlite3Shell(url, "UPDATE Customers SET City = 'Paris' WHERE CustomerID = 'ALFKI'")
        #expect(try GeneratedTablesCheck.differingRows(of: "Customers", in: url, from: original) == 2)
    }

    @Test func anOrderReachesItsCustomerByTheTextKeyAndItsLinesByTheCompositeKey() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: try copyOfFixture("northwind.sqlite", into: folder))
        try manager.addTableClasses(Self.classes)
        let order = try #require(try Orders.fetchOne(id: 10248, manager: manager))
        #expect(order.customerID == "VINET")
        #expect(try order.customer?.companyName == "Vins et alcools Chevalier")
        #expect(try order.customer?.idNum ?? 0 > 0)

        let lines = try OrderDetails.fetch(
            options: .options(withConditions: ["order = 10248"], sortColumns: ["product"]), manager: manager)
        #expect(
            lines.map { $0.product?.productName } == [
                "Queso Cabrales", "Singaporean Hokkien Fried Mee", "Mozzarella di Giovanni",
            ])
        #expect(lines.map(\.unitPrice) == [14, 9.8, 34.8])
        #expect(lines.allSatisfy { $0.order === lines.first?.order })

        // Territory keys keep their leading zeros.
        let territories = try EmployeeTerritories.fetch(
            options: .options(withConditions: ["employee = 1"], sortColumns: ["territoryID"]), manager: manager)
        #expect(territories.map(\.territoryID) == ["06897", "19713"])
        #expect(try territories.first?.territory?.territoryDescription == "Wilton")
    }

    @Test func aTextKeyRowIsInsertedUpdatedAndItsKeyStaysUnique() throws {
        let folder = try TemporaryFolder()
        let url = try copyOfFixture("northwind.sqlite", into: folder)
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses(Self.classes)
        let customer = Customers(dbManager: manager)
        customer.customerID = "ZZTOP"
        customer.companyName = "Top Trading"
        try customer.save()
        #expect(
            try sqlite3Shell(url, "SELECT rowid, CompanyName FROM Customers WHERE CustomerID = 'ZZTOP'")
                == "\(customer.idNum)|Top Trading")
        customer.companyName = "Top Trading Ltd"
        try customer.save()
        #expect(
            try sqlite3Shell(url, "SELECT CompanyName FROM Customers WHERE CustomerID = 'ZZTOP'") == "Top Trading Ltd")

        let copy = Customers(dbManager: manager)
        copy.customerID = "ZZTOP"
        #expect(throws: DBBError.self) { try copy.save() }
        #expect(try sqlite3Shell(url, "SELECT count(*) FROM Customers") == "94")
    }
}
