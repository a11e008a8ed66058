import DBBSQL
import DBBSchema
import Foundation
import Testing

/// Key-path entries read and write through their key paths, and every entry knows the class its accessors were
/// written for, which registration checks before any accessor is called.
@Suite struct DBBPropertyAccessorTests {
    class Sample {
        var count = 1
        var observed = 0 {
            didSet { observedSets += 1 }
        }
        var observedSets = 0
        var doubled: Int {
            get { count * 2 }
            set { count = newValue / 2 }
        }
    }

    final class SubSample: Sample {}

    final class Unrelated {
        var count = 7
    }

    @Test func aKeyPathEntryAcceptsObjectsOfItsRootClassAndItsSubclassesOnly() {
        let entry = DBBPropertyPersistence(\Sample.count)
        #expect(entry.accessor.accepts(Sample()))
        #expect(entry.accessor.accepts(SubSample()))
        #expect(!entry.accessor.accepts(Unrelated()))
        let closures = DBBPropertyPersistence(\Unrelated.count, get: { $0.count }, set: { $0.count = $1 })
        #expect(closures.accessor.accepts(Unrelated()))
        #expect(!closures.accessor.accepts(Sample()))
    }

    @Test func keyPathEntriesRunObserversAndComputedSettersOnEveryWrite() throws {
        let sample = SubSample()
        guard case .scalar(let observed) = DBBPropertyPersistence(\Sample.observed).accessor,
            case .scalar(let doubled) = DBBPropertyPersistence(\Sample.doubled).accessor
        else {
            Issue.record("scalar entries expected")
            return
        }
        try observed.setStored(sample, .integer(5))
        try observed.setStored(sample, .integer(6))
        #expect(sample.observed == 6)
        #expect(sample.observedSets == 2)
        try doubled.setStored(sample, .integer(10))
        #expect(sample.count == 5)
        #expect(try doubled.get(sample, DBBCodingOptions()) == .integer(10))
    }
}
