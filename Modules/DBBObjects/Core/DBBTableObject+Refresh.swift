internal import DBBSQL
internal import DBBSchema

extension DBBTableObject {
    /// Reloads the object's persisted properties from its row, as a fetch loads them, and marks it clean.
    ///
    /// A `manager.write { … }` that throws rolls the database back, and gives the objects saved or deleted
    /// inside their ids and saved state back; the values set on objects inside it stay as they were set.
    /// `refresh()` brings an object back to what its row holds:
    ///
    /// ```swift
    /// do {
    ///     try manager.write { _ in
    ///         book.title = "Draft"
    ///         try book.save()
    ///         throw Cancelled()
    ///     }
    /// } catch {
    ///     try book.refresh()  // book.title is the stored title again
    /// }
    /// ```
    ///
    /// References are loaded anew, as a fetch loads them: the objects the refreshed properties point to are
    /// objects of their own, not the ones the properties held before.
    ///
    /// - Throws: `DBBError` of kind `misuse` for an object that was never saved, of kind `rowDeleted` when its
    ///   row no longer exists, and what a fetch throws.
    public func refresh() throws {
        guard hasStoredRow else {
            throw DBBError.misuse(
                "a \(Swift.type(of: self)) that was never saved has no row to refresh from",
                recovery: "save it first, or fetch the object you mean", context: "refreshing an object")
        }
        let type = Swift.type(of: self)
        let map = try dbManager.map(for: type)
        guard let stored = try type.fetch(map.rowsRequest(ids: [idNum], sparse: false), manager: dbManager).first
        else {
            throw DBBError.rowDeleted(
                "\(type) \(idNum) no longer exists in table \(map.tableName)", context: "refreshing an object")
        }
        let coding = DBBCodingOptions.objectLayout
        for property in map.propertiesByName.values {
            switch property.accessor {
            case .scalar(let accessor): try accessor.setStored(self, try accessor.get(stored, coding))
            case .values(let accessor): try accessor.set(self, try accessor.get(stored, coding))
            case .object(let accessor): try accessor.set(self, accessor.get(stored))
            case .objects(let accessor): try accessor.set(self, accessor.get(stored))
            }
        }
        createdTime = stored.createdTime
        modifiedTime = stored.modifiedTime
        isDirty = false
    }
}
